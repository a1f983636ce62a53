"""One refusal for every door: a code a program can branch on, a message and a hint for a person.
The command line prints it in one line and exits 2; MCP returns it as the tool's error; a batch
names the job's line; the dashboard shows it as a notice."""

from __future__ import annotations

from typing import Callable, Literal

Code = Literal["bad_input", "secret_in_goal", "off_list", "not_found", "unreachable", "not_running",
               "internal"]
Say = Callable[[str], None]  # a line for the person, worded by the service, shown by the door


def say_nothing(_line: str) -> None:
    return None


class Refusal(Exception):
    """The request cannot start; nothing was started for it."""

    def __init__(self, code: Code, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.code: Code = code
        self.message = message
        self.hint = hint

    def line(self) -> str:
        """The refusal in one line: what is wrong, then what to do."""
        return f"{self.message} ({self.hint})" if self.hint else self.message
