"""`goalbot batch`'s entry. A new local batch's first slot is started here, before the batch's own
modules load: the slot's Python start (about as long as the batch's) then runs beside the batch's
imports and its jobs' checks instead of after them. A slot loads goalbot and waits; no browser
starts before a job is handed to it, so a refused batch starts none. The rest is batch_command's."""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from goalbot.service.batch.slots import start_slots, stop_slots
from goalbot.service.settings import Settings

# A jobs file larger than this is read by the batch alone, which refuses it.
EARLY_MOST_BYTES = 10_000_000


def cmd_batch(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    slots = _early_slots(args, settings)
    try:
        from goalbot.cli import batch_command  # loaded while the slot starts

        return batch_command.cmd_batch(args, settings, db_path, slots)
    finally:
        if slots is not None:  # a batch that ran has shut them already; a refused one has no use for them
            stop_slots(slots)


def _early_slots(args: argparse.Namespace, settings: Settings) -> ProcessPoolExecutor | None:
    """A new local batch's slots, as many as its workers but no more than its file has job lines."""
    if args.what in ("status", "resume") or args.batch_id or args.broker or not 1 <= args.workers <= 64:
        return None
    if settings.operator == "desktop" and args.workers > 1:
        return None
    path = Path(args.what)
    try:  # only a regular file: a FIFO would block here
        if not path.is_file() or path.stat().st_size > EARLY_MOST_BYTES:
            return None
        lines = [line for line in path.read_bytes().splitlines() if line.strip() and not line.lstrip().startswith(b"#")]
    except OSError:
        return None
    return start_slots(min(args.workers, len(lines)), early=1) if lines else None
