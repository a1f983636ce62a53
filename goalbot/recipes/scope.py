"""Where a recipe's action runs: the {{variables}} in force, the loop pass's row, the block it is
part of, and whether the site's sign-in recipe is running. A rerun passes its scope down to each
step and action, and a loop, a block or a sign-in makes a new one for what runs inside it, so a
sign-in that renews an expired session in the middle of a loop's pass is never looked for in
that pass's row."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypeVar, overload

from goalbot.recipes.model import Evidence
from goalbot.recipes.variables import each_text, fill, names_in

T = TypeVar("T")


@dataclass(frozen=True)
class Scope:
    values: dict[str, str] = field(default_factory=dict)
    row: tuple[str, int] | None = None  # a loop's pass: its record's row (the rows' selector, its row among them)
    block: str = ""  # the block's recipe, when a step runs another recipe
    signing_in: bool = False  # the site's sign-in recipe runs: its pages are wherever the wall was

    def pass_over(self, row: tuple[str, int], record: dict[str, str]) -> Scope:
        """A loop's pass: its row, with its record's fields as {{each_FIELD}}."""
        return replace(self, values={**self.values, **record}, row=row)

    def block_of(self, name: str, values: dict[str, str]) -> Scope:
        """Another recipe run as a step: its own variables, out of any pass's row."""
        return Scope(values=values, block=name, signing_in=self.signing_in)

    def sign_in(self, values: dict[str, str]) -> Scope:
        """The site's sign-in recipe, wherever the wall came: no row, no block, its own values."""
        return Scope(values=values, signing_in=True)

    def filled(self, value: T) -> T:
        return fill(value, self.values) if isinstance(value, str) else value  # type: ignore[return-value]

    @overload
    def named(self, evidence: Evidence) -> Evidence: ...
    @overload
    def named(self, evidence: None) -> None: ...
    @overload
    def named(self, evidence: Evidence | None) -> Evidence | None: ...

    def named(self, evidence: Evidence | None) -> Evidence | None:
        """The evidence with today's values in it: a link named by the product is found by today's."""
        return each_text(evidence, self.filled) if evidence is not None else None

    def exact(self, evidence: Evidence) -> list[str]:
        """The element's names that hold one of today's values: matched as they are, not as alike."""
        return [self.filled(text) for text in (evidence.name, evidence.label, evidence.placeholder)
                if names_in(text)]
