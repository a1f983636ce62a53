"""A scorecard in words: for the terminal, as Markdown with a chart a person reads at a glance, and a
comparison of two."""

from __future__ import annotations

from goalbot.eval.compare import Comparison
from goalbot.eval.scorecard import EpisodeResult, Scorecard

BAR = 20


def _bar(rate: float) -> str:
    filled = round(rate * BAR)
    return "█" * filled + "░" * (BAR - filled)


def _cost(card: Scorecard) -> str:
    cost = card.cost_usd
    if cost is None:
        return f'unknown (no price for {card.model}: [model.prices."{card.model}"] in the config file)'
    return f"${cost:.4f}"


def headline(card: Scorecard) -> str:
    interval = card.interval
    not_run = f"; {len(card.not_run)} not run, not counted" if card.not_run else ""
    stopped = f" (the eval was {card.stopped})" if card.stopped else ""
    return (f"{card.successes}/{len(card.scored)} episodes succeeded ({card.rate:.0%}, 95% interval "
            f"{interval.low:.0%}–{interval.high:.0%}){not_run}{stopped}")


def terminal(card: Scorecard) -> str:
    tasks = card.tasks()
    width = max([len(task.task) for task in tasks] + [4])
    lines = [f"goalbot eval: {card.model} at {card.base_url}, dialect {card.dialect}"
             + (f", authoring profile {card.authoring_profile}" if card.authoring_profile else ""),
             "", f"{'TASK':<{width}}  {'OK':>5}  {'':<{BAR}}  {'CALLS':>5}  {'TOKENS':>7}  {'TIME':>7}"]
    for task in tasks:
        lines.append(f"{task.task:<{width}}  {task.successes:>2}/{task.episodes:<2}  {_bar(task.rate)}  "
                     f"{task.calls:>5}  {task.tokens:>7}  {task.seconds:>6.1f}s")
    lines += ["", headline(card),
              f"model calls {card.calls} · tokens {card.tokens} · cost {_cost(card)} · wall time {card.seconds:.0f} s"
              + (f" · batch {card.batch}" if card.batch else "")]
    failed = [e for e in card.scored if not e.success]
    if card.not_run:
        lines.append("not run (nothing of the model's; not counted):")
        lines += [f"  {e.task} seed {e.seed}: {e.reason or e.status}" for e in card.not_run[:20]]
    if failed:
        lines.append("not reached:")
        lines += [f"  {e.task} seed {e.seed}: {e.status}"
                  + (f" — {e.reason}" if e.reason else "")
                  + ("" if e.reward is None else f" (reward {e.reward:+.2f})")
                  + (f" [goalbot report {e.session}]" if e.session else "") for e in failed[:20]]
    return "\n".join(lines)


def markdown(card: Scorecard, chart: str | None = None) -> str:
    """`chart`: the file name of the chart picture written beside it, drawn above the text one."""
    interval, tasks = card.interval, card.tasks()
    lines = [f"# goalbot eval: {card.model}", "",
             f"- endpoint: `{card.base_url}`, dialect `{card.dialect}`"
             + (f", authoring profile `{card.authoring_profile}`" if card.authoring_profile else ""),
             f"- started {card.started_at}, {len(card.episodes)} episodes"
             + (f", batch `{card.batch}`" if card.batch else ""),
             f"- **success {card.rate:.0%}** ({card.successes}/{len(card.scored)}; 95% interval "
             f"{interval.low:.0%}–{interval.high:.0%})"
             + (f"; {len(card.not_run)} not run, not counted" if card.not_run else ""),
             *([f"- **the eval was {card.stopped}**"] if card.stopped else []),
             f"- model calls {card.calls}, tokens {card.tokens}, cost {_cost(card)}, wall time {card.seconds:.0f} s",
             "", "## Success by task", "",
             *([f"![Success by task, with 95% intervals]({chart})", ""] if chart else []), "```text"]
    width = max([len(task.task) for task in tasks] + [4])
    lines += [f"{task.task:<{width}}  {_bar(task.rate)}  {task.rate:>4.0%}  ({task.successes}/{task.episodes})"
              for task in tasks]
    lines += ["```", "", "| task | episodes | succeeded | model calls | tokens | wall time |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {t.task} | {t.episodes} | {t.successes} | {t.calls} | {t.tokens} | {t.seconds:.1f} s |"
              for t in tasks]
    lines += ["", "## Episodes", "", "| task | seed | status | reward | calls | session |", "|---|---:|---|---:|---:|---|"]
    lines += [f"| {e.task} | {e.seed} | {_mark(e)} {e.status if e.ran else 'not run'} | "
              f"{'–' if e.reward is None else f'{e.reward:.2f}'} | {e.calls} | `{e.session or '–'}` |"
              for e in card.episodes]
    return "\n".join(lines) + "\n"


def _mark(episode: EpisodeResult) -> str:
    return "–" if not episode.ran else "✓" if episode.success else "✗"


def comparison(first: Scorecard, second: Scorecard, result: Comparison) -> str:
    def who(card: Scorecard) -> str:
        return f"{card.model} ({card.dialect}" + (f", {card.authoring_profile}" if card.authoring_profile else "") + ")"

    verdict = ("beyond noise" if result.beyond_noise else "within noise")
    lines = [f"A: {who(first)}   {result.first_rate:.0%}",
             f"B: {who(second)}   {result.second_rate:.0%}",
             f"{result.paired} paired episodes (same task, same seed): only A succeeded on {result.only_first}, "
             f"only B on {result.only_second}",
             f"B − A: {result.difference * 100:+.0f} points, {verdict} (McNemar exact p = {result.p_value:.3f})"]
    if result.unpaired:
        lines.append(f"{result.unpaired} episodes ran in only one of the two and are left out")
    return "\n".join(lines)
