"""How a run wants its browser: read where a run is checked and set up (a batch checks every job
before any starts) without loading Playwright, which only the run itself needs."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel


class BrowserOptions(BaseModel):
    headless: bool = True
    browser_path: str | None = None
    profile: str | None = None
    storage_state: Path | None = None
    cdp_url: str | None = None
    # With cdp_url: a new empty context for this run, closed at its end (a batch's warm browser),
    # instead of the running browser's own with its logins.
    cdp_fresh_context: bool = False
    viewport: tuple[int, int] = (1280, 800)
    # A Playwright trace (DOM snapshots; screenshots only when asked), kept when the run fails or always.
    trace: Literal["off", "failed", "always"] = "off"
    trace_screenshots: bool = False
    # False: the trace keeps the actions, console and network only. A DOM snapshot around every
    # call costs more than the rest of a short rerun's checks together.
    trace_snapshots: bool = True
