"""The pictures a report shows: the screens of the moments that mattered in a run — each GO or
checkpoint asked for, the first failure, and the end — picked from the screenshots it kept."""

from __future__ import annotations

from dataclasses import dataclass

from goalbot.events import Event, EventType as T
from goalbot.payloads import ApprovalData, ObservationData

FAILURES = frozenset({T.ACT_FAIL, T.STEP_FAIL, T.TASK_FAIL})


@dataclass(frozen=True)
class Moment:
    label: str  # "the GO asked for: delete the 3 drafts"
    artifact_id: str
    step: int | None


def moments(events: list[Event]) -> list[Moment]:
    """In the run's order, one picture once: a screen that was both the failure and the end is shown
    as the failure."""
    found: list[Moment] = []
    latest: tuple[str, int | None] | None = None  # the newest screenshot so far
    failed = False
    for event in events:
        match event.type, event.payload:
            case T.OBSERVATION, ObservationData(screenshot=str(picture)):
                latest = (picture, event.step)
            case T.APPROVAL_REQUEST, ApprovalData(screenshot=str(picture)) as asked:
                question = "the GO asked for" if asked.risky else f"the {asked.kind} asked for"
                found.append(Moment(f"{question}: {_cut(asked.what)}", picture, event.step))
                latest = (picture, event.step)
            case kind, _ if kind in FAILURES and not failed and latest is not None:
                failed = True
                where = f"step {event.step}" if event.step else "the run"
                found.append(Moment(f"where {where} failed", latest[0], latest[1]))
    if latest is not None:
        found.append(Moment("the end", latest[0], latest[1]))
    once: dict[str, Moment] = {}
    for moment in found:
        once.setdefault(moment.artifact_id, moment)
    return list(once.values())


def section(session_id: str, shown: list[Moment], files: dict[str, str] | None = None) -> list[str]:
    """The report's pictures: with `files` (artifact id → the file it was written to), as images
    a Markdown reader draws; else named, with the command that writes them."""
    if not shown:
        return []
    if files is not None:
        return ["", "## Pictures", ""] + [f"![{_plain(m.label)}]({files[m.artifact_id]})" for m in shown
                                          if m.artifact_id in files]
    return (["", "## Pictures", ""] + [f"- {m.label}" + (f" (step {m.step})" if m.step else "") for m in shown]
            + ["", f"`goalbot report {session_id} --pictures DIR` writes them, and this report with them."])


def _cut(text: str, most: int = 100) -> str:
    words = " ".join(text.split())
    return words if len(words) <= most else words[:most].rsplit(" ", 1)[0] + "…"


def _plain(label: str) -> str:
    """A label as an image's alt text: brackets would end it early."""
    return label.replace("[", "(").replace("]", ")")
