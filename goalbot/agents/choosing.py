"""Choice policies (seed 002 §5.4): which candidate to take, by the person's rules, the same way on
every rerun and without a model. A policy is data, never code: `hard` filters drop candidates,
`score` rules add points, `pick` takes the highest or the lowest score, and `tie_break` keys
settle a draw. A value may be `{{vars.NAME}}`, filled from the rerun's `--var NAME=…`.

    {"cheapest_front": {"hard": [{"field": "price", "op": "<=", "value": "{{vars.MAX}}"},
                                 {"field": "available", "op": "==", "value": true}],
                        "score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": 10}],
                        "tie_break": ["price_asc", "label_asc"], "pick": "argmax"}}
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from goalbot.text.patterns import PatternError, linear, search
from goalbot.text.plain_errors import in_words
from goalbot.text.strict_json import NotStrictJson, strict_loads

MAX_POLICY_BYTES = 200_000
MAX_PATTERN = 200  # a `matches` pattern longer than this is refused: a file is hostile input
# A quantified group holding a quantifier, "(a+)+": on a page's text it can backtrack for ever.
VARIABLE = re.compile(r"\{\{\s*vars\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
TIE_BREAK = re.compile(r"([A-Za-z_][\w.]*)_(asc|desc)")
POLICY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class PolicyError(Exception):
    """A policy that cannot be read or applied; the message names the field."""


class Op(StrEnum):
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    IN = "in"
    NOT_IN = "not_in"
    CONTAINS = "contains"
    MATCHES = "matches"
    EXISTS = "exists"


class Condition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(pattern=r"^[A-Za-z_][\w]*(\.[A-Za-z_0-9][\w]*)*$", description="A key, or a dotted path.")
    op: Op
    value: Any = None

    @field_validator("value")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        if isinstance(value, dict):
            raise ValueError("a value is a word, a number, true/false, null or a list of them")
        if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
            raise ValueError("a list value holds words, numbers or true/false only")
        return value

    def words(self, variables: dict[str, str] | None = None) -> str:
        """In words, with the values the run was given in place of `{{vars.NAME}}` (`price <= 40`)."""
        value = self.value
        if variables:
            try:
                value = _filled(value, variables)
            except KeyError:  # a value not given: the policy is said as written
                pass
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # --var MAX=50 reads as 50, not 50.0
        return f"{self.field} {self.op.value} {json.dumps(value, ensure_ascii=False)}"


class ScoreRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    when: Condition
    add: float


class Policy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    hard: list[Condition] = Field(default_factory=list)
    score: list[ScoreRule] = Field(default_factory=list)
    tie_break: list[str] = Field(default_factory=list, description='"price_asc", "label_desc": a field and a way.')
    pick: Literal["argmax", "argmin"] = "argmax"

    @field_validator("tie_break")
    @classmethod
    def _keys(cls, keys: list[str]) -> list[str]:
        for key in keys:
            if not TIE_BREAK.fullmatch(key):
                raise ValueError(f"{key!r} is not FIELD_asc or FIELD_desc")
        return keys

    def conditions(self) -> list[Condition]:
        return [*self.hard, *(rule.when for rule in self.score)]

    def variables(self) -> set[str]:
        """The `--var` names its values need."""
        return {name for condition in self.conditions() for name in VARIABLE.findall(json.dumps(condition.value))}

    def words(self, variables: dict[str, str] | None = None) -> str:
        parts = []
        if self.hard:
            parts.append("only " + "; ".join(c.words(variables) for c in self.hard))
        parts += [f"+{rule.add:g} when {rule.when.words(variables)}" for rule in self.score]
        parts.append(f"pick {'highest' if self.pick == 'argmax' else 'lowest'} score")
        if self.tie_break:
            parts.append("ties by " + ", ".join(self.tie_break))
        return " · ".join(parts)


class Row(BaseModel):
    """One candidate's line in the table a choice shows: why it was dropped, or its score."""

    candidate: dict[str, Any]
    dropped_by: str | None = None
    score: float | None = None


class Choice(BaseModel):
    policy: str
    chosen: dict[str, Any] | None
    table: list[Row]
    tie_break: str | None = Field(None, description="The key that settled a draw, when one did.")
    position: int | None = Field(None, description="The chosen candidate's place in the list, from 0.")


