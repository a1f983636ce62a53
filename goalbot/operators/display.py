"""Whether the X display named by DISPLAY answers: a window (a headed browser, the desktop
operator) on a display where nothing listens fails deep inside the program that opens it, with a
message that names anything but the display."""

from __future__ import annotations

import os
import re
import socket
import sys

X_PORT = 6000
_DISPLAY = re.compile(r"^(?P<host>[^:]*):(?P<number>\d+)(?:\.\d+)?$")


def display_problem(display: str | None = None, timeout_s: float = 1.0) -> str | None:
    """None when the display answers (or this is no X system); else what is wrong, in words."""
    display = os.environ.get("DISPLAY", "") if display is None else display
    if not sys.platform.startswith("linux"):
        return None
    if not display:
        return "no DISPLAY is set"
    parts = _DISPLAY.match(display)
    if parts is None:
        return f"DISPLAY={display} is not a display name like :0 or host:10.0"
    host, number = parts["host"], int(parts["number"])
    try:
        if host in ("", "unix"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as local:
                local.settimeout(timeout_s)
                local.connect(f"/tmp/.X11-unix/X{number}")
        else:  # a forwarded display (ssh -X: localhost:10.0) listens on TCP
            socket.create_connection((host, X_PORT + number), timeout=timeout_s).close()
    except OSError as exc:
        return f"no X server answers on DISPLAY={display} ({exc.strerror or exc})"
    return None
