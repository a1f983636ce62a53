"""The three authoring programs of seed 002 §5.6 as DSPy modules: a signature (what goes in, what
comes out) whose instructions GEPA tunes. Each answers in the JSON the harness judges; the runtime
takes only their instructions and examples, and asks in goalbot's own tool protocol."""

from __future__ import annotations

from typing import Any

import dspy

from goalbot.authoring.tasks import Task
from goalbot.llm.profiles import PROGRAM_NAMES, Program

EXAMPLE_PAGE_LINES = 40  # an example's page, cut: examples are read on every call, and cost


def _inputs(program: Program) -> dict[str, str]:
    return {
        "workflow": {"goal": "The person's goal.", "page": "The goal and the page the run started on."},
        "policy": {"goal": "The person's goal, with the constraints it states on what to pick."},
        "patch": {"failure": "JSON: the failed step, its action and target, the error, the page's url and title.",
                  "page": "The page as it is now: interactive elements as [index] role \"name\", and text."},
    }[program]


OUTPUT: dict[Program, tuple[str, str]] = {
    "workflow": ("steps", "JSON list of the short-term-goal steps, in order."),
    "policy": ("policies", 'JSON object: a choice policy by name, {"hard": [...], "score": [...], '
                           '"tie_break": [...], "pick": "argmax"|"argmin"}.'),
    "patch": ("patch", 'JSON object: {"ops": [...], "reason": "..."}, the arguments of the patch.'),
}


def signature(program: Program, instructions: str) -> type[dspy.Signature]:
    fields: dict[str, Any] = {name: (str, dspy.InputField(desc=desc)) for name, desc in _inputs(program).items()}
    name, desc = OUTPUT[program]
    fields[name] = (str, dspy.OutputField(desc=desc))
    return dspy.make_signature(fields, instructions, signature_name=PROGRAM_NAMES[program])


class _Authoring(dspy.Module):
    program: Program

    def __init__(self, instructions: str) -> None:
        super().__init__()
        self.write = dspy.Predict(signature(self.program, instructions))

    def forward(self, **inputs: str) -> dspy.Prediction:
        return self.write(**inputs)

    @property
    def instructions(self) -> str:
        return str(self.write.signature.instructions)


class IntentToWorkflow(_Authoring):
    """Goal (and the page it starts on) → the plan's short-term-goal steps."""

    program = "workflow"


class IntentToPolicy(_Authoring):
    """Goal with its constraints → a choice policy (policies.json)."""

    program = "policy"


class PatchPlanner(_Authoring):
    """A rerun's failure and the page as it is now → a patch-only answer."""

    program = "patch"


MODULES: dict[Program, type[_Authoring]] = {"workflow": IntentToWorkflow, "policy": IntentToPolicy,
                                            "patch": PatchPlanner}


def example_inputs(task: Task) -> dict[str, str]:
    return {name: _cut(value) if name == "page" else value for name, value in task.inputs.items()}


def _cut(page: str) -> str:
    lines = page.splitlines()
    return "\n".join(lines[:EXAMPLE_PAGE_LINES] + (["…"] if len(lines) > EXAMPLE_PAGE_LINES else []))


def demo(task: Task) -> dspy.Example:
    """A task whose answer worked, as a DSPy demonstration."""
    assert task.answer is not None
    return dspy.Example(**example_inputs(task), **{OUTPUT[task.program][0]: task.answer}).with_inputs(
        *task.inputs)


def shown(task: Task) -> str:
    """The same example as the runtime's system prompt shows it."""
    assert task.answer is not None
    said = "\n".join(f"{name}: {value}" for name, value in example_inputs(task).items())
    return f"{said}\n{OUTPUT[task.program][0]} that worked: {task.answer}"
