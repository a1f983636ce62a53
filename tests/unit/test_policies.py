"""The rules behind the safety policies, the GO / NOT GO gate, the allowed domains and plan
editing, worked through with numbers and words a person would use."""

from __future__ import annotations

import pytest

from goalbot import actions as A
from goalbot.text import plan_editing
from goalbot.agents.domains import Domains, SchemeError
from goalbot.agents.policies import ClickAt, RateLimiter, RepeatGuard, SafetyPolicy, Streak
from goalbot.agents.risk import RiskKind, assess, words_risk
from goalbot.operators.base import Element, Landing, Observation


def test_the_third_same_click_on_an_unchanged_page_is_refused() -> None:
    guard = RepeatGuard(radius=30, limit=3)
    here = ClickAt(None, (100, 100))
    for _ in range(2):
        assert not guard.refuses(here, "page-a")
        guard.record(here, "page-a", "page-a")
    assert guard.refuses(ClickAt(None, (120, 118)), "page-a")  # 27 px away is the same place
    assert not guard.refuses(ClickAt(None, (140, 100)), "page-a")  # 40 px away is not
    assert not guard.refuses(here, "page-b")  # the page changed meanwhile


def test_the_buttons_of_neighbouring_rows_are_two_places_and_the_same_button_is_one() -> None:
    guard = RepeatGuard(radius=30, limit=3)
    for index, y in ((4, 100), (5, 118)):  # a loop's pass per row: each its own button, 18 px apart
        assert not guard.refuses(ClickAt(index, (50, y)), "page-a")
        guard.record(ClickAt(index, (50, y)), "page-a", "page-a")
    assert not guard.refuses(ClickAt(6, (50, 136)), "page-a")
    guard.record(ClickAt(6, (50, 136)), "page-a", "page-a")
    guard.record(ClickAt(6, (50, 136)), "page-a", "page-a")
    assert guard.refuses(ClickAt(6, (50, 136)), "page-a")


def test_clicks_that_change_the_page_never_add_up() -> None:
    guard = RepeatGuard(radius=30, limit=3)
    button = ClickAt(4, (10, 10))
    for n in range(5):
        assert not guard.refuses(button, f"page-{n}")
        guard.record(button, f"page-{n}", f"page-{n + 1}")


def test_the_same_index_is_the_same_place_wherever_it_was_drawn() -> None:
    guard = RepeatGuard(radius=30, limit=2)
    guard.record(ClickAt(7, None), "p", "p")
    assert guard.refuses(ClickAt(7, (900, 900)), "p")


def test_rate_limits_with_a_clock_we_control() -> None:
    now = [0.0]
    limiter = RateLimiter(SafetyPolicy(min_interval_s=2, burst=1, clicks_per_minute=3), clock=lambda: now[0])
    assert limiter.wait_before(click=True) == (0.0, None)
    limiter.record(click=True)
    now[0] = 0.5
    assert limiter.wait_before(click=True) == (1.5, "min_interval")
    for t in (10.0, 20.0):
        now[0] = t
        limiter.record(click=True)
    now[0] = 30.0
    assert limiter.wait_before(click=True) == (30.0, "clicks_per_minute")  # the one at 0 s ages out at 60
    assert limiter.wait_before(click=False) == (0.0, "min_interval")  # typing is not a click
    now[0] = 60.0
    assert limiter.wait_before(click=True) == (0.0, "min_interval")


def test_a_burst_runs_at_once_and_then_the_pace_holds_on_average() -> None:
    """A site never sees more than `burst` actions plus one per interval, however they come."""
    now = [0.0]
    limiter = RateLimiter(SafetyPolicy(min_interval_s=1, burst=3, clicks_per_minute=1000), clock=lambda: now[0])
    started = []
    for _ in range(10):  # an agent that acts as fast as it is let
        wait, _why = limiter.wait_before(click=True)
        now[0] += wait
        started.append(now[0])
        limiter.record(click=True)
        now[0] += 0.01  # the action itself
    assert started[:3] == [0.0, 0.01, 0.02]  # one answer's three actions: no wait
    assert started[3] == pytest.approx(1.0, abs=0.02)
    for first in range(len(started)):
        for last in range(first, len(started)):
            assert last - first + 1 <= 3 + (started[last] - started[first]) / 1.0 + 1e-9
    now[0] += 10  # idle time refills the bucket, never beyond the burst
    waits = []
    for _ in range(4):
        waits.append(limiter.wait_before(click=False)[0])
        limiter.record(click=False)
    assert waits[:3] == [0.0, 0.0, 0.0] and waits[3] == pytest.approx(1.0)


