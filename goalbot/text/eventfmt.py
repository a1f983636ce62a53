"""One readable line per event: for `goalbot tail`, `--no-tui` and the dashboard's step log."""

from __future__ import annotations

import json
import re
from typing import Any

from goalbot.events import Event, EventType as T


# Terminal escape sequences (CSI, OSC and the rest) and other control characters: text from a model
# or a page must never clear the screen, retitle the window or move the cursor of whoever reads it.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` safe to print on a terminal: escape sequences dropped, other controls shown as ·."""
    return _CONTROLS.sub("·", _ESCAPES.sub("", text)).replace("\t", " ")


def _action(data: dict[str, Any]) -> str:
    action = dict(data.get("action") or {})
    name = action.pop("name", "?")
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in action.items())
    return f"{name}({args})"


def summary(event: Event) -> str:
    d = event.data
    match event.type:
        case T.TASK_START:
            where = f" at {d['url']}" if d.get("url") else ""
            return f"goal: {d['goal']}{where} (model {d['model']})"
        case T.TASK_OK | T.TASK_FAIL | T.TASK_CANCEL:
            answer = f" — {d['answer']}" if d.get("answer") else ""
            return f"{d.get('reason', '')}{answer}"
        case T.PLAN_PROPOSED:
            steps = "; ".join(f"{i}. {s}" for i, s in enumerate(d.get("steps", []), 1))
            return f"plan v{d.get('revision', 1)}: {steps or '(no steps)'}"
        case T.PLAN_APPROVED:
            return f"plan approved by {d.get('by', 'user')}"
        case T.PLAN_REJECTED:
            return f"plan rejected: {d.get('feedback') or 'no reason given'}"
        case T.STEP_START:
            return f"step {event.step}: {d['description']}"
        case T.STEP_OK | T.STEP_FAIL:
            return f"step {event.step}: {d.get('reason', '')}"
        case T.ACT_START:
            return _action(d)
        case T.ACT_OK:
            return f"{_action(d)} → {d.get('message', '')}"
        case T.ACT_FAIL:
            return f"{_action(d) if d.get('action') else 'answer'} → {d.get('error')}: {d.get('message', '')}"
        case T.VALIDATE_OK | T.VALIDATE_FAIL:
            return f"{d.get('reason', '')} (confidence {d.get('confidence', 0):.2f})"
        case T.OBSERVATION:
            return f"{d.get('title', '')} <{d.get('url', '')}> {d.get('elements', 0)} elements"
        case T.GOAL_STATUS:
            return f"progress {d.get('progress_percent', 0)}%, confidence {d.get('confidence', 0):.2f}"
        case T.LLM_CALL:
            extra = [f"${d['cost_usd']:.4f}"] if d.get("cost_usd") is not None else []
            if d.get("attempt", 1) > 1:
                extra.append(f"attempt {d['attempt']}")
            if d.get("dialect") not in (None, "tools"):
                extra.append(f"{d['dialect']} text")
            if d.get("shrink"):
                extra.append(f"prompt cut {d['shrink']}×")
            return " · ".join([d["role"], d["model"], f"{d['latency_ms']} ms",
                               f"{d.get('tokens_in', 0)}+{d.get('tokens_out', 0)} tokens", *extra])
        case T.LLM_ERROR:
            return f"{d['role']}: {d['message']}"
        case T.ASK_USER:
            return f"asks the person: {d.get('question', '')}"
        case T.USER_REPLY:
            return "declined to answer" if d.get("declined") else f"answered: {d.get('answer', '')}"
        case T.TASK_PAUSE:
            return f"paused: {d.get('reason', '')}"
        case T.TASK_RESUME:
            return f"resumed by {d.get('by', 'user')}"
        case T.APPROVAL_REQUEST:
            where = f" on {d['where']}" if d.get("where") else ""
            return f"{'GO / NOT GO? ' if d.get('risky') else ''}{d.get('kind', '')}: {d.get('what', '')}{where}"
        case T.APPROVAL_GRANTED | T.APPROVAL_DENIED:
            verdict = ("GO" if event.type is T.APPROVAL_GRANTED else "NOT GO") if d.get("risky") else ""
            return f"{verdict + ' ' if verdict else ''}{d.get('kind', '')}: {d.get('what', '')} — by {d.get('by') or 'user'}"
        case T.POLICY:
            return f"{d.get('policy', '')}: {d.get('message', '')}"
    return json.dumps(d, ensure_ascii=False)[:160]


def line(event: Event) -> str:
    ts = event.ts.astimezone().strftime("%H:%M:%S")
    text = printable(summary(event)).replace("\n", " ⏎ ")
    return f"{ts}  {printable(event.session_id)}  {event.actor.value:<9}  {event.type.value:<13}  {text}"


def json_line(event: Event) -> str:
    return event.model_dump_json()
