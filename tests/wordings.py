"""Goals in other words against their recipes: the corpus in tests/fixtures/goal_wordings.json
(written by someone who had not read the matcher), judged as `goalbot run` judges a goal — the one
recipe that surely fits is found; two that fit, or one unsure, are not. Shared by the unit test
and bench/goal_wordings.py."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from goalbot.recipes.finding import match

CORPUS = Path(__file__).resolve().parent / "fixtures" / "goal_wordings.json"
OUTCOMES = ("found", "rightly none", "unsure", "missed", "wrong")


@dataclass
class Judged:
    goal: str
    kind: str
    korean: bool
    outcome: str  # one of OUTCOMES
    said: str  # what the matcher made of it


def judged() -> list[Judged]:
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    out = []
    for wording in corpus["wordings"]:
        sure, unsure = [], []
        for recipe in corpus["recipes"]:
            fitted = match(wording["goal"], recipe["goal"])
            if fitted is not None:
                (sure if fitted.sure else unsure).append((recipe["name"], fitted))
        expected, values = wording["expect"], wording.get("values", {})
        if len(sure) == 1:
            name, fitted = sure[0]
            outcome = "found" if (name, fitted.values) == (expected, values) else "wrong"
            said = f"{name} {fitted.values}"
        else:
            outcome = "rightly none" if expected is None else "unsure" if sure or unsure else "missed"
            said = "; ".join(f"{name}: {fitted.values if fitted.sure else fitted.why}" for name, fitted in sure + unsure)
        korean = any("\uac00" <= ch <= "\ud7a3" for ch in wording["goal"])
        out.append(Judged(wording["goal"], wording["kind"], korean, outcome, said))
    return out


def tally(rows: list[Judged]) -> dict[str, Counter[str]]:
    """Outcomes by language: "en", "ko" and "all"."""
    by: dict[str, Counter[str]] = {"en": Counter(), "ko": Counter(), "all": Counter()}
    for row in rows:
        by["ko" if row.korean else "en"][row.outcome] += 1
        by["all"][row.outcome] += 1
    return by
