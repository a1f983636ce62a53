"""A question the run waits for is read whole, at any width, with the screen it is about: a
recipe's checkpoint ("put the page right, then GO") says what to do at its end, so a cut question
is a question never understood."""

from __future__ import annotations

import html
import re
from io import BytesIO

import pytest
from PIL import Image
from textual.app import App
from textual.geometry import Region

from goalbot.payloads import ApprovalData
from tui.screens.consent import ConsentScreen
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.screenshot import ScreenshotPanel
from kit import REPO

CHECKPOINT = ("recipe step 2: no element on the page is surely click switch \"Dark mode\" (found by: "
              "label='Dark mode', css='#settings > form > label:nth-of-type(3) > input'). Put the page "
              "right and say GO to look again, or NOT GO to stop")


class _Host(App[None]):
    CSS_PATH = str(REPO / "tui" / "goalbot.tcss")


def _jpeg() -> bytes:
    out = BytesIO()
    Image.new("RGB", (320, 200), "navy").save(out, "JPEG")
    return out.getvalue()


def _seen(widget: object) -> str:
    """The words a widget shows on the screen, as drawn (what is cut off is not there)."""
    width, height = widget.size  # type: ignore[attr-defined]
    strips = widget.render_lines(Region(0, 0, width, height))  # type: ignore[attr-defined]
    return " ".join(" ".join(strip.text.split()) for strip in strips)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_checkpoint_is_read_whole_with_its_screen(size: tuple[int, int]) -> None:
    request = ApprovalData(kind="checkpoint", what=CHECKPOINT, screenshot="a1")
    app = _Host()
    async with app.run_test(size=size) as pilot:
        app.push_screen(ConsentScreen.for_request(request, _jpeg()))
        await pilot.pause()
        question = app.screen.query_one("#consent-question")
        assert question.region.right <= size[0] and question.region.bottom <= size[1], question.region
        assert " ".join(CHECKPOINT.split()) in _seen(question), _seen(question)
        assert app.screen.query(ScreenshotPanel), "the checkpoint shows the screen it is about"


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_delete_question_is_read_whole(size: tuple[int, int]) -> None:
    asked = ("Delete session 20261125-160744-9f61 (sign in and turn on dark mode, then open the "
             "settings and check that it stayed on) with its events and screenshots? This cannot be undone.")
    app = _Host()
    async with app.run_test(size=size) as pilot:
        app.push_screen(ConsentScreen.confirm(asked))
        await pilot.pause()
        question = app.screen.query_one("#consent-question")
        assert question.region.right <= size[0], question.region
        assert " ".join(asked.split()) in _seen(question), _seen(question)


def _screen_words(app: App[None]) -> str:
    """The words on the whole screen as drawn (every layer composited), one space between."""
    svg = app.export_screenshot()
    texts = re.findall(r">([^<>]*)</text>", svg)
    return " ".join(" ".join(html.unescape("".join(texts)).split()).split())


async def test_under_a_dialog_the_footer_offers_the_dialog_s_keys() -> None:
    class _Beneath(App[None]):
        CSS_PATH = _Host.CSS_PATH
        BINDINGS = [("z", "bell", "Zoom the picture")]

        def compose(self):  # type: ignore[no-untyped-def]
            yield KeysFooter()

    app = _Beneath()
    async with app.run_test(size=(80, 24)) as pilot:
        assert "Zoom the picture" in _screen_words(app)
        app.push_screen(ConsentScreen.confirm("Delete session 1?"))
        await pilot.pause()
        words = _screen_words(app)
        assert "Yes" in words and "No" in words and "Zoom the picture" not in words, words