class NoCandidate(Exception):
    """Every candidate was dropped: a checkpoint for the person, never a silent pick."""

    def __init__(self, choice: Choice) -> None:
        super().__init__(f"policy {choice.policy}: no candidate is left "
                         f"({len(choice.table)} dropped by its hard rules)")
        self.choice = choice


def read_policies(text: str, where: str = "policies.json") -> dict[str, Policy]:
    """The policies a file holds; PolicyError with one line naming the bad field otherwise."""
    if len(text.encode("utf-8")) > MAX_POLICY_BYTES:
        raise PolicyError(f"{where} is over {MAX_POLICY_BYTES // 1000} kB: not a file of policies")
    try:
        raw = strict_loads(text, where, "a file of policies")
    except NotStrictJson as exc:
        raise PolicyError(str(exc)) from exc
    return policies_of(raw, where)


def policies_of(raw: object, where: str = "policies.json") -> dict[str, Policy]:
    if not isinstance(raw, dict):
        raise PolicyError(f"{where} holds {type(raw).__name__}, not an object of named policies")
    policies = {}
    for name, body in raw.items():
        if not POLICY_NAME.fullmatch(name):
            raise PolicyError(f"{where}: bad policy name {name!r}: letters, digits, '.', '_' or '-'")
        try:
            policy = Policy.model_validate(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"])
            raise PolicyError(f"{where}: {name}.{field}: {_said(first)}") from exc
        for condition in policy.conditions():
            if condition.op is Op.MATCHES:
                _pattern(condition, f"{where}: {name}")
            if condition.op in (Op.IN, Op.NOT_IN) and not isinstance(condition.value, list):
                raise PolicyError(f"{where}: {name}: {condition.words()}: `{condition.op}` needs a list")
        policies[name] = policy
    return policies


def choose(name: str, policy: Policy, candidates: list[dict[str, Any]], variables: dict[str, str]) -> Choice:
    """The candidate `policy` picks, and the table that says why; NoCandidate when none is left."""
    missing = sorted(policy.variables() - set(variables))
    if missing:
        raise PolicyError(f"policy {name} needs --var {' --var '.join(f'{m}=…' for m in missing)}")
    table: list[Row] = []
    for candidate in candidates:
        failed = next((c for c in policy.hard if not _holds(c, candidate, variables)), None)
        if failed is not None:
            table.append(Row(candidate=candidate, dropped_by=why_dropped(failed, candidate, variables)))
            continue
        score = sum(rule.add for rule in policy.score if _holds(rule.when, candidate, variables))
        table.append(Row(candidate=candidate, score=score))
    left = [row for row in table if row.score is not None]
    if not left:
        raise NoCandidate(Choice(policy=name, chosen=None, table=table))
    scores = [row.score for row in left if row.score is not None]
    best = max(scores) if policy.pick == "argmax" else min(scores)
    tied = [row for row in left if row.score == best]
    settled_by = None
    for key in policy.tie_break:
        if len(tied) < 2:
            break
        field, way = TIE_BREAK.fullmatch(key).groups()  # type: ignore[union-attr]
        values = [(_sortable(_get(row.candidate, field)), row) for row in tied]
        known = [pair for pair in values if pair[0] is not None]
        if not known:
            continue
        edge = (min if way == "asc" else max)(value for value, _ in known)  # type: ignore[type-var]
        narrowed = [row for value, row in known if value == edge]
        if len(narrowed) < len(tied):
            settled_by = key
        tied = narrowed
    position = next(n for n, row in enumerate(table) if row is tied[0])
    return Choice(policy=name, chosen=tied[0].candidate, table=table, tie_break=settled_by, position=position)


# What is true of a candidate that fails a rule: the table says why it went, never the rule it
# missed (`name contains "Lamp"` next to a chair read as the reason, backwards).
_FAILED = {Op.EQ: "!=", Op.NE: "==", Op.LT: ">=", Op.LE: ">", Op.GT: "<=", Op.GE: "<",
           Op.IN: "is not in", Op.NOT_IN: "is in", Op.CONTAINS: "does not contain", Op.MATCHES: "does not match"}
_ORDERED = (Op.LT, Op.LE, Op.GT, Op.GE)


def why_dropped(condition: Condition, candidate: dict[str, Any], variables: dict[str, str]) -> str:
    """The hard rule `candidate` failed, said as what holds of it: `price > 55`, `name does not contain "Lamp"`."""
    present, actual = _has(candidate, condition.field)
    said = condition.words(variables)[len(f"{condition.field} {condition.op.value} "):]
    if condition.op is Op.EXISTS:
        return f"{condition.field} is {'missing' if not present else 'present'}"
    if not present:
        return f"{condition.field} is missing"
    expected = _filled(condition.value, variables)
    if condition.op in _ORDERED and (not _comparable(actual, expected) or isinstance(actual, bool)):
        return f"{condition.field} {json.dumps(actual, ensure_ascii=False)} cannot be compared with {said}"
    return f"{condition.field} {_FAILED[condition.op]} {said}"


def _holds(condition: Condition, candidate: dict[str, Any], variables: dict[str, str]) -> bool:
    present, actual = _has(candidate, condition.field)
    expected = _filled(condition.value, variables)
    match condition.op:
        case Op.EXISTS:
            return present == (expected is not False)
        case _ if not present:
            return False
        case Op.EQ | Op.NE:
            same = _comparable(actual, expected) and _number_or_self(actual) == _number_or_self(expected)
            return same if condition.op is Op.EQ else not same
        case Op.LT | Op.LE | Op.GT | Op.GE:
            if not _comparable(actual, expected) or isinstance(actual, bool):
                return False
            a, b = _number_or_self(actual), _number_or_self(expected)
            return {Op.LT: a < b, Op.LE: a <= b, Op.GT: a > b, Op.GE: a >= b}[condition.op]
        case Op.IN | Op.NOT_IN:
            inside = any(_comparable(actual, item) and _number_or_self(actual) == _number_or_self(item)
                         for item in expected or [])
            return inside if condition.op is Op.IN else not inside
        case Op.CONTAINS:
            if isinstance(actual, str):
                return isinstance(expected, str) and expected.casefold() in actual.casefold()
            return isinstance(actual, list) and expected in actual
        case Op.MATCHES:
            return isinstance(actual, str) and search(str(expected), actual)
    return False


def _filled(value: Any, variables: dict[str, str]) -> Any:
    """`{{vars.NAME}}` as the rerun's value; a whole-value variable that reads as a number is one."""
    if isinstance(value, list):
        return [_filled(item, variables) for item in value]
    if not isinstance(value, str) or not VARIABLE.search(value):
        return value
    whole = VARIABLE.fullmatch(value.strip())
    text = VARIABLE.sub(lambda m: variables[m.group(1)], value)
    return _number_or_self(text) if whole else text


def _has(candidate: dict[str, Any], path: str) -> tuple[bool, Any]:
    value: Any = candidate
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def _get(candidate: dict[str, Any], path: str) -> Any:
    return _has(candidate, path)[1]


def _number_or_self(value: Any) -> Any:
    """A number, also when written as one ("12.50", "1,200"); anything else as it is."""
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").strip())
        except ValueError:
            return value
    return value


def _comparable(a: Any, b: Any) -> bool:
    a, b = _number_or_self(a), _number_or_self(b)
    numbers = (int, float)
    return (isinstance(a, numbers) and isinstance(b, numbers)) or type(a) is type(b)


def _sortable(value: Any) -> Any:
    value = _number_or_self(value)
    return value if isinstance(value, (int, float, str)) and not isinstance(value, bool) else None


def _pattern(condition: Condition, where: str) -> None:
    if not isinstance(condition.value, str) or len(condition.value) > MAX_PATTERN:
        raise PolicyError(f"{where}: {condition.field} matches: a pattern is a word of at most "
                          f"{MAX_PATTERN} characters")
    try:
        linear(condition.value)
    except PatternError as exc:
        raise PolicyError(f"{where}: {condition.field} matches: {exc}") from exc


def _said(error: Any) -> str:
    if error["type"] == "enum":
        return f"unknown operator {error['input']!r} (one of {' '.join(op.value for op in Op)})"
    if error["type"] == "extra_forbidden":
        return "is not a part of a policy (hard, score, tie_break, pick)"
    if error["type"] == "missing":
        return "is missing"
    return in_words(error)



def choice_rules(policies: dict[str, Any]) -> str:
    """Policies as a person reads them beside a plan: one line each, in words."""
    try:
        read = policies_of(policies, "the policies")
    except PolicyError as exc:
        return f"Choice policies: {exc}"
    return "Choice policies:\n" + "\n".join(f"  {name}: {policy.words()}" for name, policy in read.items())
