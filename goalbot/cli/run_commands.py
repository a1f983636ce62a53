"""Starting a run (`run`, `demo`) or continuing one that was cut off (`resume`), in the dashboard
or printing events, and what the person is told when it ends."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from goalbot.agents.choosing import MAX_POLICY_BYTES, POLICY_NAME, PolicyError, read_policies
from goalbot.agents.replaying import state_from_events
from goalbot.agents.secrets import SecretError
from goalbot.agents.progress import ResumePoint
from goalbot.agents.session import RunOptions, SessionResult, Status
from goalbot.cli.console import run_printing
from goalbot.cli.result import RunResult
from goalbot.cli.terminal import fail, has_terminal, refused, say
from goalbot.events import EventType, RunStatus
from goalbot.llm.extraction import SchemaError, load_schema
from goalbot.payloads import ExtractedData, TaskStartData
from goalbot.recipes.runner import Rerun
from goalbot.service.ending import end_run
from goalbot.service.refusal import Refusal
from goalbot.service.request import RunRequest
from goalbot.service.run_setup import run_options
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_options
from goalbot.service.wiring import wire_run
from goalbot.text.eventfmt import printable
from storage import queries
from storage.db import StoreError, mark_interrupted, opened

if TYPE_CHECKING:
    from goalbot.scripted.server import Script

DEMO_GOAL = "sign in and turn on dark mode"


def cmd_run(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    try:
        options = goal_options(settings, args.goal, args.url)
        request = RunRequest.from_flags(args, settings.browser_path)
        read_data_rules(args, options, request.variables)
    except Refusal as refusal:
        return refused(refusal, args.json)
    except (SecretError, SchemaError, PolicyError) as exc:
        return fail(str(exc))
    return run_goal(request, settings, db_path, options)


def read_data_rules(args: argparse.Namespace, options: RunOptions, variables: dict[str, str]) -> None:
    """`--output-schema`, `--schema NAME=FILE` and `--policies FILE`, each read as hostile input
    and checked before anything starts; SchemaError or PolicyError in one line otherwise."""
    if args.output_schema is not None:
        options.output_schema = load_schema(args.output_schema)
    for given in args.schema:
        name, _, path = given.partition("=")
        if not (name and path and POLICY_NAME.fullmatch(name)):
            raise SchemaError(f"--schema wants NAME=FILE, not {given!r}")
        options.schemas[name] = load_schema(Path(path))
    if args.policies is not None:
        try:
            if args.policies.stat().st_size > MAX_POLICY_BYTES:  # refused before it is read into memory
                raise PolicyError(f"{args.policies} is over {MAX_POLICY_BYTES // 1000} kB: not a file of policies")
            text = args.policies.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyError(f"cannot read {args.policies}: {exc}") from exc
        options.choice_policies = read_policies(text, str(args.policies))
    options.variables = dict(variables)


def cmd_demo(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.demo.site import DemoSite
    from goalbot.scripted.server import Script, ScriptedModelServer

    try:
        request = RunRequest.from_flags(args, settings.browser_path)
    except SecretError as exc:
        return fail(str(exc))
    if not has_terminal():  # nobody can press a key here, and the demo must still show itself
        request.auto_approve = True
    script = Script.load(str(files("goalbot.demo").joinpath("script.json")))
    if args.serve_only:
        return _serve_demo(script, args.port)
    with DemoSite() as site, ScriptedModelServer(script) as model:
        print(f"goalbot demo: site {site.url}, scripted model {model.base_url}", flush=True)
        demo_settings = settings.model_copy(
            update={"base_url": model.base_url, "model": "scripted-demo", "api_key": SecretStr(""), "dialect": []}
        )
        code = run_goal(request, demo_settings, db_path, run_options(demo_settings, DEMO_GOAL, f"{site.url}/login"))
        print(f"goalbot demo: the site's own record says {site.state.snapshot()}")
        return code


def _serve_demo(script: Script, port: int) -> int:
    """The demo's site and scripted model, and nothing else, until Ctrl-C: to try `run`,
    `attach`, `observe`, `tail` and recipes on something that is always there, at the same
    address each time (a recipe recorded on it reruns as it is)."""
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
    with site, model:
        print(f"goalbot demo: site {site.url}/login (sign in as demo@example.com)\n"
              f"goalbot demo: scripted model {model.base_url} (it answers the demo goal, run after run)\n"
              f"goalbot demo: try  goalbot run '{DEMO_GOAL}' --url {site.url}/login "
              f"--base-url {model.base_url} --model scripted-demo --save-recipe darkmode\n"
              "goalbot demo: Ctrl-C stops them", flush=True)
        while not stopped.is_set():
            stopped.wait(0.5)  # the handlers run between two waits
    return 0


def cmd_resume(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Continues a session that was cut off, in the same session, from its last finished step."""
    with opened(db_path, create=False) as db:
        mark_interrupted(db)
        row = queries.session_row(db, args.session)
        if row is None:
            return fail(f"no session {args.session} in {db_path} (see goalbot sessions)")
        if row.running:
            return fail(f"session {args.session} is running in another process (pid {row.pid} on "
                        f"{row.host}): nothing to resume")
        if row.status != RunStatus.INTERRUPTED:
            return fail(f"session {args.session} is {row.status}, not interrupted: nothing to resume")
        if not queries.claim_for_resume(db, args.session):  # one process at most takes it up again
            return fail(f"session {args.session} is being resumed by another process")
        events = queries.session_events(db, args.session)
        last_artifact = queries.last_artifact_number(db, args.session)
    started = events[0].data_of(TaskStartData).options if events and events[0].type is EventType.TASK_START else {}
    try:
        options = RunOptions.model_validate({  # at the page it was on when it was cut off
            **started, "goal": row.goal, "url": queries.last_url(events) or row.url,
        })
        # The flags given now win for what the person decides (say, --yes, --allow-risky).
        if args.allow_risky:
            options.allow_risky = True
        if args.approval_timeout_s:
            options.approval_timeout_s = args.approval_timeout_s
    except ValueError as exc:
        _give_back(db_path, args.session)
        return fail(f"session {args.session} cannot be resumed: {exc}")
    point = ResumePoint(session_id=args.session, state=state_from_events(events),
                        last_seq=events[-1].seq if events else 0, last_artifact=last_artifact, start_url=row.url)
    # The key is never stored: it comes from the flags or the environment again; the endpoint and
    # the model are the session's own unless the flags name others.
    settings = settings.model_copy(update={
        "base_url": args.base_url or row.base_url or settings.base_url,
        "model": args.model or row.model or settings.model,
    })
    try:
        request = RunRequest.from_flags(args, settings.browser_path)
    except SecretError as exc:
        _give_back(db_path, args.session)
        return fail(str(exc))
    code = run_goal(request, settings, db_path, options, resume=point)
    if code == 2:  # it never started: another try may take it up
        _give_back(db_path, args.session)
    return code


