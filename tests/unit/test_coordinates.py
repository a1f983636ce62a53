"""Every coordinate convention pinned with worked numbers: where a model's answer lands."""

from __future__ import annotations

import pytest

from goalbot.llm.coordinates import Convention, Geometry, looks_normalised, point_of

N, R, P = Convention.NORMALISED, Convention.RELATIVE_1000, Convention.PIXELS


def test_a_browser_screenshot_sent_as_taken_at_dpr_1() -> None:
    g = Geometry.for_screenshot((1280, 800))
    assert (g.image_width, g.image_height) == (1280, 800)
    assert g.to_target(640, 400, P) == (640, 400)
    assert g.to_target(0.5, 0.25, N) == (640, 200)
    assert g.to_target(500, 250, R) == (640, 200)


def test_dpr_2_pixels_of_the_physical_screenshot_are_halved() -> None:
    g = Geometry.for_screenshot((1280, 800), device_pixel_ratio=2)
    assert (g.image_width, g.image_height) == (2560, 1600)
    assert g.to_target(1280, 800, P) == (640, 400)
    assert g.to_target(100, 60, P) == (50, 30)
    # Normalised and relative answers do not care about the image's pixels.
    assert g.to_target(0.5, 0.5, N) == (640, 400)
    assert g.to_target(250, 750, R) == (320, 600)


def test_a_screenshot_resized_before_sending_ui_tars_1_5() -> None:
    # 2560x1600 (a 1280x800 viewport at DPR 2) resized to 1232x784, multiples of 28 as UI-TARS wants.
    g = Geometry.for_screenshot((1280, 800), device_pixel_ratio=2, sent=(1232, 784))
    assert g.to_target(616, 392, P) == (640, 400)
    assert g.to_target(308, 196, P) == (320, 200)
    assert g.to_target(1232, 784, P) == (1280, 800)


def test_a_second_monitor_at_an_offset() -> None:
    # Monitor 2 is 2560x1440 at x=1920; its screenshot went to the model as 1280x720.
    g = Geometry.for_screenshot((2560, 1440), sent=(1280, 720), offset=(1920, 0))
    assert g.to_target(640, 360, P) == (3200, 720)
    assert g.to_target(250, 500, R) == (2560, 720)
    assert g.to_target(0, 0, N) == (1920, 0)


def test_a_hidpi_screen_in_logical_units() -> None:
    # A 1440x900-point screen captured at 2880x1800 physical pixels (scale 2).
    g = Geometry.for_screenshot((1440, 900), device_pixel_ratio=2)
    assert g.to_target(1440, 900, P) == (720, 450)
    assert g.to_target(2880, 1800, P) == (1440, 900)


def test_answers_outside_the_image_are_kept_on_it() -> None:
    g = Geometry.for_screenshot((1280, 800))
    assert g.to_target(1100, 500, R) == (1280, 400)
    assert g.to_target(-5, 900, P) == (0, 800)


@pytest.mark.parametrize("text, point", [
    ("(120,340)", (120, 340)),
    ("(100,200,140,220)", (120, 210)),
    ("<|box_start|>(100,200),(140,220)<|box_end|>", (120, 210)),
    ("<point>120 340</point>", (120, 340)),
    ("<bbox>10 20 30 40</bbox>", (20, 30)),
    ("[0.5, 0.3]", (0.5, 0.3)),
    ("(12.5, 7.25)", (12.5, 7.25)),
])
def test_points_and_boxes_in_every_notation(text: str, point: tuple[float, float]) -> None:
    assert point_of(text) == point


def test_something_that_is_neither_a_point_nor_a_box() -> None:
    with pytest.raises(ValueError, match="neither a point"):
        point_of("(1, 2, 3)")


def test_normalised_answers_are_recognised_only_with_a_fraction() -> None:
    assert looks_normalised(0.5, 0.3)
    assert not looks_normalised(1, 0)  # could be pixels
    assert not looks_normalised(0.5, 3)
