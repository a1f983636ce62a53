"""The Navigator: carries out one step with real actions, knowing the step but not the goal.

Its context lives only for the step: a fresh list of what it did, dropped when the step ends.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from goalbot import actions as A
from goalbot.actions import Action, Outcome, SavedFile
from goalbot.agents.context import bullet_list, geometry_of, recent, untrusted_page, with_picture
from goalbot.agents.observing import observe, picture_of
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.answers import ActionsAnswer
from goalbot.llm.coordinates import Convention
from goalbot.llm.dialects import Dialect
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.parsing import AnswerError
from goalbot.llm.vision import user_message
from goalbot.operators.base import Observation, Operator, OperatorError

HIDDEN = "•••"


class StepReport(BaseModel):
    success: bool
    summary: str
    done: list[str] = Field(default_factory=list)
    observation: Observation


async def _shown(action: Action, operator: Operator) -> dict[str, object]:
    """The action as events show it: text typed into a password field never leaves the process.

    Asked of the page right before typing, since an earlier action of the same answer may have
    moved the focus.
    """
    shown = {"name": action.name, **action.model_dump(exclude_defaults=True)}
    if isinstance(action, A.Type) and await operator.is_secret_field(action.index):
        shown["text"] = HIDDEN
    return shown


def _describe(shown: dict[str, object]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in shown.items() if k != "name")
    return f"{shown['name']}({args})"


class Navigator:
    def __init__(
        self, dialogue: Dialogue, operator: Operator, emitter: Emitter,
        saved_data: dict[str, str], max_turns: int = 6, vision: bool = False,
        coords: Convention | None = None,
    ) -> None:
        self.dialogue = dialogue
        self.operator = operator
        self.emitter = emitter
        self.saved_data = saved_data
        self.max_turns = max_turns
        self.vision = vision
        self.coords = coords

    async def _answer(
        self, description: str, done: list[str], observation: Observation, step: int
    ) -> list[Action]:
        dialects = self.dialogue.dialects
        # UI-TARS models point at pixels: without the screenshot they have nothing to point at.
        picture = await picture_of(observation, self.vision or dialects.current("navigator") is Dialect.UITARS)
        answer = ActionsAnswer(geometry_of(observation, picture), dialects.convention("navigator", self.coords),
                               vision=picture is not None)

        def compose(level: int) -> list[dict[str, object]]:
            return [user_message(self._brief(description, done, observation, level),
                                 with_picture(picture, level))]

        return await self.dialogue.ask("navigator", compose, answer, step)

    async def run_step(self, description: str, step: int, observation: Observation) -> StepReport:
        done: list[str] = []
        for _turn in range(self.max_turns):
            try:
                actions = await self._answer(description, done, observation, step)
            except AnswerError as exc:
                self.emitter.emit(
                    EventType.ACT_FAIL, Actor.NAVIGATOR, step,
                    action={}, message=f"the navigator's answer could not be used: {exc}",
                    error="BadAnswer",
                )
                return StepReport(success=False, summary=f"unusable model answer: {exc}", done=done,
                                  observation=observation)
            for action in actions:
                if isinstance(action, A.Finished):
                    self.emitter.emit(
                        EventType.ACT_OK, Actor.NAVIGATOR, step,
                        action=await _shown(action, self.operator), message=action.summary,
                    )
                    return StepReport(
                        success=action.success, summary=action.summary, done=done,
                        observation=await observe(self.operator, self.emitter, step),
                    )
                ok, line = await self._act(action, step)
                done.append(line)
                if not ok:
                    break  # the page is not what the rest of the batch assumed
            observation = await observe(self.operator, self.emitter, step)
            done.append(f"(the page now: {observation.summary()})")
        return StepReport(
            success=False, done=done, observation=observation,
            summary=f"the step did not finish within {self.max_turns} turns",
        )

    async def _act(self, action: Action, step: int) -> tuple[bool, str]:
        shown = await _shown(action, self.operator)
        self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown)
        if isinstance(action, A.SaveData):
            self.saved_data[action.key] = action.value
            self.emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, step, action=shown,
                              message=f"saved {action.key}")
            return True, f"{_describe(shown)} -> saved"
        if isinstance(action, A.CallUser):
            message = "asking the person is not available yet; go on without the answer"
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown,
                              message=message, error=Outcome.UNSUPPORTED.value)
            return False, f"call_user -> {message}"
        result = await self.operator.execute(action)
        files = [self._keep(saved) for saved in result.files]
        kind = EventType.ACT_OK if result.ok else EventType.ACT_FAIL
        self.emitter.emit(kind, Actor.NAVIGATOR, step, action=shown, message=result.message,
                          error=None if result.ok else result.outcome.value,
                          **({"files": files} if files else {}))
        if result.outcome is Outcome.BROWSER_GONE:
            raise OperatorError(result.message)
        label = _describe(shown)
        status = "ok" if result.ok else f"FAILED ({result.outcome.value})"
        return result.ok, f"{label} -> {status}: {result.message}"

    def _keep(self, saved: SavedFile) -> dict[str, object]:
        """A downloaded file goes into the store with the session, under its own name."""
        artifact = self.emitter.artifact("download", saved.mime, Path(saved.path).read_bytes(), saved.name)
        return {"name": saved.name, "size": saved.size, "artifact": artifact}

    @staticmethod
    def _brief(description: str, done: list[str], observation: Observation, level: int) -> str:
        # Only the newest page is shown in full; the ones before it live on as one-line summaries.
        return "\n\n".join([
            f"Your step: {description}",
            "Actions so far in this step:\n" + bullet_list(recent(done, level)),
            untrusted_page(observation, level),
        ])
