"""A recipe as data: the steps of a session that reached its goal, each action with the evidence
that finds its element again, what it changed the first time, and the page it started on."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
VARIABLE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")


class Evidence(BaseModel):
    """What identified an element when the recipe was recorded."""

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
    frame: str = ""
    box: tuple[float, float, float, float] | None = None


class Expect(BaseModel):
    """What the action changed the first time; a rerun checks the same."""

    url_contains: str | None = Field(None, description="The address's path after the action.")
    value: str | None = Field(None, description="The text a field holds after typing.")


class Fingerprint(BaseModel):
    """The page an action starts on: a rerun on another page is ExpectationFailed, not a blind act."""

    url_contains: str = ""
    title: str = ""


class RecipeAction(BaseModel):
    action: dict[str, object] = Field(description="As the navigator wrote it, without its index; text "
                                                  "may hold {{variables}} and <secret:NAME> references.")
    target: Evidence | None = None
    expect: Expect = Field(default_factory=Expect)
    fingerprint: Fingerprint = Field(default_factory=Fingerprint)

    def words(self) -> str:
        """The action in plain words, for `recipe show` and the plan panel."""
        what = self.action.get("name", "?")
        target = f' "{self.target.name}"' if self.target and self.target.name else ""
        role = f" {self.target.role}" if self.target and self.target.role else ""
        extra = [f"{key}={value!r}" for key, value in self.action.items() if key not in ("name",)]
        return f"{what}{role}{target}" + (f" ({', '.join(extra)})" if extra else "")


class RecipeStep(BaseModel):
    description: str
    actions: list[RecipeAction] = Field(default_factory=list)


class Recipe(BaseModel):
    name: str
    version: int = 1
    goal: str
    start_url: str
    steps: list[RecipeStep]
    variables: list[str] = Field(default_factory=list, description="Names a rerun fills in with --var.")
    secrets: list[str] = Field(default_factory=list, description="Secret names a rerun needs with --secret.")
    source_session: str = ""

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not NAME.match(name):
            raise ValueError(f"bad recipe name {name!r}: use letters, digits, '.', '_' or '-' (64 at most)")
        return name

    @property
    def actions(self) -> list[RecipeAction]:
        return [action for step in self.steps for action in step.actions]
