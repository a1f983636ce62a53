"""The PDF a tab shows in Chromium's viewer: a link to an invoice served inline, or opened in a new
tab, is shown, not downloaded, and the viewer's page holds no text to read. Its bytes are fetched
again through the browser context (its cookies, so a signed-in document reads as the person sees
it), from the address the tab shows and only if the run may load it, no redirect followed, bounded
in size and time, so `extract` reads it as it reads a downloaded one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlsplit

from playwright.async_api import APIResponse, Page
from playwright.async_api import Error as PlaywrightError

from goalbot.operators.base import DocumentUnread

MOST_SHOWN_BYTES = 20_000_000
FETCH_TIMEOUT_MS = 20_000
PDF_SIGNATURE = b"%PDF-"
SHOWS_PDF_JS = "() => document.contentType === 'application/pdf'"


async def shown_pdf(page: Page, allows: Callable[[str], bool] | None, directory: Path) -> Path | None:
    """The PDF `page` shows, saved in `directory`; None when it shows no PDF. DocumentUnread when
    it shows one that cannot be had within the bounds."""
    try:
        if not await page.evaluate(SHOWS_PDF_JS):
            return None
    except PlaywrightError:
        return None  # a page on its way, or gone: it shows nothing to read
    address = page.url
    if urlsplit(address).scheme not in ("http", "https") or (allows is not None and not allows(address)):
        raise DocumentUnread(f"{address} is not an address this run may load")
    body = await _fetched(page, address)
    path = directory / _file_name(address)
    directory.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


async def _fetched(page: Page, address: str) -> bytes:
    try:
        response = await page.context.request.get(address, max_redirects=0, timeout=FETCH_TIMEOUT_MS,
                                                  fail_on_status_code=False)
    except PlaywrightError as exc:
        raise DocumentUnread(f"fetching it again failed: {str(exc).splitlines()[0]}") from None
    try:
        return await _checked_body(response)
    finally:
        await response.dispose()


async def _checked_body(response: APIResponse) -> bytes:
    if response.status != 200:
        raise DocumentUnread(f"fetching it again was answered {response.status}, not the document")
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > MOST_SHOWN_BYTES:
        raise DocumentUnread(_too_big(int(length)))
    body = await response.body()
    if len(body) > MOST_SHOWN_BYTES:
        raise DocumentUnread(_too_big(len(body)))
    if PDF_SIGNATURE not in body[:1024]:
        raise DocumentUnread("fetched again, it is no longer a PDF")
    return body


def _too_big(size: int) -> str:
    return f"it is {size / 1_000_000:.0f} MB, more than the {MOST_SHOWN_BYTES // 1_000_000} MB a document read may be"


def _file_name(address: str) -> str:
    last = unquote(urlsplit(address).path.rstrip("/").rsplit("/", 1)[-1])
    name = re.sub(r"[^\w.\- ]", "_", last).strip(" .")[:100] or "document"
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"
