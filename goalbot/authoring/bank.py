"""The task bank (seed 002 §5.6 "Task Specs Bank"), built from the store: each authoring request
a run kept (its `model_request`), with what became of its answer — a patch that healed the rerun
or failed, a plan and its choice policies that a person approved, edited or turned down, the
elements the run then went through — and the tasks a person wrote in a file of their own.

A failure is a task as much as a success: the next round is told what did not work."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from goalbot.authoring.tasks import Task, page_elements
from goalbot.llm.kept import KIND as REQUEST_KIND
from goalbot.llm.profiles import Program
from goalbot.text.json_lines import JsonLinesError, read_json_lines
from storage import queries
from storage.db import connect

MAX_SPEC_BYTES = 5_000_000


class BankError(Exception):
    """The task file cannot be read; the message says where and why, in one line."""


@dataclass
class Bank:
    tasks: list[Task] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    spec_file: str | None = None

    def of(self, program: Program) -> list[Task]:
        return [t for t in self.tasks if t.program == program]

    def split(self, program: Program, heldout_share: float) -> tuple[list[Task], list[Task]]:
        """Training and held-out tasks, apart: the same task always falls on the same side (by a
        hash of its id), so a round after a round holds out what it held out before."""
        tasks = sorted(self.of(program), key=lambda t: hashlib.sha1(t.id.encode()).hexdigest())
        if len(tasks) < 2:
            return tasks, []
        held = min(len(tasks) - 1, max(1, round(len(tasks) * heldout_share)))
        return tasks[held:], tasks[:held]


def build(db_path: Path, spec_file: Path | None = None, judged: dict[str, bool] | None = None) -> Bank:
    """Raises StoreError (a store that cannot be read) and BankError (a task file that cannot be).

    `judged`: sessions whose end a page judged (`goalbot eval`'s episodes, by their reward): a
    session the page says failed teaches what to avoid, however well its run thought it ended."""
    bank = Bank(spec_file=str(spec_file) if spec_file else None)
    if db_path.exists():
        _from_store(bank, db_path, judged or {})
    if spec_file is not None:
        bank.tasks += read_specs(spec_file)
    return bank


def _from_store(bank: Bank, db_path: Path, judged: dict[str, bool]) -> None:
    db = connect(db_path, create=False)
    try:
        rows = db.execute("select a.session_id, a.content from artifacts a where a.kind = ? order by a.rowid",
                          [REQUEST_KIND]).fetchall()
        requests: dict[str, list[dict[str, Any]]] = {}
        for session_id, content in rows:
            try:
                requests.setdefault(session_id, []).append(json.loads(content))
            except (ValueError, TypeError):
                continue  # a damaged request teaches nothing
        for session_id, kept in requests.items():
            session = queries.session_row(db, session_id)
            if session is None:
                continue
            events = [(e.type.value, dict(e.data)) for e in queries.session_events(db, session_id)]
            found = _from_session(session_id, session.goal, str(session.status), kept, events,
                                  judged.get(session_id))
            if found:
                bank.sessions.append(session_id)
                bank.tasks += found
    finally:
        db.close()


def _from_session(session_id: str, goal: str, status: str, kept: list[dict[str, Any]],
                  events: list[tuple[str, dict[str, Any]]], reached: bool | None = None) -> list[Task]:
    planner = [r for r in kept if r.get("role") == "planner"]
    patcher = [r for r in kept if r.get("role") == "patcher"]
    if reached is not None:  # the page's word on the end, not the run's
        status = "ok" if reached else "failed"
    tasks = _plans(session_id, goal, status, planner, events, judged=reached is not None) \
        + _patches(session_id, status, patcher, events)
    if reached is not None:
        for task in tasks:
            task.source += ", judged by its page"
    return tasks


def _user_text(request: dict[str, Any]) -> str:
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    return str(users[0]) if users else ""


def _answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The answer the role gave: its tool call's arguments, or its JSON text."""
    answer = request.get("answer") or {}
    calls = answer.get("tool_calls") or []
    text = calls[0].get("function", {}).get("arguments") if calls else answer.get("content")
    try:
        parsed = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _patches(session_id: str, status: str, kept: list[dict[str, Any]],
             events: list[tuple[str, dict[str, Any]]]) -> list[Task]:
    said = [str(d.get("message", "")) for t, d in events if t == "POLICY" and d.get("policy") == "recipe_patch"]
    by_person = [d.get("target") or {} for t, d in events if t == "ACT_OK" and d.get("resolved_by") == "person"]
    tasks: list[Task] = []
    for n, request in enumerate(kept, 1):
        answer, text = _answer(request), _user_text(request)
        failure, _, page = text.partition("\n")
        if answer is None or not page.strip():
            continue
        try:
            failed_step = json.loads(failure).get("failed_step")
        except (ValueError, AttributeError):
            failed_step = None
        reason = str(answer.get("reason", ""))
        applied = any(m.startswith("patched:") and m.endswith(f"({reason})") for m in said)
        task = Task(id=f"{session_id}:patch:{n}", program="patch", source=f"session {session_id}",
                    inputs={"failure": failure, "page": page.strip()}, gold={"failed_step": failed_step})
        if applied and status == "ok":
            task.gold["elements"] = _elements_used(answer, page)
            task.answer = json.dumps(answer, ensure_ascii=False)
        else:  # turned down, not applicable, or the rerun failed after it: a task to do better on
            task.avoid = [answer]
            task.gold["elements"] = [{"role": t.get("role", ""), "name": t.get("name", "")}
                                     for t in by_person[:1] if t.get("name")]
        tasks.append(task)
    return tasks


def _elements_used(answer: dict[str, Any], page: str) -> list[dict[str, str]]:
    elements = page_elements(page)
    used: list[dict[str, str]] = []
    for op in answer.get("ops", []):
        indices = [op.get("index")] if op.get("op") == "replace_target" else [
            a.get("index") for a in op.get("actions", []) if isinstance(a, dict)]
        used += [{"role": elements[i].role, "name": elements[i].name} for i in indices if i in elements]
    return used


def _plans(session_id: str, goal: str, status: str, kept: list[dict[str, Any]],
           events: list[tuple[str, dict[str, Any]]], judged: bool = False) -> list[Task]:
    """The i-th planner request is the i-th PLAN_PROPOSED; what the person did with it follows."""
    proposed = [i for i, (t, _) in enumerate(events) if t == "PLAN_PROPOSED"]
    tasks: list[Task] = []
    for n, (request, at) in enumerate(zip(kept, proposed), 1):
        plan = events[at][1]
        steps = [str(s) for s in plan.get("steps", [])]
        last = at == proposed[-1]
        until = len(events) if last else proposed[proposed.index(at) + 1]
        window = events[at + 1:until]  # what became of this plan, before the planner was asked again
        decision = next(((t, d) for t, d in window if t in ("PLAN_APPROVED", "PLAN_REJECTED")), None)
        if not steps or decision is None:
            continue
        base = {"source": f"session {session_id}", "inputs": {"goal": goal, "page": _user_text(request)}}
        kind, data = decision
        if kind == "PLAN_REJECTED":
            later = next((d for t, d in events[until:] if t == "PLAN_APPROVED"), None)
            gold = {"steps": later.get("steps", [])} if later else {}
            tasks.append(Task(id=f"{session_id}:workflow:{n}", program="workflow", gold=gold, avoid=[steps], **base))
            continue
        approved = [str(s) for s in data.get("steps", [])]
        edited = bool(data.get("edited")) or approved != steps
        if judged and last and status != "ok":  # the plan ran to its end and the page says it missed
            tasks.append(Task(id=f"{session_id}:workflow:{n}", program="workflow", avoid=[approved], **base))
            continue
        if edited or (last and status == "ok"):
            acted = _acted(window) if last and status == "ok" else []
            tasks.append(Task(id=f"{session_id}:workflow:{n}", program="workflow",
                              gold={"steps": approved, "elements": acted},
                              answer=json.dumps(approved, ensure_ascii=False), **base))
        policies = data.get("policies") or {}
        if policies and (plan.get("policies") != policies or status == "ok"):
            tasks.append(Task(id=f"{session_id}:policy:{n}", program="policy", source=f"session {session_id}",
                              inputs={"goal": goal}, gold={"policies": policies, **_choice(window)},
                              answer=json.dumps(policies, ensure_ascii=False)))
    return tasks


def _acted(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Per step of the plan, the name of the first element the run acted on in it ("" for none)."""
    firsts: dict[int, str] = {}
    step = 0
    for kind, data in events:
        if kind == "STEP_START":
            step = int(data.get("index") or step + 1)
        name = (data.get("target") or {}).get("name") if kind == "ACT_OK" else None
        if name and step and step not in firsts:
            firsts[step] = str(name)
    return [firsts.get(n, "") for n in range(1, max(firsts, default=0) + 1)]


def _choice(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The candidates the run chose among by the plan's policy, and which it took."""
    chosen = next((d for t, d in events if t == "CHOSEN"), None)
    if not chosen or chosen.get("position") is None:
        return {}
    return {"candidates": [row.get("candidate") for row in chosen.get("table", [])], "chosen": chosen["position"]}


class Spec(BaseModel):
    """One line of a task file a person writes."""

    model_config = {"extra": "forbid"}

    program: Program
    goal: str = ""
    page: str = ""
    failure: dict[str, Any] | str = ""
    expect: dict[str, Any] = Field(default_factory=dict)
    answer: Any = None
    avoid: list[Any] = Field(default_factory=list)


def read_specs(path: Path) -> list[Task]:
    """Raises BankError, naming the line."""
    try:
        return [_task_of(spec, where) for where, spec in
                read_json_lines(path, Spec, "a task", MAX_SPEC_BYTES, lambda number: f"{path.name} line {number}")]
    except JsonLinesError as exc:
        raise BankError(str(exc)) from exc


def _task_of(spec: Spec, where: str) -> Task:
    needs = {"workflow": ("goal",), "policy": ("goal",), "patch": ("failure", "page")}[spec.program]
    missing = [name for name in needs if not getattr(spec, name)]
    if missing:
        raise BankError(f"{where}: a {spec.program} task needs {', '.join(missing)}")
    failure = spec.failure if isinstance(spec.failure, str) else json.dumps(spec.failure, ensure_ascii=False)
    inputs = {"patch": {"failure": failure, "page": spec.page},
              "workflow": {"goal": spec.goal, "page": spec.page}, "policy": {"goal": spec.goal}}[spec.program]
    answer = None if spec.answer is None else json.dumps(spec.answer, ensure_ascii=False)
    return Task(id=f"{where}:{hashlib.sha1(json.dumps(spec.model_dump(), sort_keys=True, default=str).encode()).hexdigest()[:8]}",
                program=spec.program, source=where, inputs=inputs, gold=dict(spec.expect), avoid=spec.avoid,
                answer=answer)

