"""What stands between the navigator's answer and the operator: the safety policies and the
GO / NOT GO gate. Every time one of them acts, a POLICY or APPROVAL event says so."""

from __future__ import annotations

import asyncio
import contextlib

from goalbot import actions as A
from goalbot.actions import Action, ActionResult, Outcome
from goalbot.agents.domains import Domains, host_of
from goalbot.agents.person import Person
from goalbot.agents.policies import ClickAt, RateLimiter, RepeatGuard, SafetyPolicy, SitePace
from goalbot.agents.risk import Risk, RiskKind, assess, target_of, words_risk
from goalbot.events import Actor, Emitter, EventType
from goalbot.operators.base import ActionFailed, Observation, Operator, OperatorError
from goalbot.payloads import PolicyName

_POINTER = (A.Click, A.DoubleClick, A.RightClick)
# However an operator lets a held write through after a GO, the action ends by then: the browser's
# own bound (30 s for an answer, then its loading stopped) comes first.
CARRIED_OUT_WITHIN_S = 60.0


class NotGo(Exception):
    """The person (or the lack of one) said NOT GO: the run stops without doing it."""


def click_of(action: Action, observation: Observation) -> ClickAt | None:
    if not isinstance(action, _POINTER):
        return None
    element = target_of(action, observation)
    if element is not None and element.box:
        x, y, w, h = element.box
        return ClickAt(action.index, (x + w / 2, y + h / 2))
    point = (action.x, action.y) if action.x is not None and action.y is not None else None
    return ClickAt(action.index, point)


class ActionGuards:
    def __init__(
        self, policy: SafetyPolicy, operator: Operator, emitter: Emitter, person: Person,
        domains: Domains, pace: SitePace | None = None,
    ) -> None:
        self.policy = policy
        self.pace = pace
        self.operator = operator
        self.emitter = emitter
        self.person = person
        self.domains = domains
        self.repeats = RepeatGuard(policy.repeat_radius_px, policy.repeat_limit)
        self.rate = RateLimiter(policy)
        self.approved = False  # the person said GO to the action now running

    def fired(self, policy: PolicyName, step: int | None, message: str, **data: object) -> None:
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=policy, message=message, **data)

    async def admit(self, action: Action, observation: Observation, page: str, step: int) -> str | None:
        """None when the action may run now; else why it was refused, in words for the model.

        Raises NotGo when the person said NOT GO to a risky action.
        """
        if isinstance(action, A.Navigate) and not self.domains.allows_scheme(action.url):
            message = (f"refused: {action.url[:80]!r} is not a web page; only http(s) addresses are "
                       "opened (the person can allow another scheme with --allow-scheme)")
            self.fired(PolicyName.SCHEME, step, message, action=action.name)
            return message
        click = click_of(action, observation)
        if click is not None and self.repeats.refuses(click, page):
            message = (f"refused: this would be the same click {self.policy.repeat_limit} times on a page "
                       "that did not change; try something else (another element, scroll, another way)")
            self.fired(PolicyName.REPEAT_CLICK, step, message, action=action.name, index=click.index)
            return message
        self.approved = False
        risk = assess(action, observation, self.domains, await self.operator.landing(action))
        if risk is not None and self._judged_by_effect(action, risk):
            self.operator.hold_writes()
            self.fired(PolicyName.HELD_WRITES, step, f"{risk.what}: judged by what it does; anything the page "
                       "sends waits for a GO", action=action.name)
        elif risk is not None:
            await self._go(risk, step)
            self.approved = True
        seconds, why = self.rate.wait_before(click is not None)
        if seconds > 0 and why is not None:
            self.fired(why, step, f"waiting {seconds:.1f} s before the next action", wait_s=round(seconds, 2))
            await asyncio.sleep(seconds)
        # Paced from start to start: the time an action and the look after it take counts
        # toward the interval, so a limit protects the site without taxing every action.
        self.rate.record(click is not None)
        await self._site_pace(observation.url, step)
        return None

    async def _site_pace(self, url: str, step: int) -> None:
        site = host_of(url)
        if self.pace is None or not site or self.policy.min_interval_s <= 0:
            return
        try:
            seconds = await asyncio.to_thread(self.pace.reserve, site, self.policy.min_interval_s, self.policy.burst)
        except Exception as exc:  # the shared pace is gone (its broker down): this run's own still holds
            self.fired(PolicyName.MIN_INTERVAL, step, f"the pace shared with other runs cannot be read ({exc}); "
                       "this run keeps its own")
            self.pace = None
            return
        if seconds > 0:
            self.fired(PolicyName.MIN_INTERVAL, step, f"waiting {seconds:.1f} s: other runs act on {site} too, "
                       "and the pace is the site's", wait_s=round(seconds, 2))
            await asyncio.sleep(seconds)

    def _judged_by_effect(self, action: Action, risk: Risk) -> bool:
        """A press on something that says it sends ("Reply", "Share") may only open a form: it
        runs with the page's writes held, and the GO is asked only if it really sends. Paying
        and deleting are asked first: they can happen without a request (a page's own storage)."""
        return risk.kind is RiskKind.SEND and A.presses_pointer(action) and self.operator.holds_writes

    async def _go(self, risk: Risk, step: int) -> None:
        if not await self.person.go(risk, step):
            raise NotGo(f"NOT GO: {risk.what} on {risk.where}")
        if risk.widens_domains:
            self.domains.grant(risk.where)

    async def held(self, result: ActionResult, observation: Observation, step: int) -> ActionResult:
        """The page tried to submit a form that pays, deletes or sends, or to send anything while
        its writes were held, and the operator held it back. An action the person already said GO
        to lets it through; any other asks first."""
        if result.outcome is not Outcome.HELD:
            return result
        if not self.approved:
            what = " | ".join(result.held)
            try:
                await self._go(Risk(kind=words_risk(what) or RiskKind.PAYMENT, where=observation.url, what=what), step)
            except BaseException:  # NOT GO, or a stop while asking: nothing held may leave
                with contextlib.suppress(Exception):  # a browser already gone sends nothing either
                    await asyncio.shield(self.operator.drop_held())
                raise
        return await self._let_through(result)

    async def _let_through(self, result: ActionResult) -> ActionResult:
        """What was held, let through after the GO: an action that ends within a bound, whatever
        the page or the site does (the operator bounds it first, and says more)."""
        try:
            released = await asyncio.wait_for(self.operator.release_held(), CARRIED_OUT_WITHIN_S)
        except ActionFailed as exc:
            return ActionResult(outcome=exc.outcome, message=f"{result.message}; after the GO: {exc}",
                                files=result.files)
        except OperatorError as exc:
            return ActionResult(outcome=Outcome.BROWSER_GONE, message=str(exc), files=result.files)
        except asyncio.TimeoutError:
            return ActionResult(outcome=Outcome.TIMEOUT, files=result.files, message=(
                f"{result.message}; after the GO, what was held was let through but the page did not "
                f"settle within {CARRIED_OUT_WITHIN_S:g} s: it may or may not have been sent, so look "
                "before sending it again"))
        return ActionResult(outcome=Outcome.OK, message=f"{result.message}; after the GO: {released}",
                            files=result.files)

    def ran(self, action: Action, observation: Observation, before: str, after: str) -> None:
        click = click_of(action, observation)
        if click is not None:
            self.repeats.record(click, before, after)
