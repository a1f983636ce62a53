"""The evaluation harness of seed 002 §5.6, with no browser: each answer is replayed on the page
its task stored. It says per answer how it did — schema validity, dry run (does it resolve to the
element the recorded success used), determinism (would a rerun find that element again surely),
token cost — and, for GEPA, what was wrong in words."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from goalbot.agents.choosing import PolicyError, choose, policies_of
from goalbot.authoring.tasks import PageElement, Task, page_elements
from goalbot.llm.profiles import Metrics, Weights
from goalbot.llm.tools import PatchAnswer

MAX_STEPS = 15


class Judgement(BaseModel):
    schema_ok: float = 0.0
    dry_run: float = 0.0
    determinism: float = 0.0
    cost: float = 0.0
    score: float = 0.0
    feedback: str = ""


class Harness:
    def __init__(self, weights: Weights | None = None, cost_ceiling: int = 6000) -> None:
        """`cost_ceiling`: the tokens (in and out) of one call that count as a cost of 1."""
        self.weights = weights or Weights()
        self.cost_ceiling = cost_ceiling

    def judge(self, task: Task, answer: str, tokens: int) -> Judgement:
        cost = min(1.0, tokens / self.cost_ceiling) if self.cost_ceiling else 0.0
        try:
            parsed = _parse(task.program, answer)
        except ValueError as exc:
            return self._scored(0.0, 0.0, 0.0, cost, [f"The answer is not usable: {exc}."])
        dry_run, determinism, said = _JUDGES[task.program](task, parsed)
        if cost > 0.5:
            said.append(f"The call took {tokens} tokens; shorter answers cost less.")
        return self._scored(1.0, dry_run, determinism, cost, said)

    def _scored(self, schema: float, dry_run: float, determinism: float, cost: float, said: list[str]) -> Judgement:
        score = self.weights.score(dry_run, schema, determinism, cost)
        return Judgement(schema_ok=schema, dry_run=dry_run, determinism=determinism, cost=cost,
                         score=round(score, 4), feedback=" ".join(said) or "Correct: keep answering like this.")

    @staticmethod
    def mean(judgements: list[Judgement]) -> Metrics:
        n = len(judgements)
        if not n:
            return Metrics()
        return Metrics(dry_run=sum(j.dry_run for j in judgements) / n, schema=sum(j.schema_ok for j in judgements) / n,
                       determinism=sum(j.determinism for j in judgements) / n,
                       cost=sum(j.cost for j in judgements) / n, score=sum(j.score for j in judgements) / n, tasks=n)


def _json_in(answer: str) -> Any:
    text = answer.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    return json.loads(fenced.group(1) if fenced else text)


def _parse(program: str, answer: str) -> Any:
    """Raises ValueError saying, in words, why the answer cannot be used."""
    try:
        raw = _json_in(answer)
    except json.JSONDecodeError as exc:
        raise ValueError(f"it is not JSON ({exc.msg})") from exc
    if program == "patch":
        try:
            return PatchAnswer.model_validate(raw)
        except ValidationError as exc:
            raise ValueError(f"it is not a patch: {exc.errors()[0]['msg']}") from exc
    if program == "policy":
        try:
            return policies_of(raw, "the answer")
        except PolicyError as exc:
            raise ValueError(str(exc)) from exc
    steps = raw.get("steps") if isinstance(raw, dict) else raw
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) and s.strip() for s in steps):
        raise ValueError("give the steps as a JSON list of non-empty strings")
    if len(steps) > MAX_STEPS:
        raise ValueError(f"{len(steps)} steps: a plan has at most {MAX_STEPS}")
    return [s.strip() for s in steps]


def _patch(task: Task, answer: PatchAnswer) -> tuple[float, float, list[str]]:
    page = page_elements(task.inputs.get("page", ""))
    said: list[str] = []
    used: list[PageElement] = []
    for op in answer.ops:
        indices = [op.index] if op.op == "replace_target" else [a.get("index") for a in op.actions]
        for index in indices:
            if isinstance(index, int) and index in page:
                used.append(page[index])
            elif index is not None:
                said.append(f"There is no element [{index}] on the page: use an index the page shows.")
    if any(_same_patch(answer, gone) for gone in task.avoid):
        said.append("This very patch was tried on this failure and did not heal the recipe: look for another way.")
        return 0.0, _unique(used, page), said
    wanted = [(e["role"], e["name"]) for e in task.gold.get("elements", [])]
    hit = [w for w in wanted if any(u.same(*w) for u in used)]
    dry_run = len(hit) / len(wanted) if wanted else (0.0 if task.avoid and not used else 1.0)
    for role, name in wanted:
        if (role, name) not in hit:
            chosen = ", ".join(u.words() for u in used) or "no element"
            said.append(f'The patch that healed this failure used {role} "{name}"; this one uses {chosen}. '
                        "Pick the element the failed step's target became, by its role and name.")
    failed = task.gold.get("failed_step")
    if failed and not any(failed in (op.step, op.before_step) for op in answer.ops):
        said.append(f"The failed step is {failed}; patch that step.")
        dry_run *= 0.5
    determinism = _unique(used, page)
    if determinism < 1:
        said.append("An element the patch uses shares its role and name with another: a rerun could not "
                    "find it again surely.")
    return dry_run, determinism, said


def _same_patch(answer: PatchAnswer, gone: Any) -> bool:
    try:
        return PatchAnswer.model_validate(gone).model_dump(exclude={"reason"}) == answer.model_dump(exclude={"reason"})
    except ValidationError:
        return False


def _unique(used: list[PageElement], page: dict[int, PageElement]) -> float:
    if not used:
        return 1.0
    seen = Counter((e.role.lower(), e.name.strip().lower()) for e in page.values())
    return sum(1 for u in used if seen[(u.role.lower(), u.name.strip().lower())] == 1) / len(used)


def _workflow(task: Task, steps: list[str]) -> tuple[float, float, list[str]]:
    """A step of the plan that worked is reached when a step here says the same short-term goal,
    or names the element the run went through first in it."""
    said: list[str] = []
    text = " ".join(steps).lower()
    if any([s.strip().lower() for s in steps] == [g.strip().lower() for g in gone] for gone in task.avoid):
        return 0.0, 1.0, ["The person turned this very plan down: plan differently."]
    gold = [str(g) for g in task.gold.get("steps", [])]
    elements = [str(e) for e in task.gold.get("elements", [])]
    missed = [g for n, g in enumerate(gold)
              if not _covered(g, steps) and not (n < len(elements) and elements[n] and elements[n].lower() in text)]
    dry_run = 1 - len(missed) / len(gold) if gold else 1.0
    if missed:
        said.append(f"The plan that worked was: {' / '.join(gold)}; nothing here says {missed[0]!r}.")
    if gold and abs(len(steps) - len(gold)) > 2:
        said.append(f"{len(steps)} steps where {len(gold)} did it: a step is a short-term goal, not a keystroke.")
        dry_run *= 0.5
    page = page_elements(task.inputs.get("page", ""))
    counts = Counter(e.name.strip().lower() for e in page.values() if e.name.strip())
    mentioned = [name for name in counts if len(name) > 2 and name in text]
    determinism = sum(1 for n in mentioned if counts[n] == 1) / len(mentioned) if mentioned else 1.0
    if determinism < 1:
        said.append("A control the plan names is on the page more than once: say which.")
    return dry_run, determinism, said


def _covered(gold_step: str, steps: list[str]) -> bool:
    words = {w for w in re.findall(r"\w{4,}", gold_step.lower())}
    return not words or any(len(words & set(re.findall(r"\w{4,}", s.lower()))) * 2 >= len(words) for s in steps)


def _policy(task: Task, policies: dict[str, Any]) -> tuple[float, float, list[str]]:
    said: list[str] = []
    gold = policies_of(task.gold.get("policies", {}), "the approved policy")
    if not policies:
        return 0.0, 0.0, ["The goal states how to pick: write a policy for it."]
    name, policy = next(iter(policies.items()))
    candidates, chosen = task.gold.get("candidates"), task.gold.get("chosen")
    if candidates and chosen is not None:
        try:
            picked = choose(name, policy, candidates, {}).position
        except Exception as exc:  # NoCandidate and bad comparisons alike: it picked nothing
            picked, why = None, str(exc)
            said.append(f"On the candidates the run saw, the policy picks nothing ({why[:120]}).")
        dry_run = 1.0 if picked == chosen else 0.0
        if picked is not None and picked != chosen:
            said.append(f"On the candidates the run saw it picks {candidates[picked]!r}; the approved policy "
                        f"picked {candidates[chosen]!r}.")
    else:
        wanted = {(c.field, c.op) for p in gold.values() for c in p.hard}
        have = {(c.field, c.op) for c in policy.hard}
        dry_run = len(wanted & have) / len(wanted) if wanted else 1.0
        if wanted - have:
            said.append("The approved policy also held: " + ", ".join(f"{f} {o}" for f, o in sorted(wanted - have)))
    determinism = 1.0 if policy.tie_break else 0.5
    if not policy.tie_break:
        said.append("Without tie_break keys a tie falls to the list's order: add one.")
    return dry_run, determinism, said


_JUDGES: dict[str, Callable[[Task, Any], tuple[float, float, list[str]]]] = {
    "workflow": _workflow, "policy": _policy, "patch": _patch}
