"""What happens in the browser besides the DOM: dialogs, downloads, new tabs, navigations.

The watcher handles dialogs and saves downloads as they come, counts every such happening so an
action can tell whether it had an effect, and keeps a one-line notice of each for the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import re
from pathlib import Path
from typing import Callable

from playwright.async_api import BrowserContext, Dialog, Download, Page
from playwright.async_api import Error as PlaywrightError

from goalbot.actions import SavedFile

DOWNLOAD_PATIENCE_S = 60.0
# watch.js counts a page that started a navigation as leaving until it goes; a download never goes.
STAYING_JS = "() => { const watch = window.__goalbotWatch; if (watch) watch.leaving = 0; }"


def _safe_name(name: str) -> str:
    name = re.sub(r"[^\w.\- ]", "_", Path(name).name).strip() or "download"
    return name[:120]


class BrowserWatcher:
    def __init__(self, download_dir: Path, on_new_page: Callable[[Page], None]) -> None:
        self.download_dir = download_dir
        self.happenings = 0
        self._notices: list[str] = []
        self._pending: set[asyncio.Task[SavedFile | None]] = set()
        self._told: set[asyncio.Task[None]] = set()
        self._saved: list[SavedFile] = []
        self._on_new_page = on_new_page

    def attach_context(self, context: BrowserContext) -> None:
        context.on("page", self._page_opened)

    def attach_page(self, page: Page) -> None:
        page.on("dialog", self._dialog)
        page.on("download", self._download)
        page.on("framenavigated", lambda _frame: self._bump())
        page.on("filechooser", lambda _chooser: self._bump())

    def notices(self) -> list[str]:
        drained, self._notices = self._notices, []
        return drained

    async def collect_downloads(self) -> list[SavedFile]:
        """Wait for downloads already started, and return the files saved since the last call."""
        if self._pending:
            await asyncio.wait(self._pending, timeout=DOWNLOAD_PATIENCE_S)
        saved, self._saved = self._saved, []
        return saved

    def _bump(self) -> None:
        self.happenings += 1

    def _page_opened(self, page: Page) -> None:
        self._bump()
        self.attach_page(page)
        self._notices.append("a new tab opened and is now the current tab")
        self._on_new_page(page)

    async def _dialog(self, dialog: Dialog) -> None:
        # A page blocked on a dialog can be neither observed nor driven, so goalbot answers at
        # once and tells the model what it said: the model chose the click that raised it.
        self._bump()
        kind, message = dialog.type, " ".join(dialog.message.split())[:200]
        try:
            if kind == "prompt":
                await dialog.accept(dialog.default_value)
                answer = f"accepted it with {dialog.default_value!r}"
            else:
                await dialog.accept()
                answer = "accepted it" if kind != "alert" else "closed it"
        except PlaywrightError:
            answer = "could not answer it (the page went away)"
        article = "an" if kind[0] in "aeiou" else "a"
        self._notices.append(f'{article} {kind} dialog said "{message}"; goalbot {answer}')

    def _download(self, download: Download) -> None:
        self._bump()
        task = asyncio.ensure_future(self._save(download))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        # A link that turned into a download leaves its page where it was: no look waits for it to go.
        told = asyncio.ensure_future(_staying(download.page))
        self._told.add(told)
        told.add_done_callback(self._told.discard)

    async def _save(self, download: Download) -> SavedFile | None:
        self.download_dir.mkdir(parents=True, exist_ok=True)
        name = _safe_name(download.suggested_filename)
        path = self.download_dir / name
        n = 1
        while path.exists():
            n += 1
            path = self.download_dir / f"{Path(name).stem} ({n}){Path(name).suffix}"
        try:
            await download.save_as(path)
        except PlaywrightError as exc:
            self._notices.append(f"the download of {name} failed: {exc}".splitlines()[0])
            return None
        mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
        saved = SavedFile(name=path.name, path=str(path), size=path.stat().st_size, mime=mime)
        self._saved.append(saved)
        self._notices.append(f"downloaded {saved.name} ({saved.size} bytes)")
        return saved


async def _staying(page: Page) -> None:
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(STAYING_JS)
