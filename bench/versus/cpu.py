"""CPU seconds a process and its descendants spend, split into the browser's and the rest."""

from __future__ import annotations

import os
import threading
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, str, float]]:
    """pid → (parent, command name, CPU seconds so far) for every process we may read."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / TICK)
    return table


class TreeCPU(threading.Thread):
    """Polls the tree under `root` until stopped; a process's last reading is what it spent."""

    def __init__(self, root: int, every_s: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.root, self.every_s = root, every_s
        self.seen: dict[int, tuple[str, float]] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            table = _processes()
            tree, frontier = {self.root}, [self.root]
            while frontier:
                parent = frontier.pop()
                for pid, (ppid, _name, _cpu) in table.items():
                    if ppid == parent and pid not in tree:
                        tree.add(pid)
                        frontier.append(pid)
            for pid in tree & table.keys():
                self.seen[pid] = (table[pid][1], table[pid][2])
            self.halt.wait(self.every_s)

    def stop(self) -> tuple[float, float]:
        """(browser CPU s, everything else's CPU s)."""
        self.halt.set()
        self.join()
        browser = sum(cpu for name, cpu in self.seen.values() if "chrom" in name.lower())
        return browser, sum(cpu for _name, cpu in self.seen.values()) - browser
