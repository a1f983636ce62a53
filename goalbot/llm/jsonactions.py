"""The JSON dialect: actions written as JSON in the text (fenced or bare, one object or a list),
with the names and keys models commonly use (`left_click`, `input`, `press`, `shortcut`,
`sleep`, `done`, `coordinate`, …), into goalbot's actions."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from goalbot.actions import ACTION_ADAPTER, ACTIONS_BY_NAME, Action, present
from goalbot.llm.coordinates import Convention, Geometry, looks_normalised, point_of
from goalbot.llm.keys import key_names
from goalbot.llm.repair import NoJson, find_json

NAME_ALIASES = {
    "left_click": "click", "tap": "click", "left_single": "click",
    "dblclick": "double_click", "left_double": "double_click",
    "right_single": "right_click", "context_click": "right_click",
    "mouse_move": "hover", "move": "hover", "move_to": "hover",
    "drag_and_drop": "drag", "left_click_drag": "drag",
    "input": "type", "type_text": "type", "fill": "type", "enter_text": "type", "write": "type",
    "press": "key", "key_press": "key", "keypress": "key",
    "shortcut": "hotkey", "key_combination": "hotkey", "keys": "hotkey",
    "select": "select_option", "pick": "choose",
    "goto": "navigate", "go_to": "navigate", "open_url": "navigate", "visit": "navigate", "open": "navigate",
    "back": "go_back", "navigate_back": "go_back",
    "upload": "upload_file", "sleep": "wait", "pause": "wait",
    "save": "save_data", "read": "extract", "scrape": "extract",
    "ask": "call_user", "ask_user": "call_user",
    "done": "finished", "finish": "finished", "complete": "finished", "stop": "finished",
}
NAME_KEYS = ("action", "name", "type", "tool", "function", "action_type")
NESTED_ARGS = ("arguments", "args", "parameters", "params", "action_input")
POINT_KEYS = ("coordinate", "coordinates", "coords", "point", "position", "start_box", "box", "bbox", "start_coordinate", "from")
END_KEYS = ("end_coordinate", "end_box", "end_point", "to", "target_coordinate")
TEXT_KEYS = ("text", "content", "value", "input", "string")
INDEX_KEYS = ("index", "element", "element_index", "element_id", "idx")


class JsonDialect:
    def __init__(self, geometry: Geometry | None = None, convention: Convention = Convention.PIXELS) -> None:
        self.geometry = geometry
        self.convention = convention

    def parse(self, content: str) -> list[Action]:
        found = find_json(content)
        if isinstance(found, dict) and isinstance(found.get("actions"), list) and not any(
                key in found for key in NAME_KEYS):
            found = found["actions"]  # the structured dialect's shape: {"actions": [...]}
        items = found if isinstance(found, list) else [found]
        if not items:
            raise NoJson("the answer is an empty list: give at least one action")
        return [self._one(item) for item in items]

    def _one(self, item: Any) -> Action:
        if not isinstance(item, dict):
            raise NoJson(f"each action must be a JSON object, not {json.dumps(item)[:40]}")
        raw_name, args = self._name_and_args(item)
        name = NAME_ALIASES.get(raw_name, raw_name)
        name, shaped = self._shape(name, args)
        try:
            known = ACTIONS_BY_NAME.get(name)
            return ACTION_ADAPTER.validate_python({**(present(shaped, known) if known else shaped), "name": name})
        except ValidationError as exc:
            if any(e["type"] == "union_tag_invalid" for e in exc.errors()):
                raise NoJson(f"there is no action `{raw_name}`") from exc
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "arguments"
            raise NoJson(f"`{name}` arguments are wrong: {where}: {first['msg']}") from exc

    @staticmethod
    def _name_and_args(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        name_key = next((k for k in NAME_KEYS if isinstance(item.get(k), (str, dict))), None)
        if name_key is None:
            raise NoJson(f"an action object needs an \"action\" name; got keys {sorted(item)}")
        name = item[name_key]
        args = {k: v for k, v in item.items() if k != name_key and k not in ("thought", "reasoning")}
        if isinstance(name, dict):  # {"function": {"name": "click", "arguments": "{…}"}}
            args, name = {**args, **name}, name.get("name", "")
        for key in NESTED_ARGS:
            nested = args.pop(key, None)
            if isinstance(nested, str):
                nested = find_json(nested) if nested.strip() else {}
            if isinstance(nested, dict):
                args.update(nested)
        return str(name).strip().lower(), args

    def _shape(self, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if name in ("extract", "choose"):  # their `from` is a key and `scope` an element, never a point
            return name, _data_args(name, args)
        out: dict[str, Any] = {}
        index = next((args[k] for k in INDEX_KEYS if isinstance(args.get(k), int)), None)
        if index is not None:
            out["index"] = index
        point = self._point(args, POINT_KEYS)
        if point is None and isinstance(args.get("x"), (int, float)) and isinstance(args.get("y"), (int, float)):
            point = self._map(float(args["x"]), float(args["y"]))
        if point is not None and name != "select_option":
            out["x"], out["y"] = point
        text = next((args[k] for k in TEXT_KEYS if isinstance(args.get(k), str)), None)
        if name == "type":
            out.update({k: args[k] for k in ("clear", "submit") if k in args})
            if text is not None:
                out["text"] = text
        elif name == "drag":
            end = self._point(args, END_KEYS)
            if end is not None:
                out["to_x"], out["to_y"] = end
            out.update({k: args[k] for k in ("to_index", "to_x", "to_y") if k in args})
        elif name in ("key", "hotkey"):
            keys = key_names(args.get("keys") or args.get("key") or args.get("combo") or text or "")
            if name == "key" and len(keys) == 1:
                out["key"] = keys[0]
            else:  # "press ctrl+c" is a combination whatever it was called
                name, out["keys"] = "hotkey", keys
        elif name == "wait":
            out.update(self._seconds(args))
        elif name == "finished":
            summary = args.get("summary") or args.get("answer") or args.get("result") or text or ""
            status = str(args.get("status", "success")).lower()
            out.update(summary=str(summary), success=bool(args.get("success", status not in ("failed", "failure", "error"))))
        else:
            out.update({k: v for k, v in args.items() if k not in out and k not in POINT_KEYS + INDEX_KEYS + TEXT_KEYS})
            if text is not None and name in ("select_option", "save_data", "call_user"):
                out.setdefault({"select_option": "option", "save_data": "value", "call_user": "question"}[name], text)
            if name == "navigate":
                out.setdefault("url", args.get("href") or args.get("link"))
        return name, {k: v for k, v in out.items() if v is not None}

    def _point(self, args: dict[str, Any], keys: tuple[str, ...]) -> tuple[float, float] | None:
        for key in keys:
            value = args.get(key)
            if value is None:
                continue
            try:
                x, y = point_of(json.dumps(value) if not isinstance(value, str) else value)
            except ValueError as exc:
                raise NoJson(f"`{key}`: {exc}") from exc
            return self._map(x, y)
        return None

    def _map(self, x: float, y: float) -> tuple[float, float]:
        if self.geometry is None:
            return x, y
        convention = Convention.NORMALISED if looks_normalised(x, y) else self.convention
        return self.geometry.to_target(x, y, convention)

    @staticmethod
    def _seconds(args: dict[str, Any]) -> dict[str, Any]:
        if isinstance(args.get("seconds"), (int, float)):
            return {"seconds": args["seconds"], **({"text": args["text"]} if "text" in args else {})}
        duration = args.get("duration", args.get("time", args.get("ms")))
        if isinstance(duration, (int, float)):
            # The seed's parsers count milliseconds; a model saying `"duration": 2` means seconds.
            return {"seconds": duration / 1000 if duration > 60 or "ms" in args else duration}
        return {}


def _data_args(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """`extract` and `choose` as models write them: the schema's and the list's keys by their
    JSON names (`schema`, `from`) or as Python spells them (`schema_`, `from_`)."""
    def first(*keys: str) -> Any:
        return next((args[k] for k in keys if args.get(k) is not None), None)

    if name == "extract":
        scope = first("scope", *INDEX_KEYS)
        shaped = {"instruction": first("instruction", "query", "what", *TEXT_KEYS),
                  "key": first("key", "save_as", "as"), "schema": first("schema", "schema_", "output_schema"),
                  "scope": scope if isinstance(scope, int) else None}
    else:
        shaped = {"from": first("from", "from_", "source", "candidates", "key"),
                  "policy": first("policy", "rule", "rules"), "act": first("act", "click")}
    return {key: value for key, value in shaped.items() if value is not None}
