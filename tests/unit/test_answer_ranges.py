"""A number a model answers past its range is read as the model most likely meant it, rather
than refused after the answer was paid for (a server's grammar may let it through)."""

from __future__ import annotations

from goalbot.llm.tools import PlanAnswer, VerdictAnswer


def test_an_answer_past_the_range_is_read_as_meant() -> None:
    # 90 is 90 %, and past either end is that end.
    assert VerdictAnswer(is_valid=True, reason="r", confidence=90).confidence == 0.9
    assert VerdictAnswer(is_valid=True, reason="r", confidence=250).confidence == 1.0
    assert VerdictAnswer(is_valid=True, reason="r", confidence=-1).confidence == 0.0
    assert PlanAnswer(steps=["a"], progress_percent=140).progress_percent == 100
