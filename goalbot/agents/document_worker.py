"""Reads one PDF in a process of its own, which the run kills when it takes too long: a document is
input from a site, and a small one can keep a PDF library busy for minutes (pages that each draw
one heavy stream, forms drawn inside forms). Run as `python -m goalbot.agents.document_worker
PDF DIR`; it prints one JSON object a line: `{"pages": N}` first, `{"page": n, "text": …}` for
each page read, `{"rendered": [PNG, …]}` (pictures of a scanned document's pages, in DIR) or
`{"refused": why}`, and `{"done": true}` last."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

MOST_PAGES = 50
MOST_SCANNED = 5  # pages of a scanned document rendered for OCR: each takes a tesseract run
MOST_CHARS = 200_000
# What a page may draw, decoded, and all the pages read together (a stream counted each time a
# page draws it): an invoice's page draws a few kilobytes, and reading a megabyte of drawing
# takes the library over a second.
MOST_PAGE_DRAWN = 1_000_000
MOST_DRAWN = 8_000_000
MOST_CPU_S = 60


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m goalbot.agents.document_worker PDF DIR", file=sys.stderr)
        return 2
    path, renders = Path(argv[0]), Path(argv[1])
    _bounded()
    try:
        read(path, renders)
    except Exception as exc:  # noqa: BLE001 — whatever the library raises on a hostile file, the run reads a reason
        say(refused=f"it cannot be read as a PDF ({type(exc).__name__})")
    say(done=True)
    return 0


def _bounded() -> None:
    """Ends with the run even when the run could not kill it (killed itself), and in CPU time of
    its own when orphaned: the run's deadline is the bound, these are its backstop."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CPU, (MOST_CPU_S, MOST_CPU_S))
    if sys.platform == "linux":
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def say(**line: Any) -> None:
    print(json.dumps(line), flush=True)


def read(path: Path, renders: Path) -> None:
    from pypdf import PdfReader

    reader = PdfReader(path)
    pages = reader.pages
    say(pages=len(pages))
    drawn, chars = 0, 0
    for number, page in enumerate(pages[:MOST_PAGES], 1):
        this = _drawn_bytes(page)
        drawn += this
        if this > MOST_PAGE_DRAWN or drawn > MOST_DRAWN:
            say(refused=f"its page {number} draws {this / 1_000_000:.1f} MB ({drawn / 1_000_000:.1f} MB in its first "
                        f"{number} pages), more than the {MOST_PAGE_DRAWN // 1_000_000} MB a page and "
                        f"{MOST_DRAWN // 1_000_000} MB a document read may draw")
            return
        text = page.extract_text() or ""
        say(page=number, text=text[:MOST_CHARS - chars])
        chars += len(text)
        if chars >= MOST_CHARS:
            return
    if chars == 0:
        say(rendered=_rendered(path, renders))


def _drawn_bytes(page: Any) -> int:
    contents = page.get_contents()
    return len(contents.get_data()) if contents is not None else 0


def _rendered(path: Path, renders: Path) -> list[str]:
    """Pictures of a scanned document's first pages (no text layer), for OCR."""
    import pypdfium2 as pdfium  # only a scanned document pays for it

    document = pdfium.PdfDocument(path)
    made = []
    for number in range(min(len(document), MOST_SCANNED)):
        picture = renders / f"page-{number + 1}.png"
        document[number].render(scale=1.5).to_pil().save(picture)
        made.append(str(picture))
    return made


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
