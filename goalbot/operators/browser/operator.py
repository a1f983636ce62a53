"""The browser operator: a real Chromium driven through Playwright's async API.

Every action checks its effect where one can be checked and says what happened in words for the
model; a click that changed nothing is NoEffect, never ok.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

from playwright.async_api import BrowserContext, Frame, Page, Playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright

from goalbot import actions as A
from goalbot import defaults as D
from goalbot.actions import Action, ActionResult, Outcome, SavedFile
from goalbot.operators.trace_scrub import SECRET_TYPED
from goalbot.operators.base import ActionFailed, Landing, Located, Observation, OperatorError, ReadBack, Shown
from goalbot.operators.browser import activation, evidence, keyboard, pages, pictures, pointer, reading, widgets
from goalbot.operators.browser import checks as js
from goalbot.operators.browser import pdf_viewer
from goalbot.operators.browser import scroll as scrolling
from goalbot.operators.browser.effects import EffectProbe, classify, first_line
from goalbot.operators.browser.elements import Elements
from goalbot.operators.browser.fetched import FetchedLog
from goalbot.operators.browser.early import take_driver
from goalbot.operators.browser.guard import DomainGuard
from goalbot.operators.browser.launch import Launched, SharedBrowser, in_shared, launch, shut
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.observe import PageObserver, PageView
from goalbot.operators.browser.pages import NAVIGATION_TIMEOUT_MS
from goalbot.operators.browser.scripts import evaluate
from goalbot.operators.browser.watch import BrowserWatcher
from goalbot.operators.browser.writes import ANSWER_WITHIN_S, WriteHold, answered_within, carried_out, held_back
from goalbot.operators.json_places import Fetched

# One piece of page text keeps its end; the whole observation's budget drops plain text first.
TEXT_BUDGET = 2_000
# Before a look: the page has not changed for QUIET_MS, or for IDLE_MS with no work of its own
# pending (a short timer, an animation frame, a request); never more than the bound is waited.
QUIET_MS, IDLE_MS, SETTLE_MOST_MS = 150, 16, 2_500


class BrowserOperator:
    name = "browser"
    holds_writes = True

    def __init__(
        self, options: BrowserOptions | None = None, download_dir: Path | None = None,
        budget: int = D.OBSERVATION_BUDGET, allows: Callable[[str], bool] | None = None,
        held_words: list[tuple[str, str]] | None = None, shared: SharedBrowser | None = None,
    ) -> None:
        """`allows` says which addresses pages may load; forms whose words match `held_words`
        (JavaScript regex sources and flags) are held back in the page until `release_held`.
        `shared`: a browser this run takes a context of, instead of starting one."""
        self.options = options or BrowserOptions()
        self._shared = shared
        self.download_dir = download_dir or Path(tempfile.mkdtemp(prefix="goalbot-downloads-"))
        self.budget = budget
        self._playwright: Playwright | None = None
        self._launched: Launched | None = None
        self._page: Page | None = None
        self.elements = Elements()
        self._observer = PageObserver(TEXT_BUDGET)
        self._watcher = BrowserWatcher(self.download_dir, self._adopt_page)
        self._fetched = FetchedLog()
        self.probe = EffectProbe(lambda: self.page, self._watcher, self._settle)
        self._guard = DomainGuard(allows) if allows else None
        self._held_words = held_words
        self._gate_token = secrets.token_hex(16)
        self._writes = WriteHold(self._gate_token)
        self._hold_next = False
        # The latest look and the page's fingerprint then: a look at a page that has not changed
        # since is that look again, at the cost of one fingerprint.
        self._last_look: tuple[tuple[object, ...], Observation] | None = None
        # The page's signature as last read (by a look, or with `gone`), until something is done on it.
        self._known_signature = ""
        # Whether the element the last action was on left the page, read as that action ended:
        # (index, left), for the `gone` its caller asks next.
        self._left: tuple[int, bool] | None = None
        # The selectors a recipe looks for (`expect_to_find`), and the top frame's answers to them
        # from the latest look, until something is done on the page: no call of their own.
        self._expected: list[str] = []
        self._found_in_look: tuple[Frame, dict[str, list[Any]]] | None = None
        self._secret_marked = False  # the trace holds the moment a secret was first typed

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, url: str | None) -> None:
        try:
            if self._shared is not None:
                self._launched = await in_shared(self._shared, self.options)
            else:
                self._playwright = await take_driver() or await async_playwright().start()
                self._launched = await launch(self._playwright, self.options)
        except BaseException:
            await self.close()
            raise
        context = self._launched.context
        if self.options.trace != "off":
            await context.tracing.start(snapshots=self.options.trace_snapshots,
                                        screenshots=self.options.trace_screenshots, sources=False)
        self._watcher.attach_context(context)
        self._fetched.attach(context)
        page = self._launched.ready_page
        # Independent of each other, so asked at once: each is a round trip through the driver.
        setup = [self._page_scripts(context), self._writes.route_sockets(context)]
        if self._guard is not None:
            setup.append(self._guard.attach(context))
            if page is not None:
                setup.append(self._guard.watch(page))
        await asyncio.gather(*setup)
        if page is None:
            page = await context.new_page()
            if self._guard is not None:
                await self._guard.watch(page)
        else:  # opened before the watcher listened for tabs; its first request comes after every route
            self._watcher.attach_page(page)
        self._launched.own_pages.append(page)
        self._page = page
        self._watcher.notices()  # opening our own tab is not news for the model
        if url:
            result = await self.execute(A.Navigate(url=url))
            if not result.ok:
                raise OperatorError(result.message)
        if self._shared is not None:  # not sooner: a renderer starting beside this page's load slows it
            self._shared.open_spare(self.options.viewport)

    async def _page_scripts(self, context: BrowserContext) -> None:
        """The gate's and the hold's scripts, in this order, for every document from now on."""
        if self._held_words:
            await context.add_init_script(activation.gate_script(self._held_words, self._gate_token))
        await self._writes.attach(context)

    async def late_downloads(self) -> list[SavedFile]:
        return await self._watcher.collect_downloads()

    async def kept_trace(self, failed: bool) -> bytes | None:
        """The run's trace.zip when one is recorded and kept for how the run ended; None else."""
        if self._launched is None or self.options.trace == "off":
            return None
        keep = self.options.trace == "always" or failed
        with tempfile.TemporaryDirectory(prefix="goalbot-trace-") as where:
            path = Path(where) / "trace.zip"
            try:
                await self._launched.context.tracing.stop(path=path if keep else None)
            except Exception:  # a browser already gone has no trace to give
                return None
            return path.read_bytes() if keep and path.exists() else None

    async def secret_typed_next(self) -> None:
        """Marks the trace, once: the frames drawn from here on are left out of the one kept."""
        if self._launched is None or self.options.trace == "off" or self._secret_marked:
            return
        self._secret_marked = True
        tracing = self._launched.context.tracing
        with contextlib.suppress(PlaywrightError):
            await tracing.group(SECRET_TYPED)
            await tracing.group_end()

    async def close(self) -> None:
        # Closing a browser that already died must not mask the real error.
        with contextlib.suppress(Exception):
            if self._launched is not None:
                await shut(self._launched, self.options.storage_state)
        with contextlib.suppress(Exception):
            if self._playwright is not None:
                await self._playwright.stop()
        self._launched = self._playwright = self._page = None

    def _adopt_page(self, page: Page) -> None:
        # A link that opens a new tab makes that tab the current page, as it would for a person.
        self._page = page

    @property
    def page(self) -> Page:
        if self._page is None:
            raise OperatorError("the browser is gone (it was closed)")
        if self._page.is_closed():
            pages = self._page.context.pages
            if not pages:
                raise OperatorError("the browser is gone (its last tab was closed)")
            self._page = pages[-1]
        browser = self._launched.browser if self._launched else None
        if browser is not None and not browser.is_connected():
            raise OperatorError("the browser is gone (the Chromium process ended)")
        return self._page

    # -- observation -----------------------------------------------------------------------

    async def observe(self, screenshot: bool = True) -> Observation:
        page = self.page
        self._left = None
        try:
            # After an action there is no look to hand back: the page settles and is looked at
            # in one call. Another tab is another page.
            view = await self._settled_view(page) if self._last_look is None else None
            if view is not None:
                fingerprint = (id(page), *await self.probe.signature(view.changes))
            else:
                fingerprint = (id(page), *await self.probe.signature(await self._settle(page)))
                if self._last_look is not None and self._last_look[0] == fingerprint:
                    last = self._last_look[1].seen_again(self.budget)
                    if last.screenshot or not screenshot:
                        self._last_look = (fingerprint, last)
                        return last
                view = await self._observer.observe(page, find=self._expected)
            pages = page.context.pages
            titles = [view.title if p is page else await p.title() for p in pages]
            shot = await self._shoot(page) if screenshot else None
            title = view.title
        except PlaywrightError as exc:
            raise OperatorError(f"the browser stopped answering: {first_line(exc)}") from exc
        self.elements.renew(view.targets)
        self._found_in_look = (page.main_frame, view.found)
        self._known_signature = view.signature
        tabs = [name or p.url for name, p in zip(titles, pages)]
        observation = Observation(
            url=page.url, title=title, tabs=tabs, screenshot=shot, items=view.items,
            current_tab=pages.index(page) + 1 if page in pages else 1, hidden=view.hidden,
            challenge=view.challenge, notices=self._watcher.notices(), budget=self.budget,
            **view.page,
        )
        self._last_look = (fingerprint, observation)
        return observation

    async def _settled_view(self, page: Page) -> PageView | None:
        try:
            return await self._observer.observe(page, [QUIET_MS, IDLE_MS, SETTLE_MOST_MS, NAVIGATION_TIMEOUT_MS],
                                                self._expected)
        except PlaywrightError:
            return None  # it navigated meanwhile: it settles and is looked at the usual way

    async def picture(self) -> bytes | None:
        try:
            return await self._shoot(self.page)
        except (PlaywrightError, OperatorError):
            return None

    @staticmethod
    async def _shoot(page: Page) -> bytes:
        # caret="initial": hiding the caret would add a style to the page, a change the next
        # look would wait out.
        return await page.screenshot(type="jpeg", quality=70, caret="initial", timeout=10_000)

    async def _settle(self, page: Page, since_down: bool = False) -> object:
        """Waits for the page to settle; its main frame's change count then, None when unknown.
        `since_down`: with the count as the pointer's button last went down, [changes, down]."""
        script = js.SETTLED_SINCE_DOWN_JS if since_down else js.SETTLED_JS
        for _attempt in range(2):  # a page that navigates while settling gets one more wait
            try:  # a page that never finishes loading can still be observed, after the bound
                return await evaluate(page, script, [QUIET_MS, IDLE_MS, SETTLE_MOST_MS, NAVIGATION_TIMEOUT_MS])
            except PlaywrightError:
                continue
        return None

    # -- running an action -----------------------------------------------------------------

    def _handler(self, action: Action) -> Callable[[], Awaitable[str]] | None:
        """What carries `action` out here; None for what a browser cannot do (`save_data`, …)."""
        match action:
            case A.Click(): return partial(pointer.press, self, action, "clicked")
            case A.DoubleClick(): return partial(pointer.press, self, action, "double-clicked", count=2)
            case A.RightClick(): return partial(pointer.press, self, action, "right-clicked", button="right")
            case A.Hover(): return partial(pointer.hover, self, action)
            case A.Drag(): return partial(pointer.drag, self, action)
            case A.Scroll(): return partial(scrolling.scroll, self, action)
            case A.Type(): return partial(keyboard.type_text, self, action)
            case A.Key(): return partial(keyboard.press_keys, self, action.key)
            case A.Hotkey(): return partial(keyboard.press_keys, self, "+".join(action.keys))
            case A.Navigate(): return partial(self._navigate, action)
            case A.GoBack(): return partial(pages.go_back, self.page)
            case A.SwitchTab(): return partial(self._switch_tab, action)
            case A.CloseTab(): return partial(self._close_tab, action)
            case A.Wait(): return partial(pages.wait, self.page, action)
            case A.SelectOption(): return partial(widgets.select_option, self, action)
            case A.UploadFile(): return partial(widgets.upload_file, self, action)
        return None

    async def execute(self, action: Action) -> ActionResult:
        handler = self._handler(action)
        if handler is None:
            return ActionResult(outcome=Outcome.UNSUPPORTED, message=f"the browser cannot run {action.name}")
        hold, self._hold_next = self._hold_next, False
        # What is in view can change with no DOM change the fingerprint would count yet (a scroll
        # reports itself a frame later): after an action, the next look is a look.
        self._last_look, self._known_signature, self._left, self._found_in_look = None, "", None, None
        self.elements.evidence.clear()
        try:
            await self._writes.begin(hold, self.page)  # a dead browser is the answer, whatever the action
            # Bounded: a tab whose navigation the site never answers answers nothing, for ever.
            message = await answered_within(self.page.context, self._writes.run(handler()), ANSWER_WITHIN_S,
                                            action.name)
            if message is None:  # frozen on a held write: only the person's answer ends it
                return held_back("the page waits", await self._writes.held(self.page))
            result = ActionResult(outcome=Outcome.OK, message=message)
        except ActionFailed as exc:
            result = ActionResult(outcome=exc.outcome, message=str(exc))
        except OperatorError as exc:
            return ActionResult(outcome=Outcome.BROWSER_GONE, message=str(exc))
        except PlaywrightError as exc:
            result = classify(exc)
            if result.outcome is Outcome.BROWSER_GONE:
                return result
        held = await self._gate_held(getattr(action, "index", None)) if self._held_words else []
        held += await self._writes.held(self.page)
        if held:
            result = held_back(f"{result.message}; the page tried", held)
        blocked = await self._guard.stopped(self.page) if self._guard else []
        if blocked:
            self._known_signature, self._left = "", None  # the tab was taken back since
            result = ActionResult(outcome=Outcome.NAVIGATION_FAILED, message=f"{result.message}; stopped: "
                                  f"{', '.join(blocked)} is outside the allowed domains")
        result.files = await self._watcher.collect_downloads()
        result.message = "; ".join([result.message, *self._watcher.notices()])
        return result

    async def _gate_held(self, index: int | None) -> list[str]:
        """What the gate holds after an action on element `index`; the same call reads whether
        that element left and the page's signature, which the action's caller asks next."""
        targets = self.elements.targets
        target = targets[index - 1] if isinstance(index, int) and 0 < index <= len(targets) else None
        local = target.local if target is not None and target.frame is self.page.main_frame else 0
        held, after = await activation.held(self.page, local)
        if after is not None:
            left, self._known_signature = after
            self._left = (index, left) if index and local else None
        return held

    # -- elements and effects (`elements`, `probe`, `after_input` serve the helpers) ------------

    async def evidence(self, index: int) -> dict[str, str]:
        try:
            return await evidence.evidence_of(self, index)
        except (ActionFailed, PlaywrightError):
            return {}

    def expect_to_find(self, selectors: list[str]) -> None:
        self._expected = list(dict.fromkeys(selectors))

    async def find(self, selector: str) -> int | None:
        looked = self._found_in_look
        if looked is not None and selector in looked[1]:
            return await evidence.listed_by_selector(self, selector, (looked[0], looked[1][selector]))
        return await evidence.listed_by_selector(self, selector)

    async def gone(self, index: int) -> bool:
        if self._left is not None and self._left[0] == index:
            left, self._left = self._left[1], None  # once: whoever waits for it to go asks the page
            return left
        left, signature = await evidence.gone(self, index)
        self._known_signature = signature or ""  # asked next, as an action's end: no second call
        return left

    async def absent(self, selector: str) -> bool:
        try:
            await self.page.wait_for_load_state("domcontentloaded", timeout=NAVIGATION_TIMEOUT_MS)
            return not await self.page.locator(selector).first.is_visible()
        except PlaywrightError:
            return False  # a selector this page cannot read, or a page still on its way: not known

    async def read_text(self, scope: int | None) -> str:
        return await reading.page_text(self, scope)

    async def places_of(self, data: Any, scope: int | None) -> Located | None:
        return await reading.places_of(self, data, scope)

    async def read_places(self, place: dict[str, Any]) -> ReadBack:
        return await reading.read_places(self, place)

    async def shown(self, noun: str, fields: list[str], scope: int | None) -> Shown:
        return await reading.shown(self, noun, fields, scope)

    async def fetched(self) -> list[Fetched]:
        return await self._fetched.fetched()

    async def shown_pdf(self) -> Path | None:
        return await pdf_viewer.shown_pdf(self.page, self._guard.allows if self._guard else None,
                                     self.download_dir / "shown")

    async def pictures_text(self, scope: int | None) -> str:
        return await pictures.pictures_text(self, scope)

    async def items(self, each: str, nth: int) -> list[int]:
        return await reading.items(self, each, nth)

    async def is_secret_field(self, index: int | None) -> bool:
        # Decided by the field itself, inside a frame too (a framed editor is no password field);
        # unsure (gone, a frame that cannot be entered): hide the text rather than risk a password
        if index is not None:
            return bool(await self._ask(index, js.SECRET_JS, "", unsure=True))
        try:
            _, focus = await keyboard.focused(self.page)
        except PlaywrightError:
            return True
        return focus["where"] == "frame" or bool(focus.get("secret"))

    async def landing(self, action: Action) -> Landing:
        return await activation.landing(self.page, action, self.elements.run)

    def hold_writes(self) -> None:
        self._hold_next = True  # from the next action on, while the page it starts on is shown

    async def release_held(self) -> str:
        self._known_signature, self._left, self._found_in_look = "", None, None
        return await carried_out(self.page.context, self._let_through())  # bounded: a site may never answer

    async def _let_through(self) -> str:
        async with self._writes.passing(self.page):  # what the GO sets off is what it was given for
            sent = await self._writes.release(self.page)  # first: a page frozen on a write answers after
            submitted = await activation.release(self.page, self._gate_token) if self._held_words else []
            await self.after_input()
        done = [f"submitted {' | '.join(submitted)!r}"] if submitted else []
        done += [f"sent {' | '.join(sent)}"] if sent else []
        return "; ".join(done) or "what was held is gone (the page moved on)"

    async def drop_held(self) -> None:
        self._known_signature, self._left, self._found_in_look = "", None, None
        await self._writes.drop(self.page)

    async def signature(self) -> str:
        if self._known_signature:
            return self._known_signature
        return str(await self._ask(None, "", js.SIGNATURE_JS, unsure=""))

    async def _ask(self, index: int | None, of_element: str, of_page: str, unsure: object) -> object:
        """A script's answer about element `index`, or else the page's (such as its focused element)."""
        try:
            if index is None:
                return await self.page.evaluate(of_page)
            return await (await self.elements.element(index)).evaluate(of_element)
        except (ActionFailed, PlaywrightError):
            return unsure

    async def after_input(self) -> None:
        """After a key or a choice: a navigation it starts a moment later is waited for."""
        await asyncio.sleep(0.15)
        await self._settle(self.page)

    # -- pages and tabs: they change which page the operator drives --------------------------

    async def _navigate(self, action: A.Navigate) -> str:
        if self._guard is not None and not self._guard.allows(action.url):
            raise ActionFailed(Outcome.NAVIGATION_FAILED, f"stopped: {action.url[:80]} is not an allowed address")
        return await pages.navigate(self.page, action)

    async def _switch_tab(self, action: A.SwitchTab) -> str:
        message, self._page = await pages.switch_tab(self.page, action)
        return message

    async def _close_tab(self, action: A.CloseTab) -> str:
        message, self._page = await pages.close_tab(self.page, action)
        return message
