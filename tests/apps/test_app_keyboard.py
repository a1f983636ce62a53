"""The real Django admin's filter_horizontal picker filters on keyup: goalbot types into its Filter
box, presses "Choose all tags", which moves only the tags the filter left, and saves. Judged from
Django's own database: the book has the one tag the filter kept, not all of them."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from apps_kit import Served, app_command, app_python, free_port
from kit import answer, call, element, finished, plan, run_goal, verdict

PASSWORD = "Kb-admin-5127"  # the test's own superuser; goalbot gets it only as a secret
TAGS = ["Kimchi", "Bibimbap", "Bulgogi", "Japchae", "Tteokbokki", "Galbi", "Naengmyeon"]

SETTINGS = """
SECRET_KEY = "keyboard-test-only"
DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = ["django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
                  "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles", "shelf"]
MIDDLEWARE = ["django.contrib.sessions.middleware.SessionMiddleware", "django.middleware.common.CommonMiddleware",
              "django.middleware.csrf.CsrfViewMiddleware", "django.contrib.auth.middleware.AuthenticationMiddleware",
              "django.contrib.messages.middleware.MessageMiddleware"]
ROOT_URLCONF = "urls"
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
              "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                 "django.contrib.auth.context_processors.auth",
                                                 "django.contrib.messages.context_processors.messages"]}}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "site.sqlite3"}}
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
"""
URLS = """
from django.contrib import admin
from django.urls import path
urlpatterns = [path("admin/", admin.site.urls)]
"""
MODELS = """
from django.db import models

class Tag(models.Model):
    name = models.CharField(max_length=40)
    def __str__(self):
        return self.name

class Book(models.Model):
    title = models.CharField(max_length=100)
    tags = models.ManyToManyField(Tag, blank=True)
"""
ADMIN = """
from django.contrib import admin
from shelf.models import Book, Tag

@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    filter_horizontal = ["tags"]

admin.site.register(Tag)
"""


def _project(folder: Path) -> None:
    """A minimal project of its own: one app, a book with tags picked in the two-box picker."""
    (folder / "shelf").mkdir(parents=True)
    for name, text in {"settings.py": SETTINGS, "urls.py": URLS, "shelf/__init__.py": "",
                       "shelf/models.py": MODELS, "shelf/admin.py": ADMIN}.items():
        (folder / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "settings", "PYTHONPATH": str(folder),
           "DJANGO_SUPERUSER_PASSWORD": PASSWORD}
    seed = f"from shelf.models import Tag; Tag.objects.bulk_create([Tag(name=n) for n in {TAGS!r}])"
    for args in (["makemigrations", "shelf"], ["migrate"],
                 ["createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.com"],
                 ["shell", "-c", seed]):
        done = subprocess.run([str(app_command("django-admin")), *args], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, f"django-admin {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


def _book_tags(db: Path, title: str) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute(
            "select t.name from shelf_book b join shelf_book_tags bt on bt.book_id = b.id "
            "join shelf_tag t on t.id = bt.tag_id where b.title = ? order by t.name", (title,))]
    finally:
        conn.close()


def test_the_admins_filter_filters_what_goalbot_types(tmp_path: Path, model_server: Any, chromium: None) -> None:
    app_python()
    site = tmp_path / "site"
    _project(site)
    port = free_port()
    env = {"DJANGO_SETTINGS_MODULE": "settings", "PYTHONPATH": str(site)}
    command = [app_command("django-admin"), "runserver", f"127.0.0.1:{port}", "--noreload"]
    with Served(command, f"http://127.0.0.1:{port}/admin/login/", tmp_path / "django.log", cwd=site, env=env):
        model = model_server({
            "planner": [plan("Sign in as admin", "Add the book Street Food tagged Kimchi only")],
            "navigator": [
                answer(call("type", index=element("Username", role="textbox"), text="admin")),
                answer(call("type", index=element("Password", role="textbox"), text="<secret:PW>")),
                answer(call("click", index=element("Log in", role="button"))),
                finished(summary="signed in"),
                answer(call("type", index=element("Title", role="textbox"), text="Street Food")),
                answer(call("type", index=element("Filter", role="textbox"), text="kim")),
                # Moves every tag left in the list: the one the filter kept, or all seven.
                answer(call("click", index=element("Choose all tags", role="button"))),
                answer(call("click", index=element("Save", role="button"))),
                finished(summary="saved"),
            ],
            "validator": [verdict(True, "signed in"), verdict(True, "the book was added")],
        })
        result, _ = run_goal(tmp_path / "goalbot.db", model, f"http://127.0.0.1:{port}/admin/shelf/book/add/",
                             "add the book Street Food tagged Kimchi", "--secret", "PW=" + PASSWORD,
                             "--min-interval", "0")
        assert result.returncode == 0, result.stderr
        assert _book_tags(site / "site.sqlite3", "Street Food") == ["Kimchi"]
