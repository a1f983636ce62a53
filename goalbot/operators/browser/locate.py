"""Which Chromium to launch: a configured path, else a system Chromium, else Playwright's own.

Run as a module (`python -m goalbot.operators.browser.locate --install`) it makes sure one is
there, installing Debian's chromium as root or Playwright's build otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BROWSER_VARIABLE = "GOALBOT_BROWSER"
SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# What Playwright 1.65 disables itself. Chromium keeps only the last --disable-features it is given,
# so ours repeats them; tests/browser/test_launch_flags.py fails when Playwright's list grows.
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
    "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Headless Chromium is the whole browser: each context opens a window whose address bar loads a
# web page for its suggestion list, in a renderer process of its own: 0.4 s of CPU per context
# (a batch job, a test) for a list nobody sees. Without it a headed window draws the list natively.
UNSEEN_DISABLED = ("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup")

# Flags that keep Chromium quiet on machines without network or GPU and when run as root.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED + UNSEEN_DISABLED),
]


@dataclass(frozen=True)
class BrowserChoice:
    path: str | None
    source: str  # "configured", "system" or "playwright"

    def describe(self) -> str:
        return f"{self.path} ({self.source})" if self.path else "Playwright's own Chromium"


class BrowserNotFound(Exception):
    pass


def playwright_chromium() -> str | None:
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:
        return None
    return path if path and Path(path).exists() else None


def find_browser(configured: str | None = None) -> BrowserChoice:
    """`configured` is the person's `--browser-path` or GOALBOT_BROWSER, read with their settings."""
    if configured:
        path = Path(configured).expanduser()
        resolved = shutil.which(str(path)) or (str(path) if path.exists() else None)
        if not resolved:
            raise BrowserNotFound(f"the configured browser {configured!r} does not exist")
        return BrowserChoice(resolved, "configured")
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return BrowserChoice(found, "system")
    return BrowserChoice(None, "playwright")


def ensure_browser(configured: str | None = None) -> BrowserChoice:
    choice = find_browser(configured)
    if choice.path or playwright_chromium():
        return choice
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("goalbot: no Chromium found; installing Debian's chromium", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        wait = ["-o", "DPkg::Lock::Timeout=600"]  # another apt at work: wait for it rather than fail
        subprocess.run(["apt-get", *wait, "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", *wait, "install", "-y", "-qq", "chromium"], check=True, env=env)
    else:
        print("goalbot: no Chromium found; installing Playwright's chromium", flush=True)
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], check=True)
    return find_browser(configured)


def main() -> int:
    parser = argparse.ArgumentParser(description="Find (and with --install, get) a Chromium.")
    parser.add_argument("--install", action="store_true", help="install one if none is found")
    # `make install` runs before any settings exist: the one setting it needs comes from the environment.
    parser.add_argument("--browser-path", default=os.environ.get(BROWSER_VARIABLE), help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        choice = ensure_browser(args.browser_path) if args.install else find_browser(args.browser_path)
    except (BrowserNotFound, subprocess.CalledProcessError) as exc:
        print(f"goalbot: {exc}", file=sys.stderr)
        return 1
    print(f"browser: {choice.describe()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
