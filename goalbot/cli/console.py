"""`--no-tui`: events printed as lines, and the person's decisions asked at the prompt."""

from __future__ import annotations

import asyncio
import getpass
import signal
import sys
import threading
from typing import Any, Callable

from goalbot.cli.terminal import emit
from goalbot.text import eventfmt, plan_editing
from goalbot.text.eventfmt import printable
from goalbot.agents.choosing import PolicyError, choice_rules, read_policies
from goalbot.agents.control import SessionControl
from goalbot.agents.outcome import Run
from goalbot.agents.session import SessionResult
from goalbot.events import Bus, Event, EventType
from goalbot.operators.browser.early import run_loop
from goalbot.payloads import ApprovalData, PlanData, QuestionData


# Events that settle the question at the prompt some other way (a timeout, goalbot attach, the end).
SETTLING = {EventType.PLAN_APPROVED, EventType.PLAN_REJECTED, EventType.APPROVAL_GRANTED,
            EventType.APPROVAL_DENIED, EventType.USER_REPLY, EventType.TASK_OK, EventType.TASK_FAIL,
            EventType.TASK_CANCEL}


class Lines:
    """Event lines on standard output. While a question waits at the prompt, the lines that come
    are held and printed after the answer, so none is written onto the line the person types on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: list[str] | None = None

    def print(self, line: str, settles: bool = False) -> None:
        with self._lock:
            if self._held is not None and not settles:
                self._held.append(line)
                return
            if self._held is not None:  # the prompt is void: go on below it
                emit("")
                self._flush()
            emit(line)

    def hold(self) -> None:
        with self._lock:
            self._held = self._held if self._held is not None else []

    def release(self) -> None:
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        held, self._held = self._held or [], None
        for line in held:
            emit(line)


def run_printing(bus: Bus, session: Run, control: SessionControl, ask_here: bool | None = None) -> SessionResult:
    """The run, its events printed. Its questions are asked at this terminal when `ask_here` (by
    default, when there is one); with --await-attach they are `goalbot attach`'s alone, and the
    terminal is never read: a run sent to the background (`&`) would be stopped by the shell."""
    ask_here = sys.stdin.isatty() if ask_here is None else ask_here
    lines = Lines()

    def ask(question: Callable[..., None], *args: object) -> None:
        lines.hold()  # before the thread starts: the very next event must not reach the prompt

        def asking() -> None:
            try:
                question(control, *args)
            finally:
                lines.release()

        threading.Thread(target=asking, daemon=True).start()

    def show(event: Event) -> None:
        lines.print(eventfmt.line(event), settles=event.type in SETTLING)
        if not ask_here:
            return
        match event.type, event.payload:
            case EventType.PLAN_PROPOSED, PlanData(asks_approval=True) as plan:
                ask(_ask_approval, plan.steps, plan.policies)
            case EventType.APPROVAL_REQUEST, ApprovalData() as request if control.can_ask:
                ask(_ask_consent, request)
            case EventType.ASK_USER, QuestionData() as question if control.can_ask:
                ask(_ask_question, question)

    bus.subscribe(show)

    async def go() -> SessionResult:
        loop = asyncio.get_running_loop()

        def stop_once() -> None:
            # The first Ctrl-C stops cleanly; should cleanup hang, the next one interrupts it.
            loop.remove_signal_handler(signal.SIGINT)
            control.stop()

        loop.add_signal_handler(signal.SIGINT, stop_once)
        loop.add_signal_handler(signal.SIGTERM, control.stop)
        return await session.run()

    with run_loop() as runner:  # the loop the Playwright driver was spawned on, if it was
        return runner.run(go())


def _ask_approval(control: SessionControl, proposed: list[str], policies: dict[str, Any]) -> None:
    if policies:
        print(printable(choice_rules(policies)), flush=True)
    prompt = "Approve this plan? [y = yes, e = edit the steps, anything else = reject with that feedback] "
    try:
        answer = input(prompt).strip()
        if answer.lower() in ("e", "edit"):
            _edit_plan(control, proposed, policies)
            return
    except EOFError:
        answer = ""
    if answer.lower() in ("y", "yes"):
        control.approve()
    else:
        control.reject(answer)


def _edit_plan(control: SessionControl, proposed: list[str], policies: dict[str, Any]) -> None:
    """Edits the steps one command at a time until the person approves (`y`) or rejects (`r …`);
    `p {…}` sets the choice policies (JSON, as in policies.json)."""
    steps, edited = list(proposed), None
    print(f"{printable(plan_editing.numbered(steps))}\n{plan_editing.HELP} · `p {{…}}` set the choice policies",
          flush=True)
    while True:
        command = input("edit> ").strip()
        if command.lower() in ("y", "yes"):
            control.approve(steps, policies=edited)
            return
        if command.startswith("p "):
            try:
                read = read_policies(command[2:], "your policies")
            except PolicyError as exc:
                print(printable(str(exc)), flush=True)
                continue
            edited = {name: policy.model_dump(mode="json") for name, policy in read.items()}
            print(printable(choice_rules(edited)), flush=True)
            continue
        if command.lower() == "r" or command.lower().startswith("r "):
            control.reject(command[1:].strip())
            return
        try:
            steps = plan_editing.apply(steps, command)
        except plan_editing.EditError as exc:
            print(exc, flush=True)
            continue
        print(printable(plan_editing.numbered(steps)), flush=True)


def _ask_consent(control: SessionControl, request: ApprovalData) -> None:
    if request.risky:
        question = printable(f"GO / NOT GO: {request.what} on {request.where}? ") + "[go = GO, anything else = NOT GO] "
        yes: tuple[str, ...] = ("go", "y", "yes")
    else:
        question = printable(f"{request.what} ") + "[y = yes, anything else = no] "
        yes = ("y", "yes")
    try:
        answer = input(question).strip()
    except EOFError:
        answer = ""
    if answer.lower() in yes:
        control.grant()
    else:
        control.deny()


def _ask_question(control: SessionControl, question: QuestionData) -> None:
    prompt = f"The agent asks: {printable(question.question)}\nYour answer (empty to decline): "
    try:
        # A password or a code is not echoed, so it is not left on the screen either.
        answer = getpass.getpass(prompt) if question.secret else input(prompt)
    except EOFError:
        answer = ""
    if answer:
        control.answer(answer)
    else:
        control.decline()
