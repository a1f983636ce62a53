"""The pace per site shared by the runs writing to one store (the jobs of a local batch): each
site's next slot kept in the store, taken in one write transaction, so two processes never get
the same slot."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from goalbot.agents.policies import next_slot
from storage.db import BUSY_TIMEOUT_MS


class StorePace:
    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    def reserve(self, site: str, interval_s: float, burst: int) -> float:
        conn = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            conn.execute("begin immediate")
            row = conn.execute("select tat from site_pace where site = ?", [site]).fetchone()
            now = time.time()
            wait, tat = next_slot(row[0] if row else 0.0, now, interval_s, burst)
            conn.execute("insert into site_pace (site, tat) values (?, ?) on conflict(site) do update set tat = ?",
                         [site, tat, tat])
            conn.execute("commit")
            return wait
        finally:
            conn.close()
