"""A picture's words put back in their rows and columns, from where OCR found each: a table drawn
as an image reads one row a line, its cells in order; a chart reads one bar a line, its value
(drawn above the bar, at whatever height the bar ends) with its label (drawn under it). The
lines are what the extractor reads and where a recipe keeps a picture's places by position
(goalbot.agents.picture_places), so the same picture always gives the same lines."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from goalbot.operators.ocr import Word

CELL = " | "  # between the cells of a line: what the extractor reads, and what places split on
WORD_GAP = 0.8  # words closer than this many letter heights are one cell ("SK Hynix", "Nov 01")
SYLLABLE_GAP = 0.25  # a space between Korean words is wider than this many letter heights
COLUMN_INTRO = "Each line below is one column of the picture (a bar and its labels), top to bottom:"


@dataclass(frozen=True)
class Cell:
    text: str
    left: float
    top: float
    right: float
    bottom: float

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def overlap(self, other: Cell) -> float:
        """How much of the narrower of the two the other covers across: 0 to 1."""
        shared = min(self.right, other.right) - max(self.left, other.left)
        narrower = min(self.right - self.left, other.right - other.left)
        return max(0.0, shared) / narrower if narrower > 0 else 0.0


def layout_lines(words: list[Word]) -> list[str]:
    """The picture's lines: its rows, or, for a chart (one full row of labels, the rest scattered
    at the bars' heights), what lies outside the bars' columns then one line per column."""
    rows = _rows(words)
    if not rows:
        return []
    columns = _columns(rows)
    if columns is None:
        return [CELL.join(cell.text for cell in row) for row in rows]
    placed = {id(cell) for column in columns for cell in column}
    outside = [[cell for cell in row if id(cell) not in placed] for row in rows]
    return ([CELL.join(cell.text for cell in row) for row in outside if row] + [COLUMN_INTRO]
            + [CELL.join(cell.text for cell in column) for column in columns])


def _rows(words: list[Word]) -> list[list[Cell]]:
    """Words whose middles are within half a letter of each other's line, left to right, words
    close together joined into one cell."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.top + w.height / 2, w.left)):
        middle = word.top + word.height / 2
        line = next((line for line in lines if abs(_middle(line) - middle) <= max(word.height, _height(line)) / 2),
                    None)
        if line is None:
            lines.append([word])
        else:
            line.append(word)
    return [_cells(sorted(line, key=lambda w: w.left)) for line in sorted(lines, key=_middle)]


def _middle(line: list[Word]) -> float:
    return statistics.fmean(word.top + word.height / 2 for word in line)


def _height(line: list[Word]) -> float:
    return statistics.median(word.height for word in line)


def _cells(line: list[Word]) -> list[Cell]:
    gap = WORD_GAP * _height(line)
    cells: list[list[Word]] = []
    for word in line:
        if cells and word.left - cells[-1][-1].right <= gap:
            cells[-1].append(word)
        else:
            cells.append([word])
    return [Cell(_joined(group), min(w.left for w in group), min(w.top for w in group),
                 max(w.right for w in group), max(w.bottom for w in group)) for group in cells]


def _joined(group: list[Word]) -> str:
    """The cell's words with a space between, but for Hangul syllables tesseract reads one by one
    ("삼 성 전 자"): those that touch are one word."""
    text = group[0].text
    for before, word in zip(group, group[1:]):
        touching = word.left - before.right <= SYLLABLE_GAP * max(before.height, word.height)
        text += ("" if touching and _hangul(before.text[-1]) and _hangul(word.text[0]) else " ") + word.text
    return text


def _hangul(character: str) -> bool:
    return "\uac00" <= character <= "\ud7a3"


def _columns(rows: list[list[Cell]]) -> list[list[Cell]] | None:
    """A chart's columns, each its cells top to bottom, when the picture is one: a row of at
    least three labels (the lowest of the fullest rows), fewer than two other rows nearly as full
    (a table has many), and most labels with a cell straight above or below them. None for a
    table, a form, a paragraph."""
    fullest = max(len(row) for row in rows)
    anchor = [row for row in rows if len(row) == fullest][-1]
    if fullest < 3 or sum(1 for row in rows if row is not anchor and len(row) >= 0.75 * fullest) >= 2:
        return None
    columns: list[list[Cell]] = [[label] for label in anchor]
    for row in rows:
        if row is anchor:
            continue
        for cell in row:
            under = [n for n, label in enumerate(anchor) if cell.overlap(label) >= 0.5]
            spans = [n for n, label in enumerate(anchor) if cell.overlap(label) > 0]
            if len(under) == 1 and len(spans) == 1:  # a title across several bars is no bar's
                columns[under[0]].append(cell)
    if sum(1 for column in columns if len(column) > 1) * 2 < len(columns):
        return None
    return [sorted(column, key=lambda cell: cell.middle) for column in columns]
