"""`goalbot mcp`: serve goalbot's tools over the Model Context Protocol, on stdio (a host starts
it) or streamable HTTP at /mcp (bound to 127.0.0.1 unless told otherwise, every request carrying
its client's bearer token). `--print-config HOST` writes what a host needs to start or reach it."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from goalbot.agents.secrets import SecretError, parse_secret, read_secrets_file
from goalbot.cli.terminal import fail
from goalbot.service.settings import Settings, config_path, declared

if TYPE_CHECKING:  # the key's module loads with the mcp extra
    from goalbot.mcp.access import Keyring

HOSTS = ("claude", "cursor", "vscode", "http")
INTERRUPTED = 130  # what a shell reports for a program ended by Ctrl-C
# The transport and print-config's own flags, the key and secrets' values: never in a printed config.
NOT_CARRIED = frozenset({"help", "http", "host", "port", "print_config", "client", "api_key", "secret", "db",
                         "images"})
API_KEY_ENV = declared("api_key").env or "OPENAI_API_KEY"
# How each host's configuration names a variable of its own environment.
KEY_REFERENCE = {"claude": f"${{{API_KEY_ENV}}}", "cursor": f"${{env:{API_KEY_ENV}}}",
                 "vscode": f"${{env:{API_KEY_ENV}}}"}


def cmd_mcp(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    try:
        from goalbot.mcp.access import AccessError, Keyring, requiring_token
        from goalbot.mcp.runs import HostRules
        from goalbot.mcp.server import build_server
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            return fail("goalbot mcp needs the mcp package: from a checkout, pip install -e '.[mcp]'")
        raise
    keyring = None
    if args.http or args.print_config:
        try:
            keyring = Keyring.at(config_path().parent)
        except AccessError as exc:
            return fail(str(exc))
    if args.print_config and keyring is not None:
        return _print_config(args, db_path, keyring)
    if not settings.has_endpoint():
        return fail("goalbot mcp runs goals with a model: pass --base-url and --model (or set OPENAI_BASE_URL "
                    "and GOALBOT_MODEL)")
    try:
        values = read_secrets_file(args.secrets_file) if args.secrets_file else {}
        values.update(parse_secret(text) for text in args.secret or [])
    except SecretError as exc:
        return fail(str(exc))
    rules = HostRules(approve_plans=args.approve_plans, allow_risky=settings.allow_risky, headless=not args.headed,
                      cdp_url=args.cdp_url, all_sessions=args.all_sessions,
                      secrets={name: SecretStr(value) for name, value in values.items()})
    if not args.http:
        server = build_server(settings, db_path, rules)
        if sys.stdin.isatty():
            _say_what_it_waits_for()
        server.run("stdio")
        return 0
    assert keyring is not None
    import uvicorn

    server = build_server(settings, db_path, rules, keyring)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"goalbot: serving on {args.host}: whoever holds a token can start runs in your browser",
              file=sys.stderr)
    print(f"goalbot: MCP on http://{args.host}:{args.port}/mcp (a host's token: goalbot mcp --print-config http)",
          file=sys.stderr, flush=True)
    app = requiring_token(server.streamable_http_app(host=args.host), keyring)  # type: ignore[arg-type]
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _print_config(args: argparse.Namespace, db_path: Path, keyring: Keyring) -> int:
    """What a host's configuration needs, as JSON: the command with absolute paths (stdio), or
    the address and this client's token (http)."""
    from goalbot.mcp.access import AccessError

    if args.print_config not in HOSTS:
        return fail(f"--print-config takes one of {', '.join(HOSTS)}")
    if args.print_config == "http":
        try:
            token = keyring.token(args.client)
        except AccessError as exc:
            return fail(str(exc))
        entry: dict[str, object] = {"type": "http", "url": f"http://{args.host}:{args.port}/mcp",
                                    "headers": {"Authorization": f"Bearer {token}"}}
    else:
        command, prefix = _goalbot_command()
        entry = {"command": command, "args": [*prefix, "--db", str(db_path.resolve()), "mcp", *_given_flags(args)]}
        if args.api_key is not None:  # by the variable's name: a config file is no place for a key
            entry["env"] = {API_KEY_ENV: KEY_REFERENCE[args.print_config]}
            print(f"goalbot: the API key is not written: the host passes ${API_KEY_ENV} from its environment",
                  file=sys.stderr)
        if args.secret:
            print("goalbot: --secret values are not written: give the host's goalbot a --secrets-file",
                  file=sys.stderr)
        if args.print_config == "vscode":
            entry = {"type": "stdio", **entry}
    key = "servers" if args.print_config in ("vscode",) else "mcpServers"
    print(json.dumps({key: {"goalbot": entry}}, indent=2))
    return 0


