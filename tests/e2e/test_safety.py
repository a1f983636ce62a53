"""GO / NOT GO, allowed domains and secrets, enforced in code whatever the model or the page
says. The site's own request log proves what never reached it."""

from __future__ import annotations

from pathlib import Path

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, types, verdict

PASSWORD = "hunter2-very-secret"


def test_a_purchase_answered_not_go_never_reaches_the_shop(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Add the kit to the cart", "Buy it")],
        "navigator": [answer(call("click", index=element("Add to cart"))), finished(),
                      answer(call("click", index=element("Buy now")))],
        "validator": [verdict(True, "the cart holds the kit")],
    }
    # --yes approves plans, never risky actions; with nobody at a terminal the answer is NOT GO.
    result, events = run_goal(db_path, model_server(script), hardsite.page("shop"), "buy the kimchi stew kit")
    assert result.returncode == 1
    assert hardsite.reached("/api/cart", "POST")  # the harmless part really happened
    assert hardsite.reached("/api/buy") == []
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "payment" and "Buy now" in request["what"]
    assert request["where"] == hardsite.page("shop") and request["screenshot"]
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO")
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"


def test_pressing_enter_in_the_order_form_is_a_purchase_too(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Order two kits")],
        "navigator": [answer(call("type", index=element("Quantity"), text="2", submit=True))],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("shop"), "order two kits")
    assert result.returncode == 1
    assert hardsite.reached("/api/buy") == []
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "payment" and "Buy now" in request["what"]


def test_allow_risky_says_go_for_the_person(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Buy the kit")],
        "navigator": [answer(call("click", index=element("Buy now"))), finished()],
        "validator": [verdict(True, "thank-you page"), verdict(True, "ordered")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("shop"), "buy the kit",
                              "--allow-risky")
    assert result.returncode == 0, result.stderr
    assert hardsite.reached("/api/buy", "POST") == ['{"qty":"1"}']
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert granted[0]["by"] == "--allow-risky" and "APPROVAL_REQUEST" not in types(events)


def test_a_page_cannot_send_the_browser_to_another_domain(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    other = f"{hardsite.other}/steal.html"
    script = {
        "planner": [plan("Read the recipe")] * 2,
        # The model falls for the page twice: by following the link, then by navigating.
        "navigator": [answer(call("click", index=element("Continue to the full recipe"))),
                      answer(call("navigate", url=other))],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("lure"), "read the recipe",
                              "--allow-domain", f"127.0.0.1:{hardsite.port(0)}", "--allow-risky")
    assert result.returncode == 1
    assert hardsite.reached("/steal.html", which=1) == []
    blocked = next(e for e in events if e["type"] == "ACT_FAIL")
    assert blocked["error"] == "NavigationFailed" and "outside the allowed domains" in blocked["message"]
    # Even --allow-risky does not widen the domains: only the person can.
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "leave_domain" and request["where"] == other
    assert events[-1]["type"] == "TASK_CANCEL"
    page_text = [o["url"] for o in events if o["type"] == "OBSERVATION"]
    assert all(url.startswith(hardsite.url) for url in page_text)


def test_a_start_page_outside_the_allowed_domains_is_refused(hardsite, model_server, db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "read", "--url", hardsite.page("lure"), "--no-tui",
                     "--yes", "--allow-domain", "example.com")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "outside --allow-domain (example.com)" in result.stderr


def test_a_secret_is_typed_only_where_it_was_given(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Sign in")] * 2,
        "navigator": [
            answer(call("type", index=element("Email"), text="me@example.com"),
                   call("type", index=element("Password"), text="<secret:PASSWORD>"),
                   call("click", index=element("Sign in"))),
            finished(summary="signed in"),
            answer(call("navigate", url=f"{hardsite.other}/steal.html")),
            answer(call("type", index=element("Password"), text="<secret:PASSWORD>", submit=True)),
        ],
        "validator": [verdict(False, "The page does not say who is signed in.")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("signin"), "sign in",
                              "--secret", f"PASSWORD={PASSWORD}")
    # The real sign-in got the real password…
    assert hardsite.reached("/api/signin", "POST", which=0) == [
        '{"email":"me@example.com","password":"' + PASSWORD + '"}']
    # …the other site (a new host: no --allow-domain means the start host only) never did.
    assert hardsite.reached("/api/signin", which=1) == []
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "secret_on_new_site"
    assert events[-1]["type"] == "TASK_CANCEL"
    stored = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob("*-wal"))
    assert PASSWORD.encode() not in stored
    assert PASSWORD not in result.stdout + result.stderr
