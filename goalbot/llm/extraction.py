"""Data out of a page, shaped by a JSON Schema the person gives (`--output-schema`): the schema is
read as hostile input, reaches the model both as the parameters of the one tool it may call and
in its prompt (endpoints that ignore structured output still read the prompt), and the answer is
validated strictly. An answer that does not fit is an `AnswerError` naming every problem, which
the dialogue sends back once as a repair; nothing is ever filled in with defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from goalbot.llm.answers import _template
from goalbot.llm.client import ChatReply
from goalbot.llm.dialects import Dialect
from goalbot.llm.parsing import AnswerError, parse_single
from goalbot.text.regular_file import read_regular_text
from goalbot.text.strict_json import NotStrictJson, strict_loads

MAX_SCHEMA_BYTES = 1_000_000
MAX_ERRORS = 8  # listed in a repair or a failure; more only repeat the same mistake
TOOL = "extracted"


class SchemaError(Exception):
    """A schema that cannot be used; one line naming the problem."""


class ExtractedAnswer(BaseModel):
    data: Any = None


def load_schema(path: Path) -> dict[str, Any]:
    """The JSON Schema in `path`, checked: a regular file of bounded size, strict JSON, a valid
    schema (draft 2020-12), and no `$ref` that leads back to itself."""
    if not path.is_file():
        raise SchemaError(f"{path} is not a file")
    if path.stat().st_size > MAX_SCHEMA_BYTES:
        raise SchemaError(f"{path} is over {MAX_SCHEMA_BYTES // 1_000_000} MB: not a schema")
    try:
        schema = strict_loads(read_regular_text(path, MAX_SCHEMA_BYTES), str(path), "a schema")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"cannot read {path}: {exc}") from exc
    except NotStrictJson as exc:
        raise SchemaError(str(exc)) from exc
    try:
        return checked(schema, str(path))
    except RecursionError as exc:
        raise SchemaError(f"{path} is nested too deeply to be a schema") from exc


def checked(schema: object, where: str = "the schema") -> dict[str, Any]:
    if not isinstance(schema, dict):
        raise SchemaError(f"{where} holds {type(schema).__name__}, not a JSON Schema object")
    # jsonschema loads only for a run that has a schema: it is a tenth of a second of every start
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError as InvalidSchema

    from goalbot.llm.schema_check import pattern_problem

    try:
        Draft202012Validator.check_schema(schema)
    except InvalidSchema as exc:
        at = "/".join(str(part) for part in exc.absolute_path) or "the top"
        raise SchemaError(f"{where} is not a valid JSON Schema at {at}: {exc.message[:200]}") from exc
    _no_ref_loop(schema, schema, where)
    problem = pattern_problem(schema)
    if problem is not None:
        raise SchemaError(f"{where}: {problem}")
    return schema


def problems(data: Any, schema: dict[str, Any]) -> list[str]:
    """Every way `data` fails `schema`, as "path: what is wrong"; empty when it fits."""
    from goalbot.llm.schema_check import LinearValidator

    found = sorted(LinearValidator(schema).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(the whole answer)'}: {e.message[:200]}"
            for e in found[:MAX_ERRORS]]


class SchemaAnswer:
    """The extractor's answer: one `extracted {data}` call whose `data` is shaped by `schema`."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.last: Any = None  # the latest data the model gave, kept to report a failure
        self._text = json.dumps(schema, ensure_ascii=False)

    def tools(self, dialect: Dialect) -> list[dict[str, Any]]:
        if dialect is not Dialect.TOOLS:
            return []
        parameters = {"type": "object", "properties": {"data": self.schema}, "required": ["data"]}
        return [{"type": "function", "function": {
            "name": TOOL, "description": "The data the instruction asks for, read from the page.",
            "parameters": parameters}}]

    def instructions(self, dialect: Dialect) -> str:
        if dialect is Dialect.TOOLS:
            return ""
        wrapped = json.dumps({"type": "object", "properties": {"data": self.schema}, "required": ["data"]})
        return _template("answer-object.md").substitute(tool=TOOL, schema=wrapped)

    def reminder(self, dialect: Dialect) -> str:
        how = f"Call `{TOOL}` once with" if dialect is Dialect.TOOLS else "Answer with one JSON object:"
        return f'{how} {{"data": …}}, where data fits this JSON Schema exactly: {self._text}'

    def response_schema(self, dialect: Dialect) -> dict[str, Any] | None:
        if dialect is not Dialect.STRUCTURED:
            return None
        return {"type": "object", "properties": {"data": self.schema}, "required": ["data"]}

    def parse(self, reply: ChatReply, dialect: Dialect) -> Any:
        answer = parse_single(reply, TOOL, ExtractedAnswer)
        self.last = answer.data
        wrong = problems(answer.data, self.schema)
        if wrong:
            raise AnswerError("the data does not fit the schema: " + "; ".join(wrong))
        return answer.data


def _no_ref_loop(node: Any, root: dict[str, Any], where: str, seen: tuple[str, ...] = ()) -> None:
    """A `$ref` chain that comes back to where it started, with nothing between, can never be
    checked: refused. Local references only (`#/…`); a schema names no other file."""
    if isinstance(node, list):
        for item in node:
            _no_ref_loop(item, root, where, seen)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#"):
            raise SchemaError(f"{where}: $ref {ref!r} points outside the schema; only #/… references are read")
        if ref in seen:
            raise SchemaError(f"{where}: $ref {ref!r} leads back to itself")
        target = _pointer(root, ref, where)
        if set(node) <= {"$ref", "description", "title"}:
            _no_ref_loop(target, root, where, (*seen, ref))
    for key, value in node.items():
        if key != "$ref":
            _no_ref_loop(value, root, where)


def _pointer(root: dict[str, Any], ref: str, where: str) -> Any:
    node: Any = root
    for part in [p.replace("~1", "/").replace("~0", "~") for p in ref[1:].split("/") if p]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(f"{where}: $ref {ref!r} points at nothing")
    return node



def sections(text: str, budget: int) -> list[str]:
    """A big page's text in parts of at most `budget` characters, cut between lines where it can
    be: each part is one extractor call, and a record (a table's row) stays whole in one part."""
    if len(text) <= budget:
        return [text]
    parts, current = [], ""
    for line in text.splitlines(keepends=True):
        while len(line) > budget:  # one line longer than a part: cut it where it must be cut
            if current:
                parts.append(current)
                current = ""
            parts.append(line[:budget])
            line = line[budget:]
        if len(current) + len(line) > budget:
            parts.append(current)
            current = ""
        current += line
    if current.strip():
        parts.append(current)
    return parts


def relaxed(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema one part of a page is read by: what the whole asks to be there (its required
    fields, its smallest list) may be in another part. What a record must hold stays strict."""
    loose = {key: value for key, value in schema.items() if key not in ("required", "minItems", "minProperties")}
    if isinstance(schema.get("properties"), dict):
        loose["properties"] = {name: ({k: v for k, v in sub.items() if k != "minItems"} if isinstance(sub, dict) else sub)
                               for name, sub in schema["properties"].items()}
    return loose


def merged(parts: list[Any]) -> Any:
    """What the parts of a page gave, as one answer: lists are joined in page order; of any other
    value, the first part that has one gives it."""
    given = [part for part in parts if part is not None]
    if not given:
        return None
    if all(isinstance(part, list) for part in given):
        return [item for part in given for item in part]
    if all(isinstance(part, dict) for part in given):
        keys = list(dict.fromkeys(key for part in given for key in part))
        return {key: merged([part.get(key) for part in given]) for key in keys}
    return given[0]
