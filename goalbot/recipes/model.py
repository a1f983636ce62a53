"""A recipe as data: the steps of a session that reached its goal, each action with the evidence
that finds its element again, what it changed the first time, and the page it started on."""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from goalbot.llm.extraction import SchemaError, checked
from goalbot.operators.json_places import NetworkPlace
from goalbot.payloads import ShownAction
from goalbot.agents.choosing import Policy

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # whole names only: fullmatch
MAX_ACTIONS = 2_000  # far beyond any recorded flow; a bigger file is an attack on every `recipe list`
MAX_BRANCHES = 8  # ways to do one step: a site's A/B layouts, not a program
MAX_BLOCK_DEPTH = 4  # a block inside a block inside …: flows people name, not recursion
MAX_PASSES = 500  # records a loop goes through: a list a person would have done by hand
LOOP_FIELD = re.compile(r"[A-Za-z0-9_]{1,40}")  # a record's field a pass names as {{each_FIELD}}
# A {{variable}}'s and a <secret:NAME>'s names: what `--var` and `--secret` fill, and what an exported
# script makes arguments and environment names of; a recipe file is hostile input.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
SECRET_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")


def _names(names: list[str], pattern: re.Pattern[str], what: str) -> list[str]:
    for name in names:
        if not pattern.fullmatch(name):
            raise ValueError(f"bad {what} name {name[:40]!r}: letters, digits and '_' only (64 at most)")
    return names


class Evidence(BaseModel):
    """What identified an element when the recipe was recorded."""

    model_config = ConfigDict(allow_inf_nan=False)  # a NaN box would not survive the store's JSON

    role: str = ""
    name: str = ""
    tag: str = ""
    id: str = ""
    test_id: str = ""
    css: str = ""
    xpath: str = ""
    label: str = ""
    placeholder: str = ""
    nearby: str = ""
    overlay: str = Field("", description="The dialog or cookie banner the element sat in, by its label or role.")
    frame: str = ""
    box: tuple[float, float, float, float] | None = None


class Expect(BaseModel):
    """What the action changed the first time; a rerun checks the same."""

    url_contains: str | None = Field(None, description="The address's path after the action.")
    value: str | None = Field(None, description="The text a field holds after typing (the typing checks it).")
    text_appeared: list[str] = Field(default_factory=list, description="What the page announced after it "
                                     "(status and alert regions) that it had not before.")
    element_gone: bool = Field(False, description="The element acted on left the page, which stayed.")
    download: bool = Field(False, description="The action downloaded a file: a rerun whose action downloads "
                           "nothing has not done it, whatever the page says.")
    state: Literal["checked", "unchecked"] | None = Field(
        None, description="A click on a toggle, checkbox, switch or radio: the state it set. A rerun where the "
                          "element already holds it leaves it, and one whose click did not set it has failed.")

    def words(self) -> list[str]:
        said = [f"address has {self.url_contains}"] if self.url_contains else []
        said += [f"it is {self.state}"] if self.state else []
        said += ["a file downloads"] if self.download else []
        said += [f"field holds {self.value!r}"] if self.value else []
        said += [f"page says {text!r}" for text in self.text_appeared]
        return said + (["the element goes away"] if self.element_gone else [])


class Fingerprint(BaseModel):
    """The page an action starts on: a rerun on another page is ExpectationFailed, not a blind act."""

    url_contains: str = ""
    title: str = ""


class Recorded(BaseModel):
    """An extraction as a recipe keeps it: its schema, and where each field was read (structure,
    not coordinates), so a rerun reads the same places with no model."""

    instruction: str = ""
    schema_: dict[str, Any] = Field(alias="schema")
    place: dict[str, Any] | None = Field(None, description="None: the page showed no place to read again; "
                                         "a rerun asks the extractor.")
    network: NetworkPlace | None = Field(None, description="Where the data was in the JSON the page fetched: "
                                         "read there first, with no model.")
    other_places: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_BRANCHES,
                                               description="Where it was read on the site's other layouts (a table "
                                               "and cards at one address): read in turn when `place` does not.")

    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)

    @field_validator("schema_")
    @classmethod
    def _usable(cls, schema: dict[str, Any]) -> dict[str, Any]:
        try:  # a recipe file is hostile input like a schema file
            return checked(schema, "the recorded schema")
        except SchemaError as exc:
            raise ValueError(str(exc)) from exc


