"""The scorecard's chart as an SVG picture, written beside `eval --markdown`'s report: a bar per
task with its 95% interval, and the whole run's, drawn with no library (an SVG is text)."""

from __future__ import annotations

from html import escape

from goalbot.eval.scorecard import Scorecard, wilson

ROW, LABEL, BAR, PAD = 26, 220, 360, 12


def svg(card: Scorecard) -> str:
    rows = [(task.task, task.successes, task.episodes) for task in card.tasks()]
    rows.append(("all tasks", card.successes, len(card.scored)))
    width, height = LABEL + BAR + 120, PAD * 2 + ROW * (len(rows) + 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
             f'<title>goalbot eval: {escape(card.model)}, success by task with 95% intervals</title>',
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
             f'<text x="{PAD}" y="{PAD + 14}" font-weight="bold">{escape(card.model)} · '
             f'{escape(card.dialect)}{" · " + escape(card.stopped) if card.stopped else ""}</text>']
    for n, (name, successes, episodes) in enumerate(rows, start=1):
        top = PAD + ROW * n
        rate = successes / episodes if episodes else 0.0
        interval = wilson(successes, episodes)
        low, high = (interval.low, interval.high) if episodes else (0.0, 0.0)
        whole = n == len(rows)
        weight = ' font-weight="bold"' if whole else ""
        parts += [
            f'<text x="{PAD}" y="{top + 16}"{weight}>{escape(name[:28])}</text>',
            f'<rect x="{LABEL}" y="{top + 4}" width="{BAR}" height="14" fill="#eeeeee"/>',
            f'<rect x="{LABEL}" y="{top + 4}" width="{BAR * rate:.1f}" height="14" '
            f'fill="{"#2f6fdd" if whole else "#5b9bd5"}"/>',
            # The interval as a whisker across the bar: how much the rate could move with more episodes.
            f'<line x1="{LABEL + BAR * low:.1f}" y1="{top + 11}" x2="{LABEL + BAR * high:.1f}" y2="{top + 11}" '
            'stroke="#222222" stroke-width="2"/>',
            f'<text x="{LABEL + BAR + 8}" y="{top + 16}">{rate:.0%} ({successes}/{episodes})</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
