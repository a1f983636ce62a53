"""One round of tuning (seed 002 §5.6): for each program with tasks enough, score its starting
instructions on held-out tasks, let GEPA reflect on the training tasks' misses and rewrite the
instructions, score the result on the same held-out tasks, and keep whichever did better.

dspy.GEPA, not the `gepa` package with an adapter of our own: the programs are DSPy signatures,
and dspy.GEPA already turns a metric's feedback text into GEPA's reflective dataset per
predictor; an adapter of ours would redo that. GEPA itself runs underneath."""

from __future__ import annotations

import contextlib
import logging
import sys
from dataclasses import dataclass, field
from typing import Callable

import dspy

from goalbot.authoring.bank import Bank
from goalbot.authoring.engine import GoalbotEngine, Meter
from goalbot.authoring.harness import Harness, Judgement
from goalbot.authoring.programs import MODULES, OUTPUT, demo, shown
from goalbot.authoring.tasks import Task
from goalbot.llm.client import ModelError
from goalbot.llm.profiles import Metrics, Program, ProgramProfile

MINIBATCH = 3
OUTPUT_TOKENS = 250  # what one answer is reckoned to take, for the estimate
REFLECTION_OUTPUT_TOKENS = 800  # a reflection writes whole new instructions
FEEDBACK_CHARS = 400  # what the harness says about one answer, as the reflection reads it


@dataclass
class ProgramPlan:
    program: Program
    instructions: str
    train: list[Task]
    heldout: list[Task]
    calls: int = 0  # at most, for this program
    tokens: int = 0  # estimated

    @property
    def examples(self) -> list[Task]:
        return [t for t in self.train if t.answer is not None]


@dataclass
class TunePlan:
    programs: list[ProgramPlan] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # program → why it is not tuned

    @property
    def calls(self) -> int:
        return sum(p.calls for p in self.programs)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.programs)


def plan(bank: Bank, wanted: list[Program], start: dict[Program, str], budget: int, heldout_share: float,
         examples: int) -> TunePlan:
    """Which programs can be tuned, and at most how many calls (and about how many tokens) each
    takes of `budget`: scoring the held-out tasks twice, then GEPA with what is left."""
    tuned = TunePlan()
    for program in wanted:
        train, heldout = bank.split(program, heldout_share)
        if not heldout:
            have = len(train)
            tuned.skipped[program] = (f"{have} task{'s' * (have != 1)}: it takes 2 or more, one to learn from and "
                                      "one held out")
            continue
        tuned.programs.append(ProgramPlan(program, start[program], train, heldout))
    total = sum(len(p.train) + len(p.heldout) for p in tuned.programs)
    for p in tuned.programs:
        share = budget * (len(p.train) + len(p.heldout)) // total if total else 0
        p.calls = share
        per_call, per_reflection = _tokens_per_call(p, examples), _tokens_per_reflection(p)
        # A GEPA round: a minibatch answered, one reflection, the minibatch answered again.
        reflections = share // (2 * MINIBATCH + 1)
        p.tokens = (share - reflections) * per_call + reflections * per_reflection
        if share < 2 * len(p.heldout) + MINIBATCH + 1:
            tuned.skipped[p.program] = (f"its share of --budget ({share} calls) does not cover scoring "
                                        f"{len(p.heldout)} held-out tasks twice and one GEPA round")
    tuned.programs = [p for p in tuned.programs if p.program not in tuned.skipped]
    return tuned


def _tokens_per_call(p: ProgramPlan, examples: int) -> int:
    """The mean prompt as DSPy's adapter writes it for these tasks (its field markers, format
    rules and demonstrations included), at four characters a token, and an answer."""
    module = MODULES[p.program](p.instructions)
    demos = [demo(t) for t in p.examples[:examples]]
    tasks = p.train + p.heldout
    adapter = dspy.ChatAdapter()
    chars = [sum(len(str(m.get("content", ""))) for m in adapter.format(module.write.signature, demos, t.inputs))
             for t in tasks]
    return sum(chars) // max(1, len(chars)) // 4 + OUTPUT_TOKENS


def _tokens_per_reflection(p: ProgramPlan) -> int:
    """GEPA's reflection reads the instructions and a minibatch of inputs, answers and feedback."""
    tasks = p.train + p.heldout
    inputs = sum(len(v) for t in tasks for v in t.inputs.values()) // max(1, len(tasks))
    per_task = inputs + OUTPUT_TOKENS * 4 + FEEDBACK_CHARS
    return (len(p.instructions) + MINIBATCH * per_task) // 4 + REFLECTION_OUTPUT_TOKENS


Say = Callable[[str], None]


