"""Which way each role's model answers: tool calls, UI-TARS text, JSON text, or JSON text held to
the answer's schema by the server (`structured`: `response_format`, which llama.cpp, vLLM and
Ollama enforce with a grammar, so a small model answers in shape).

`auto` asks for tool calls until the endpoint refuses them, then for JSON text, and remembers.
"""

from __future__ import annotations

from enum import StrEnum

from goalbot.llm.client import ROLES as ROLE_NAMES
from goalbot.llm.coordinates import Convention


class Dialect(StrEnum):
    AUTO = "auto"
    TOOLS = "tools"
    UITARS = "uitars"
    JSON = "json"
    STRUCTURED = "structured"


# The convention each dialect's models use unless the person says otherwise with --coords.
DEFAULT_CONVENTION = {
    Dialect.UITARS: Convention.RELATIVE_1000,  # UI-TARS 1.0 and Qwen2-VL; 1.5 wants --coords pixels
    Dialect.JSON: Convention.PIXELS,
    Dialect.STRUCTURED: Convention.PIXELS,
    Dialect.TOOLS: Convention.PIXELS,
    Dialect.AUTO: Convention.PIXELS,
}


class DialectError(ValueError):
    pass


def parse_dialects(values: list[str] | None) -> dict[str, Dialect]:
    """`--dialect json` for every role, `--dialect navigator=uitars` for one; later ones win."""
    chosen: dict[str, Dialect] = {}
    for value in values or []:
        role, _, name = value.rpartition("=")
        roles = [role] if role else list(ROLE_NAMES)
        if role and role not in ROLE_NAMES:
            raise DialectError(f"--dialect {value}: the roles are {', '.join(ROLE_NAMES)}")
        try:
            dialect = Dialect(name)
        except ValueError:
            options = "|".join(d.value for d in Dialect)
            raise DialectError(f"--dialect {value}: choose {options}") from None
        chosen.update({r: dialect for r in roles})
    return chosen


class DialectChoice:
    """The dialect in force for each role; auto settles on text once tools are refused."""

    def __init__(self, chosen: dict[str, Dialect] | None = None) -> None:
        self.chosen = {role: (chosen or {}).get(role, Dialect.AUTO) for role in ROLE_NAMES}
        self._tools_refused: set[str] = set()

    def asked(self, role: str) -> Dialect:
        return self.chosen[role]

    def current(self, role: str) -> Dialect:
        dialect = self.chosen[role]
        if dialect is Dialect.AUTO:
            return Dialect.JSON if role in self._tools_refused else Dialect.TOOLS
        return dialect

    def fall_back(self, role: str) -> bool:
        """After the endpoint refused tools: True when the role may go on in text."""
        if self.chosen[role] is not Dialect.AUTO or role in self._tools_refused:
            return False
        self._tools_refused.add(role)
        return True

    def convention(self, role: str, override: Convention | None) -> Convention:
        return override or DEFAULT_CONVENTION[self.chosen[role]]
