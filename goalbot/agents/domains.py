"""Where the browser may go: http(s) pages on the `--allow-domain` globs, widened only by the
person's GO.

A pattern matches a host (`shop.example.com`), a host and port (`127.0.0.1:8000`), or with a
leading `*.` a domain and every subdomain of it. No pattern at all leaves http(s) navigation open,
but secrets are then typed only on the host the run started on. Other schemes — `file:` (the
machine's own files), `view-source:`, `chrome:`, `data:` — stay shut unless the person names them
with `--allow-scheme`; `javascript:` runs code in the page and is never opened.
"""

from __future__ import annotations

import fnmatch
from urllib.parse import urlsplit


def host_of(url: str) -> str:
    """`host` or `host:port` as the URL names it; empty for about:, data: and the like."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


def _matches(pattern: str, host: str) -> bool:
    pattern = pattern.lower().strip()
    name = host.split(":")[0] if ":" in host and not host.startswith("[") else host
    for candidate in (host, name):
        if fnmatch.fnmatchcase(candidate, pattern):
            return True
        if pattern.startswith("*.") and candidate == pattern[2:]:
            return True
    return False


WEB_SCHEMES = frozenset({"http", "https"})
NEVER_SCHEMES = frozenset({"javascript", "vbscript"})


class SchemeError(ValueError):
    pass


def check_schemes(schemes: list[str]) -> list[str]:
    """The schemes `--allow-scheme` may open, lower-cased; raises SchemeError for code runners."""
    chosen = [s.strip().lower().rstrip(":") for s in schemes if s.strip()]
    for scheme in chosen:
        if scheme in NEVER_SCHEMES:
            raise SchemeError(f"--allow-scheme {scheme}: {scheme}: addresses run code in the page "
                              "and are never opened")
    return chosen


class Domains:
    def __init__(self, patterns: list[str] | None = None, start_url: str | None = None,
                 schemes: list[str] | None = None) -> None:
        self.patterns = [p.lower() for p in patterns or [] if p.strip()]
        self.schemes = frozenset(check_schemes(schemes or []))
        self.start_host = host_of(start_url or "")
        self.granted: set[str] = set()  # hosts the person said GO to during this run

    @property
    def restricted(self) -> bool:
        return bool(self.patterns)

    def allows_scheme(self, url: str) -> bool:
        """http(s), about:blank, and the schemes the person allowed; nothing else, whatever a
        page or a model writes (Python reads tabs and newlines out of a scheme as browsers do)."""
        scheme = urlsplit(url.strip()).scheme.lower()
        if scheme in WEB_SCHEMES:
            return True
        if url.strip().lower() == "about:blank":
            return True
        return scheme in self.schemes

    def allows(self, url: str) -> bool:
        """Whether the browser may load `url` as a page."""
        if not self.allows_scheme(url):
            return False
        host = host_of(url).lower()
        if not host or not self.restricted:
            return True
        return host in self.granted or any(_matches(p, host) for p in self.patterns)

    def allows_secrets(self, url: str) -> bool:
        host = host_of(url).lower()
        if not host:
            return False
        if host in self.granted:
            return True
        if self.restricted:
            return any(_matches(p, host) for p in self.patterns)
        return host == self.start_host.lower()

    def grant(self, url: str) -> None:
        host = host_of(url).lower()
        if host:
            self.granted.add(host)

    def describe(self) -> str:
        return ", ".join(self.patterns) if self.patterns else "any"
