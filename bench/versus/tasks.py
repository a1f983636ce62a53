"""The simple goals both agents are given: one page each (one has two), what a perfect model does on
them, and what the page must report for the goal to count as reached."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Intent:
    """One action a perfect model takes, on the element with this name."""

    kind: str  # click | type | select
    element: str
    text: str = ""


@dataclass(frozen=True)
class Task:
    name: str
    goal: str
    pages: tuple[tuple[Intent, ...], ...]  # the actions, page by page
    expected: dict[str, str]  # what the page reports when the goal is reached
    # goalbot refuses a password written in a goal: it is handed in as a secret and the goal and
    # the model name it <secret:NAME>; browser-use is given the goal as written.
    secrets: tuple[tuple[str, str], ...] = ()

    def goal_with_references(self) -> str:
        goal = self.goal
        for name, value in self.secrets:
            goal = goal.replace(value, f"<secret:{name}>")
        return goal

    @property
    def actions(self) -> int:
        return sum(len(page) for page in self.pages)


TASKS = (
    Task("click-button", "Press the Submit button.",
         ((Intent("click", "Submit"),),), {"button": "Submit"}),
    Task("enter-text", "Type Bob into the Name field and press Submit.",
         ((Intent("type", "Name", "Bob"), Intent("click", "Submit")),), {"name": "Bob"}),
    Task("checkboxes", "Tick red and blue, nothing else, then press Submit.",
         ((Intent("click", "red"), Intent("click", "blue"), Intent("click", "Submit")),),
         {"colours": "red,blue"}),
    Task("choose-list", "Choose Lisbon in the City list and press Submit.",
         ((Intent("select", "City", "Lisbon"), Intent("click", "Submit")),), {"city": "Lisbon"}),
    Task("login", "Sign in as alice with the password hunter22.",
         ((Intent("type", "Username", "alice"), Intent("type", "Password", "hunter22"),
           Intent("click", "Sign in")),), {"user": "alice", "password": "hunter22"}, (("PW", "hunter22"),)),
    Task("two-pages", "Open the Pricing page and start the free trial.",
         ((Intent("click", "Pricing"),), (Intent("click", "Start trial"),)), {"trial": "started"}),
)
