"""Getting a browser context: a fresh Chromium, a persistent profile, or one reached over CDP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from goalbot.defaults import data_home
from goalbot.operators.base import OperatorError
from goalbot.operators.display import display_problem
from goalbot.operators.browser.locate import LAUNCH_ARGS, BrowserNotFound, find_browser
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.scripts import PAGE_SCRIPTS_JS
from goalbot.text.regular_file import NotRegularFile, read_regular_text

CONNECT_TIMEOUT_MS = 15_000
PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def profiles_dir() -> Path:
    return data_home() / "profiles"


def profile_dir(name: str) -> Path:
    if not PROFILE_NAME.fullmatch(name):
        raise OperatorError(
            f"bad profile name {name!r}: use letters, digits, '.', '_' or '-' (it names a folder)"
        )
    return profiles_dir() / name


@dataclass
class SharedBrowser:
    """A browser kept by a long-lived process (a batch's slot) for one run after another: each run
    gets a context of its own in it, and leaves the browser and Playwright running."""

    playwright: Playwright
    browser: Browser
    # The next run's context and its blank tab, opened while this run works. A context's first
    # tab starts a renderer process, the largest part of a short job's start; opened ahead, it
    # starts on the core the run leaves idle. Nothing in it is any run's until a run takes it.
    spare: asyncio.Task[Launched] | None = None
    ahead: bool = True  # False: no spare, when no core is left idle for it (a batch's `opens_ahead`)

    def open_spare(self, viewport: tuple[int, int]) -> None:
        if self.ahead and self.spare is None and self.browser.is_connected():
            self.spare = asyncio.ensure_future(_opened_in(self, viewport))
            # A spare whose browser closed fails with nobody to tell: the next run opens its own.
            self.spare.add_done_callback(lambda done: done.cancelled() or done.exception())


async def in_shared(shared: SharedBrowser, options: BrowserOptions) -> Launched:
    """A fresh context of `shared` and its first tab: the spare when it suits, else new ones."""
    spare, shared.spare = shared.spare, None
    launched = await _taken(spare, options.viewport) if spare is not None else None
    if launched is None:
        launched = await _opened_in(shared, options.viewport)
    return launched


async def _taken(spare: asyncio.Task[Launched], viewport: tuple[int, int]) -> Launched | None:
    try:
        ready = await spare
    except PlaywrightError:  # the browser died since: a new context fails in words
        return None
    page = ready.ready_page
    if ready.viewport == viewport and page is not None and not page.is_closed():
        return ready
    with contextlib.suppress(PlaywrightError):
        await ready.context.close()
    return None


async def _opened_in(shared: SharedBrowser, viewport: tuple[int, int]) -> Launched:
    width, height = viewport
    context = await shared.browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    await context.add_init_script(PAGE_SCRIPTS_JS)
    page = await context.new_page()
    return Launched(context=context, browser=shared.browser, remote=False, lent=True, viewport=viewport,
                    ready_page=page)


@dataclass
class Launched:
    """What a launch produced, and what closing it must and must not touch."""

    context: BrowserContext
    browser: Browser | None
    remote: bool
    own_pages: list[Page] = field(default_factory=list)
    own_context: bool = False  # a context this run made in a browser it only attached to
    lent: bool = False  # the browser is a slot's, kept for the next run: only the context is this run's
    viewport: tuple[int, int] | None = None
    ready_page: Page | None = None  # a blank tab opened with a slot's context, the run's first


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _read_state(path: Path) -> dict[str, object]:
    try:
        state = json.loads(read_regular_text(path))  # a FIFO is refused, never waited on
    except NotRegularFile as exc:
        raise OperatorError(f"cannot read the storage state {path}: {exc.strerror}") from exc
    except (OSError, ValueError) as exc:
        raise OperatorError(f"cannot read the storage state {path}: {exc}") from exc
    if not isinstance(state, dict) or not isinstance(state.get("cookies", []), list):
        raise OperatorError(f"{path} is not a Playwright storage state (cookies and origins)")
    return state


async def launch(playwright: Playwright, options: BrowserOptions) -> Launched:
    state = None
    if options.storage_state is not None and options.storage_state.exists():
        state = _read_state(options.storage_state)
    if options.cdp_url:
        launched = await _attach(playwright, options)
    elif options.profile:
        launched = await _persistent(playwright, options)
    else:
        launched = await _fresh(playwright, options, state)
        state = None  # already imported whole, cookies and local storage
    if state and state.get("cookies"):
        await launched.context.add_cookies(state["cookies"])  # type: ignore[arg-type]
    await launched.context.add_init_script(PAGE_SCRIPTS_JS)
    return launched


def _executable(options: BrowserOptions) -> tuple[str | None, str]:
    try:
        choice = find_browser(options.browser_path)
    except BrowserNotFound as exc:
        raise OperatorError(f"{exc}; pass an existing --browser-path") from exc
    return choice.path, choice.describe()


def _launch_failed(what: str, exc: PlaywrightError, headless: bool) -> OperatorError:
    # The executable was found: reinstalling it is seldom the cure, a window without a display often is.
    problem = None if headless else display_problem()
    if problem is not None:
        return OperatorError(f"could not open a browser window: {problem}. Pass --headless, or fix DISPLAY")
    return OperatorError(f"could not start {what}: {_first_line(exc)}; another --browser-path may help")


async def launch_browser(playwright: Playwright, options: BrowserOptions) -> Browser:
    """The browser alone (no context yet); OperatorError, in words, when it cannot start."""
    path, what = _executable(options)
    try:
        return await playwright.chromium.launch(headless=options.headless, executable_path=path, args=LAUNCH_ARGS)
    except PlaywrightError as exc:
        raise _launch_failed(what, exc, options.headless) from exc


async def _fresh(playwright: Playwright, options: BrowserOptions, state: dict | None) -> Launched:
    browser = await launch_browser(playwright, options)
    width, height = options.viewport
    context = await browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True,
        storage_state=state,  # type: ignore[arg-type]
    )
    return Launched(context=context, browser=browser, remote=False)


async def _persistent(playwright: Playwright, options: BrowserOptions) -> Launched:
    directory = profile_dir(options.profile or "")
    directory.mkdir(parents=True, exist_ok=True)
    path, what = _executable(options)
    width, height = options.viewport
    try:
        context = await playwright.chromium.launch_persistent_context(
            str(directory), headless=options.headless, executable_path=path, args=LAUNCH_ARGS,
            viewport={"width": width, "height": height}, accept_downloads=True,
        )
    except PlaywrightError as exc:
        if "ProcessSingleton" in str(exc) or "SingletonLock" in str(exc):
            raise OperatorError(
                f"the profile {options.profile!r} ({directory}) is in use by another browser; "
                "close it or pick another --profile"
            ) from exc
        raise _launch_failed(what, exc, options.headless) from exc
    return Launched(context=context, browser=context.browser, remote=False)


async def _attach(playwright: Playwright, options: BrowserOptions) -> Launched:
    url = options.cdp_url or ""
    try:
        browser = await playwright.chromium.connect_over_cdp(url, timeout=CONNECT_TIMEOUT_MS)
    except PlaywrightError as exc:
        raise OperatorError(
            f"could not reach a browser over CDP at {url}: {_first_line(exc)}. Start Chromium with "
            "--remote-debugging-port, or check the browser pool's address"
        ) from exc
    if browser.contexts and not options.cdp_fresh_context:
        return Launched(context=browser.contexts[0], browser=browser, remote=True)  # its logins and cookies
    width, height = options.viewport
    context = await browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    return Launched(context=context, browser=browser, remote=True, own_context=True)


# A slot's context is closed behind the run: the run's end (its session stored, the next job
# handed over) does not wait for the context to close. What the run keeps of it (storage state, trace,
# downloads) is taken before; its tab may draw a moment longer, in a context no run uses.
_closing: set[asyncio.Future[None]] = set()


def _close_behind(context: BrowserContext) -> None:
    closing = asyncio.ensure_future(context.close())
    _closing.add(closing)

    def closed(done: asyncio.Future[None]) -> None:
        _closing.discard(done)
        if not done.cancelled():
            done.exception()  # a browser gone meanwhile closed it already: nobody to tell

    closing.add_done_callback(closed)


async def shut(launched: Launched, storage_state: Path | None) -> None:
    """Save the storage state if asked, then close what goalbot opened and nothing more."""
    try:
        if storage_state is not None:
            storage_state.parent.mkdir(parents=True, exist_ok=True)
            await launched.context.storage_state(path=storage_state)
    finally:
        if launched.lent:
            _close_behind(launched.context)
        elif launched.remote and launched.own_context:
            await launched.context.close()
            if launched.browser is not None:
                await launched.browser.close()  # for a CDP connection: disconnect only
        elif launched.remote:
            for page in launched.own_pages:
                if not page.is_closed():
                    await page.close()
            if launched.browser is not None:
                await launched.browser.close()  # for a CDP connection: disconnect only
        else:
            await launched.context.close()
            if launched.browser is not None:
                await launched.browser.close()
