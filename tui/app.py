"""The goalbot dashboard: runs one session in Textual's loop and shows its events as they come."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.message import Message

from goalbot.agents.control import SessionControl
from goalbot.agents.session import RunOptions, Session, SessionResult
from goalbot.events import Artifact, Bus, Event, EventType
from tui.screens.consent import ConsentScreen
from tui.screens.question import QuestionScreen
from tui.screens.reject import RejectScreen
from tui.screens.run import RunScreen


class BusEvent(Message):
    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class BusArtifact(Message):
    def __init__(self, artifact: Artifact) -> None:
        super().__init__()
        self.artifact = artifact


class GoalbotApp(App[None]):
    CSS_PATH = "goalbot.tcss"
    TITLE = "goalbot"
    BINDINGS = [
        Binding("a", "approve", "Approve plan"),
        Binding("r", "reject", "Reject plan"),
        Binding("p", "pause", "Pause/resume"),
        Binding("s", "stop", "Stop"),
        Binding("ctrl+c", "stop", "Stop", show=False, priority=True),
        Binding("q", "quit_dashboard", "Quit"),
    ]

    def __init__(self, bus: Bus, session: Session, control: SessionControl, options: RunOptions) -> None:
        super().__init__()
        self.bus = bus
        self.session = session
        self.control = control
        self.options = options
        self.result: SessionResult | None = None
        self.run_screen = RunScreen(options.goal)
        self._quit_when_done = False
        self._screenshots: dict[str, bytes] = {}
        self._consent_open: ConsentScreen | None = None

    def on_mount(self) -> None:
        # Publishers call these in their own context; posting a message never blocks them.
        self.bus.subscribe(lambda event: self.post_message(BusEvent(event)))
        self.bus.subscribe_artifacts(lambda artifact: self.post_message(BusArtifact(artifact)))
        self.push_screen(self.run_screen)
        self.run_worker(self._run_session(), name="session", exit_on_error=False)

    async def _run_session(self) -> None:
        try:
            self.result = await self.session.run()
        finally:
            await self.session.client.close()
        if self._quit_when_done:
            self.exit()
        else:
            self.notify("Session over: press q to quit", timeout=8)

    def on_bus_event(self, message: BusEvent) -> None:
        event = message.event
        self.run_screen.apply(event)
        if event.type is EventType.APPROVAL_REQUEST:
            self._ask_consent(event.data)
        if event.type in (EventType.APPROVAL_GRANTED, EventType.APPROVAL_DENIED) and self._consent_open is self.screen:
            # Settled without this dialog (a timeout, say): it must not linger over the run.
            self._consent_open.dismiss(None)
        if event.type is EventType.ASK_USER:
            self._ask_question(event.data["question"], bool(event.data.get("secret")))
        if event.type is EventType.OBSERVATION:
            content = self._screenshots.pop(event.data.get("screenshot") or "", None)
            if content is not None:
                self.run_screen.show_screenshot(content)

    def on_bus_artifact(self, message: BusArtifact) -> None:
        # Held until the OBSERVATION that names it, so the picture and its caption agree.
        if message.artifact.kind == "screenshot":
            self._screenshots = {message.artifact.id: message.artifact.content}

    def _ask_consent(self, request: dict[str, object]) -> None:
        def send(granted: bool | None) -> None:
            self._consent_open = None
            if granted is None:
                return
            if granted:
                self.control.grant(by="dashboard")
            else:
                self.control.deny(by="dashboard")

        if request.get("risky"):
            question = f"GO / NOT GO?\n{request['what']}\non {request.get('where', '')}"
        else:
            question = str(request["what"])
        self._consent_open = ConsentScreen(question, risky=bool(request.get("risky")))
        self.push_screen(self._consent_open, send)

    def _ask_question(self, question: str, secret: bool) -> None:
        def send(answer: str | None) -> None:
            if answer:
                self.control.answer(answer, by="dashboard")
            else:
                self.control.decline(by="dashboard")

        self.push_screen(QuestionScreen(question, secret), send)

    def action_approve(self) -> None:
        if self.control.awaiting_plan:
            self.control.approve(by="dashboard")
        else:
            self.notify("No plan is waiting for approval", severity="warning")

    def action_reject(self) -> None:
        if not self.control.awaiting_plan:
            self.notify("No plan is waiting for approval", severity="warning")
            return

        def send(feedback: str | None) -> None:
            if feedback is not None and self.control.awaiting_plan:
                self.control.reject(feedback, by="dashboard")

        self.push_screen(RejectScreen(), send)

    def action_pause(self) -> None:
        if self.result is not None:
            return
        if self.control.paused:
            self.control.resume()
            self.notify("Resuming")
        else:
            self.control.pause()
            self.notify("Pausing before the next action… (p resumes)")

    def action_stop(self) -> None:
        if self.result is None:
            self.control.stop()
            self.notify("Stopping…")

    def action_quit_dashboard(self) -> None:
        if self.result is not None:
            self.exit()
        else:
            self._quit_when_done = True
            self.control.stop()
