"""A recipe becomes code a person owns: `recipe export NAME FILE --as playwright` writes one Python
file that needs Playwright only. Run with plain Python (goalbot cannot even be imported) against
the served site, it leaves the site as the recording did, with today's value for a variable and
the secret from the environment; a step that no longer finds its element stops it with a line.
Real Chromium, the test site, the scripted model over HTTP for the recordings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from flows_kit import account_scripts
from kit import darkmode_script, run_cli, run_goal
from hardsite.server import HardSite

# Runs a script the way `python FILE ARGS…` does, with every goalbot module out of reach.
WITHOUT_GOALBOT = """
import runpy, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("goalbot", "storage", "tui"):
            raise ImportError(f"{name}: the exported script must not need goalbot")
        return None
sys.meta_path.insert(0, Refuse())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _run_script(path: Path, *args: str, secret: str = "hunter2") -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "SECRET_PW": secret, "HOME": str(path.parent)}
    return subprocess.run([sys.executable, "-c", WITHOUT_GOALBOT, str(path), *args], text=True, capture_output=True,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)


def test_the_exported_script_runs_with_plain_python_and_leaves_the_site_as_recorded(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    for name, flags in (("darkmode", ()), ("by-user", ("--var", "user=alice"))):
        recorded, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                               "sign in and turn on dark mode", "--save-recipe", name, "--secret", "PW=hunter2", *flags)
        assert recorded.returncode == 0, recorded.stderr
    out = db_path.parent
    made = run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(out / "darkmode.py"), "--as", "playwright")
    assert made.returncode == 0 and "SECRET_PW=… python" in made.stdout, made.stderr
    script = (out / "darkmode.py").read_text()
    assert "import goalbot" not in script and "from goalbot" not in script
    assert "no healing" in script and 'page.get_by_role(role, name=name, exact=True)' in script
    assert "('role', fill('button\\nSign in', values))" in script  # role and name first, then the fallbacks
    assert "hunter2" not in script

    hardsite.reset()
    ran = _run_script(out / "darkmode.py", "--url", hardsite.page("darkmode"))
    assert ran.returncode == 0, ran.stderr
    assert "darkmode: every step ran" in ran.stdout
    assert hardsite.reached("/api/signin", "POST") == ['{"user":"alice"}']
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"alice","dark":true}']

    # The secret comes from the environment, typed where it was recorded.
    recorded, _ = run_goal(db_path, model_server(account_scripts()[0]), hardsite.page("account"), "sign in",
                           "--save-recipe", "login", "--secret", "PW=hunter2")
    assert recorded.returncode == 0, recorded.stderr
    assert run_cli("--db", str(db_path), "recipe", "export", "login", str(out), "--as", "playwright").returncode == 0
    assert "hunter2" not in (out / "login.py").read_text()
    hardsite.reset()
    ran = _run_script(out / "login.py", "--url", hardsite.page("account"), secret="s3cret-from-env")
    assert ran.returncode == 0, ran.stderr
    assert hardsite.reached("/api/signin", "POST") == ['{"email":"alice@example.com","password":"s3cret-from-env"}']

    # A variable is a command-line argument: today's value is typed, and the page's answer to it checked.
    assert run_cli("--db", str(db_path), "recipe", "export", "by-user", str(out), "--as", "playwright").returncode == 0
    hardsite.reset()
    ran = _run_script(out / "by-user.py", "--url", hardsite.page("darkmode"), "--user", "bob")
    assert ran.returncode == 0, ran.stderr
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"bob","dark":true}']
    asked = _run_script(out / "by-user.py", "--url", hardsite.page("darkmode"))
    assert asked.returncode == 2 and "--user" in asked.stderr

    # No healing: behind the new menu no recorded locator finds the switch: it stops there, in a line.
    hardsite.reset()
    moved = _run_script(out / "darkmode.py", "--url", hardsite.page("darkmode") + "?variant=menu")
    assert moved.returncode == 1 and "darkmode: stopped:" in moved.stderr and "Traceback" not in moved.stderr, \
        moved.stderr
    assert hardsite.reached("/api/settings", "POST") == []
    missing = subprocess.run([sys.executable, "-c", WITHOUT_GOALBOT, str(out / "darkmode.py")], text=True,
                             capture_output=True, env={"PATH": "/usr/bin:/bin"}, timeout=120)
    assert missing.returncode == 2 and "set SECRET_PW in the environment" in missing.stderr


def test_the_exported_script_never_clicks_a_look_alike_at_the_recorded_place(tmp_path: Path, chromium: None) -> None:
    # Recorded: the link "Copper Teapot", first in the list. Today the list starts with a warmer.
    from goalbot.recipes.model import Evidence, Recipe, RecipeAction, RecipeStep
    from goalbot.recipes.scripting import ScriptWriter

    teapot = Evidence(role="link", name="Copper Teapot", css="#list > li:nth-of-type(1) > a",
                      xpath="/html[1]/body[1]/ul[1]/li[1]/a[1]")
    recipe = Recipe(name="teapot", goal="open the copper teapot", start_url="about:blank",
                    steps=[RecipeStep(description="Open it", actions=[RecipeAction(action={"name": "click"},
                                                                                   target=teapot)])])
    script = tmp_path / "teapot.py"
    script.write_text(ScriptWriter(recipe, {}).script(script.name), encoding="utf-8")
    today = ("data:text/html,<ul id=list><li><a href='%23warmer'>Copper Teapot Warmer</a></li>"
             "<li><a href='%23kettle'>Blue Kettle</a></li></ul>")
    ran = _run_script(script, "--url", today)
    assert ran.returncode == 1 and "no recorded locator finds" in ran.stderr, (ran.stdout, ran.stderr)
    same = today.replace("Copper Teapot Warmer", "Copper Teapot")
    assert _run_script(script, "--url", same).returncode == 0