class RecipeAction(BaseModel):
    action: ShownAction = Field(description="As the navigator wrote it, without its index; text "
                                            "may hold {{variables}} and <secret:NAME> references.")
    target: Evidence | None = None
    expect: Expect = Field(default_factory=Expect)
    fingerprint: Fingerprint = Field(default_factory=Fingerprint)
    reads: Recorded | None = Field(None, description="An `extract`: what it reads and where.")
    optional: bool = Field(False, description="It dismissed an interstitial (a cookie banner, a dialog): "
                                              "a rerun where nothing like its element is on the page goes on "
                                              "without it.")

    @field_validator("action")
    @classmethod
    def _flat(cls, action: ShownAction) -> ShownAction:
        """An action's arguments are words, numbers and lists of them, as the navigator writes
        them; anything deeper is not an action (and a deep one would break the store's JSON)."""
        def plain(value: object) -> bool:
            if isinstance(value, float):
                return math.isfinite(value)
            return value is None or isinstance(value, (str, int, bool))

        for key, value in action.args().items():
            if not (plain(value) or isinstance(value, list) and all(plain(item) for item in value)):
                raise ValueError(f"argument {key!r} is not a word, a number or a list of them")
        if not action.name:
            raise ValueError("an action needs a name")
        return action

    def words(self) -> str:
        """The action in plain words, for `recipe show` and the plan panel."""
        what = self.action.name
        target = f' "{self.target.name}"' if self.target and self.target.name else ""
        role = f" {self.target.role}" if self.target and self.target.role else ""
        extra = [f"{key}={value!r}" for key, value in self.action.args().items()]
        return f"{what}{role}{target}" + (f" ({', '.join(extra)})" if extra else "")


class When(BaseModel):
    """What on the page, at a step's start, says another way is the one to take: an element like
    this one (found strictly, never by likeness), a text the page shows, an address."""

    element: Evidence | None = None
    text: str = ""
    url_contains: str = Field("", description="The address's path, compared segment by segment.")

    @model_validator(mode="after")
    def _says_something(self) -> When:
        if self.element is None and not self.text and not self.url_contains:
            raise ValueError("a branch's condition names an element, a text or an address")
        return self

    def words(self) -> str:
        said = [f"{self.element.role or 'element'} {self.element.name!r} is on the page"] if self.element else []
        said += [f"the page says {self.text!r}"] if self.text else []
        said += [f"the address is {self.url_contains}"] if self.url_contains else []
        return " and ".join(said)


class Branch(BaseModel):
    """Another way to do a step (a layout the site also serves): taken when its condition holds."""

    when: When
    actions: list[RecipeAction] = Field(min_length=1)
    after: int = Field(0, ge=0, le=MAX_ACTIONS, description="The recorded way's first actions this way shares: "
                       "its condition is looked for once they are done, on the page where the ways part.")


class Block(BaseModel):
    """Another recipe run as one step (a sign-in, a search): its latest version, or a pinned one."""

    recipe: str = Field(pattern=f"^{NAME.pattern}$", description="The recipe's name.")
    version: int | None = Field(None, ge=1, description="Pinned to this version; None: the latest when it runs.")
    values: dict[str, str] = Field(default_factory=dict, description="The block's {{variables}}, in this recipe's "
                                   "words (a value, or one of its own {{variables}}); one left out takes the "
                                   "rerun's value of the same name.")

    @field_validator("values")
    @classmethod
    def _named(cls, values: dict[str, str]) -> dict[str, str]:
        _names(list(values), VARIABLE_NAME, "variable")
        return values

    def key(self) -> str:
        return f"{self.recipe}@{self.version or 'latest'}"

    def words(self) -> str:
        pinned = f"v{self.version}, pinned" if self.version else "its latest version"
        bound = ", ".join(f"{name} = {value}" for name, value in self.values.items())
        return f"block {self.recipe} ({pinned})" + (f" with {bound}" if bound else "")


