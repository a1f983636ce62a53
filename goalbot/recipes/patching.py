"""The model's one way into a rerun (seed 002 §8): when no rung finds an element, it is asked for
a patch to the recipe — never for free actions — with the least it needs: the failed step, the
page's address and title, what the step was recorded on, and the page as it is now."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from goalbot.agents.context import untrusted_page, with_picture
from goalbot.agents.domains import host_of
from goalbot.llm.answers import ObjectAnswer
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.tools import PatchAnswer
from goalbot.llm.vision import Picture, user_message
from goalbot.payloads import ShownAction
from goalbot.operators.base import Observation, Operator
from goalbot.recipes.model import Evidence, Expect, Fingerprint, Recipe, RecipeAction

PATCH = ObjectAnswer("patch", PatchAnswer)
MAX_PATCHES = 2  # model calls a rerun may spend on patches (seed 002 §6.4: maxLlmCallsPerRun)


def failure_line(position: int, recorded: RecipeAction, error: str, observation: Observation) -> str:
    """The request's first line: one JSON object that says what failed, where."""
    target = {"role": recorded.target.role, "name": recorded.target.name} if recorded.target else None
    return json.dumps({"failed_step": position, "action": recorded.action.name, "target": target,
                       "error": error, "url": observation.url, "title": observation.title}, ensure_ascii=False)


class Patcher:
    def __init__(self, dialogue: Dialogue) -> None:
        self.dialogue = dialogue
        self.asked = 0

    @property
    def spent(self) -> bool:
        return self.asked >= MAX_PATCHES

    async def patch(self, position: int, recorded: RecipeAction, error: str, observation: Observation,
                    step: int, picture: Picture | None = None) -> PatchAnswer:
        """Raises AnswerError or ModelError when no usable patch comes."""
        self.asked += 1
        first = failure_line(position, recorded, error, observation)

        def compose(level: int) -> list[dict[str, Any]]:
            return [user_message(f"{first}\n\n{untrusted_page(observation, level)}", with_picture(picture, level))]

        return await self.dialogue.ask("patcher", compose, PATCH, step)


class PatchError(Exception):
    """The patch names a step or an element that is not there; the message says which."""


def _action(recipe: Recipe, step: int) -> RecipeAction:
    actions = recipe.actions
    if not 1 <= step <= len(actions):
        raise PatchError(f"there is no step {step}; the recipe has steps 1–{len(actions)}")
    return actions[step - 1]


def new_hosts(recipe: Recipe, answer: PatchAnswer) -> list[str]:
    """The sites the patch would send the recipe to that it never went to: a page's text may tell
    the patcher to "go to <elsewhere> first", and a patch is kept for every later rerun."""
    known = {host_of(recipe.start_url)} | {host_of(str(a.action.arg("url", ""))) for a in recipe.every_action}
    inserted = [ShownAction.model_validate(raw) for op in answer.ops if op.op == "insert_actions" for raw in op.actions]
    wanted = [str(action.arg("url", "")) for action in inserted if action.name == "navigate"]
    return [host_of(url) or url[:80] for url in wanted if host_of(url) not in known or not host_of(url)]


def steps_named(recipe: Recipe, answer: PatchAnswer) -> set[int]:
    """The numbers of the steps whose actions the patch names, before it is applied."""
    named: set[int] = set()
    for op in answer.ops:
        try:
            wanted = _action(recipe, op.step or op.before_step or 0)
        except PatchError:
            continue
        named |= {n for n, step in enumerate(recipe.steps, 1) if any(a is wanted for a in step.actions)}
    return named


def _place(recipe: Recipe, wanted: RecipeAction) -> tuple[list[RecipeAction], int]:
    for step in recipe.steps:
        for number, action in enumerate(step.actions):
            if action is wanted:
                return step.actions, number
    raise PatchError("the step the patch names is gone")


async def apply(recipe: Recipe, answer: PatchAnswer, observation: Observation, operator: Operator) -> list[str]:
    """Changes `recipe` in place as the patch says; what changed, in words. The steps an op names
    are the recipe's before the patch, whatever the ops before it inserted or removed."""
    named = [(op, _action(recipe, op.step or op.before_step or 0)) for op in answer.ops]
    done: list[str] = []
    for op, action in named:
        actions, at = _place(recipe, action)
        if op.op == "replace_target":
            action.target = await _evidence(op.index or 0, observation, operator)
            done.append(f"step {op.step} now acts on {action.words()}")
        elif op.op == "insert_actions":
            new = [await _recorded(raw, observation, operator) for raw in op.actions]
            actions[at:at] = new
            done.append(f"before step {op.before_step}: {'; '.join(a.words() for a in new)}")
        elif op.op == "remove_step":
            del actions[at]
            done.append(f"step {op.step} ({action.words()}) removed")
        else:
            action.expect = Expect.model_validate(op.expect or {})
            done.append(f"step {op.step} now expects {action.expect.model_dump(exclude_none=True)}")
    return done


async def _evidence(index: int, observation: Observation, operator: Operator) -> Evidence:
    element = observation.elements.get(index)
    if element is None:
        raise PatchError(f"there is no element [{index}] on the page")
    return Evidence.model_validate({"role": element.role, "name": element.name, "box": element.box,
                                    **await operator.evidence(index)})


async def _recorded(raw: dict[str, Any], observation: Observation, operator: Operator) -> RecipeAction:
    index = raw.get("index")
    target = await _evidence(int(index), observation, operator) if isinstance(index, int) else None
    return RecipeAction(action=ShownAction.model_validate(raw).without("index"), target=target,
                        fingerprint=Fingerprint(url_contains=urlsplit(observation.url).path or "/",
                                                title=observation.title))
