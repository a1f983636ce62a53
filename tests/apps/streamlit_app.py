"""The Streamlit app of tests/apps/streamlit_site as the tests meet it: `streamlit run` on a free
loopback port, headless, writing what a person did to a JSON-lines file of the test's own, which
is read back to judge a goal (never the page)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from apps_kit import Served, app_command, free_port

SITE = Path(__file__).resolve().parent / "streamlit_site"


@dataclass
class StreamlitSite:
    url: str
    state: Path
    served: Served

    def records(self, kind: str | None = None) -> list[dict[str, Any]]:
        """What the app wrote, in order; only those of `kind` when given."""
        if not self.state.exists():
            return []
        lines = self.state.read_text(encoding="utf-8").splitlines()
        found = [json.loads(line) for line in lines if line.strip()]
        return [r for r in found if kind is None or r["kind"] == kind]


@contextmanager
def streamlit_site(folder: Path) -> Iterator[StreamlitSite]:
    folder.mkdir(parents=True, exist_ok=True)
    state = folder / "streamlit-state.jsonl"
    port = free_port()
    command = [app_command("streamlit"), "run", "app.py", "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", "--client.toolbarMode", "minimal"]
    # Streamlit's own config and credentials live under HOME: a home of the test's own reads none of the user's.
    env = {"GOALBOT_STREAMLIT_STATE": str(state), "HOME": str(folder / "home"), "PYTHONDONTWRITEBYTECODE": "1"}
    served = Served(command, f"http://127.0.0.1:{port}/_stcore/health", folder / "streamlit.log", cwd=SITE, env=env)
    with served:
        yield StreamlitSite(f"http://127.0.0.1:{port}/", state, served)
