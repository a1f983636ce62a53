"""The action vocabulary shared by the model layer and the operators.

Every model dialect ends up as these models; every operator executes them. The class docstring
is the tool description the model reads, so it is written for the model.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, WithJsonSchema, model_validator


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Targeted(_Action):
    index: int | None = Field(None, description="Element index from the latest observation.")
    x: float | None = Field(None, description="X coordinate, when no index applies.")
    y: float | None = Field(None, description="Y coordinate, when no index applies.")

    @model_validator(mode="after")
    def _needs_target(self) -> _Targeted:
        if self.index is None and (self.x is None or self.y is None):
            raise ValueError("give an element `index`, or both `x` and `y`")
        return self


class Click(_Targeted):
    """Click an element (by index) or a point."""

    name: Literal["click"] = "click"


class DoubleClick(_Targeted):
    """Double-click an element or a point."""

    name: Literal["double_click"] = "double_click"


class RightClick(_Targeted):
    """Right-click an element or a point."""

    name: Literal["right_click"] = "right_click"


class Hover(_Targeted):
    """Move the pointer over an element or a point."""

    name: Literal["hover"] = "hover"


class Drag(_Action):
    """Drag from one element (or point) to another."""

    name: Literal["drag"] = "drag"
    index: int | None = None
    to_index: int | None = None
    x: float | None = None
    y: float | None = None
    to_x: float | None = None
    to_y: float | None = None

    @model_validator(mode="after")
    def _needs_ends(self) -> Drag:
        by_index = self.index is not None and self.to_index is not None
        by_point = None not in (self.x, self.y, self.to_x, self.to_y)
        if not (by_index or by_point):
            raise ValueError("give `index` and `to_index`, or `x`, `y`, `to_x`, `to_y`")
        return self


class Direction(StrEnum):
    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"


class Scroll(_Action):
    """Scroll the page, or the scroll container with `index` (or under `x`,`y`), in a direction."""

    name: Literal["scroll"] = "scroll"
    direction: Direction = Direction.DOWN
    amount: int | None = Field(None, description="Pixels; default is most of a screen.")
    index: int | None = None
    x: float | None = None
    y: float | None = None


class Type(_Action):
    """Type text into the element with `index` (else the focused element)."""

    name: Literal["type"] = "type"
    text: str
    index: int | None = None
    clear: bool = Field(True, description="Replace what the field holds.")
    submit: bool = Field(False, description="Press Enter after typing.")


class Key(_Action):
    """Press one key, such as Enter, Escape, Tab or ArrowDown."""

    name: Literal["key"] = "key"
    key: str


class Hotkey(_Action):
    """Press a key combination, such as ["Control", "a"]."""

    name: Literal["hotkey"] = "hotkey"
    keys: list[str] = Field(min_length=1)


class SelectOption(_Action):
    """Choose an option of the select, listbox or combobox with `index`, by its text or value."""

    name: Literal["select_option"] = "select_option"
    index: int
    option: str
    keep_others: bool = Field(False, description="On a list marked `multiple`: add this option to those "
                                                 "already chosen (✓) instead of replacing them.")


class Navigate(_Action):
    """Open a URL in the current tab."""

    name: Literal["navigate"] = "navigate"
    url: str


class GoBack(_Action):
    """Go back one page in the current tab's history."""

    name: Literal["go_back"] = "go_back"


class SwitchTab(_Action):
    """Make the tab with this number (from the observation's tab list) the current one."""

    name: Literal["switch_tab"] = "switch_tab"
    tab: int


class CloseTab(_Action):
    """Close the tab with this number (default: the current one)."""

    name: Literal["close_tab"] = "close_tab"
    tab: int | None = None


class UploadFile(_Action):
    """Put a local file into the file input (or file-picker button) with `index`."""

    name: Literal["upload_file"] = "upload_file"
    index: int
    path: str = Field(description="Path of the file on this machine.")


class Wait(_Action):
    """Wait `seconds`; with `text`, wait until that text shows on the page (at most `seconds`)."""

    name: Literal["wait"] = "wait"
    seconds: float | None = Field(None, ge=0, le=120, description="Default 1, or 10 with text.")
    text: str | None = None

    @property
    def patience(self) -> float:
        if self.seconds is not None:
            return self.seconds
        return 10.0 if self.text else 1.0


class SaveData(_Action):
    """Keep a piece of extracted data for the final answer."""

    name: Literal["save_data"] = "save_data"
    key: str
    value: str


DATA_KEY = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
# One type list rather than `anyOf`, which several local servers reject in a tool's parameters.
NAME_OR_OBJECT = WithJsonSchema({"type": ["string", "object"]})


class Extract(_Action):
    """Read data off the page into `key`, shaped by a JSON Schema: `schema` is the name of one the
    run was given, or a schema written inline (left out: the run's only one). `scope`: an element
    index, to read only inside it. The data comes back checked against the schema."""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)

    name: Literal["extract"] = "extract"
    instruction: str = Field(min_length=1, description="What to read, e.g. \"every seat with its row and price\".")
    key: str = Field(pattern=DATA_KEY, description="The name the data is kept under.")
    schema_: Annotated[str | dict[str, Any], NAME_OR_OBJECT] = Field(
        "", alias="schema", description="A schema's name, or a JSON Schema.")
    scope: int | None = Field(None, description="Element index: read only inside this element.")


