"""The run screen: the goal, the board, and every decision the run asks of the person.

It follows one session at a time — running in this process, or in another one through the store
(`goalbot attach`) — and opens a dialog when the events say the run waits for somebody.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from goalbot.agents.control import SessionControl
from goalbot.agents.outcome import Run
from goalbot.agents.session import SessionResult
from goalbot.events import Bus, Event, EventType
from goalbot.payloads import ApprovalData, Command, Phase, QuestionData, TaskEndData
from goalbot.service.refusal import Refusal
from tui.screens.consent import ConsentScreen
from tui.screens.plan_review import PlanReviewScreen, Review
from tui.screens.question import QuestionScreen
from tui.screens.reject import RejectScreen
from tui.sources import BusSource, EventSource, StoreSource
from tui.steering import LocalSteering, Steering, SteeringError, StoreSteering
from tui.widgets.board import Board
from tui.widgets.goal_input import GoalInput
from tui.widgets.keys_footer import KeysFooter

@dataclass
class LiveRun:
    """A session to run in this process, and what to do with its result."""

    bus: Bus
    session: Run
    control: SessionControl
    finished: Callable[[SessionResult | None], None] = field(default=lambda _result: None)
    # What the session stored before this process took it up (`goalbot resume`): drawn first, so
    # the board shows its goal, its whole plan and the steps already done.
    history: list[Event] = field(default_factory=list)


Starter = Callable[[str], LiveRun]


class RunScreen(Screen[None]):
    class EventsArrived(Message):
        """The source has events (or news of a problem) waiting; sent from any thread."""

    # The footer keeps them in this order, the ones that matter most first: at 80 columns the
    # last ones may not fit (F1 lists them all).
    BINDINGS = [
        Binding("q", "quit_dashboard", "Quit"),
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("e", "review", "Edit"),
        Binding("o", "open_decision", "Open"),
        Binding("s", "stop", "Stop"),
        Binding("p", "pause", "Pause"),
        Binding("p", "resume", "Resume"),  # the one p the footer shows is what p does now
        Binding("m", "marks", "Marks"),
        Binding("f10,z", "zoom", "Enlarge"),
    ]

    def __init__(self, *, starter: Starter | None = None, history: list[str] | None = None,
                 live: LiveRun | None = None, follow: tuple[Path, str] | None = None) -> None:
        """live: a run to start at once; follow: (store, session id) of a run in another process."""
        super().__init__()
        self.starter = starter
        self.history = history or []
        self.source: EventSource | None = None
        self.steering: Steering | None = None
        self.live: LiveRun | None = None
        self._first = (live, follow)
        self.attached = False
        self.result: SessionResult | None = None
        self._quit_when_done = False
        self._draft: tuple[int, list[str]] | None = None  # edits of a plan put off with Esc, by plan revision
        self._pause_asked = False
        self._problem_told = ""
        self._reviewed_revision = -1
        self._consent_seq = self._question_seq = -1

    @property
    def board(self) -> Board:
        return self.query_one(Board)

    def compose(self) -> ComposeResult:
        yield Static("", id="goal", markup=False)
        yield GoalInput(self.history, id="goal-input")
        yield Board(self._picture, id="board")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        live, follow = self._first
        if live is not None:
            self.start_live(live)
        elif follow is not None:
            self._follow_from_store(*follow)
        else:
            self.query_one("#goal-input").display = self.starter is not None
            self.query_one("#goal-input").focus()

    @property
    def running_here(self) -> bool:
        """A session of this process is still going (quitting the dashboard stops it)."""
        return self.live is not None and self.result is None

    def _picture(self, artifact_id: str) -> bytes | None:
        return self.source.screenshot(artifact_id) if self.source else None

    # -- following a session ---------------------------------------------------------------------

    def start_live(self, run: LiveRun) -> None:
        source = BusSource(run.bus)
        for event in run.history:
            source.push(event)
        self.follow(source, LocalSteering(run.control))
        self.live, self.result = run, None
        self.run_worker(partial(self._run_session, run), name="session", thread=True, exit_on_error=False)

    def follow_store(self, db_path: Path, session_id: str) -> None:
        if not self.is_mounted:  # followed from the moment the screen is shown
            self._first = (None, (db_path, session_id))
        else:
            self._follow_from_store(db_path, session_id)

    def _follow_from_store(self, db_path: Path, session_id: str) -> None:
        self.follow(StoreSource(db_path, session_id), StoreSteering(db_path, session_id))
        self.attached = True

    def follow(self, source: EventSource, steering: Steering | None) -> None:
        """Draws the session whose events `source` gives; the keys go to `steering`."""
        if self.source is not None:
            self.source.close()
        self.source, self.steering, self.live, self.attached = source, steering, None, False
        self._reviewed_revision, self._consent_seq, self._question_seq = -1, -1, -1
        self._pause_asked = False
        self.board.reset()
        self.refresh_bindings()
        self.query_one("#goal-input").display = False
        self.board.query_one("#log").focus()
        def wake() -> None:
            self.post_message(self.EventsArrived())

        source.on_arrival(wake)

    def _run_session(self, run: LiveRun) -> None:
        """The session gets a thread and an event loop of its own: drawing never holds it up."""

        try:
            self.result = asyncio.run(run.session.run())
        finally:
            run.finished(self.result)
            try:
                self.app.call_from_thread(self._session_over)
            except RuntimeError:  # the app has already gone
                pass

    def _session_over(self) -> None:
        if self._quit_when_done:
            self.app.exit()
        elif self.starter is not None:
            self.notify("Session over: type another goal, or Ctrl-C to quit", timeout=8)
        else:
            self.notify("Session over: press q to quit", timeout=8)

    def on_run_screen_events_arrived(self, _message: EventsArrived) -> None:
        self._drain()

    def _drain(self) -> None:
        if self.source is None:
            return
        if self.source.problem != self._problem_told:
            self._problem_told = self.source.problem
            if self._problem_told:
                self.notify(self._problem_told, severity="warning", timeout=10)
        events = self.source.drain()
        if not events:
            return
        self.board.apply(events)
        self.refresh_bindings()
        for failed in (e for e in events if e.type is EventType.TASK_FAIL):
            # The reason in full, where a log row would cut it at the panel's edge.
            self.notify(failed.data_of(TaskEndData).reason, title="The task failed", severity="error", timeout=30,
                        markup=False)
        state = self.board.state
        where = f"   {state.url}" if state.url not in state.goal else ""
        self.query_one("#goal", Static).update(f"Goal: {state.goal}{where}" + ("   (attached)" if self.attached else ""))
        if state.finished and self.starter is not None and self.live is not None:
            goal_input = self.query_one("#goal-input", GoalInput)
            goal_input.display = True
            goal_input.focus()
        self._ask_what_is_open()

    # -- the person's decisions ------------------------------------------------------------------

    def _ask_what_is_open(self) -> None:
        """Opens the dialog the run waits on; closes one that was settled elsewhere."""
        state = self.board.state
        top = self.app.screen
        settled = ((isinstance(top, PlanReviewScreen) and not state.awaiting_approval)
                   or (isinstance(top, ConsentScreen) and top.can_wait and state.consent is None)
                   or (isinstance(top, QuestionScreen) and state.question is None))
        if settled:
            top.dismiss(None)
            return
        if top is not self:
            return
        if state.awaiting_approval and self._reviewed_revision != state.plan_revision:
            if self.live is not None and self.live.control.auto_approve:
                return
            self._reviewed_revision = state.plan_revision
            self.action_review()
        elif state.consent is not None and self._consent_seq != state.consent.seq:
            self._consent_seq = state.consent.seq
            self._ask_consent(state.consent.data_of(ApprovalData))
        elif state.question is not None and self._question_seq != state.question.seq:
            self._question_seq = state.question.seq
            self._ask_question(state.question.data_of(QuestionData))

    def _send(self, kind: Command, **payload: object) -> bool:
        if self.steering is None:
            self.notify("No session to steer", severity="warning")
            return False
        try:
            self.steering.send(kind, **payload)
        except SteeringError as exc:
            self.notify(str(exc), severity="error")
            return False
        return True

    def _ask_consent(self, request: ApprovalData) -> None:
        def send(granted: bool | None) -> None:
            if granted is not None and self.board.state.consent is not None:
                self._send(Command.GRANT if granted else Command.DENY)

        picture = self._picture(request.screenshot) if request.screenshot else None
        self.app.push_screen(ConsentScreen.for_request(request, picture), send)

    def _ask_question(self, question: QuestionData) -> None:
        if question.secret and self.steering is not None and not self.steering.carries_secrets:
            self.notify("The agent asks for a secret: answer it where the run is, so it never passes "
                        "through the store", severity="warning", timeout=15)
            return

        def send(answer: str | None) -> None:
            if self.board.state.question is not None:
                self._send(Command.ANSWER, text=answer) if answer else self._send(Command.DECLINE)

        self.app.push_screen(QuestionScreen(question.question, question.secret), send)

    def action_review(self) -> None:
        state = self.board.state
        if not state.awaiting_approval:
            self.notify("No plan is waiting for approval", severity="warning")
            return

        def send(review: Review | None) -> None:
            if review is None or not self.board.state.awaiting_approval:
                return
            if review.later:
                self._keep_draft(review.steps if review.steps != state.proposed else None)
                return
            self._draft = None
            if review.approved:
                self._send(Command.APPROVE, steps=review.steps,
                           **({"policies": review.policies} if review.policies is not None else {}))
            else:
                self._send(Command.REJECT, feedback=review.feedback)

        self.app.push_screen(PlanReviewScreen(state.proposed, self._draft_now(), state.proposed_policies,
                                                state.proposed_from), send)

    def _keep_draft(self, steps: list[str] | None) -> None:
        """The person's edits to a plan they put off are theirs: kept for this plan until they
        approve or reject it."""
        self._draft = (self.board.state.plan_revision, steps) if steps is not None else None
        self.board.state.draft = steps
        self.board.redraw()
        if steps is not None:
            self.notify("Your edits are kept: a approves the plan as you left it, e opens it again")

    def _draft_now(self) -> list[str] | None:
        if self._draft is None or self._draft[0] != self.board.state.plan_revision:
            return None  # the planner planned again: an edit of the old plan does not carry over
        return self._draft[1]

    def action_open_decision(self) -> None:
        """Shows again a question that was put off with Esc."""
        self._reviewed_revision, self._consent_seq, self._question_seq = -1, -1, -1
        state = self.board.state
        if not (state.awaiting_approval or state.consent or state.question):
            self.notify("The run is not waiting for you")
        self._ask_what_is_open()

    def action_approve(self) -> None:
        if self.board.state.awaiting_approval:
            self._send(Command.APPROVE, steps=self._draft_now())
            self._draft = None
        else:
            self.notify("No plan is waiting for approval", severity="warning")

    def action_reject(self) -> None:
        if not self.board.state.awaiting_approval:
            self.notify("No plan is waiting for approval", severity="warning")
            return

        def send(feedback: str | None) -> None:
            if feedback is not None and self.board.state.awaiting_approval:
                self._send(Command.REJECT, feedback=feedback)

        self.app.push_screen(RejectScreen(), send)

    @property
    def paused(self) -> bool:
        return self._pause_asked or (self.is_mounted and self.board.state.status is Phase.PAUSED)

    def action_resume(self) -> None:
        self.action_pause()

    def on_resize(self) -> None:
        self.refresh_bindings()

    def action_pause(self) -> None:
        if self.steering is None or self.board.state.finished:
            return
        self._pause_asked = not (self._pause_asked or self.board.state.status is Phase.PAUSED)
        if self._send(Command.PAUSE if self._pause_asked else Command.RESUME):
            self.notify("Pausing before the next action… (p resumes)" if self._pause_asked else "Resuming")
        self.refresh_bindings()

    def action_stop(self) -> None:
        if self.steering is not None and not self.board.state.finished and self._send(Command.STOP):
            self.notify("Stopping…")

    def action_zoom(self) -> None:
        self.board.toggle_zoom()

    def action_marks(self) -> None:
        on = self.board.toggle_marks()
        self.notify("Set-of-Mark boxes shown" if on else "Plain screenshot")

    def typing_goal(self) -> bool:
        goal = self.query(GoalInput)
        return bool(goal) and goal.first().display and goal.first().has_focus

    def action_quit_dashboard(self) -> None:
        """A run of this process stops with its dashboard: the person is asked first."""
        if not self.running_here:
            if self.source is not None:
                self.source.close()
            self.app.exit()
            return

        # A question is modal: the run waits for its answer, before its next action.
        held = not (self._pause_asked or self.board.state.status is Phase.PAUSED) and self._send(Command.PAUSE)

        def quit_if_sure(sure: bool | None) -> None:
            if sure and self.running_here:
                self._quit_when_done = True
                self._send(Command.STOP)
            elif sure:
                self.app.exit()
            elif held and self.running_here:
                self._send(Command.RESUME)

        self.app.push_screen(ConsentScreen.confirm("A run is going on here. Stop it and quit?"), quit_if_sure)

    # Which keys mean something now: the footer shows those, and only those work.
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.board.state if self.is_mounted else None
        following = self.steering is not None and state is not None and not state.finished
        match action:
            case "approve" | "review" | "reject":
                return following and state is not None and state.awaiting_approval
            case "open_decision":  # a plan waiting is opened with e (the footer has no room for both)
                return following and state is not None and bool(state.consent or state.question)
            case "stop":
                return following
            case "pause":
                return following and not self.paused
            case "resume":
                return following and self.paused
            case "marks":
                # Where the footer is narrow, the picture's keys leave it (F1 lists them).
                return self.source is not None and self.size.width >= KeysFooter.NARROW
            case "zoom":
                return self.size.width >= KeysFooter.NARROW
            case "quit_dashboard":  # while a goal is typed q is a letter: Ctrl-Q quits (the app's)
                return not self.typing_goal()
        return True

    def on_input_submitted(self, message: GoalInput.Submitted) -> None:
        goal = message.value.strip()
        if not goal or self.starter is None:
            return
        message.input.value = ""
        self.query_one(GoalInput).remember(goal)
        try:
            run = self.starter(goal)
        except Refusal as refusal:  # the goal was refused before anything started: say why, and how
            self.notify(f"Cannot start: {refusal.line()}", title=f"refused: {refusal.code}", severity="error",
                        timeout=10)
            return
        except Exception as exc:  # a busy store: say so and keep the dashboard
            self.notify(f"Cannot start: {exc}", severity="error", timeout=10)
            return
        self.start_live(run)
