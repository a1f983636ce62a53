"""Ways to get a browser: storage state files, persistent profiles, attaching over CDP; and
`goalbot observe` as people run it."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from PIL import Image

from kit import answer, call, rows, run_cli
from goalbot import actions as A
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.operator import BrowserOperator
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.locate import LAUNCH_ARGS, find_browser, playwright_chromium
from goalbot.operators.som import COLOURS
from hardsite.server import REPORT_CSV, HardSite


async def remember_me(options: BrowserOptions, url: str, click: bool) -> str:
    """Open the cookie page (clicking "Remember me" if asked) and return what it shows."""
    operator = BrowserOperator(options)
    await operator.start(url)
    try:
        if click:
            await operator.observe()
            assert (await operator.execute(A.Click(index=1))).ok
        return await operator.page.inner_text("#out")
    finally:
        await operator.close()


async def test_storage_state_is_written_at_the_end_and_read_at_the_start(hardsite: HardSite, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    options = BrowserOptions(storage_state=state)
    assert await remember_me(options, hardsite.page("cookie"), click=True) == "cookie:shop=kimchi cart:3"
    assert any(c["name"] == "shop" for c in json.loads(state.read_text())["cookies"])
    assert await remember_me(options, hardsite.page("cookie"), click=False) == "cookie:shop=kimchi cart:3"
    assert await remember_me(BrowserOptions(), hardsite.page("cookie"), click=False) == "cookie:- cart:-"


async def test_a_broken_storage_state_file_is_a_clear_error(hardsite: HardSite, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text("{not json")
    operator = BrowserOperator(BrowserOptions(storage_state=state))
    with pytest.raises(OperatorError, match="cannot read the storage state"):
        await operator.start(hardsite.page("cookie"))
    await operator.close()


async def test_a_profile_keeps_logins_between_runs(hardsite: HardSite) -> None:
    shop = BrowserOptions(profile="shop")
    assert await remember_me(shop, hardsite.page("cookie"), click=True) == "cookie:shop=kimchi cart:3"
    assert await remember_me(shop, hardsite.page("cookie"), click=False) == "cookie:shop=kimchi cart:3"
    other = BrowserOptions(profile="other")
    assert await remember_me(other, hardsite.page("cookie"), click=False) == "cookie:- cart:-"
    with pytest.raises(OperatorError, match="bad profile name"):
        await BrowserOperator(BrowserOptions(profile="../escape")).start(None)


@pytest.fixture
def running_chromium(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    path = find_browser().path or playwright_chromium()
    assert path is not None
    process = subprocess.Popen(
        [path, *LAUNCH_ARGS, "--headless=new", "--remote-debugging-port=0",
         f"--user-data-dir={tmp_path / 'remote-profile'}", "about:blank"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
        if found:
            break
    else:
        pytest.fail("Chromium did not open its DevTools port")
    yield f"http://127.0.0.1:{found.group(1)}", process
    process.kill()
    process.wait()


async def test_attaching_over_cdp_drives_the_running_browser_and_leaves_it_running(
    hardsite: HardSite, running_chromium: tuple[str, subprocess.Popen[str]]
) -> None:
    url, process = running_chromium
    operator = BrowserOperator(BrowserOptions(cdp_url=url))
    await operator.start(hardsite.page("dropdown"))
    try:
        await operator.observe()
        assert (await operator.execute(A.SelectOption(index=1, option="Plum"))).ok
        assert await operator.page.inner_text("#chosen") == "chosen: plum"
    finally:
        await operator.close()
    assert process.poll() is None, "goalbot closed a browser it did not start"
    with urllib.request.urlopen(f"{url}/json/list") as response:
        pages = json.load(response)
    assert not any("dropdown" in page["url"] for page in pages), "goalbot left its tab open"


async def test_an_unreachable_cdp_url_is_one_clear_line() -> None:
    operator = BrowserOperator(BrowserOptions(cdp_url="http://127.0.0.1:9"))
    with pytest.raises(OperatorError, match=r"could not reach a browser over CDP at http://127\.0\.0\.1:9"):
        await operator.start(None)
    await operator.close()


def test_observe_prints_what_the_navigator_sees_and_saves_set_of_mark(hardsite: HardSite, tmp_path: Path) -> None:
    plain, marked = tmp_path / "plain.png", tmp_path / "marked.png"
    shown = run_cli("observe", hardsite.page("frames"), "--headless", "--screenshot", str(plain))
    assert shown.returncode == 0, shown.stderr
    assert '[4] button "Apply"' in shown.stdout and f"--- frame \"Payment\" {hardsite.other} ---" in shown.stdout
    assert re.search(r"observed in \d+ ms: 5 elements", shown.stderr)
    som = run_cli("observe", hardsite.page("frames"), "--headless", "--screenshot", str(marked), "--som")
    assert som.returncode == 0, som.stderr
    with Image.open(plain) as a, Image.open(marked) as b:
        assert a.size == b.size == (1280, 800)
        differing = sum(1 for p, q in zip(a.convert("RGB").getdata(), b.convert("RGB").getdata()) if p != q)
    assert differing > 1000  # five boxes with their number tags
    colours = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in COLOURS}
    with Image.open(marked) as b:
        assert colours & set(b.convert("RGB").getdata())


def test_observe_with_a_bad_url_or_flag(hardsite: HardSite) -> None:
    refused = run_cli("observe", "http://127.0.0.1:9/", "--headless")
    assert refused.returncode == 1 and "could not open http://127.0.0.1:9/" in refused.stderr
    assert "Traceback" not in refused.stderr
    small = run_cli("observe", hardsite.page("frames"), "--budget", "10")
    assert small.returncode == 2 and "--budget" in small.stderr


def test_a_download_during_a_run_is_stored_with_the_session(hardsite: HardSite, model_server, db_path: Path) -> None:
    script = {
        "planner": [answer(call("plan", observation="an export link", steps=["Export the report"],
                                progress_percent=0, confidence=0.7))],
        "navigator": [answer(call("click", index={"$element": "Export report"}),
                             call("finished", success=True, summary="exported"))],
        "validator": [answer(call("verdict", is_valid=True, reason="downloaded", confidence=0.9))] * 2,
    }
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "export the report", "--url", hardsite.page("download"),
                     "--no-tui", "--yes", "--headless", "--base-url", model.base_url, "--model", "scripted")
    assert result.returncode == 0, result.stderr
    [stored] = rows(db_path, "select id, name, mime, content from artifacts where kind = 'download'")
    assert (stored["name"], stored["mime"]) == ("report.csv", "text/csv")
    assert stored["content"].decode() == REPORT_CSV
    [clicked] = [json.loads(r["data"]) for r in rows(db_path, "select data from events where type = 'ACT_OK'")
                 if json.loads(r["data"])["action"]["name"] == "click"]
    assert clicked["files"] == [{"name": "report.csv", "size": len(REPORT_CSV), "artifact": stored["id"]}]
    assert "downloaded report.csv" in clicked["message"]
