"""The import graph of goalbot's own modules, read from their source (every import statement,
those inside functions and `if TYPE_CHECKING:` too), and the circles in it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOMS = ("goalbot", "tui", "storage")


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for room in ROOMS:
        for path in (root / room).rglob("*.py"):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                named = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {other for other in named if other in known and other != name}
    return graph


def circles(root: Path) -> list[list[str]]:
    """The groups of modules that import each other, round and round (Tarjan's strongly
    connected components of more than one module)."""
    graph = imports(root)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in graph[name]:
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == name:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return found
