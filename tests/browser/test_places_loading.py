"""A list read back from its places while its rows are still loading: each row of a virtualised
list is drawn first as a placeholder (a word for loading in English or Korean, a skeleton with no
cells, an ellipsis, cells still empty) and fills in a little later. Scrolling it through waits for
every row, so no placeholder is ever read as data; a row that never fills is a miss, not data."""

from __future__ import annotations

import json
from typing import Any

import pytest

from goalbot.operators.browser.operator import BrowserOperator

RECORDS = [{"ticker": f"Q{n:03d}", "price": round(5 + n * 1.5, 2)} for n in range(300)]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Quotes</title><style>
#box { height: 300px; overflow-y: auto; position: relative; }
.row { position: absolute; height: 20px; left: 0; right: 0; display: flex; gap: 2em; }
</style></head><body><h1>Quotes</h1><div id="box"><div id="body"></div></div>
<script>
  const data = DATA, kind = KIND, box = document.getElementById("box"), body = document.getElementById("body");
  const filled = new Map();  // when each row's data comes: fillMs after it is first drawn
  window.fillMs = FILL;
  function placeholder(row) {
    if (kind === "skeleton") { row.className = "row skeleton-row"; row.setAttribute("aria-busy", "true"); return; }
    if (kind === "loading" || kind === "korean") {
      row.append(Object.assign(document.createElement("span"), { textContent: kind === "loading" ? "Loading…" : "로딩 중…" }));
      return;
    }
    for (let c = 0; c < 2; c += 1) {
      row.append(Object.assign(document.createElement("span"), { textContent: kind === "ellipsis" ? "…" : "" }));
    }
  }
  function draw() {
    const first = Math.floor(box.scrollTop / 20), now = performance.now();
    body.replaceChildren();
    body.style.height = `${data.length * 20}px`;
    for (let n = first; n < Math.min(data.length, first + 20); n += 1) {
      if (!filled.has(n)) filled.set(n, now + window.fillMs);
      const row = document.createElement("div");
      row.className = "row";
      row.style.top = `${n * 20}px`;
      if (now < filled.get(n)) placeholder(row);
      else for (const text of [data[n].ticker, data[n].price.toFixed(2)]) {
        row.append(Object.assign(document.createElement("span"), { textContent: text }));
      }
      body.append(row);
    }
  }
  box.addEventListener("scroll", draw);
  setInterval(draw, 40);
  draw();
</script></body></html>"""


def _page(kind: str, fill_ms: int) -> str:
    return PAGE.replace("DATA", json.dumps(RECORDS)).replace("KIND", json.dumps(kind)).replace("FILL", str(fill_ms))


async def _place_of_first_rows(browser: BrowserOperator, kind: str, fill_ms: int) -> dict[str, Any]:
    await browser.page.set_content(_page(kind, fill_ms))
    await browser.page.wait_for_function("() => document.querySelector('#body .row span')?.textContent === 'Q000'",
                                         timeout=fill_ms + 30_000)
    await browser.observe(screenshot=False)
    found = await browser.places_of({"quotes": RECORDS[:10]}, None)
    assert found is not None, "no place found for the rows drawn"
    return found.place


@pytest.mark.parametrize("kind", ["loading", "korean", "skeleton", "ellipsis", "empty"])
async def test_rows_that_load_as_they_are_scrolled_to_are_waited_for_never_read_as_data(
        browser: BrowserOperator, kind: str) -> None:
    place = await _place_of_first_rows(browser, kind, 150)
    back = await browser.read_places(place)
    assert back.scrolled and back.misses == [], back.misses[:3]
    assert back.data == {"quotes": RECORDS}


async def test_rows_that_never_fill_are_a_miss_that_says_so(browser: BrowserOperator) -> None:
    place = await _place_of_first_rows(browser, "loading", 250)
    await browser.page.evaluate("() => { window.fillMs = Infinity; }")  # rows not drawn yet never fill
    back = await browser.read_places(place)
    assert any('still "Loading…" after 15 s' in miss for miss in back.misses), back.misses[:3]
    rows = back.data["quotes"]
    assert all(row in RECORDS for row in rows if row), [row for row in rows if row not in RECORDS][:3]
