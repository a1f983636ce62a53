"""The Markdown report of a session (seed 002 §9), written from its events alone, so it reads the
same for a run that just ended, one resumed after a crash, and one stored long ago."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from goalbot.events import ENDINGS, Actor, Event, EventType as T
from goalbot.payloads import (
    AS_RECORDED, PLANNED_INSTEAD, ActionData, ApprovalData, ChosenData, ExtractedData, LlmErrorData, PlanDecisionData,
    PolicyData, PolicyName, ReplyData, ResumeData, StepData, TaskEndData, TaskStartData, ValidateData,
)
from goalbot.tally import Tally
from goalbot.text import report_pictures
from goalbot.text.eventfmt import choice_table, choice_words

_RESULT = {kind: status.value for kind, status in ENDINGS.items()}


def _duration(events: list[Event]) -> str:
    seconds = int((events[-1].ts - events[0].ts).total_seconds()) if events else 0
    return f"{seconds // 60}m {seconds % 60:02d}s"


def _when(ts: datetime) -> str:
    return ts.astimezone().strftime("%Y-%m-%d %H:%M")


class Kept(BaseModel):
    """What the session left in the store for later runs, which its events cannot say: they end
    before it is kept."""

    versions: list[str] = Field(default_factory=list, description='Recipe versions made from it: "darkmode v2".')
    heals: int = Field(0, description="Elements it put into healing memory.")
    trace_bytes: int = Field(0, description="The size of its Playwright trace, when one was kept.")


def render(session_id: str, goal: str, events: list[Event], kept: Kept | None = None,
           pictures: dict[str, str] | None = None) -> str:
    """`pictures`: the files the moments' screenshots were written to (`report --pictures`)."""
    end_event = next((e for e in reversed(events) if e.type in _RESULT), None)
    end = end_event.data_of(TaskEndData) if end_event else None
    result = f"{_RESULT[end_event.type]} — {end.reason}" if end_event and end else "not finished (interrupted)"
    usage = Tally.of(events)
    steps = [e for e in events if e.type is T.STEP_START]
    passed = sum(1 for e in events if e.type is T.STEP_OK)
    lines = [
        f"# Run summary {session_id}",
        "",
        f"- Goal: {goal}",
        f"- Result: {result}",
        f"- Started: {_when(events[0].ts) if events else '–'}, took {_duration(events)}",
        f"- Steps: {len(steps)} ({passed} passed) · model calls: {usage.calls} · "
        f"tokens: {usage.tokens_in} in, {usage.tokens_out} out"
        + (f" · cost: ${usage.cost_usd:.4f}" if usage.cost_usd is not None else ""),
        f"- Authoring profile: {_authoring(events)}",
    ]
    answer = end.answer if end else ""
    if answer:
        lines += ["", "## Answer", "", str(answer)]
    lines += _extracted(events)
    lines += _recipe(events, kept or Kept())
    lines += ["", "## What was done", ""] + (_steps(events) or ["(no step was run)"])
    lines += ["", "## Retried or worked around", ""] + (_detours(events) or ["(nothing)"])
    lines += ["", "## Decisions by the person", ""] + (_decisions(events) or ["(none)"])
    saved = _saved(events)
    if saved:
        lines += ["", "## Saved data", ""] + saved
    lines += report_pictures.section(session_id, report_pictures.moments(events), pictures)
    if kept and kept.trace_bytes:
        lines += ["", "## Evidence", "", f"- Playwright trace ({kept.trace_bytes / 1024:,.0f} KB, DOM snapshots): "
                  f"`goalbot trace {session_id}` opens it"]
    return "\n".join(lines) + "\n"


def _authoring(events: list[Event]) -> str:
    """Whose instructions the planner and the patcher had: a pinned (or named) profile's, or goalbot's."""
    options = events[0].data_of(TaskStartData).options if events and events[0].type is T.TASK_START else {}
    authored = options.get("authored") or {}
    return f"{authored['profile']} (goalbot tune)" if authored.get("profile") else "none (goalbot's own prompts)"


# How a rerun went its way (an optional action left out, another way, a block, a sign-in again,
# a loop): said in the recipe's section, not among the detours.
RECIPE_WAYS = (PolicyName.RECIPE_OPTIONAL, PolicyName.RECIPE_STATE, PolicyName.RECIPE_BRANCH, PolicyName.RECIPE_BLOCK, PolicyName.RECIPE_LOGIN,
               PolicyName.RECIPE_LOOP, PolicyName.RECIPE_FOUND)


