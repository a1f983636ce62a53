"""JSON Schema validation whose patterns run in linear time. A schema comes from outside (a file, an
MCP host), and jsonschema runs `pattern`, `patternProperties` and the properties they leave for
`additionalProperties` with Python's backtracking `re`: here they run with RE2."""

from __future__ import annotations

from typing import Any, Iterator

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from goalbot.text.patterns import PatternError, linear, search


def _pattern(validator: Any, pattern: str, instance: Any, _schema: dict[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance[:80]!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any,
                        _schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            if search(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [name for name in instance if name not in named and not any(search(p, name) for p in patterns)]
    if validator.is_type(additional, "object"):
        for name in extras:
            yield from validator.descend(instance[name], additional, path=name)
    elif additional is False and extras:
        yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, extras[:10]))} "
                              f"{'was' if len(extras) == 1 else 'were'} unexpected)")


LinearValidator = validators.extend(Draft202012Validator, {
    "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
})


def pattern_problem(schema: Any) -> str | None:
    """Why a pattern in `schema` cannot be run (RE2 refuses it), or why the schema would run one
    outside RE2; None when every pattern is fine."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        properties = node.get("patternProperties")
        if isinstance(properties, dict):
            found.extend(properties)
            if "unevaluatedProperties" in node:  # jsonschema would match those names with Python's re
                return "unevaluatedProperties beside patternProperties is not taken: use additionalProperties"
        for pattern in found:
            try:
                linear(pattern)
            except PatternError as exc:
                return str(exc)
        stack.extend(node.values())
    return None
