"""The demo's goals, each with the page it starts on: what `goalbot demo` runs and `goalbot eval`
scores a model on."""

from __future__ import annotations

from dataclasses import dataclass, field

DEMO_GOAL = "sign in and turn on dark mode"
SHOP_GOAL = "put the most expensive lamp under 40 in the cart"
LIST_GOAL = "list the products with their prices"


@dataclass(frozen=True)
class Demo:
    goal: str
    page: str
    variables: dict[str, str] = field(default_factory=dict)


DEMOS = {"signin": Demo(DEMO_GOAL, "/login"),
         # The limit is a variable: the recipe it is kept as reruns with another (--var MAX=60).
         "shop": Demo(SHOP_GOAL, "/shop", {"MAX": "40"})}
