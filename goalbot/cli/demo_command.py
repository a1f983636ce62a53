"""`goalbot demo [signin|shop]`: the bundled site and scripted model, and a run on them; or, with
--serve-only, the two alone, to try every command on. The scripted model answers each goal the
guide uses on the demo: sign in and dark mode, a choice in the shop, the shop's products as data."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from goalbot.agents.secrets import SecretError
from goalbot.cli.run_command import run_goal
from goalbot.cli.terminal import fail, has_terminal
from goalbot.demo.goals import DEMO_GOAL, DEMOS, LIST_GOAL, SHOP_GOAL
from goalbot.events import RunStatus
from goalbot.cli.requests import run_request
from goalbot.service.run_setup import run_options
from goalbot.service.settings import Settings

if TYPE_CHECKING:
    from goalbot.scripted.server import Script


def cmd_demo(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.demo.site import DemoSite
    from goalbot.scripted.server import Script, ScriptedModelServer

    try:
        request = run_request(args, settings.browser_path)
    except SecretError as exc:
        return fail(str(exc))
    if not has_terminal():  # nobody can press a key here, and the demo must still show itself
        request.auto_approve = True
    demo = DEMOS[args.which]
    request.variables = dict(demo.variables)
    script = Script.demo()
    if args.redesigned and not args.serve_only:
        return fail("--redesigned is for --serve-only: goalbot demo --serve-only --redesigned")
    if args.serve_only:
        return _serve_demo(script, args.port, args.redesigned)
    with DemoSite() as site, ScriptedModelServer(script) as model:
        print(f"goalbot demo: site {site.url}, scripted model {model.base_url}", flush=True)
        demo_settings = settings.model_copy(
            update={"base_url": model.base_url, "model": "scripted-demo", "api_key": SecretStr(""), "dialect": []}
        )
        options = run_options(demo_settings, demo.goal, f"{site.url}{demo.page}")
        options.variables = dict(request.variables)  # the shop's policy reads its limit from them
        code = run_goal(request, demo_settings, db_path, options)
        print(f"goalbot demo: the site's own record: {_in_words(site.state.snapshot())}")
        return 0 if code == 1 and _left_early(db_path) else code


def _in_words(record: dict[str, Any]) -> str:
    signed_in = ", ".join(record["signed_in"]) or "nobody"
    dark = [who for who, on in record["dark_mode"].items() if on]
    cart = f"; in the cart: {', '.join(record['cart'])}" if record.get("cart") else ""
    return f"signed in: {signed_in}; dark mode on for: {', '.join(dark) or 'nobody'}{cart}"


def _left_early(db_path: Path) -> bool:
    """Whether the demo's run was cancelled (the person quit, or said NOT GO): leaving a show
    before its end is not a failure to report (`make demo` would end in `make: *** Error 1`)."""
    from storage import queries
    from storage.db import opened

    with opened(db_path, create=False) as db:
        latest = queries.latest_session_id(db)
        row = queries.session_row(db, latest) if latest else None
    return row is not None and row.status == RunStatus.CANCELLED


def _serve_demo(script: Script, port: int, redesigned: bool = False) -> int:
    """The demo's site and scripted model, and nothing else, until Ctrl-C: to try `run`,
    `attach`, `observe`, `tail` and recipes on something that is always there, at the same
    address each time (a recipe recorded on it reruns as it is). `redesigned`: the site after a
    redesign, where such a recipe heals (its model answers the patcher too)."""
    from goalbot.demo.site import DemoSite
    from goalbot.scripted.server import ScriptedModelServer

    try:
        site, model = DemoSite(port), ScriptedModelServer(script, port + 1 if port else 0)
    except OSError as exc:
        return fail(f"cannot serve the demo on ports {port} and {port + 1}: {exc.strerror} "
                    "(goalbot demo --serve-only --port N picks others)")
    stopped = threading.Event()
    # Ctrl-C, or `kill %1` after `goalbot demo --serve-only &` (a shell starts a background job with
    # Ctrl-C ignored): both are taken, and before the lines that say the demo is up go out.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stopped.set())
    if redesigned:
        site.redesign()
    with site, model:
        if redesigned:
            print("goalbot demo: redesigned: the dark-mode switch is now behind an Appearance button; a recipe "
                  f"recorded on the demo heals here: goalbot rerun darkmode --secret password=demo-pass --yes "
                  f"--base-url {model.base_url} --model scripted-demo", flush=True)
        print(f"goalbot demo: site {site.url}/login (sign in as demo@example.com)\n"
              f"goalbot demo: scripted model {model.base_url} (it answers the demo goal, run after run)\n"
              f"goalbot demo: shop {site.url}/shop (its goals: '{SHOP_GOAL}' with --var MAX=40, "
              f"'{LIST_GOAL}' with --output-schema)\n"
              f"goalbot demo: try  goalbot run '{DEMO_GOAL}' --url {site.url}/login "
              f"--base-url {model.base_url} --model scripted-demo --save-recipe darkmode\n"
              "goalbot demo: Ctrl-C stops them", flush=True)
        while not stopped.is_set():
            stopped.wait(0.5)  # the handlers run between two waits
    return 0