def test_no_interval_never_waits() -> None:
    limiter = RateLimiter(SafetyPolicy(min_interval_s=0, burst=1, clicks_per_minute=1000), clock=lambda: 5.0)
    for _ in range(5):
        assert limiter.wait_before(click=True)[0] == 0.0
        limiter.record(click=True)


def test_low_confidence_counts_in_a_row_only() -> None:
    streak = Streak(3)
    assert [streak.note(hit) for hit in (True, True, False, True, True, True, True)] == [
        False, False, False, False, False, True, False]


@pytest.mark.parametrize("label, kind", [
    ("Buy now", RiskKind.PAYMENT), ("Place order", RiskKind.PAYMENT), ("Proceed to checkout", RiskKind.PAYMENT),
    ("결제하기", RiskKind.PAYMENT), ("구매", RiskKind.PAYMENT),
    ("Delete account", RiskKind.DELETE), ("Remove from list", RiskKind.DELETE), ("삭제", RiskKind.DELETE),
    ("trash (icon) · Old receipts", RiskKind.DELETE), ("reply (icon)", RiskKind.SEND),
    ("Send", RiskKind.SEND), ("Post comment", RiskKind.SEND), ("메시지 보내기", RiskKind.SEND),
    ("Add to cart", None), ("Sign in", None), ("Save", None), ("Payments history", None),
    ("Display", None), ("Sender details", None),
])
def test_what_counts_as_risky(label: str, kind: RiskKind | None) -> None:
    assert words_risk(label) is kind


def _page(*elements: Element, url: str = "https://shop.example.com/cart") -> Observation:
    return Observation(url=url, title="t", items=list(elements))


def test_the_gate_judges_the_element_a_click_lands_on() -> None:
    buy = Element(index=3, role="button", name="Buy now", box=(100, 100, 80, 30))
    page = _page(Element(index=1, role="button", name="Add to cart", box=(100, 50, 80, 30)), buy)
    domains = Domains()
    assert assess(A.Click(index=3), page, domains).kind is RiskKind.PAYMENT
    assert assess(A.Click(x=140, y=115), page, domains).kind is RiskKind.PAYMENT  # by pixels too
    assert assess(A.Click(index=1), page, domains) is None
    enter = Landing(words="Buy now", url="https://shop.example.com/order")
    assert assess(A.Key(key="Enter"), page, domains, enter).kind is RiskKind.PAYMENT
    assert assess(A.UploadFile(index=1, path="/tmp/cv.pdf"), page, domains).kind is RiskKind.UPLOAD
    # No listed element there (the desktop): the words read off the screen decide.
    delete_all = Landing(words="Delete all")
    assert assess(A.Click(x=900, y=700), page, domains, delete_all).kind is RiskKind.DELETE
    assert assess(A.Click(index=9), page, domains, delete_all).kind is RiskKind.DELETE
    assert assess(A.Type(text="hunter2"), page, domains, Landing(words="Password")).kind is RiskKind.SECRET_FIELD
    assert assess(A.Type(text="kimchi"), page, domains, Landing(words="Search")) is None
    # Pressing Tab moves the focus and sets nothing off, whatever the focused button says.
    assert assess(A.Key(key="Tab"), page, domains, delete_all) is None


def test_keys_that_press_or_submit_are_judged_by_what_they_set_off() -> None:
    page, domains, buy = _page(), Domains(), Landing(words="Buy now")
    for action in (A.Key(key="Enter"), A.Key(key="NumpadEnter"), A.Key(key=" "), A.Key(key="Space"),
                   A.Hotkey(keys=["Enter"]), A.Hotkey(keys=["Control", "Enter"]), A.Key(key="Shift+Space"),
                   A.Type(text="2", submit=True), A.Type(text="2\n")):
        assert assess(action, page, domains, buy).kind is RiskKind.PAYMENT, action


def test_a_click_into_a_field_sets_nothing_off_whatever_its_label_says() -> None:
    field = Element(index=4, role="textbox", name="Type DELETE to confirm", box=(10, 10, 200, 30))
    assert assess(A.Click(index=4), _page(field), Domains()) is None


def test_an_address_that_pays_or_deletes_is_judged_like_its_button() -> None:
    domains = Domains()
    assert assess(A.Navigate(url="https://shop.example.com/api/buy?qty=1"), _page(), domains).kind is RiskKind.PAYMENT
    assert assess(A.Navigate(url="https://x.example.com/account/delete_account"), _page(), domains).kind \
        is RiskKind.DELETE
    assert assess(A.Navigate(url="https://blog.example.com/post/12"), _page(), domains) is None
    aimed = Landing(words="Send message", url="https://mail.example.com/outbox")
    assert assess(A.Navigate(url="https://mail.example.com/outbox"), _page(), domains, aimed).kind is RiskKind.SEND


