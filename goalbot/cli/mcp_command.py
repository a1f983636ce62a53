"""`goalbot mcp`: serve goalbot's tools over the Model Context Protocol, on stdio (a host starts
it) or streamable HTTP at /mcp (bound to 127.0.0.1 unless told otherwise)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import SecretStr

from goalbot.agents.secrets import SecretError, parse_secret, read_secrets_file
from goalbot.cli.settings import Settings
from goalbot.cli.terminal import fail


def cmd_mcp(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    try:
        from goalbot.cli.mcp_server.runs import HostRules
        from goalbot.cli.mcp_server.server import build_server
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            return fail("goalbot mcp needs the mcp package: pip install 'goalbot[mcp]'")
        raise
    if not settings.has_endpoint():
        return fail("goalbot mcp runs goals with a model: pass --base-url and --model (or set OPENAI_BASE_URL "
                    "and GOALBOT_MODEL)")
    try:
        values = read_secrets_file(args.secrets_file) if args.secrets_file else {}
        values.update(parse_secret(text) for text in args.secret or [])
    except SecretError as exc:
        return fail(str(exc))
    rules = HostRules(approve_plans=args.approve_plans, allow_risky=settings.allow_risky, headless=not args.headed,
                      cdp_url=args.cdp_url, secrets={name: SecretStr(value) for name, value in values.items()})
    server = build_server(settings, db_path, rules)
    if not args.http:
        server.run("stdio")
        return 0
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"goalbot: serving on {args.host}: anyone who reaches it can start runs in your browser",
              file=sys.stderr)
    print(f"goalbot: MCP on http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
    server.run("streamable-http", host=args.host, port=args.port)
    return 0


def add_mcp_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    from goalbot.cli.flags import add_model_flags, add_secret_flags, add_settings

    mcp = sub.add_parser("mcp", help="serve goalbot to agent hosts over the Model Context Protocol")
    g = mcp.add_argument_group("transport")
    g.add_argument("--http", action="store_true", help="streamable HTTP at /mcp instead of stdio")
    g.add_argument("--host", default="127.0.0.1", help="the address to listen on with --http (default 127.0.0.1)")
    g.add_argument("--port", type=int, default=8000, help="the port with --http (default 8000)")
    rules = mcp.add_argument_group("what the server allows (a host's model cannot change these)")
    rules.add_argument("--approve-plans", action="store_true",
                       help="run plans without asking the person (risky actions still ask)")
    rules.add_argument("--headed", action="store_true", help="show each run's browser window")
    rules.add_argument("--cdp-url", metavar="URL", help="take every run's browser context from this Chromium")
    add_settings(rules, "allow_risky", "approval_timeout_s")
    add_model_flags(mcp)
    add_secret_flags(mcp)
    return mcp
