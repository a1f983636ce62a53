"""Reading a file someone else may have put in place (a key, a settings file, a profile, a policy,
a scorecard): only a regular file is read, and only so much of it. A FIFO would block the read
forever, a device would never end; checking the path first and opening it after leaves a moment to
swap one in, so the file is opened without waiting (O_NONBLOCK) and what was opened is checked."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MOST_BYTES = 16_000_000

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class NotRegularFile(OSError):
    """`strerror` says why the file is not read, for callers that word OSError's reason."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(errno.EINVAL, why, str(path))


def read_regular(path: Path, most_bytes: int = MOST_BYTES) -> bytes:
    """The bytes of the regular file at `path`; NotRegularFile for anything else, or one over
    `most_bytes`; OSError as `open` gives it for a file that cannot be opened."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            what = next((what for test, what in _KINDS if test(mode)), "not a file")
            raise NotRegularFile(path, f"it is {what}, not a regular file, and is never read")
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as opened:
            data = opened.read(most_bytes + 1)
    finally:
        os.close(descriptor)
    if len(data) > most_bytes:
        raise NotRegularFile(path, f"it is over {most_bytes:,} bytes")
    return data


def read_regular_text(path: Path, most_bytes: int = MOST_BYTES) -> str:
    """`read_regular` as UTF-8 text (UnicodeDecodeError as `read_text` gives it)."""
    return read_regular(path, most_bytes).decode("utf-8")
