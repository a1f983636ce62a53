"""`make demo`, the README's first command, in a real 80×24 terminal: no warning box from the install,
a person who leaves the demo before its end is not told `make: *** Error 1`, and the last line
is words."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO
from tmux_kit import exit_code, tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("make") is None,
                                reason="tmux or make is not installed")


def test_leaving_make_demo_early_is_not_an_error(db_path: Path, tmp_path: Path) -> None:
    session = f"goalbot-make-{os.getpid()}"
    marker = tmp_path / "exit-code"
    venv = Path(sys.executable).parent.parent
    # As a person types it: not a make inside `make test` (which would say "Entering directory").
    command = f"env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make demo VENV={venv}; echo $? > {marker}; sleep 30"
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", "-e", "TERM=xterm-256color",
           "-e", f"GOALBOT_DB={db_path}"]
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", str(REPO), *env, command)
    try:
        wait_for(session, "The plan waits for your approval", 600)  # a first `make` may install
        screen = tmux("capture-pane", "-p", "-t", session)
        footer = screen.rstrip().splitlines()[-1]
        assert footer.lstrip().startswith("q Quit") and "p Policy" in footer, footer  # whole at 80 columns
        tmux("send-keys", "-t", session, "q")  # leave from the plan: the run is stopped after a yes
        wait_for(session, "Stop", 60)
        tmux("send-keys", "-t", session, "y")
        assert exit_code(marker, 120) == "0"
        after = tmux("capture-pane", "-p", "-t", session)
        assert "Error" not in after and "Traceback" not in after, after
        said = [line for line in after.splitlines() if line.strip()]
        assert said[-1].startswith("goalbot demo: the site's own record: signed in: nobody"), said
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_an_editable_install_prints_no_warning_box(tmp_path: Path) -> None:
    """What `make install` does, in a fresh virtualenv: `pip install -e .`, with nothing but our package."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=300)
    install = subprocess.run([str(tmp_path / "venv" / "bin" / "pip"), "install", "--quiet", "--no-deps", "-e", "."],
                             cwd=REPO, capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    said = "\n".join(line for line in install.stderr.splitlines() if "Location" not in line)  # the mirror's notes
    assert "Editable installation" not in said and "*****" not in said, said[-2000:]
