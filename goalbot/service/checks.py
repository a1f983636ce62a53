"""The checks every door makes through here, once, before anything starts: a goal, a start page,
the model endpoint. Each failure is a `Refusal` with the same code and words at every door."""

from __future__ import annotations

from urllib.parse import urlsplit

from goalbot.agents.domains import Domains, SchemeError
from goalbot.llm.probe import probe_endpoint
from goalbot.service.refusal import Refusal, Say
from goalbot.service.secret_in_goal import secret_cue
from goalbot.service.settings import Settings

SECRET_HINT = "pass it as a secret (--secret NAME=VALUE or --secrets-file) and write <secret:NAME> in the goal"
ENDPOINT_HINT = "check --base-url, --model and the key (goalbot doctor asks the endpoint)"


def check_goal(goal: str) -> None:
    """An empty goal, or one with a secret written in it, is refused; the secret is never repeated."""
    if not goal.strip():
        raise Refusal("bad_input", "the goal is empty",
                      "say what to reach, e.g. goalbot run \"turn on dark mode\" --url …")
    cue = secret_cue(goal)
    if cue is not None:
        raise Refusal("secret_in_goal", f"the goal holds what looks like a secret written in the clear ({cue})",
                      SECRET_HINT)


def domains_for(allow_domains: list[str], allow_schemes: list[str], secrets_at: str | None = None) -> Domains:
    try:
        return Domains(allow_domains, secrets_at, allow_schemes)
    except SchemeError as exc:
        raise Refusal("bad_input", str(exc)) from exc


def check_start_url(url: str | None, domains: Domains) -> None:
    """A page a run or a look may open: http(s) unless --allow-scheme names another, and on the
    --allow-domain list when there is one."""
    if not url:
        return
    if not domains.allows_scheme(url):
        raise Refusal("off_list", f"the start page {url} is not a web page: only http(s) addresses are opened",
                      _scheme_hint(url))
    if not domains.allows(url):
        raise Refusal("off_list", f"the start page {url} is outside --allow-domain ({domains.describe()})",
                      "add its site with --allow-domain (or allow_domain in the settings)")


def _scheme_hint(url: str) -> str:
    """`127.0.0.1:8765/login` and `example.com` are web pages without their scheme: say so."""
    parts = urlsplit(url)
    scheme, rest = parts.scheme.lower(), url.split(":", 1)[-1]
    if "://" not in url and (not scheme or "." in scheme or scheme == "localhost" or rest[:1].isdigit()):
        return f"write the address whole: http://{url} (or https://{url})"
    return "--allow-scheme SCHEME allows another"


def endpoint_refusal(settings: Settings, say: Say, wait_for_start: bool = True) -> Refusal | None:
    """Why the model endpoint cannot serve a run, or None; its warnings are said on the way. Work
    that cannot go on without the model (a run, a batch, an eval, an MCP run) gives one on this
    machine that is still starting a moment to listen (`goalbot demo --serve-only &` pasted with
    the command after it); what can go on without one asks once (`wait_for_start=False`)."""
    report = probe_endpoint(settings.base_url, settings.api_key.get_secret_value(),
                            [settings.model, *settings.role_models().values()], wait_for_start=wait_for_start,
                            say_now=say)
    for finding in report.findings:
        if finding.level == "warn":
            say(finding.text)
    problem = report.first("fail")
    if problem is None:
        return None
    # Busy: no address, model or key the person set is wrong, so none is named.
    return Refusal("unreachable", problem, "" if report.busy else ENDPOINT_HINT)