def _given_flags(args: argparse.Namespace) -> list[str]:
    """The server's own flags as they were given here, so the host starts the same server: the
    endpoint, the models, what it allows. Never the key or a secret's value; never --print-config's
    own transport flags."""
    words: list[str] = []
    for action in _mcp_parser()._actions:
        value = getattr(args, action.dest, None)
        if not action.option_strings or action.dest in NOT_CARRIED or value is None or value is False or value == []:
            continue
        flag = action.option_strings[-1] if action.option_strings[-1].startswith("--") else action.option_strings[0]
        if isinstance(action, argparse._StoreTrueAction):
            words.append(flag)
        elif isinstance(action, argparse._AppendAction):
            words.extend(word for item in value for word in (flag, _absolute(item)))
        else:
            words.extend((flag, _absolute(value)))
    return words


def _absolute(value: object) -> str:
    """A path as the host must see it: the host starts goalbot in a folder of its own."""
    return str(value.resolve()) if isinstance(value, Path) else str(value)


def _mcp_parser() -> argparse.ArgumentParser:
    """`goalbot mcp`'s own parser, made as the command line makes it (not through it: it imports this)."""
    from goalbot.cli.parser import Parser

    parser: argparse.ArgumentParser = Parser(prog="goalbot")
    return add_mcp_parser(parser.add_subparsers())


def _say_what_it_waits_for() -> None:
    """Typed in a terminal, `goalbot mcp` would look hung: it says what it waits for, and Ctrl-C
    ends it at once (the stdio transport reads stdin in a thread a cancelled task still waits on)."""
    signal.signal(signal.SIGINT, lambda *_: _leave_at_once())
    print("goalbot mcp: waiting for an MCP host on stdin (JSON-RPC); this is not an interactive command.\n"
          "  A host starts goalbot mcp itself: goalbot mcp --print-config claude|cursor|vscode prints what its "
          "configuration needs;\n"
          "  goalbot mcp --http serves hosts over HTTP instead (--print-config http gives a token).\n"
          "  Ctrl-C stops it.", file=sys.stderr, flush=True)


def _leave_at_once() -> None:
    print(file=sys.stderr, flush=True)
    os._exit(INTERRUPTED)


def _goalbot_command() -> tuple[str, list[str]]:
    """This goalbot, by absolute path: a host starts it with no virtualenv on its PATH."""
    beside = Path(sys.executable).parent / "goalbot"  # the console script of this interpreter's venv
    found = str(beside) if beside.exists() else shutil.which("goalbot")
    if found:
        return str(Path(found).absolute()), []
    return sys.executable, ["-m", "goalbot"]


def add_mcp_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    from goalbot.cli.flags import add_model_flags, add_secret_flags, add_settings

    mcp = sub.add_parser("mcp", help="serve goalbot to agent hosts over the Model Context Protocol")
    g = mcp.add_argument_group("transport")
    g.add_argument("--http", action="store_true", help="streamable HTTP at /mcp instead of stdio; every request "
                                                      "needs a client's bearer token (--print-config http)")
    g.add_argument("--host", default="127.0.0.1", help="the address to listen on with --http (default 127.0.0.1)")
    g.add_argument("--port", type=int, default=8000, help="the port with --http (default 8000)")
    g.add_argument("--print-config", metavar="HOST", help=f"print a host's configuration ({', '.join(HOSTS)}) "
                                                          "and exit; http's holds a client's token")
    g.add_argument("--client", default="host", help="with --print-config http: the client the token is for; "
                                                    "clients of different names never see each other's runs")
    rules = mcp.add_argument_group("what the server allows (a host's model cannot change these)")
    rules.add_argument("--approve-plans", action="store_true",
                       help="run plans without asking the person (risky actions still ask)")
    rules.add_argument("--headed", action="store_true", help="show each run's browser window")
    rules.add_argument("--cdp-url", metavar="URL", help="take every run's browser context from this Chromium")
    rules.add_argument("--all-sessions", action="store_true",
                       help="over HTTP, clients may also list and read the store's other sessions (never steer them)")
    add_settings(rules, "allow_risky", "approval_timeout_s", "allow_domain", "allow_scheme")
    add_model_flags(mcp)
    add_secret_flags(mcp)
    return mcp
