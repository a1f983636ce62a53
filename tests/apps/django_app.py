"""Django's admin as the tests meet it: tests/apps/django_site (a `library` app whose admin uses
the real widgets) migrated and seeded into a folder of the test's own, served by `runserver` on a
free loopback port, and read back from its SQLite file to judge what a goal did.

The superuser is `admin`; goalbot gets its password only as `--secret PW=…`. Goals that are not
about signing in start signed in, from a Playwright storage state holding a session Django itself
made (as a person's browser that signed in yesterday would)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from apps_kit import Served, app_python, free_port

SITE = Path(__file__).resolve().parent / "django_site"
ADMIN_PASSWORD = "Gb-admin-7391"  # a test's own superuser; goalbot is given it only as a secret

# A session for `admin`, made the way Django's login() makes one.
_SIGN_IN = ("from django.contrib.auth import get_user_model; from django.test import Client; "
            "client = Client(); client.force_login(get_user_model().objects.get(username='admin')); "
            "print(client.cookies['sessionid'].value)")

_AUTHENTICATE = ("import os; from django.contrib.auth import authenticate; "
                 "print(authenticate(username=os.environ['CHECK_USER'], password=os.environ['CHECK_PASSWORD']) "
                 "is not None)")


@dataclass
class DjangoSite:
    url: str
    data: Path
    served: Served
    prepared_in: float  # seconds that migrate and seed took, before the server started

    @property
    def db(self) -> Path:
        return self.data / "site.sqlite3"

    def admin(self, path: str = "") -> str:
        return f"{self.url}/admin/{path}"

    def rows(self, sql: str, *params: object) -> list[sqlite3.Row]:
        """The application's own database, read while it runs (judging never trusts the page)."""
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def value(self, sql: str, *params: object) -> Any:
        found = self.rows(sql, *params)
        return found[0][0] if found else None

    def manage(self, *args: str) -> str:
        return _manage(self.data, *args)

    def password_works(self, username: str, password: str) -> bool:
        """Whether Django itself lets `username` sign in with `password` (given through the
        environment, so no quoting can change them)."""
        said = _manage(self.data, "shell", "-c", _AUTHENTICATE, CHECK_USER=username, CHECK_PASSWORD=password)
        return said.strip().splitlines()[-1] == "True"

    def signed_in(self, folder: Path) -> Path:
        """A storage state file in `folder` whose browser is signed in as admin: a fresh session."""
        session = self.manage("shell", "-c", _SIGN_IN).strip().splitlines()[-1]
        state = {"cookies": [{"name": "sessionid", "value": session, "domain": "127.0.0.1", "path": "/",
                              "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}],
                 "origins": []}
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "signed-in.json"
        path.write_text(json.dumps(state))
        return path


def _manage(data: Path, *args: str, **extra_env: str) -> str:
    done = subprocess.run([str(app_python()), "manage.py", *args], cwd=SITE,
                          env={**os.environ, **_env(data), **extra_env},
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _env(data: Path) -> dict[str, str]:
    return {"GOALBOT_DJANGO_DATA": str(data), "PYTHONDONTWRITEBYTECODE": "1"}


@contextmanager
def django_site(folder: Path) -> Iterator[DjangoSite]:
    """The site migrated, seeded and served from `folder`, stopped afterwards."""
    data = folder / "django-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    began = time.monotonic()
    _manage(data, "migrate", "--noinput", "-v", "0")
    _manage(data, "seed", "--admin-password", ADMIN_PASSWORD)
    prepared_in = time.monotonic() - began
    port = free_port()
    command = [str(app_python()), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--insecure"]
    served = Served(command, f"http://127.0.0.1:{port}/admin/login/", folder / "runserver.log", cwd=SITE,
                    env=_env(data))
    with served:
        yield DjangoSite(f"http://127.0.0.1:{port}", data, served, prepared_in)