def _give_back(db_path: Path, session_id: str) -> None:
    try:
        with opened(db_path) as db:
            queries.release_claim(db, session_id)
    except StoreError:
        return


def run_goal(
    request: RunRequest, settings: Settings, db_path: Path, options: RunOptions,
    resume: ResumePoint | None = None, rerun: Rerun | None = None,
) -> int:
    use_tui = not request.no_tui and not request.json_result  # with --json, stdout is the result's
    if use_tui and not has_terminal():
        print("goalbot: no terminal for the dashboard; printing events instead", file=sys.stderr)
        use_tui = False
    await_attach = request.await_attach
    # A rerun's plan is the recipe the person named: only its risky actions ask.
    if not use_tui and not request.auto_approve and not sys.stdin.isatty() and not await_attach and rerun is None:
        return fail("nobody can approve the plan here: pass --yes, or --await-attach and approve it "
                    "with goalbot attach, or run in a terminal")
    # Someone watching every moment (here or through attach) sees every look; else the store's
    # replay gets paced pictures and the browser spends less.
    options = options.model_copy(update={"pictures": "every" if use_tui or await_attach else "paced"})
    try:
        wiring = wire_run(request, settings, db_path, options, use_tui or sys.stdin.isatty() or await_attach,
                          resume, rerun, say=say)
    except Refusal as refusal:
        return refused(refusal, request.json_result)
    if await_attach:
        print(f"goalbot: session {wiring.session_id} waits for goalbot attach {wiring.session_id}",
              file=sys.stderr, flush=True)
    extracted: list[ExtractedData] = []
    wiring.bus.subscribe(lambda event: extracted.append(event.data_of(ExtractedData))
                         if event.type is EventType.EXTRACTED else None)
    result: SessionResult | None = None
    try:
        if use_tui:
            from goalbot.cli.dashboard import run_dashboard  # the dashboard loads only when it opens

            result = run_dashboard(wiring, db_path, settings)
        else:
            with contextlib.redirect_stdout(sys.stderr) if request.json_result else contextlib.nullcontext():
                result = run_printing(wiring.bus, wiring.session, wiring.control)
    finally:
        end_run(wiring, db_path, result, request.save_recipe, request.variables)
    if wiring.recorder.failure is not None:
        return fail(f"{wiring.recorder.failure} (session {wiring.session_id})")
    if result is None:
        return 1
    print(f"goalbot: session {wiring.session_id} {result.status.value}: {printable(result.reason)} "
          f"(goalbot report {wiring.session_id})", file=sys.stderr)
    outcome = RunResult.of(wiring.session_id, result, extracted[-1] if extracted else None)
    if request.json_result:
        print(outcome.model_dump_json())
    elif result.answer:
        print(printable(result.answer))
    if request.output is not None:
        try:
            request.output.write_text(outcome.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"goalbot: the result was not written to {request.output}: {exc}", file=sys.stderr)
    if result.could_not_start:
        return 2
    return 0 if result.status is Status.OK else 1
