"""What goes through the broker: a job's order (coordinator → worker) and what its worker tells the
coordinator while it runs (worker → coordinator), each sealed, each checked again on arrival."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from goalbot.service.batch.jobs import Job, TraceKept
from goalbot.recipes import folder
from goalbot.recipes.build import RecipeError
from goalbot.recipes.model import Recipe
from storage.replica import Changes

BATCH_ID = r"^b\d{8}-\d{6}-[0-9a-f]{4}$"


class JobOrder(BaseModel):
    model_config = ConfigDict(extra="forbid")

    batch: str = Field(pattern=BATCH_ID)
    n: int = Field(ge=1)
    job: Job
    ask: bool = False
    trace: TraceKept = "off"
    recipe: dict[str, str] | None = None  # a recipe job's recipe, as its exported files
    recipe_version: int | None = None
    # Where the coordinator's store saw the recipe recorded, so its secrets may be typed there as
    # they would be on the coordinator; None for a recipe it imported (a GO, or --allow-domain).
    secrets_at: str | None = None

    def recipe_sent(self) -> Recipe | None:
        """The recipe this order carries, read as `goalbot recipe import` reads a folder: hostile."""
        if self.recipe is None:
            return None
        with tempfile.TemporaryDirectory(prefix="goalbot-order-") as where:
            for kind, text in self.recipe.items():
                if kind not in folder.KINDS:
                    raise RecipeError(f"the order carries a file {kind!r} that is not part of a recipe")
                (Path(where) / f"{kind}.json").write_text(text, encoding="utf-8")
            return folder.load(Path(where))


def recipe_files(recipe: Recipe) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="goalbot-order-") as where:
        folder.export(recipe, Path(where), readme="")
        return {kind: (Path(where) / f"{kind}.json").read_text(encoding="utf-8") for kind in folder.KINDS}


class Report(BaseModel):
    """One line of a batch's stream: a job's attempt started, its session changed, it ended, or an
    earlier attempt of it was found cut off (its worker lost)."""

    model_config = ConfigDict(extra="forbid")

    batch: str = Field(pattern=BATCH_ID)  # a report sealed for one batch is refused in another
    kind: Literal["started", "changes", "ended", "cut"]
    job: int = Field(ge=1)
    attempt: int = Field(ge=1)
    worker: str = Field("", max_length=200)
    at: str = ""
    changes: Changes | None = None
    status: str = ""
    session: str | None = None
    reason: str = ""
    recipes: list[str] = Field(default_factory=list)  # recipe versions the job made (a patch), as JSON
    heals: list[dict[str, Any]] = Field(default_factory=list)


QUESTION_BOUND = {"approve", "reject", "grant", "deny", "answer", "decline"}


class Answer(BaseModel):
    """What the person said on the coordinator, for one session of one batch; an answer to a
    question names the question (its seq), and binds to nothing once another is asked."""

    model_config = ConfigDict(extra="forbid")

    batch: str = Field(pattern=BATCH_ID)
    session: str
    kind: str
    payload: dict[str, Any]
    by: str = "attach"
    question: int = 0
