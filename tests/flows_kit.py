"""The scripted model's answers that record the recipe flows of the test site beyond darkmode: the
account site's sign-in and preferences (a session that can expire), the consent page's cookie
banner, the store's cart (a value to vary), and the orders list a loop goes through. Shared by the
tests and bench/site_changes.py."""

from __future__ import annotations

from typing import Any

from kit import answer, call, element, finished, plan, verdict

ORDER = {"type": "object", "required": ["id", "total"], "additionalProperties": False,
         "properties": {"id": {"type": "string"}, "total": {"type": "number"}}}
ORDERS_SCHEMA = {"type": "object", "required": ["orders"], "additionalProperties": False,
                 "properties": {"orders": {"type": "array", "minItems": 1, "items": ORDER}}}


def orders(first: int, count: int) -> list[dict[str, Any]]:
    """The orders hardsite's orders.html lists when a test posts them under "orders"."""
    return [{"id": str(first + n), "total": 10.0 + 5 * n} for n in range(count)]


def orders_script(listed: list[dict[str, Any]]) -> dict[str, Any]:
    """Reads the orders, then downloads each one's invoice, one click per order."""
    return {
        "planner": [plan("Read the orders", "Download the invoice of every order")],
        "navigator": [answer(call("extract", instruction="every order with its total", key="orders", schema="orders")),
                      finished(summary="read"),
                      *[answer(call("click", index=element(f"Invoice {order['id']}"))) for order in listed],
                      finished(summary="every invoice downloaded")],
        "extractor": [answer(call("extracted", data={"orders": listed}))] * 2,
        "validator": [verdict(True, "the orders are read"), verdict(True, "every invoice downloaded")],
    }


def account_scripts() -> tuple[dict[str, Any], dict[str, Any]]:
    """The account site's sign-in (types the secret PW), then its preferences, signed in."""
    login = {
        "planner": [plan("Sign in")],
        "navigator": [answer(call("type", index=element("Email"), text="alice@example.com")),
                      answer(call("type", index=element("Password"), text="<secret:PW>")),
                      answer(call("click", index=element("Sign in"))),
                      finished(summary="signed in")],
        "validator": [verdict(True, "signed in")],
    }
    prefs = {
        "planner": [plan("Open the preferences", "Turn on dark mode and save")],
        "navigator": [answer(call("click", index=element("Preferences"))), finished(summary="open"),
                      answer(call("click", index=element("Dark mode"))),
                      answer(call("click", index=element("Save"))), finished(summary="saved")],
        "validator": [verdict(True, "the preferences are open"), verdict(True, "dark mode saved")],
    }
    return login, prefs


def cart_script() -> dict[str, Any]:
    """Searches the store for Blue Kettle, opens it and adds it to the cart."""
    return {
        "planner": [plan("Search for Blue Kettle", "Open it and add it to the cart")],
        "navigator": [
            answer(call("type", index=element("Search"), text="Blue Kettle", submit=True),
                   call("finished", success=True, summary="searched")),
            answer(call("click", index=element("Blue Kettle"))),
            answer(call("click", index=element("Add to cart")), call("finished", success=True, summary="added")),
        ],
        "validator": [verdict(True, "results shown"), verdict(True, "in the cart")],
    }


def consent_script() -> dict[str, Any]:
    """Accepts the consent page's cookie banner, then turns on dark mode and saves."""
    return {
        "planner": [plan("Accept the cookies", "Turn on dark mode and save")],
        "navigator": [
            answer(call("click", index=element("Accept all")), call("finished", success=True, summary="accepted")),
            answer(call("click", index=element("Dark mode")), call("click", index=element("Save")),
                   call("finished", success=True, summary="saved")),
        ],
        "validator": [verdict(True, "the banner is gone"), verdict(True, "dark mode saved")],
    }