def _recipe(events: list[Event], kept: Kept) -> list[str]:
    """Seed 002 §9: the recipe in and out, how each element was found, each heal and patch, and
    what the next run will do differently."""
    options = events[0].data_of(TaskStartData).options if events and events[0].type is T.TASK_START else {}
    if "recipe" not in options:
        return ["", "## Recipe", "", f"- Saved as recipe {', '.join(kept.versions)}: "
                "`goalbot rerun` repeats it with no model"] if kept.versions else []
    rungs: dict[str, int] = {}
    heals: list[str] = []
    matched: list[str] = []  # what the goal's find said: the matcher's binding, a hand-over to the planner
    target: dict[str, Any] = {}
    for e in events:
        match e.type, e.payload:
            case T.ACT_START, ActionData() as acting:
                target = acting.target or {}
            case T.POLICY, PolicyData(policy=PolicyName.RECIPE_PATCH) as patch:
                heals.append(f"- step {e.step}: the model's patch — {patch.message}")
            case T.POLICY, PolicyData(policy=policy, message=message) if policy in RECIPE_WAYS:
                if policy == PolicyName.RECIPE_FOUND:
                    matched.append(message)
                heals.append(f"- {message}" if message.startswith("step ") or e.step is None
                             else f"- step {e.step}: {message}")
            case T.ACT_OK, ActionData(resolved_by=str() as rung) as done if rung:
                rungs[rung] = rungs.get(rung, 0) + 1
                if rung not in AS_RECORDED:
                    heals.append(f"- step {e.step}: {done.action.name} found by {rung} as "
                                 f"{target.get('role', '')} \"{target.get('name', '')}\"{_locator(target)}")
    found = ", ".join(f"{rung} {count}" for rung, count in rungs.items()) or "none"
    calls = sum(1 for e in events if e.type is T.LLM_CALL)
    why = ": the matcher's, a patch's or the planned run's" if matched else ", for patches"
    model = f"{calls} model call{'s' * (calls != 1)}{why}" if calls else "no model"
    recipe = f"{options['recipe']} v{options.get('recipe_version')}"
    out = ", ".join(kept.versions) or f"unchanged ({recipe})"
    notes = [f"- The next rerun runs {kept.versions[-1]}, patched here."] if kept.versions else []
    if any(m.endswith(PLANNED_INSTEAD) for m in matched) and events[-1].type is T.TASK_OK:
        given = "".join(f" --var {name}=…" for name in options.get("variables") or {})
        notes.append(f"- The planner reached the goal after the recipe: `goalbot recipe save {events[0].session_id} "
                     f"{options['recipe']}{given}` keeps this run as its next version.")
    if kept.heals:
        notes.append(f"- {kept.heals} healed element{'s' * (kept.heals != 1)} remembered: the next rerun "
                     "finds them by healing memory, with no model call.")
    finding = [f"- Found by the goal typed, {options['found']} (--no-recipes plans it instead)"] \
        if options.get("found") else []
    return (["", "## Recipe", "", f"- Input recipe: {recipe}", *finding, f"- Output recipe: {out}",
             f"- Run with {model}", f"- Elements found by: {found}"] + heals
            + (["", "## Operator notes", ""] + notes if notes else []))


def _locator(target: dict[str, Any]) -> str:
    """The locator a heal will be found by next time, as a person would read it."""
    for key, shown in (("test_id", "test id {}"), ("id", "#{}"), ("css", "{}")):
        if target.get(key):
            return f" ({shown.format(target[key])})"
    return ""


def _steps(events: list[Event]) -> list[str]:
    out: list[str] = []
    for n, e in enumerate(events):
        match e.type, e.payload:
            case T.STEP_OK, StepData() as step:
                out.append(f"{len(out) + 1}. {step.description} — done: {step.reason}")
            case T.STEP_FAIL, StepData() as step:
                # Only a run whose planner planned again re-planned; a rerun's failure ends it.
                replanned = any(later.type is T.PLAN_PROPOSED for later in events[n + 1:])
                out.append(f"{len(out) + 1}. {step.description} — failed: {step.reason}"
                           + ("; re-planned" if replanned else ""))
            case T.TASK_RESUME, ResumeData(resumed=True):
                out.append(f"{len(out) + 1}. (the run was cut off here and resumed with `goalbot resume`)")
    return out


