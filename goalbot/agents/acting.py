"""One pair of hands: the single guarded path every action on the page takes, whoever asked for
it — the navigator from a model's answer, or a recipe's rerun from what was recorded.

The guard protocol lives here alone, in one order: the guards admit the action (or refuse it:
`ACT_FAIL Refused`, nothing started); `ACT_START`; secrets are put in; the operator carries it
out (a stop waits for it, a `wait` excepted); a write the page tried is asked about; downloads
are kept in the store; `ACT_OK` or `ACT_FAIL`; the repeat guard learns what it did. So a refused,
held, failed or downloading action reads the same in every event stream.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from goalbot import actions as A
from goalbot.actions import Action, Outcome, SavedFile
from goalbot.agents.control import SessionControl
from goalbot.agents.documents import is_pdf
from goalbot.agents.guards import ActionGuards
from goalbot.agents.secrets import SecretError, Secrets
from goalbot.events import Actor, Emitter, EventType
from goalbot.operators.base import Observation, Operator, OperatorError


class Ended(str, Enum):
    DONE = "done"
    REFUSED = "refused"  # the guards said no before anything happened
    FAILED = "failed"


class Acted(BaseModel):
    """How an action ended, and the page's signature before and after it."""

    ended: Ended
    message: str
    error: str | None = None
    before: str = ""
    after: str = ""
    downloads: int = 0  # files the action downloaded

    @property
    def ok(self) -> bool:
        return self.ended is Ended.DONE


class Hands:
    def __init__(self, operator: Operator, guards: ActionGuards, control: SessionControl, secrets: Secrets,
                 emitter: Emitter) -> None:
        self.operator = operator
        self.guards = guards
        self.control = control
        self.secrets = secrets
        self.emitter = emitter
        # The PDF the latest action downloaded, which an `extract` right after it reads.
        self.fresh_pdf: Path | None = None

    async def act(self, action: Action, observation: Observation, step: int, shown: dict[str, Any],
                  target: dict[str, Any] | None, bad_secret: str = "BadAnswer", **said: Any) -> Acted:
        """Carries `action` out on the page `observation` shows. `shown` is the action as events
        show it (a password typed is •••), `target` what identifies its element; `said` goes on
        its ACT_OK (a rerun's rung). `bad_secret` is the error a secret that cannot be put in is."""
        before = await self.operator.signature()
        refusal = await self.guards.admit(action, observation, before, step)
        if refusal is not None:
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown, message=refusal, error="Refused")
            return Acted(ended=Ended.REFUSED, message=refusal, error="Refused", before=before, after=before)
        self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown, target=target)
        try:
            revealed = self._with_secrets(action)
        except SecretError as exc:
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown, message=str(exc),
                              error=bad_secret)
            return Acted(ended=Ended.FAILED, message=str(exc), error=bad_secret, before=before, after=before)
        if isinstance(revealed, A.Type) and self.secrets.scrub(revealed.text) != revealed.text:
            await self.operator.secret_typed_next()
        result = await self.control.carry_out(self.operator.execute(revealed), cuttable=isinstance(action, A.Wait))
        result = await self.guards.held(result, observation, step)
        files = [self.keep(saved) for saved in result.files]
        self.fresh_pdf = next((Path(saved.path) for saved in reversed(result.files) if is_pdf(saved.name, saved.mime)),
                              None)
        gone = result.ok and target is not None and await self.operator.gone(getattr(action, "index", 0))
        if result.ok and not gone and target and target.get("overlay") and target.get("css"):
            # A banner's "Accept all" that posts a form back to its own address: the page came back
            # without the banner, which is the banner gone as surely as one a script removed.
            gone = await self.operator.absent(str(target["css"]))
        error = None if result.ok else result.outcome.value
        self.emitter.emit(EventType.ACT_OK if result.ok else EventType.ACT_FAIL, Actor.NAVIGATOR, step,
                          action=shown, message=result.message, error=error,
                          **({"files": files} if files else {}), **({"gone": True} if gone else {}),
                          **(said if result.ok else {}))
        if result.outcome is Outcome.BROWSER_GONE:
            raise OperatorError(result.message)
        after = await self.operator.signature()
        self.guards.ran(action, observation, before, after)
        return Acted(ended=Ended.DONE if result.ok else Ended.FAILED, message=result.message, error=error,
                     before=before, after=after, downloads=len(files))

    def _with_secrets(self, action: Action) -> Action:
        """Typing `<secret:NAME>` types the value; nothing else ever holds it."""
        if isinstance(action, A.Type) and "<secret:" in action.text:
            return action.model_copy(update={"text": self.secrets.reveal(action.text)})
        return action

    def keep(self, saved: SavedFile) -> dict[str, object]:
        """A downloaded file goes into the store with the session, under its own name."""
        artifact = self.emitter.artifact("download", saved.mime, Path(saved.path).read_bytes(), saved.name)
        return {"name": saved.name, "size": saved.size, "artifact": artifact}
