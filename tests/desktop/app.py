"""A small Tk application that records every click and key it receives, for the desktop tests.

    python -m desktop.app LOG_FILE

It writes one JSON object per line to LOG_FILE: first `ready` with the screen position and size
of each widget, then `click`, `double`, `right`, `key`, `scroll` and `drag` events naming the
widget, and `text` with a field's content whenever it changes.
"""

from __future__ import annotations

import json
import sys
import tkinter as tk
from pathlib import Path


def main(log_path: str) -> None:
    log = Path(log_path).open("a", encoding="utf-8", buffering=1)

    def record(kind: str, **data: object) -> None:
        log.write(json.dumps({"event": kind, **data}, ensure_ascii=False) + "\n")

    root = tk.Tk()
    root.title("goalbot desktop test")
    root.geometry("640x460+100+80")
    font = ("DejaVu Sans", 16)
    name = tk.Entry(root, font=font)
    name.place(x=20, y=20, width=300, height=40)
    ok = tk.Button(root, text="OK", font=font)
    ok.place(x=340, y=20, width=100, height=40)
    delete = tk.Button(root, text="Delete all", font=font)
    delete.place(x=460, y=20, width=160, height=40)
    canvas = tk.Canvas(root, bg="white")
    canvas.place(x=20, y=80, width=600, height=300)
    mark = canvas.create_rectangle(10, 10, 60, 60, fill="orange")
    tk.Label(root, text="Password", font=font).place(x=20, y=400, height=40)
    password = tk.Entry(root, font=font, show="*")
    password.place(x=160, y=400, width=260, height=40)
    widgets = {"name": name, "ok": ok, "delete": delete, "canvas": canvas, "password": password}

    for label, widget in widgets.items():
        widget.bind("<Button-1>", lambda e, w=label: record("click", widget=w, x=e.x, y=e.y), add="+")
        widget.bind("<Double-Button-1>", lambda e, w=label: record("double", widget=w), add="+")
        widget.bind("<Button-3>", lambda e, w=label: (record("right", widget=w), canvas.itemconfig(mark, fill="blue")), add="+")
        widget.bind("<KeyPress>", lambda e, w=label: record("key", widget=w, keysym=e.keysym), add="+")
    ok.configure(command=lambda: (record("pressed", widget="ok"), ok.configure(text="Done")))
    delete.configure(command=lambda: (record("pressed", widget="delete"), canvas.delete("all")))
    for label, entry in (("name", name), ("password", password)):
        entry.bind("<KeyRelease>", lambda e, w=label, f=entry: record("text", widget=w, value=f.get()), add="+")
    for sequence in ("<Button-4>", "<Button-5>", "<MouseWheel>"):
        canvas.bind(sequence, lambda e: (record("scroll", widget="canvas", num=e.num), canvas.move(mark, 0, 10)), add="+")
    start: dict[str, int] = {}
    canvas.bind("<ButtonPress-1>", lambda e: start.update(x=e.x, y=e.y), add="+")
    canvas.bind("<ButtonRelease-1>", lambda e: (record("drag", widget="canvas", dx=e.x - start.get("x", e.x),
                                                       dy=e.y - start.get("y", e.y)),
                                                canvas.move(mark, e.x - start.get("x", e.x), 0)), add="+")

    def announce() -> None:
        root.update_idletasks()
        record("ready", widgets={label: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
                                 for label, w in widgets.items()})

    root.after(300, announce)
    root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1])
