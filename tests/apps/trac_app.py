"""Trac 1.6, a classic server-rendered issue tracker and wiki, made and seeded for the tests.

`trac-admin initenv` makes a fresh environment; this file, run by the applications' own Python
(`python trac_app.py ENV`), seeds it through Trac's own models: components and milestones with
Korean names, tickets, wiki pages, and the anonymous permissions the goals need (nobody signs in).
The tests import it for `served_trac` and for reading the environment's own state: its SQLite
database and its attachment files, never the page goalbot saw."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

COMPONENTS = ["결제", "검색", "문서"]  # payment, search, documents
MILESTONES = ["1.0 출시", "2.0 계획"]
ANONYMOUS_MAY = ["TICKET_CREATE", "TICKET_APPEND", "TICKET_MODIFY", "TICKET_CHGPROP", "WIKI_CREATE",
                 "WIKI_MODIFY", "WIKI_DELETE", "REPORT_VIEW", "TICKET_VIEW", "WIKI_VIEW"]
# (summary, component, priority, status); a handful per component so a filter has something to leave out.
TICKETS = [
    ("결제 버튼이 두 번 눌립니다", "결제", "critical", "new"),
    ("카드 결제 후 영수증이 없음", "결제", "major", "new"),
    ("환불 금액이 틀림", "결제", "major", "closed"),
    ("검색 결과가 비어 있음", "검색", "major", "new"),
    ("한글 검색어가 깨짐", "검색", "critical", "new"),
    ("검색 자동완성이 느림", "검색", "minor", "new"),
    ("설치 안내서 갱신", "문서", "minor", "new"),
    ("API 문서에 예제 추가", "문서", "trivial", "closed"),
]
WIKI = {
    "회의록": "= 회의록 =\n\n2026년 12월 회의: 결제 오류를 먼저 고칩니다.\n",
    "ReleaseNotes": "= Release notes =\n\n1.0 출시 준비 중.\n",
}


def seed(env_path: str) -> None:
    """Runs inside the applications' Python, where Trac is installed."""
    from trac.env import Environment
    from trac.perm import PermissionSystem
    from trac.ticket.model import Component, Milestone, Ticket
    from trac.wiki.model import WikiPage

    env = Environment(env_path)
    for component in Component.select(env):
        component.delete()
    for milestone in Milestone.select(env):
        milestone.delete()
    for name in COMPONENTS:
        component = Component(env)
        component.name = name
        component.insert()
    for name in MILESTONES:
        milestone = Milestone(env)
        milestone.name = name
        milestone.insert()
    permissions = PermissionSystem(env)
    for action in ANONYMOUS_MAY:
        if action not in permissions.get_user_permissions("anonymous"):
            permissions.grant_permission("anonymous", action)
    for summary, component, priority, status in TICKETS:
        ticket = Ticket(env)
        ticket.populate({"summary": summary, "component": component, "priority": priority, "type": "defect",
                         "status": status, "reporter": "지민", "description": f"{summary}.",
                         "milestone": MILESTONES[0], "resolution": "fixed" if status == "closed" else ""})
        ticket.insert()
    for name, text in WIKI.items():
        page = WikiPage(env, name)
        page.text = text
        page.save("지민", "처음 작성")
    env.shutdown()


# -- on the tests' side --------------------------------------------------------------------------
# apps_kit is imported where it is used: it brings pytest and goalbot, which the applications'
# Python that runs `seed` does not have.


@dataclass
class Trac:
    """A served environment: where it is, the address it answers on, and how long it took to start."""

    env: Path
    url: str
    started_in: float

    @property
    def db(self) -> Path:
        return self.env / "db" / "trac.db"

    def query(self, sql: str, *params: object) -> list[sqlite3.Row]:
        conn = sqlite3.connect(self.db)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def ticket(self, summary: str) -> sqlite3.Row | None:
        found = self.tickets_named(summary)
        return found[0] if found else None

    def tickets_named(self, summary: str) -> list[sqlite3.Row]:
        return self.query("select * from ticket where summary = ?", summary)

    def comments(self, ticket_id: int) -> list[str]:
        return [r["newvalue"] for r in self.query("select newvalue from ticket_change where ticket = ? and "
                                                  "field = 'comment' and newvalue != '' order by time",
                                                  str(ticket_id))]

    def wiki_text(self, name: str) -> str | None:
        found = self.query("select text from wiki where name = ? order by version desc limit 1", name)
        return found[0]["text"] if found else None

    def wiki_versions(self, name: str) -> int:
        return int(self.query("select count(*) as n from wiki where name = ?", name)[0]["n"])

    def attachments(self, ticket_id: int) -> list[sqlite3.Row]:
        return self.query("select * from attachment where type = 'ticket' and id = ?", str(ticket_id))

    def attached_file(self, ticket_id: int, filename: str) -> Path:
        """Where Trac keeps an attachment's bytes: files/attachments/ticket/<sha1 of the id's first
        three hex>/<sha1 of the id>/<sha1 of the name><ext> (Trac 1.x's layout)."""
        from hashlib import sha1

        parent = sha1(str(ticket_id).encode()).hexdigest()
        name = sha1(filename.encode()).hexdigest() + Path(filename).suffix
        return self.env / "files" / "attachments" / "ticket" / parent[:3] / parent / name

    def add_wiki_page(self, name: str, text: str) -> None:
        """A page of the test's own (a fresh name each time), made through Trac's own admin."""
        from apps_kit import app_command

        source = self.env.parent / f"{name}.wiki"
        source.write_text(text, encoding="utf-8")
        subprocess.run([str(app_command("trac-admin")), str(self.env), "wiki", "import", name, str(source)],
                       check=True, capture_output=True, timeout=60)


@contextmanager
def served_trac(folder: Path) -> Iterator[Trac]:
    """A fresh environment under `folder`, seeded, served by tracd on a free loopback port."""
    from apps_kit import Served, app_command, app_python, free_port

    env = folder / "trac-env"
    subprocess.run([str(app_command("trac-admin")), str(env), "initenv", "Project", "sqlite:db/trac.db"],
                   check=True, capture_output=True, timeout=120)
    subprocess.run([str(app_python()), __file__, str(env)], check=True, capture_output=True, timeout=120)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [app_command("tracd"), "-s", "--port", str(port), "--hostname", "127.0.0.1", env]
    with Served(command, f"{url}/", folder / "tracd.log") as served:
        yield Trac(env=env, url=url, started_in=float(served.started_in or 0.0))


if __name__ == "__main__":
    seed(sys.argv[1])
