"""`goalbot run GOAL`: a goal run in the dashboard or printing its events, its data rules read as
hostile input, and what the person is told when it ends. `rerun`, `demo` and `resume` end here too."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from goalbot.agents.choosing import MAX_POLICY_BYTES, POLICY_NAME, PolicyError, read_policies
from goalbot.agents.progress import ResumePoint
from goalbot.agents.secrets import SecretError
from goalbot.agents.session import RunOptions, SessionResult, Status
from goalbot.cli.console import run_printing
from goalbot.service.results import Choices, RunResult
from goalbot.cli.terminal import fail, has_terminal, refused, say
from goalbot.events import EventType
from goalbot.llm.extraction import SchemaError, load_schema
from goalbot.payloads import ExtractedData
from goalbot.recipes.rerun import Rerun
from goalbot.service.refusal import Refusal
from goalbot.cli.requests import run_request
from goalbot.service.request import RunRequest
from goalbot.service.runs import Audience, Door
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start
from goalbot.text.eventfmt import printable
from goalbot.text.regular_file import NotRegularFile, read_regular_text


def cmd_run(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    try:
        request = run_request(args, settings.browser_path)
        start = goal_start(db_path, settings, args.goal, args.url, request.variables, set(request.secrets),
                           use_recipes=not (args.no_recipes or args.save_recipe or args.output_schema
                                            or args.schema or args.policies),
                           person_chooses=not request.auto_approve)
        if start.rerun is None:
            read_data_rules(args, start.options, request.variables)
    except Refusal as refusal:
        return refused(refusal, args.json)
    except (SecretError, SchemaError, PolicyError) as exc:
        return fail(str(exc))
    if start.rerun is not None and start.rerun.unsure:
        say(f"{start.found}: the goal's words did not surely fit ({start.rerun.unsure}); the matcher "
            "binds its values, and you choose (--no-recipes plans the goal instead)")
    elif start.rerun is not None:
        say(f"{start.found}: it reruns with no model (--no-recipes plans the goal instead)")
    return run_goal(request, settings, db_path, start.options, rerun=start.rerun)


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
            text = read_regular_text(args.policies, MAX_POLICY_BYTES)  # a FIFO is refused, never waited on
        except NotRegularFile as exc:
            raise PolicyError(f"cannot read {args.policies}: {exc.strerror}") from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyError(f"cannot read {args.policies}: {exc}") from exc
        options.choice_policies = read_policies(text, str(args.policies))
    options.variables = dict(variables)


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
    if not use_tui and not request.auto_approve and not sys.stdin.isatty() and not await_attach and (
            rerun is None or rerun.found):
        return fail("nobody can approve the plan here: pass --yes, or --await-attach and approve it "
                    "with goalbot attach, or run in a terminal")
    audience = (Audience.ATTACHED if await_attach else Audience.HERE if use_tui
                else Audience.CONSOLE if sys.stdin.isatty() else Audience.NOBODY)
    try:
        started = Door(settings, db_path, audience, say=say).start(request, options, rerun, resume)
    except Refusal as refusal:
        return refused(refusal, request.json_result)
    if await_attach:
        print(f"goalbot: session {started.session_id} waits for goalbot attach {started.session_id}",
              file=sys.stderr, flush=True)
    extracted: list[ExtractedData] = []
    started.bus.subscribe(lambda event: extracted.append(event.data_of(ExtractedData))
                          if event.type is EventType.EXTRACTED else None)
    choices = Choices()
    started.bus.subscribe(choices.hear)
    result: SessionResult | None = None
    try:
        if use_tui:
            from goalbot.cli.dashboard import (
                run_dashboard,  # the dashboard loads only when it opens
            )

            result = run_dashboard(started, db_path, settings, resumed=resume is not None)
        else:
            with contextlib.redirect_stdout(sys.stderr) if request.json_result else contextlib.nullcontext():
                result = run_printing(started.bus, started.session, started.control,
                                      ask_here=sys.stdin.isatty() and not await_attach)
    finally:
        started.end(result)
    if started.store_failure is not None:
        return fail(f"{started.store_failure} (session {started.session_id})")
    if result is None:
        return 1
    print(f"goalbot: session {started.session_id} {result.status.value}: {printable(result.reason)} "
          f"(goalbot report {started.session_id})", file=sys.stderr)
    outcome = RunResult.of(started.session_id, result, extracted[-1] if extracted else None, choices.made)
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
