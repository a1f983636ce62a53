"""Datasette 0.65.5, a data browser, serving a shop's products made for the tests.

`make_shop` writes a SQLite file of 60 products with Korean names, four categories and prices
(fixed by a formula, not by chance, so every run sees the same rows), and a metadata file that
facets the products table by category. `served_datasette` serves it on a free loopback port. The
tests judge goalbot's answers against this file, read with sqlite3."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from apps_kit import Served, app_command, free_port

CATEGORIES = ["과일", "채소", "음료", "과자"]  # fruit, vegetables, drinks, snacks
ITEMS = {
    "과일": ["사과", "배", "포도", "딸기", "귤", "복숭아", "자두", "참외", "수박", "감", "키위", "망고", "블루베리",
           "체리", "바나나", "레몬", "자몽"],
    "채소": ["배추", "무", "당근", "양파", "감자", "고구마", "오이", "호박", "시금치", "상추", "브로콜리", "마늘",
           "대파", "버섯", "가지"],
    "음료": ["녹차", "보리차", "식혜", "수정과", "두유", "우유", "커피", "콜라", "사이다", "오렌지주스", "유자차",
           "매실차", "탄산수", "홍차", "코코아"],
    "과자": ["새우깡", "초코파이", "꿀과자", "약과", "전병", "강정", "누룽지", "쌀과자", "양갱", "다식", "한과",
           "쿠키", "웨이퍼"],
}
TABLE = "products"


def _price(number: int) -> int:
    """Won, spread over 1,200–29,900 in steps of 100, with no two products at the cheapest price."""
    return 1200 + (number * 7919) % 288 * 100


def make_shop(folder: Path) -> tuple[Path, Path]:
    """The database (60 products) and its metadata (facets on category); both under `folder`."""
    db = folder / "shop.db"
    conn = sqlite3.connect(db)
    conn.execute(f"create table {TABLE} (id integer primary key, name text not null, category text not null, "
                 "price integer not null, stock integer not null)")
    number = 0
    for category in CATEGORIES:
        for item in ITEMS[category]:
            number += 1
            conn.execute(f"insert into {TABLE} values (?, ?, ?, ?, ?)",
                         (number, f"{item} {number:02d}호", category, _price(number), (number * 37) % 50))
    conn.commit()
    conn.close()
    metadata = folder / "metadata.json"
    metadata.write_text(json.dumps({"title": "가게", "databases": {"shop": {"tables": {
        TABLE: {"title": "상품", "facets": ["category"]}}}}}, ensure_ascii=False), encoding="utf-8")
    return db, metadata


@dataclass
class Datasette:
    db: Path
    url: str
    started_in: float

    @property
    def table_url(self) -> str:
        return f"{self.url}/shop/{TABLE}"

    def query(self, sql: str, *params: object) -> list[sqlite3.Row]:
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def count(self, category: str) -> int:
        return int(self.query(f"select count(*) as n from {TABLE} where category = ?", category)[0]["n"])


@contextmanager
def served_datasette(folder: Path) -> Iterator[Datasette]:
    db, metadata = make_shop(folder)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [app_command("datasette"), "serve", db, "--host", "127.0.0.1", "--port", str(port),
               "--metadata", metadata]
    with Served(command, f"{url}/-/versions.json", folder / "datasette.log") as served:
        yield Datasette(db=db, url=url, started_in=float(served.started_in or 0.0))