class Tuner:
    def __init__(self, task_engine: GoalbotEngine, reflection_engine: GoalbotEngine, meter: Meter, harness: Harness,
                 examples: int, say: Say) -> None:
        self.task_engine, self.meter, self.harness, self.examples, self.say = (
            task_engine, meter, harness, examples, say)
        model = task_engine.client.config.model_for(task_engine.role)
        reflector = reflection_engine.client.config.model_for(reflection_engine.role)
        # cache off: a tune asks the model, it does not read yesterday's answers back from disk
        self.task_lm = dspy.LM(f"goalbot/{model}", engine=task_engine, cache=False, num_retries=0)
        self.reflection_lm = dspy.LM(f"goalbot/{reflector}", engine=reflection_engine, cache=False, num_retries=0)
        # Their warnings quote raw answers and pages a line at a time; what went wrong is said once,
        # in goalbot's words (the meter: answers not in its form, the budget; the endpoint).
        for name in ("dspy", "gepa"):
            logging.getLogger(name).setLevel(logging.CRITICAL)

    def tune(self, p: ProgramPlan) -> ProgramProfile:
        """Raises ModelError when the held-out tasks cannot be scored (the endpoint is gone)."""
        start = MODULES[p.program](p.instructions)
        start.write.demos = [demo(t) for t in p.examples[: self.examples]]
        with dspy.context(lm=self.task_lm):
            before = self.score(start, p.heldout)
            self.say(f"{p.program}: the starting instructions score {before.score:.2f} on {len(p.heldout)} "
                     f"held-out task{'s' * (len(p.heldout) != 1)}")
            tuned = self._gepa(start, p)
            after = self.score(tuned, p.heldout) if tuned is not start else before
        kept = tuned if after.score > before.score else start
        if kept is start and tuned is not start:
            self.say(f"{p.program}: GEPA's instructions scored {after.score:.2f}; the starting ones are kept")
            after = before
        return ProgramProfile(instructions=kept.instructions, examples=[shown(t) for t in p.examples[: self.examples]],
                              before=before, after=after, train=[t.id for t in p.train],
                              heldout=[t.id for t in p.heldout])

    def _gepa(self, start: dspy.Module, p: ProgramPlan) -> dspy.Module:
        tasks = {t.id: t for t in p.train}

        def metric(gold: dspy.Example, pred: dspy.Prediction, trace: object = None, pred_name: str | None = None,
                   pred_trace: object = None) -> dspy.Prediction:
            judged = self._judge(tasks[gold.task_id], pred)
            return dspy.Prediction(score=judged.score, feedback=judged.feedback)

        # What is left for GEPA once the held-out tasks are scored again. GEPA counts its metric
        # calls, not the reflection's nor its re-runs for traces: the meter's cap is what holds.
        left = min(p.calls - 2 * len(p.heldout), self.meter.left - len(p.heldout))
        batch = min(MINIBATCH, len(p.train))
        metric_calls = left * 2 // 3
        if metric_calls < len(p.train) + batch:
            self.say(f"{p.program}: the budget left ({left} calls) is too little for a GEPA round")
            return start
        trainset = [dspy.Example(**t.inputs, task_id=t.id).with_inputs(*t.inputs) for t in p.train]
        optimizer = dspy.GEPA(metric=metric, max_metric_calls=metric_calls, reflection_lm=self.reflection_lm,
                              reflection_minibatch_size=batch, num_threads=1, use_merge=False, seed=0,
                              add_format_failure_as_feedback=True)
        try:
            # DSPy's progress bars go to stdout: they belong with the rest of what is said, on stderr
            with self.meter.capped(left), contextlib.redirect_stdout(sys.stderr):
                # valset is the training tasks again: the held-out ones are for the score alone
                return optimizer.compile(start, trainset=trainset, valset=trainset)  # type: ignore[no-any-return]
        except ModelError as exc:
            self.say(f"{p.program}: GEPA stopped ({exc}); the starting instructions are kept")
            return start

    def score(self, module: dspy.Module, tasks: list[Task]) -> Metrics:
        return self.harness.mean([self._judge(t, self._answer(module, t)) for t in tasks])

    def _answer(self, module: dspy.Module, task: Task) -> dspy.Prediction | None:
        """The program's answer; None when DSPy could not read one (a miss the harness scores).
        Raises ModelError when the endpoint gave none: scores without answers would mean nothing."""
        try:
            return module(**task.inputs)  # type: ignore[no-any-return]
        except Exception as exc:
            if self.task_engine.failed is not None:
                raise self.task_engine.failed from exc
            return None

    def _judge(self, task: Task, pred: dspy.Prediction | None) -> Judgement:
        text = str(getattr(pred, OUTPUT[task.program][0], "") or "") if pred is not None else ""
        return self.harness.judge(task, text, self.task_engine.last_tokens)