def test_only_web_pages_open_unless_a_scheme_is_allowed() -> None:
    domains = Domains()
    for url in ("file:///etc/passwd", "view-source:file:///etc/passwd", "chrome://version",
                "javascript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,hi"):
        assert not domains.allows_scheme(url) and not domains.allows(url), url
    assert domains.allows("https://example.com/") and domains.allows("about:blank")
    assert Domains(schemes=["file"]).allows("file:///tmp/report.html")
    with pytest.raises(SchemeError):
        Domains(schemes=["javascript"])


def test_domains_and_where_secrets_may_go() -> None:
    open_web = Domains(start_url="https://bank.example.com/login")
    assert open_web.allows("https://anywhere.org/")
    assert open_web.allows_secrets("https://bank.example.com/2fa")
    assert not open_web.allows_secrets("https://bank-example.com.evil.org/login")

    fenced = Domains(["*.example.com", "127.0.0.1:8000"])
    assert fenced.allows("https://example.com/") and fenced.allows("https://shop.example.com/x")
    assert not fenced.allows("https://example.com.evil.org/")
    assert fenced.allows("http://127.0.0.1:8000/a") and not fenced.allows("http://127.0.0.1:9000/a")
    assert fenced.allows("about:blank") and not fenced.allows("file:///etc/passwd")
    risk = assess(A.Navigate(url="https://evil.org/"), _page(), fenced)
    assert risk.kind is RiskKind.LEAVE_DOMAIN and risk.widens_domains
    fenced.grant("https://evil.org/login")  # only the person's GO does this
    assert fenced.allows("https://evil.org/other")


def test_secrets_typed_on_a_new_site_need_a_go() -> None:
    domains = Domains(start_url="https://bank.example.com/")
    typing = A.Type(text="<secret:PIN>", index=2)
    assert assess(typing, _page(url="https://bank.example.com/pin"), domains) is None
    risk = assess(typing, _page(url="https://phish.example.net/pin"), domains)
    assert risk.kind is RiskKind.SECRET_ON_NEW_SITE


def test_plan_editing_commands() -> None:
    steps = ["Save", "Turn on dark mode", "Open privacy"]
    steps = plan_editing.apply(steps, "m 2 1")
    assert steps == ["Turn on dark mode", "Save", "Open privacy"]
    steps = plan_editing.apply(steps, "d 3")
    steps = plan_editing.apply(steps, "a Check the colours")
    steps = plan_editing.apply(steps, "i 1 Open the settings")
    steps = plan_editing.apply(steps, "2 Turn on the Dark mode switch")
    assert steps == ["Open the settings", "Turn on the Dark mode switch", "Save", "Check the colours"]
    for bad in ("d 9", "m 1 7", "x", "0 nothing"):
        with pytest.raises(plan_editing.EditError):
            plan_editing.apply(steps, bad)


def test_desktop_coordinates_land_on_the_chosen_monitor() -> None:
    from goalbot.agents.context import geometry_of
    from goalbot.llm.coordinates import Convention
    from goalbot.llm.vision import Picture

    # Monitor 2 sits right of a 1920-wide one; it is HiDPI: 2560×1440 pixels for 1280×720 pointer units.
    observation = Observation(url="screen:2", title="Monitor 2", viewport_width=1280, viewport_height=720,
                              device_pixel_ratio=2.0, offset_x=1920, offset_y=0)
    sent = Picture(data_url="data:,", width=1280, height=720)  # resized for the model
    geometry = geometry_of(observation, sent)
    assert geometry.to_target(640, 360, Convention.PIXELS) == (1920 + 640, 360)
    assert geometry.to_target(1000, 1000, Convention.RELATIVE_1000) == (1920 + 1280, 720)


def test_the_grid_is_drawn_every_hundred_pixels() -> None:
    from PIL import Image

    from goalbot.operators.desktop_screen import fingerprint, with_grid

    blank = Image.new("RGB", (320, 200), "white")
    gridded = with_grid(blank)
    assert gridded.getpixel((100, 150)) == (255, 0, 255) and gridded.getpixel((150, 100)) == (255, 0, 255)
    assert gridded.getpixel((150, 150)) == (255, 255, 255)
    assert blank.getpixel((100, 150)) == (255, 255, 255)  # the original stays as it was
    assert fingerprint(blank, coarse=True) != fingerprint(gridded, coarse=True)
