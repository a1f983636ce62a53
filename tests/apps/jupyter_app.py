"""JupyterLab as the tests meet it: `jupyter-lab` on a free loopback port with a token, serving a
folder of the test's own seeded with a few files (one with a Korean name), its settings,
workspaces, config, data and runtime folders all inside the test's tmp dir so nothing of the
user's is read or written. A goal is judged by the files in that folder, never by the page."""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from apps_kit import Served, app_command, free_port

# What the folder holds when the app starts: name → text.
SEED = {
    "notes.txt": "first line of the notes\n",
    "회의록.txt": "2026년 12월 회의록\n- 예산 검토\n",
    "report.csv": "month,visitors\n11,1204\n12,1377\n",
    "old-draft.txt": "an old draft nobody needs\n",
}


@dataclass
class JupyterLab:
    url: str
    token: str
    root: Path
    served: Served

    @property
    def start_url(self) -> str:
        # `reset`: every goal starts on the default layout (the launcher), not on the tabs the
        # last goal left open, which JupyterLab keeps in its workspace.
        return f"{self.url}/lab?reset&token={self.token}"

    def files(self) -> set[str]:
        """What the served folder holds now, as paths relative to it (folders end in /)."""
        return {f"{p.relative_to(self.root)}{'/' if p.is_dir() else ''}" for p in self.root.rglob("*")
                if not any(part.startswith(".") for part in p.relative_to(self.root).parts)}

    def log(self) -> str:
        return self.served.output(last=1_000_000)


def _quiet_settings(settings: Path) -> None:
    """No news or update checks: the first-run notification asking about them would cover the page
    and reach out to the internet."""
    folder = settings / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notification.jupyterlab-settings").write_text('{"checkForUpdates": false, "fetchNews": "false"}')


@contextmanager
def jupyter_lab(folder: Path) -> Iterator[JupyterLab]:
    root = folder / "root"
    root.mkdir(parents=True)
    for name, text in SEED.items():
        (root / name).write_text(text, encoding="utf-8")
    settings = folder / "settings"
    _quiet_settings(settings)
    token = secrets.token_hex(16)
    port = free_port()
    command = [app_command("jupyter-lab"), "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
               "--ServerApp.open_browser=False", f"--LabApp.user_settings_dir={settings}",
               f"--LabApp.workspaces_dir={folder / 'workspaces'}", "--LabApp.news_url=",
               # A delete deletes, behind JupyterLab's confirmation dialog, rather than moving to a trash.
               "--FileContentsManager.delete_to_trash=False",
               # Every request in the log: the download is judged by the server having sent the file.
               "--ServerApp.log_level=DEBUG"]
    env = {"JUPYTER_CONFIG_DIR": str(folder / "config"), "JUPYTER_DATA_DIR": str(folder / "data"),
           "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_PLATFORM_DIRS": "1",
           "HOME": str(folder / "home"), "PYTHONDONTWRITEBYTECODE": "1"}
    served = Served(command, f"http://127.0.0.1:{port}/api/status?token={token}", folder / "jupyter.log", env=env)
    with served:
        yield JupyterLab(f"http://127.0.0.1:{port}", token, root, served)
