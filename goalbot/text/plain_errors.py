"""A validation error in the words of the person who gave the value: "--max-steps is 1 or more
(not 0)", never pydantic's "Input should be greater than or equal to 1"."""

from __future__ import annotations

from typing import Any, Mapping


def in_words(error: Mapping[str, Any]) -> str:
    """What was wrong with the value `error` is about, without its name."""
    kind, limits, given = error.get("type", ""), error.get("ctx") or {}, error.get("input")
    shown = f" (not {given!r})" if isinstance(given, (str, int, float, bool)) else ""
    said = {
        "greater_than_equal": f"is {limits.get('ge')} or more",
        "greater_than": f"is more than {limits.get('gt')}",
        "less_than_equal": f"is {limits.get('le')} at most",
        "less_than": f"is less than {limits.get('lt')}",
        "int_parsing": "is a whole number", "int_type": "is a whole number", "int_from_float": "is a whole number",
        "float_parsing": "is a number", "float_type": "is a number",
        "bool_parsing": "is true or false", "bool_type": "is true or false",
        "string_type": "is text", "dict_type": "is a table of names and values", "list_type": "is a list",
        "missing": "is needed",
        "literal_error": f"is one of {limits.get('expected', '')}",
        "enum": f"is one of {limits.get('expected', '')}",
        "string_too_short": f"has {limits.get('min_length')} characters or more",
        "string_too_long": f"has {limits.get('max_length')} characters at most",
        "extra_forbidden": "is not a field goalbot knows",
    }.get(kind)
    if said is None:  # a rule of goalbot's own: its message is already in words
        message = str(error.get("msg", "is not valid"))
        return message.removeprefix("Value error, ")
    return said + ("" if kind in ("missing", "extra_forbidden") else shown)
