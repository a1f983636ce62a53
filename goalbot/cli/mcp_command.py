"""`goalbot mcp`: serve goalbot's tools over the Model Context Protocol, on stdio (a host starts
it) or streamable HTTP at /mcp (bound to 127.0.0.1 unless told otherwise, every request carrying
its client's bearer token). `--print-config HOST` writes what a host needs to start or reach it."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from goalbot.agents.secrets import SecretError, parse_secret, read_secrets_file
from goalbot.cli.terminal import fail
from goalbot.service.settings import Settings, config_path

if TYPE_CHECKING:  # the key's module loads with the mcp extra
    from goalbot.mcp.access import Keyring

HOSTS = ("claude", "cursor", "vscode", "http")


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
        build_server(settings, db_path, rules).run("stdio")
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
        entry = {"command": command, "args": [*prefix, "--db", str(db_path.resolve()), "mcp"]}
        if args.print_config == "vscode":
            entry = {"type": "stdio", **entry}
    key = "servers" if args.print_config in ("vscode",) else "mcpServers"
    print(json.dumps({key: {"goalbot": entry}}, indent=2))
    return 0


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
