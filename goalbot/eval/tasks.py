"""The tasks `goalbot eval` runs: MiniWoB++ pages from the `miniwob` package, judged by MiniWoB's
own reward, and goalbot's demo tasks, judged by the demo site's record of what was done."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class EvalTask(BaseModel):
    name: str
    source: Literal["miniwob", "demo"]
    about: str


def _miniwob(name: str, about: str) -> EvalTask:
    return EvalTask(name=name, source="miniwob", about=about)


# Pages a person could do with a mouse and a keyboard on the DOM, no drawing or dragging; the
# animated ones in their `-nodelay` form, where MiniWoB has one, so a slow model is not judged on
# an animation's timing.
MINIWOB = (
    _miniwob("click-test", "click the one button"),
    _miniwob("click-test-2", "click the named one of two buttons"),
    _miniwob("click-button", "click the button with the given label among text and fields"),
    _miniwob("click-button-sequence", "click two buttons in order"),
    _miniwob("click-link", "click the link with the given word in a paragraph"),
    _miniwob("click-option", "choose a radio button and submit"),
    _miniwob("click-checkboxes", "tick the named checkboxes and submit"),
    _miniwob("click-checkboxes-large", "tick many named checkboxes among many"),
    _miniwob("click-checkboxes-soft", "tick the checkboxes whose words mean the same as the given ones"),
    _miniwob("click-checkboxes-transfer", "tick the named checkboxes, a different layout"),
    _miniwob("click-collapsible-nodelay", "open a collapsed section and click its link"),
    _miniwob("click-collapsible-2-nodelay", "open the right section of several and click a link in it"),
    _miniwob("click-dialog", "close a dialog"),
    _miniwob("click-dialog-2", "answer a dialog with the named button"),
    _miniwob("click-menu-2", "choose an item in a menu"),
    _miniwob("click-tab", "open the named tab"),
    _miniwob("click-tab-2-easy", "open tabs to find a link and click it"),
    _miniwob("click-tab-2", "find a link behind one of several tabs"),
    _miniwob("click-widget", "click the widget of the named kind"),
    _miniwob("click-scroll-list", "choose items in a list that scrolls, then submit"),
    _miniwob("choose-list", "choose an item in a drop-down and submit"),
    _miniwob("enter-text", "type the given text and submit"),
    _miniwob("enter-text-2", "type the given text in upper or lower case"),
    _miniwob("enter-text-dynamic", "type a random string and submit"),
    _miniwob("enter-password", "type a password twice and submit"),
    _miniwob("focus-text", "put the cursor in the field"),
    _miniwob("focus-text-2", "put the cursor in the named one of three fields"),
    _miniwob("login-user", "sign in with a username and password"),
    _miniwob("login-user-popup", "sign in, closing a pop-up that may come"),
    _miniwob("multi-layouts", "fill a form laid out one of several ways"),
    _miniwob("multi-orderings", "fill a form whose fields come in any order"),
    _miniwob("navigate-tree", "open folders to find a file and click it"),
    _miniwob("read-table", "read a value from a table and type it"),
    _miniwob("search-engine", "search and open the n-th result, across pages"),
    _miniwob("social-media", "do the named action on a named user's post"),
    _miniwob("email-inbox", "reply to, forward, delete or star a named e-mail"),
    _miniwob("use-autocomplete-nodelay", "type a prefix and choose the suggestion that ends right"),
    _miniwob("find-word", "read the n-th word of a paragraph and type it"),
    _miniwob("phone-book", "find a contact across pages and click their detail"),
    _miniwob("simple-arithmetic", "work out a sum and type the answer"),
)

DEMO = (
    EvalTask(name="demo-signin", source="demo", about="sign in on the demo site and turn on dark mode"),
    EvalTask(name="demo-shop", source="demo", about="choose the most expensive lamp under 40 by a policy and put "
                                                    "it in the cart"),
    EvalTask(name="demo-rerun", source="demo", about="rerun the sign-in recipe after a redesign hid the dark-mode "
                                                     "switch behind a button: only a patch by the model reaches it"),
)
# The demo (goalbot/demo/goals.py) each demo task starts from.
DEMO_OF = {"demo-signin": "signin", "demo-shop": "shop", "demo-rerun": "signin"}

ALL = (*MINIWOB, *DEMO)
BY_NAME = {task.name: task for task in ALL}


class UnknownTask(ValueError):
    pass


def chosen(names: list[str] | None) -> list[EvalTask]:
    """The tasks named (all when none is), in the suite's order; an unknown name is refused with
    the closest known."""
    if not names:
        return list(ALL)
    import difflib

    for name in names:
        if name not in BY_NAME:
            close = difflib.get_close_matches(name, list(BY_NAME), n=1)
            hint = f"; did you mean {close[0]}?" if close else " (goalbot eval --list names them)"
            raise UnknownTask(f"no task {name!r} in the suite{hint}")
    return [task for task in ALL if task.name in names]