class Loop(BaseModel):
    """A sub-flow done once for every record of a list an earlier `extract` kept ("download the
    invoice of every order"): each pass finds its elements inside its own record's row, by the
    recorded role and name, with the record's fields in force as {{each_FIELD}}."""

    over: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,4}$",
                      description="The kept list: an extract's key, or key.path into it.")
    actions: list[RecipeAction] = Field(min_length=1, max_length=50, description="One pass, as recorded on "
                                        "the first record.")
    most: int = Field(MAX_PASSES, ge=1, le=MAX_PASSES, description="A longer list stops the rerun.")


class RecipeStep(BaseModel):
    description: str
    actions: list[RecipeAction] = Field(default_factory=list)
    branches: list[Branch] = Field(default_factory=list, max_length=MAX_BRANCHES,
                                   description="Other ways to do the step, each with the condition on the page "
                                               "that chooses it; the recorded actions when none holds.")
    block: Block | None = Field(None, description="The step is another recipe's steps, run in its place.")
    for_each: Loop | None = Field(None, description="The step is a loop over a kept list.")

    @model_validator(mode="after")
    def _block_alone(self) -> RecipeStep:
        if self.block is not None and (self.actions or self.branches or self.for_each):
            raise ValueError("a step that runs a block has no actions, ways or loop of its own")
        if self.for_each is not None and (self.actions or self.branches):
            raise ValueError("a step that loops has no actions or ways of its own")
        return self

    @property
    def every_action(self) -> list[RecipeAction]:
        """The step's actions, its other ways' and its loop's."""
        return [*self.actions, *(a for branch in self.branches for a in branch.actions),
                *(self.for_each.actions if self.for_each else [])]


class Recipe(BaseModel):
    name: str
    version: int = 1
    goal: str
    start_url: str
    steps: list[RecipeStep]
    variables: list[str] = Field(default_factory=list, description="Names a rerun fills in with --var.")
    secrets: list[str] = Field(default_factory=list, description="Secret names a rerun needs with --secret.")
    policies: dict[str, Policy] = Field(default_factory=dict, description="Choice policies by name (seed 002 §5.4).")
    result: Recorded | None = Field(None, description="--output-schema: the answer read at the end.")
    source_session: str = ""

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not NAME.fullmatch(name):
            raise ValueError(f"bad recipe name {name!r}: use letters, digits, '.', '_' or '-' (64 at most)")
        return name

    @field_validator("variables")
    @classmethod
    def _variables(cls, names: list[str]) -> list[str]:
        return _names(names, VARIABLE_NAME, "variable")

    @field_validator("secrets")
    @classmethod
    def _secrets(cls, names: list[str]) -> list[str]:
        return _names(names, SECRET_NAME, "secret")

    @field_validator("steps")
    @classmethod
    def _bounded(cls, steps: list[RecipeStep]) -> list[RecipeStep]:
        count = sum(len(step.actions) + sum(len(branch.actions) for branch in step.branches)
                    + len(step.for_each.actions if step.for_each else []) for step in steps)
        if count > MAX_ACTIONS:
            raise ValueError(f"{count} actions: a recipe has at most {MAX_ACTIONS}")
        return steps

    @property
    def actions(self) -> list[RecipeAction]:
        """The recorded way's actions, in order: what a patch and healing memory number."""
        return [action for step in self.steps for action in step.actions]

    @property
    def blocks(self) -> list[Block]:
        return [step.block for step in self.steps if step.block is not None]

    @property
    def every_action(self) -> list[RecipeAction]:
        """Every action a rerun may take, its branches' too: what a check of the whole recipe reads."""
        return [action for step in self.steps for action in step.every_action]


class Metrics(BaseModel):
    """Seed 002 §12: how a recipe's reruns have gone, over every rerun in the store."""

    runs: int = 0
    success_rate: float = 0.0
    model_calls_per_run: float = 0.0
    patch_rate: float = Field(0.0, description="The share of reruns the model patched.")
    refail_after_patch: float = Field(0.0, description="The share of reruns of a patched version that failed.")
    memory_hit_rate: float = Field(0.0, description="Of the elements the recorded evidence no longer found, "
                                                    "the share healing memory found.")

    def line(self) -> str:
        if not self.runs:
            return "reruns: none yet"
        return (f"reruns: {self.runs} · succeeded {self.success_rate:.0%} · model calls per run "
                f"{self.model_calls_per_run:.1f} · patched {self.patch_rate:.0%} · failed again after a patch "
                f"{self.refail_after_patch:.0%} · healing memory hits {self.memory_hit_rate:.0%}")
