"""`goalbot completion bash` completes commands and flags in a real bash, from the live parser."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from kit import REPO

COMPLETE = """
source <("$GOALBOT" completion bash)
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE};
                   COMPREPLY=(); _shtab_goalbot; echo "${COMPREPLY[*]}"; }
complete_words goalbot re
complete_words goalbot run --ur
complete_words goalbot recipe sh
complete_words goalbot completion z
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_commands_sub_commands_and_flags() -> None:
    goalbot = f"{sys.executable} -m goalbot"
    done = subprocess.run(["bash", "-c", COMPLETE.replace('"$GOALBOT"', goalbot)], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    commands, flags, actions, shells = done.stdout.splitlines()
    assert set(commands.split()) == {"resume", "replay", "report", "recipe", "rerun"}
    assert flags.split() == ["--url"]
    assert actions.split() == ["show"]
    assert shells.split() == ["zsh"]


def test_every_shell_named_gets_a_script() -> None:
    for shell in ("bash", "zsh", "tcsh"):
        done = subprocess.run([sys.executable, "-m", "goalbot", "completion", shell], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0 and "goalbot" in done.stdout and "Traceback" not in done.stderr, shell
