"""The scripts goalbot puts in every document before the page's own: the watch (watch.js) and the
look (observe.js), the look under a name no page can know in advance nor take over once set.

A look then sends a call of one line instead of the look's 30 KB of source, every time: on a small
page that source was a quarter of a look's time, paid by Python, the driver and the renderer alike. A
document the scripts did not reach (a page open before goalbot attached) gets them on its first look.

goalbot's own calls (`evaluate`) carry their argument and answer as JSON text: Playwright's encoding
of them, done in Python, the driver and the page, cost more than a small script's work (a look of a
small page: 7 ms that way, 3.5 ms as JSON)."""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from importlib.resources import files
from typing import Any

from playwright.async_api import Frame, Page

from goalbot.operators.browser.checks import SETTLED_JS, SIGNATURE_JS
from goalbot.operators.browser.evidence_js import LISTED_BY_SELECTOR_JS

_SOURCES = files("goalbot.operators.browser")
WATCH_JS = _SOURCES.joinpath("watch.js").read_text(encoding="utf-8")
OBSERVE_JS = _SOURCES.joinpath("observe.js").read_text(encoding="utf-8").replace(
    "// @names", _SOURCES.joinpath("names.js").read_text(encoding="utf-8"))
# The top frame's look also answers the page's signature, so the action that follows it needs no
# call for one; asked to (`settle`: SETTLED_JS's arguments), it first waits for the page to settle
# and answers its change count then, in the same call. `find`: selectors a recipe will look for
# next, each answered as LISTED_BY_SELECTOR_JS does, from the element list this look made.
OBSERVE_TOP_JS = ("async (options) => { const changes = options.settle ? await (" + SETTLED_JS + ")(options.settle)"
                  " : null; const look = (" + OBSERVE_JS + ")(options);"
                  " const found = (options.find || []).map((selector) => (" + LISTED_BY_SELECTOR_JS + ")([selector]));"
                  " return {...look, signature: (" + SIGNATURE_JS + ")(), changes, found}; }")

# Per process: a page's script cannot have defined these names before goalbot's, and once
# defined (not writable, not configurable) it cannot replace them.
_LOOK = f"__goalbotLook_{secrets.token_hex(8)}"
_LOOK_FRAME = f"__goalbotLookFrame_{secrets.token_hex(8)}"
_CALL = f"__goalbotCall_{secrets.token_hex(8)}"

# JSON's functions are taken before the page's scripts run, so a page cannot answer for goalbot's
# scripts by replacing them. A toJSON on objects or arrays would rewrite every answer: with one
# present, the answer goes the slow way, as Playwright encodes it.
CALL_JS = """(() => {
  const stringify = JSON.stringify, parse = JSON.parse, describe = Object.getOwnPropertyDescriptor;
  const objects = Object.prototype, arrays = Array.prototype;
  return async (script, argument) => {
    const answer = await script(parse(argument));
    if (describe(objects, "toJSON") || describe(arrays, "toJSON")) return {slow: answer};
    return answer === undefined ? "null" : stringify(answer);
  };
})()"""

PAGE_SCRIPTS_JS = ("(() => {\n" + WATCH_JS + "\nif (!Object.getOwnPropertyDescriptor(window, " + repr(_LOOK) + ")) {\n"
                   f"  Object.defineProperty(window, {_LOOK!r}, {{ value: {OBSERVE_TOP_JS} }});\n"
                   f"  Object.defineProperty(window, {_LOOK_FRAME!r}, {{ value: {OBSERVE_JS} }});\n"
                   f"  Object.defineProperty(window, {_CALL!r}, {{ value: {CALL_JS} }});\n"
                   "}\n})()")


def look_by_name(top: bool) -> str:
    """The call of the installed look (the top frame's or a child frame's); it answers null in a
    document that lacks it."""
    name = _LOOK if top else _LOOK_FRAME
    return f"(options) => {{ const look = window[{name!r}]; return look ? look(options) : null; }}"


@lru_cache(maxsize=128)
def _by_json(script: str) -> str:
    return f"(argument) => {{ const call = window[{_CALL!r}]; return call ? call({script}, argument) : null; }}"


async def evaluate(target: Frame | Page, script: str, arg: Any = None) -> Any:
    """`target.evaluate(script, arg)` for a function `script` whose argument and answer are plain
    data (no NaN nor Infinity: JSON has none; an undefined in an object drops its key). A document
    the scripts did not reach is asked the usual way."""
    answer = await target.evaluate(_by_json(script), json.dumps(arg))
    if isinstance(answer, str):
        return json.loads(answer)
    if isinstance(answer, dict) and "slow" in answer:
        return answer["slow"]
    return await target.evaluate(script, arg)
