"""The market-data site (tests/hardsite/market.py) serves what its `truth` says, read back the way
a browser or a plain HTTP client gets it: no goalbot involved."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from io import BytesIO
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from playwright.async_api import Browser, Page, async_playwright

from goalbot.operators.browser.locate import find_browser, playwright_chromium
from hardsite.market import EMAIL, GRID_ROWS, PASSWORD, Market
from hardsite.market_fixture import MarketSite, market_site  # noqa: F401  (a fixture)

DEADLINE_MS = 30_000


@pytest.fixture(scope="session")
def chromium_path() -> str:
    # Not conftest's `chromium`, which ends the whole session without one: the unit group runs
    # on machines with no browser, and only these tests need it. (Sync: playwright_chromium
    # cannot run inside an event loop.)
    path = find_browser().path or playwright_chromium()
    if path is None:
        pytest.skip("no Chromium here (apt-get install chromium)")
    return str(path)


@pytest.fixture
async def chromium_browser(chromium_path: str) -> AsyncIterator[Browser]:
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=chromium_path)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
async def page(chromium_browser: Browser) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context(accept_downloads=True)
    try:
        yield await context.new_page()
    finally:
        await context.close()


def _headers(message: Any) -> dict[str, list[str]]:
    return {k.lower(): message.get_all(k) or [] for k in message.keys()}


def fetch(url: str, cookie: str = "") -> tuple[int, dict[str, list[str]], bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, _headers(answer.headers), answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, _headers(refused.headers), refused.read()


def sign_in(url: str) -> str:
    """The session cookie the sign-in form sets, posted the way the browser posts it."""
    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    body = f"email={EMAIL}&password={PASSWORD}".encode()
    try:
        posted = urllib.request.Request(f"{url}/sign-in?next=/quotes", body)
        urllib.request.build_opener(Stay()).open(posted, timeout=30)
    except urllib.error.HTTPError as moved:
        assert moved.code == 303 and moved.headers["Location"] == "/quotes"
        return next(c.split(";")[0] for c in moved.headers.get_all("Set-Cookie") or [] if c.startswith("session="))
    raise AssertionError("the right password was not answered with a redirect")


async def drawn_quotes(page: Page, url: str) -> Any:
    """Opens the quotes page and returns the JSON the chart was drawn from, once it is drawn."""
    async with page.expect_response(lambda r: "/api/quotes" in r.url, timeout=DEADLINE_MS) as answered:
        await page.goto(url)
    body = await (await answered.value).json()
    await page.wait_for_function("document.body.dataset.drawn === '1'", timeout=DEADLINE_MS)
    return body


async def inked_pixels(page: Page) -> int:
    """How many of the canvas's pixels are neither white nor the chart's background."""
    return int(await page.evaluate("""() => { const c = document.querySelector('canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n++;
        return n; }"""))


# -- /quotes ----------------------------------------------------------------------------------------

async def test_the_chart_is_drawn_from_the_api_with_the_layout_cookie_and_no_number_in_the_text(
        market_site: MarketSite, page: Page) -> None:
    market = market_site.market
    body = await drawn_quotes(page, market_site.page("/quotes"))
    assert body["quotes"] == market.truth("quotes")
    assert len(body["quotes"]) == 12 and {"삼성전자", "카카오"} <= {q["ticker"] for q in body["quotes"]}
    assert any(q["change"] < 0 for q in body["quotes"]) and all(isinstance(q["price"], float) for q in body["quotes"])
    assert await inked_pixels(page) > 2000
    text = await page.inner_text("body")
    assert not any(f"{q['price']:.2f}" in text or q["ticker"] in text for q in body["quotes"])
    api_cookies = [cookie for method, target, cookie in market.requests if target.startswith("/api/quotes")]
    assert api_cookies and all("layout=wide" in cookie for cookie in api_cookies)


def test_each_day_has_its_own_numbers_and_the_same_day_the_same(market_site: MarketSite) -> None:
    market = market_site.market
    assert market.truth("quotes", day=2) != market.truth("quotes", day=1)
    assert market.truth("quotes", day=2) == Market(day=2).truth("quotes")
    _, _, served = fetch(market_site.page("/api/quotes?day=2"))
    assert json.loads(served)["quotes"] == market.truth("quotes", day=2)
    for kind in ("grid", "table", "invoice", "summary"):
        assert market.truth(kind, day=3) != market.truth(kind, day=4), kind


async def test_the_redesign_draws_other_markup_from_the_same_api(market_site: MarketSite, page: Page) -> None:
    market_site.market.vary(redesign=True)
    body = await drawn_quotes(page, market_site.page("/quotes"))
    assert body["quotes"] == market_site.market.truth("quotes")
    assert await page.locator("#quotes-chart").count() == 0 and await page.locator("canvas.mkt-v2__canvas").count() == 1
    assert await inked_pixels(page) > 2000


async def test_the_reshaped_api_wraps_the_same_numbers_otherwise(market_site: MarketSite, page: Page) -> None:
    market = market_site.market
    market.vary(reshaped=True)
    body = await drawn_quotes(page, market_site.page("/quotes"))
    assert "quotes" not in body
    assert [{"ticker": i["symbol"], "price": i["last"], "change": i["chg"], "volume": i["vol"]}
            for i in body["data"]["items"]] == market.truth("quotes")
    assert await inked_pixels(page) > 2000


async def test_signed_in_quotes_need_the_session_the_sign_in_form_sets(market_site: MarketSite, page: Page) -> None:
    market = market_site.market
    market.vary(signed_in=True)
    status, _, _ = fetch(market_site.page("/api/quotes"), "layout=wide")
    assert status == 401
    await page.goto(market_site.page("/quotes"))
    assert "/sign-in" in page.url
    await page.get_by_label("Email").fill(EMAIL)
    await page.get_by_label("Password").fill("wrong")
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_text("Wrong email or password.").wait_for(timeout=DEADLINE_MS)
    await page.get_by_label("Email").fill(EMAIL)
    await page.get_by_label("Password").fill(PASSWORD)
    async with page.expect_response(lambda r: "/api/quotes" in r.url, timeout=DEADLINE_MS) as answered:
        await page.get_by_role("button", name="Sign in").click()
    assert (await (await answered.value).json())["quotes"] == market.truth("quotes")
    assert page.url.endswith("/quotes")
    status, _, served = fetch(market_site.page("/api/quotes"), sign_in(market_site.url))
    assert status == 200 and json.loads(served)["quotes"] == market.truth("quotes")


def test_every_answer_sets_the_layout_cookie_and_a_misnamed_variant_is_refused(market_site: MarketSite) -> None:
    for path in ("/", "/quotes", "/grid", "/summary", "/billing", "/table.png", "/api/rows", "/nowhere"):
        _, headers, _ = fetch(market_site.page(path))
        assert any(c.startswith("layout=wide") for c in headers["set-cookie"]), path
    with pytest.raises(ValueError, match="no such variant"):
        market_site.market.vary(no_rule=True)


# -- /grid --------------------------------------------------------------------------------------------

def row_text(row: dict[str, Any]) -> list[str]:
    return [row["ticker"], f"{row['price']:,.2f}", f"{row['volume']:,}"]


async def shown_rows(page: Page) -> dict[int, list[str]]:
    """The grid's rows in the DOM, by index (0 = the first data row), as their cells read."""
    got = await page.evaluate("""() => [...document.querySelectorAll('#grid-body [role=row]')].map(r =>
        [Number(r.getAttribute('aria-rowindex')) - 2,
         [...r.querySelectorAll('[role=gridcell]')].map(c => c.textContent)])""")
    return {index: cells for index, cells in got}


async def scroll_grid_to(page: Page, index: int) -> None:
    await page.evaluate("i => { const b = document.getElementById('grid-body'); b.scrollTop = i * 28; }", index)


async def loading_then_filled(page: Page, index: int) -> dict[int, list[str]]:
    await page.wait_for_function(f"""() => [...document.querySelectorAll('#grid-body [role=row]')].some(r =>
        r.getAttribute('aria-rowindex') === '{index + 2}' && r.textContent.includes('Loading…'))""",
                                 timeout=DEADLINE_MS)
    return await filled(page, index)


async def filled(page: Page, index: int) -> dict[int, list[str]]:
    await page.wait_for_function(f"""() => [...document.querySelectorAll('#grid-body [role=row]')].some(r =>
        r.getAttribute('aria-rowindex') === '{index + 2}' && !r.textContent.includes('Loading…'))""",
                                 timeout=DEADLINE_MS)
    return await shown_rows(page)


async def test_the_grid_shows_about_40_rows_loading_first_then_the_rows_truth_has(
        market_site: MarketSite, page: Page) -> None:
    truth = market_site.market.truth("grid")
    assert len(truth) == GRID_ROWS == market_site.market.truth("grid_total")
    # Late enough that "Loading…" is still there when a loaded machine first looks.
    market_site.market.grid_delay_ms = 2500
    await page.goto(market_site.page("/grid"))
    assert (await page.inner_text("body")).count("5,000 rows") == 2
    first = await loading_then_filled(page, 0)
    for index in (2500, 4999):
        await scroll_grid_to(page, index)
        shown = await loading_then_filled(page, index)
        assert 30 <= len(shown) <= 45 and index in shown and 0 not in shown
        assert all(cells == row_text(truth[i]) for i, cells in shown.items() if cells[0] != "Loading…")
    assert all(cells == row_text(truth[i]) for i, cells in first.items())
    assert any("삼성전자" == truth[i]["ticker"] for i in first)


async def test_without_its_total_the_grid_grows_to_its_last_row_and_says_5000_nowhere(
        market_site: MarketSite, page: Page) -> None:
    market = market_site.market
    market.vary(no_total=True)
    market.grid_delay_ms = 20  # 50 pages to reach the end: the delay is not what this proves
    last = market.truth("grid")[-1]
    await page.goto(market_site.page("/grid"))
    await filled(page, 0)  # 20 ms late: too soon to be sure of seeing "Loading…"
    text = await page.inner_text("body")
    assert "5,000" not in text and "5000" not in text
    assert await page.get_attribute("[role=grid]", "aria-rowcount") == "-1"
    assert await page.evaluate("document.getElementById('grid-body').scrollHeight") < GRID_ROWS * 28
    # Scrolled to the end again each time it grows, as a reader keeps scrolling, until the last row is in.
    await page.wait_for_function(f"""() => {{ const b = document.getElementById('grid-body');
        b.scrollTop = b.scrollHeight; const r = b.querySelector('[aria-rowindex="{GRID_ROWS + 1}"]');
        return r !== null && !r.textContent.includes('Loading…'); }}""", timeout=60_000, polling=200)
    shown = await shown_rows(page)
    assert shown[GRID_ROWS - 1] == row_text(last) and max(shown) == GRID_ROWS - 1
    assert "total" not in json.loads(fetch(market_site.page("/api/rows?offset=0"))[2])


# -- /summary -----------------------------------------------------------------------------------------

async def test_the_summary_says_its_total_twice_and_the_turnover_after_loading(
        market_site: MarketSite, page: Page) -> None:
    truth = market_site.market.truth("summary")
    await page.goto(market_site.page("/summary"))
    assert await page.inner_text("#turnover") == "Loading…"  # 500 ms late: the page is there long before
    volume = f"{truth['total_volume']:,}"
    assert (await page.inner_text(".headline")) == f"Total volume {volume}"
    assert (await page.inner_text("body")).count(volume) == 2
    cells = {await r.locator("th").inner_text(): await r.locator("td").inner_text()
             for r in await page.locator("table.summary tr").all()}
    assert cells["Advancing"] == str(truth["advancing"]) and cells["Declining"] == str(truth["declining"])
    assert truth["advancing"] + truth["declining"] == 12
    await page.wait_for_function("document.getElementById('turnover').textContent !== 'Loading…'", timeout=DEADLINE_MS)
    assert await page.inner_text("#turnover") == f"{truth['turnover']:,.2f}"


# -- /table.png and /table-page -----------------------------------------------------------------------

def picture(data: bytes) -> Any:
    from PIL import Image

    return Image.open(BytesIO(data)).convert("RGB")


def read_with_tesseract(data: bytes, tmp_path: Path) -> list[list[str]]:
    """The numbers on each line of the picture, as tesseract reads them."""
    (tmp_path / "table.png").write_bytes(data)
    said = subprocess.run(["tesseract", str(tmp_path / "table.png"), "stdout", "--psm", "6"],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    return [found for line in said.splitlines() if (found := re.findall(r"[+-]?\d[\d,]*\.\d\d", line))]


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_the_table_picture_without_rules_reads_as_truth_says(market_site: MarketSite, tmp_path: Path) -> None:
    market = market_site.market
    market.vary(rules=False)
    status, headers, data = fetch(market_site.page("/table.png"))
    assert status == 200 and headers["content-type"] == ["image/png"]
    truth = market.truth("table")
    assert len(truth) == 8 and any(r["change"] < 0 for r in truth)
    assert read_with_tesseract(data, tmp_path) == [[f"{r['price']:,.2f}", f"{r['change']:+.2f}"] for r in truth]


def test_the_ruled_table_is_the_same_picture_with_lines_on_it(market_site: MarketSite) -> None:
    market = market_site.market
    ruled = picture(fetch(market_site.page("/table.png"))[2])
    market.vary(rules=False)
    bare = picture(fetch(market_site.page("/table.png"))[2])
    assert ruled.size == bare.size
    on_a_line = {(x, y) for x in range(ruled.width) for y in range(ruled.height)
                 if (y - 4) % 44 == 0 or x in (8, 240, 420, 632)}
    differ = {(x, y) for x in range(ruled.width) for y in range(ruled.height)
              if ruled.getpixel((x, y)) != bare.getpixel((x, y))}
    assert len(differ) > 3000 and differ <= on_a_line


def test_the_table_draws_korean_only_with_a_font_that_has_it(market_site: MarketSite) -> None:
    from hardsite.market import LATIN_TICKERS, QUOTE_TICKERS, cjk_font

    tickers = [r["ticker"] for r in market_site.market.truth("table")]
    assert tickers == (QUOTE_TICKERS[:8] if cjk_font() else LATIN_TICKERS)


async def test_the_snapshot_page_shows_the_picture_and_no_number_in_its_text(
        market_site: MarketSite, page: Page) -> None:
    await page.goto(market_site.page("/table-page"))
    await page.wait_for_function("(i => i.complete && i.naturalWidth > 0)(document.querySelector('img'))",
                                 timeout=DEADLINE_MS)
    text = await page.inner_text("body")
    assert not any(f"{r['price']:,.2f}" in text for r in market_site.market.truth("table"))
    assert any(target.startswith("/table.png") for _, target, _ in market_site.market.requests)


# -- /billing and /invoice.pdf --------------------------------------------------------------------------

def invoice_lines(truth: dict[str, Any]) -> list[str]:
    return [f"{i['description']} {i['qty']} {i['unit_price']:,.2f} {i['amount']:,.2f}" for i in truth["items"]] + [
        f"Total (USD) {truth['total']:,.2f}"]


def test_the_invoice_pdf_has_a_text_layer_with_every_line_item_and_the_total(market_site: MarketSite) -> None:
    from pypdf import PdfReader

    truth = market_site.market.truth("invoice")
    assert all(i["amount"] == round(i["qty"] * i["unit_price"], 2) for i in truth["items"])
    assert truth["total"] == round(sum(i["amount"] for i in truth["items"]), 2)
    status, headers, data = fetch(market_site.page("/invoice.pdf"))
    assert status == 200 and headers["content-type"] == ["application/pdf"]
    assert headers["content-disposition"][0].startswith("inline")
    text = PdfReader(BytesIO(data)).pages[0].extract_text().splitlines()
    assert [line for line in text if line in invoice_lines(truth)] == invoice_lines(truth)
    assert f"No. {truth['number']}" in text and f"Date {truth['date']}" in text
    _, headers, downloaded = fetch(market_site.page("/invoice.pdf?download=1"))
    assert headers["content-disposition"][0].startswith("attachment") and downloaded == data


async def test_the_invoice_opens_in_the_viewer_in_a_new_tab_and_as_a_download(
        market_site: MarketSite, page: Page) -> None:
    market = market_site.market
    await page.goto(market_site.page("/billing"))
    async with page.expect_response(lambda r: "/invoice.pdf" in r.url, timeout=DEADLINE_MS) as answered:
        await page.get_by_role("link", name="View invoice").click()
    assert (await (await answered.value).header_value("content-type")) == "application/pdf"
    await page.wait_for_url("**/invoice.pdf*", timeout=DEADLINE_MS)
    await page.goto(market_site.page("/billing"))
    async with page.context.expect_page(timeout=DEADLINE_MS) as opened:
        await page.get_by_role("link", name="Open in a new tab").click()
    tab = await opened.value
    await tab.wait_for_url("**/invoice.pdf*", timeout=DEADLINE_MS)
    async with page.expect_download(timeout=DEADLINE_MS) as downloading:
        await page.get_by_role("link", name="Download PDF").click()
    download = await downloading.value
    assert Path(await download.path()).read_bytes() == fetch(market_site.page("/invoice.pdf"))[2]
    assert market.invoices_served[:3] == ["inline", "inline", "attachment"]
