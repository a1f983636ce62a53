"""The UI-TARS text dialect: `Thought: …` then `Action: click(start_box='(x,y)')`, one action per
paragraph, turned into goalbot's actions with their coordinates mapped onto the target."""

from __future__ import annotations

import re
from typing import Callable

from pydantic import ValidationError

from goalbot import actions as A
from goalbot.actions import Action
from goalbot.llm.coordinates import Convention, Geometry, looks_normalised, point_of
from goalbot.llm.keys import key_names
from goalbot.llm.repair import NoJson

_CALL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_ACTION_HEAD = re.compile(r"^\s*Action\s*:\s*", re.IGNORECASE | re.MULTILINE)
_THOUGHT = re.compile(r"Thought\s*:\s*(.*?)(?=^\s*Action\s*:|\Z)", re.IGNORECASE | re.DOTALL | re.MULTILINE)
WAIT_SECONDS = 5.0  # what UI-TARS means by wait(): look again after five seconds


class TextAnswerError(NoJson):
    """A text answer that cannot be turned into actions; the message is for the model."""


def parse_call(text: str) -> tuple[str, dict[str, str]]:
    """`name(key='value', other="v, (x)")` into its name and arguments, quotes honoured."""
    head = _CALL.match(text)
    if not head:
        raise TextAnswerError(f"{text.strip()[:60]!r} is not an action call like click(start_box='(x,y)')")
    args: dict[str, str] = {}
    i = head.end()
    while i < len(text):
        while i < len(text) and text[i] in " ,\n\t":
            i += 1
        if i < len(text) and text[i] == ")":
            return head.group(1).lower(), args
        key = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*", text[i:])
        if not key:
            raise TextAnswerError(f"cannot read the arguments of {head.group(1)}(…) near {text[i:i + 20]!r}")
        i += key.end()
        value, i = _value(text, i)
        args[key.group(1).lower()] = value
    raise TextAnswerError(f"{head.group(1)}(… is missing its closing parenthesis")


def _value(text: str, i: int) -> tuple[str, int]:
    if i < len(text) and text[i] in "'\"":
        quote, out, j = text[i], [], i + 1
        while j < len(text):
            ch = text[j]
            if ch == "\\" and j + 1 < len(text):
                nxt = text[j + 1]
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                j += 2
                continue
            if ch == quote:
                return "".join(out), j + 1
            out.append(ch)
            j += 1
        raise TextAnswerError("a quoted argument is never closed")
    end = i
    depth = 0
    while end < len(text) and not (depth == 0 and text[end] in ",)"):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    return text[i:end].strip(), end


class UiTarsParser:
    def __init__(self, geometry: Geometry, convention: Convention = Convention.PIXELS) -> None:
        self.geometry = geometry
        self.convention = convention

    def parse(self, content: str) -> list[Action]:
        found = _ACTION_HEAD.search(content)
        if not found:
            raise TextAnswerError("no `Action:` line: answer with Thought: … then Action: …")
        thought = _THOUGHT.search(content)
        self.thought = " ".join(thought.group(1).split()) if thought else ""
        body = _ACTION_HEAD.sub("", content[found.start():])
        calls = [chunk for chunk in re.split(r"\n\s*\n", body) if chunk.strip()]
        if not calls:
            raise TextAnswerError("`Action:` is empty: give at least one action")
        return [self._action(*parse_call(chunk)) for chunk in calls]

    def _point(self, args: dict[str, str], *keys: str) -> tuple[float, float]:
        for key in keys:
            if key in args:
                try:
                    x, y = point_of(args[key])
                except ValueError as exc:
                    raise TextAnswerError(str(exc)) from exc
                convention = Convention.NORMALISED if looks_normalised(x, y) else self.convention
                return self.geometry.to_target(x, y, convention)
        raise TextAnswerError(f"the action needs a position: {' or '.join(keys)}")

    def _action(self, name: str, args: dict[str, str]) -> Action:
        build = self._builders().get(name)
        if build is None:
            raise TextAnswerError(f"there is no action {name}(); use one of {', '.join(sorted(self._builders()))}")
        try:
            return build(args)
        except ValidationError as exc:
            raise TextAnswerError(f"{name}() arguments are wrong: {exc.errors()[0]['msg']}") from exc

    def _builders(self) -> dict[str, Callable[[dict[str, str]], Action]]:
        at = ("start_box", "point", "start_point", "box", "coordinate")
        return {
            "click": lambda a: A.Click(**self._xy(a, at)),
            "left_single": lambda a: A.Click(**self._xy(a, at)),
            "left_double": lambda a: A.DoubleClick(**self._xy(a, at)),
            "double_click": lambda a: A.DoubleClick(**self._xy(a, at)),
            "right_single": lambda a: A.RightClick(**self._xy(a, at)),
            "right_click": lambda a: A.RightClick(**self._xy(a, at)),
            "hover": lambda a: A.Hover(**self._xy(a, at)),
            "mouse_move": lambda a: A.Hover(**self._xy(a, at)),
            "drag": self._drag,
            "select": self._drag,
            "type": self._type,
            "hotkey": self._keys,
            "press": self._keys,
            "key": self._keys,
            "scroll": self._scroll,
            "wait": lambda a: A.Wait(seconds=WAIT_SECONDS),
            "finished": lambda a: A.Finished(success=True, summary=a.get("content", "")),
            "call_user": lambda a: A.CallUser(question=a.get("content") or self.thought or "I need your help here."),
            "navigate": lambda a: A.Navigate(url=a.get("url") or a.get("content", "")),
            "open_url": lambda a: A.Navigate(url=a.get("url") or a.get("content", "")),
            "navigate_back": lambda a: A.GoBack(),
            "go_back": lambda a: A.GoBack(),
        }

    def _xy(self, args: dict[str, str], keys: tuple[str, ...]) -> dict[str, float]:
        x, y = self._point(args, *keys)
        return {"x": x, "y": y}

    def _drag(self, args: dict[str, str]) -> Action:
        x, y = self._point(args, "start_box", "start_point", "point")
        to_x, to_y = self._point(args, "end_box", "end_point")
        return A.Drag(x=x, y=y, to_x=to_x, to_y=to_y)

    def _type(self, args: dict[str, str]) -> Action:
        text = args.get("content", args.get("text", ""))
        submit = text.endswith("\n")
        # UI-TARS types where the focus is, after clicking there: it adds, it does not replace.
        return A.Type(text=text.rstrip("\n") if submit else text, clear=False, submit=submit)

    def _keys(self, args: dict[str, str]) -> Action:
        keys = key_names(args.get("key") or args.get("hotkey") or args.get("keys") or "")
        if not keys:
            raise TextAnswerError("hotkey() needs key='…', such as key='ctrl c'")
        return A.Key(key=keys[0]) if len(keys) == 1 else A.Hotkey(keys=keys)

    def _scroll(self, args: dict[str, str]) -> Action:
        direction = args.get("direction", "down").strip().lower()
        if direction not in {d.value for d in A.Direction}:
            raise TextAnswerError(f"scroll direction {direction!r} is not up, down, left or right")
        point = {}
        if any(k in args for k in ("start_box", "point", "start_point")):
            point = self._xy(args, ("start_box", "point", "start_point"))
        return A.Scroll(direction=A.Direction(direction), **point)
