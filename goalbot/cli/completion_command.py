"""`goalbot completion bash|zsh|tcsh`: the shell's completion for every command and flag, made by
shtab from the same parser `goalbot` reads its arguments with, so it never lags behind a flag
(`commands.cmd_completion` prints it: it needs that parser)."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "tcsh")
WHERE = {
    "bash": "goalbot completion bash > ~/.local/share/bash-completion/completions/goalbot",
    "zsh": "goalbot completion zsh > \"${fpath[1]}/_goalbot\"",
    "tcsh": "goalbot completion tcsh > ~/.goalbot.tcsh, then: source ~/.goalbot.tcsh",
}


def add_completion_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    completion = sub.add_parser(
        "completion", help="print the shell's completion script for goalbot",
        description="Print a completion script for every command and flag. Install it with: "
                    + "; ".join(WHERE.values()))
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete in")