class Choose(_Action):
    """Take one of the candidates kept under `from` (a key, or key.path to a list) by a choice
    policy: `policy` is a policy's name, or one written inline ({"hard": […], "score": […],
    "tie_break": […], "pick": "argmax"}). With `act`, click the chosen candidate's element."""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)

    name: Literal["choose"] = "choose"
    from_: str = Field(alias="from", pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$",
                       description="The key of extracted data, or key.path to a list in it.")
    policy: Annotated[str | dict[str, Any], NAME_OR_OBJECT] = Field(description="A policy's name, or a policy object.")
    act: bool = Field(False, description="Click the chosen candidate's element on the page.")


class CallUser(_Action):
    """Ask the person a question and wait for the answer."""

    name: Literal["call_user"] = "call_user"
    question: str


class Finished(_Action):
    """End the current step: say whether it succeeded and what was done."""

    name: Literal["finished"] = "finished"
    success: bool = True
    summary: str = ""


Action = Annotated[
    Union[
        Click, DoubleClick, RightClick, Hover, Drag, Scroll, Type, Key, Hotkey, SelectOption,
        Navigate, GoBack, SwitchTab, CloseTab, UploadFile, Wait, SaveData, Extract, Choose, CallUser, Finished,
    ],
    Field(discriminator="name"),
]

ACTION_TYPES: tuple[type[_Action], ...] = (
    Click, DoubleClick, RightClick, Hover, Drag, Scroll, Type, Key, Hotkey, SelectOption,
    Navigate, GoBack, SwitchTab, CloseTab, UploadFile, Wait, SaveData, Extract, Choose, CallUser, Finished,
)

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def action_name(cls: type[_Action]) -> str:
    return cls.model_fields["name"].default  # type: ignore[no-any-return]


ACTIONS_BY_NAME: dict[str, type[_Action]] = {action_name(cls): cls for cls in ACTION_TYPES}


def present(arguments: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """The arguments a model meant to give. Optional means null, missing or empty are all the
    same: models and servers send `null` (or "") for what they leave out, and the field's default
    is what they meant. A required field sent as null stays an error, said to the model."""
    fields = model.model_fields
    return {key: value for key, value in arguments.items()
            if not ((value is None or value == "") and key in fields and not fields[key].is_required())}


class Outcome(StrEnum):
    """How an action ended; anything but OK comes with a message written for the model."""

    OK = "ok"
    TARGET_NOT_FOUND = "TargetNotFound"
    STALE_INDEX = "StaleIndex"
    NOT_ACTIONABLE = "NotActionable"
    NAVIGATION_FAILED = "NavigationFailed"
    TIMEOUT = "Timeout"
    NO_EFFECT = "NoEffect"
    CAPTCHA_OR_2FA = "CaptchaOr2FA"
    UNSUPPORTED = "Unsupported"
    BROWSER_GONE = "BrowserGone"
    HELD = "HeldForGo"


class SavedFile(BaseModel):
    """A file the action made the browser download, already on disk."""

    name: str
    path: str
    size: int
    mime: str = "application/octet-stream"


class ActionResult(BaseModel):
    outcome: Outcome
    message: str = ""
    files: list[SavedFile] = Field(default_factory=list)
    held: list[str] = Field(default_factory=list, description="What the page tried to submit or send and "
                                                             "the operator held back for a GO, in words.")

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK


# Keys that press the focused button or submit the focused field's form, whatever modifiers go with them.
ACTIVATING_KEYS = frozenset({"enter", "return", "numpadenter", "space", " ", "spacebar"})


def pressed_keys(action: Action) -> list[str]:
    """The keys an action presses, lower-cased: `Control+Enter` is `control` and `enter`."""
    if isinstance(action, Key):
        return [part.strip().lower() or " " for part in action.key.split("+")] if action.key != "+" else ["+"]
    if isinstance(action, Hotkey):
        return [key.strip().lower() or " " for key in action.keys]
    return []


def presses_pointer(action: Action) -> bool:
    """A mouse button goes down and up: whatever is under the pointer then is activated."""
    return isinstance(action, (Click, DoubleClick, RightClick, Drag))


def submits(action: Action) -> bool:
    """Whether the action presses Enter in (or on) what it types into or what has focus."""
    if isinstance(action, Type):
        return action.submit or "\n" in action.text or "\r" in action.text
    return any(key in ACTIVATING_KEYS for key in pressed_keys(action))


def activates(action: Action) -> bool:
    """Whether the action can set something off on the page: press a button, follow a link,
    submit a form, load an address. What exactly it sets off is for the operator to find."""
    return presses_pointer(action) or submits(action) or isinstance(action, Navigate)