def _detours(events: list[Event]) -> list[str]:
    out: list[str] = []
    errors = sum(1 for e in events if e.type is T.LLM_ERROR)
    if errors:
        out.append(f"- The model endpoint failed {errors} times; each was retried or reported.")
    for e in events:
        match e.type, e.payload:
            case T.ACT_FAIL, ActionData() as failed:
                out.append(f"- step {e.step}: {failed.action.name or 'answer'} failed ({failed.error}): "
                           f"{failed.message}")
            case T.POLICY, PolicyData() as policy if policy.policy not in (PolicyName.MIN_INTERVAL,
                                                                            PolicyName.RECIPE_PATCH, *RECIPE_WAYS):
                out.append(f"- safety policy {policy.policy}: {policy.message}")
            case T.VALIDATE_FAIL, ValidateData() as verdict:
                out.append(f"- the validator rejected: {verdict.reason}")
            case T.LLM_ERROR, LlmErrorData(said=str() as said) as error:
                # Fenced with more backticks than it holds: a model's text may carry its own fences.
                fence = "`" * max(3, _longest_run(said, "`") + 1)
                out += [f"- step {e.step}: {error.message}; the {error.role} said:", "", fence, said, fence, ""]
    return out


def _longest_run(text: str, char: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _decisions(events: list[Event]) -> list[str]:
    out: list[str] = []
    for e in events:
        match e.type, e.payload:
            case T.PLAN_APPROVED, PlanDecisionData() as plan if e.actor is Actor.SYSTEM:
                out.append(f"- re-plan kept the approved steps: {'; '.join(plan.steps)}")
            case T.PLAN_APPROVED, PlanDecisionData() as plan:
                edited = " (edited by the person)" if plan.edited else ""
                out.append(f"- plan approved by {plan.by}{edited}: {'; '.join(plan.steps)}")
            case T.PLAN_REJECTED, PlanDecisionData() as plan:
                out.append(f"- plan rejected by {plan.by}: {plan.feedback or 'no reason given'}")
            case T.APPROVAL_GRANTED | T.APPROVAL_DENIED, ApprovalData() as consent:
                verdict = "GO" if e.type is T.APPROVAL_GRANTED else "NOT GO"
                out.append(f"- {verdict} ({consent.kind}) by {consent.by or 'user'}: {consent.what}")
            case T.USER_REPLY, ReplyData() as reply:
                out.append("- a question was declined" if reply.declined else f"- answered: {reply.answer}")
    return out


READ_BY = {"network": "from the page's own JSON, no model", "places": "at the recorded places, no model",
           "document": "on the recorded lines of the document, no model",
           "ocr": "in the page's pictures by OCR, no model", "model": "by the model"}


def _extracted(events: list[Event]) -> list[str]:
    """What was read off pages for a schema, and whether it fit."""
    out: list[str] = []
    for e in events:
        match e.type, e.payload:
            case T.EXTRACTED, ExtractedData() as read:
                fit = "fits its schema" if read.valid else "does NOT fit its schema"
                out += [f"- `{read.key}`, read on {read.url} {READ_BY[read.read_by]}, {fit}:", "", "```json",
                        json.dumps(read.data, ensure_ascii=False, indent=2), "```"]
                out += [f"  - {error}" for error in read.errors]
            case T.CHOSEN, ChosenData() as chosen:
                out += ["", f"Policy `{chosen.policy}` ({chosen.rules}) on `{chosen.from_}`: {choice_words(chosen)}", "",
                        "| | candidate | why |", "|---|---|---|"]
                out += [f"| {mark} | {words.replace('|', '/')} | {why.replace('|', '/')} |"
                        for mark, words, why in choice_table(chosen)]
    return ["", "## Extracted data and choices", "", *out] if out else []


def _saved(events: list[Event]) -> list[str]:
    saved: dict[str, str] = {}
    for e in events:
        match e.type, e.payload:
            case T.ACT_OK, ActionData() as done if done.action.name == "save_data":
                saved[str(done.action.arg("key"))] = str(done.action.arg("value"))
    return [f"- {key}: {value}" for key, value in saved.items()]
