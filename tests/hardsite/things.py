"""Two shapes real applications have, kept apart from the rest of hardsite's pages:

- an admin (Django's, Trac's): `/things/add/` posts a form and, once the object is made, is sent
  on to `/things/<new id>/change/`, which announces it once ("The thing #5 “bob” was added …").
  Ids only grow, as a database's do, across tests too; a name taken already gets the form again
  with an error, at the same address, as Django's admin answers it.
- a data browser (Datasette's): `/data/cities?country=X` filters a table of cities, says the count
  in its heading ("12 rows where country = "X"") and again in the facet of every country, sorted by
  count as facets are, so the filtered one is not always first.
"""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

PAGES = Path(__file__).parent / "pages"
FIRST_ID = 4  # three things were made before any test: ids are never a list's positions
CITIES = [("Madrid", "Spain"), ("Seville", "Spain"), ("Valencia", "Spain"), ("Bilbao", "Spain"),
          ("Lyon", "France"), ("Paris", "France"), ("Lima", "Peru")]


@dataclass
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Thing:
    id: int
    name: str
    note: str = ""
    said: str = ""  # the announcement the next visit to its page makes, once


class Things:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.made: list[Thing] = []
        self.next_id = FIRST_ID
        self.misnamed = ""  # a bug a test turns on: the announcement names this instead of the thing
        self.cities: list[tuple[str, str]] = list(CITIES)

    def reset(self) -> None:
        """What a test set is undone; what was made stays made, and its ids stay used."""
        with self.lock:
            self.misnamed = ""
            self.cities = list(CITIES)

    def named(self, name: str) -> Thing | None:
        with self.lock:
            return next((thing for thing in self.made if thing.name == name), None)

    def answers(self, path: str) -> bool:
        return path == "/things/add/" or path.startswith("/things/") or path == "/data/cities"

    def get(self, target: str) -> Answer:
        path = urlsplit(target).path
        if path == "/things/add/":
            return self._form("")
        if path == "/data/cities":
            return self._cities(parse_qs(urlsplit(target).query).get("country", [""])[0])
        thing = self._thing_at(path)
        if thing is None:
            return Answer(404, b"no such thing")
        with self.lock:
            said, thing.said = thing.said, ""
        return self._page("thing-change.html", ID=str(thing.id), NAME=thing.name, NOTE=thing.note,
                          SAID=f'<ul class="messagelist"><li role="status">{html.escape(said)}</li></ul>' if said else "")

    def post(self, path: str, body: str) -> Answer:
        form = {key: values[0] for key, values in parse_qs(body).items()}
        if path == "/things/add/":
            return self._add(form.get("name", "").strip())
        thing = self._thing_at(path)
        if thing is None:
            return Answer(404, b"no such thing")
        with self.lock:
            thing.note = form.get("note", thing.note)
            thing.said = f"The thing #{thing.id} “{self.misnamed or thing.name}” was changed successfully."
        return Answer(302, headers={"Location": f"/things/{thing.id}/change/"})

    def _add(self, name: str) -> Answer:
        """A new thing under the next id, or the form again saying why not (nothing made)."""
        with self.lock:
            taken = any(thing.name == name for thing in self.made)
            if not name or taken:
                made = None
            else:
                made = Thing(self.next_id, name, said=f"The thing #{self.next_id} “{self.misnamed or name}” was "
                                                      "added successfully. You may edit it again below.")
                self.next_id += 1
                self.made.append(made)
        if made is None:
            return self._form("A thing with that name already exists." if taken else "This field is required.")
        return Answer(302, headers={"Location": f"/things/{made.id}/change/"})

    def _thing_at(self, path: str) -> Thing | None:
        parts = [part for part in path.split("/") if part]
        if len(parts) != 3 or parts[0] != "things" or parts[2] != "change" or not parts[1].isdigit():
            return None
        with self.lock:
            return next((thing for thing in self.made if thing.id == int(parts[1])), None)

    def _form(self, error: str) -> Answer:
        return self._page("thing-add.html", ERROR=f'<p class="errornote" role="alert">{error}</p>' if error else "")

    def _cities(self, country: str) -> Answer:
        with self.lock:
            cities = list(self.cities)
        counts: dict[str, int] = {}
        for _, where in cities:
            counts[where] = counts.get(where, 0) + 1
        facets = "".join(
            f'<li><a href="?{urlencode({"country": where})}">{html.escape(where)}</a> {n}'
            + (' <a href="?" title="remove this filter">✖</a>' if where == country else "") + "</li>"
            for where, n in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])))
        shown = [(n, city, where) for n, (city, where) in enumerate(cities, 1) if where == country]
        rows = "".join(f"<tr><td>{n}</td><td>{html.escape(city)}</td><td>{html.escape(where)}</td></tr>"
                       for n, city, where in shown)
        return self._page("cities.html", COUNT=str(len(shown)), COUNTRY=country, FACETS=facets, ROWS=rows)

    @staticmethod
    def _page(name: str, **parts: str) -> Answer:
        text = (PAGES / name).read_text(encoding="utf-8")
        for key, value in parts.items():
            text = text.replace("{{" + key + "}}", value if key in ("SAID", "ERROR", "FACETS", "ROWS")
                                else html.escape(value))
        return Answer(200, text.encode(), {"Content-Type": "text/html; charset=utf-8"})
