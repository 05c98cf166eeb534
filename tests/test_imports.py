"""The import graph stays honest: cast's modules form no circle except the few listed below (each
two halves of one idea in one package), and an import of a cast module inside a function is there
only to keep something off a start-up path, which its comment says. Every import counts: module
level, under TYPE_CHECKING and inside functions, so a circle cannot hide in a function.

The reason is a comment on the import's own lines (or a comment line just above it) that says
"deferred" and what for, or, where the module is already loaded and the import is a lookup, "loaded
by"; any other comment nearby is not a reason."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MAX_CIRCLES = 4
# The circles that are one idea split in two, in one package: module names -> why the halves know each other.
ONE_IDEA: dict[frozenset[str], str] = {}


def modules(package: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module under `package` (a package's own name for its __init__)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(name: str, path: Path, node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> set[str]:
    """The package's modules an import statement loads (`from a import b` is a.b when b is a module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    return {n for n in names if n in known and n != name}


def imports(known: dict[str, Path]) -> Iterator[tuple[str, str, ast.Import | ast.ImportFrom, bool]]:
    """(importer, imported, statement, inside a function) for every import of a package module."""
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        local: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                local.update(id(inner) for inner in ast.walk(node))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(name, path, node, known):
                    yield name, target, node, id(node) in local


def circles(known: dict[str, Path]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    edges: dict[str, set[str]] = {name: set() for name in known}
    for importer, imported, _, _ in imports(known):
        edges[importer].add(imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def knots(found: list[frozenset[str]], one_idea: dict[frozenset[str], str]) -> list[frozenset[str]]:
    """Circles that cross a package or are not a listed idea split in two."""
    return [c for c in found if len({m.rsplit(".", 1)[0] for m in c}) > 1 or c not in one_idea]


REASON = re.compile(r"\b(deferred|loaded by)\b")


def _reasons(source: str) -> set[int]:
    """Lines with a comment that gives a reason; a comment alone on its line counts for the next line too."""
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and REASON.search(token.string):
            found.add(token.start[0])
            if not token.line[: token.start[1]].strip():
                found.add(token.start[0] + 1)
    return found


def unexplained(known: dict[str, Path]) -> list[str]:
    """Function-local imports of package modules with no reason on their lines (or a comment line above)."""
    reasons = {name: _reasons(path.read_text()) for name, path in known.items()}
    seen = set()
    for importer, _, node, inside in imports(known):
        lines = set(range(node.lineno, node.end_lineno + 1))  # type: ignore[operator]
        if inside and not lines & reasons[importer] and (importer, node.lineno) not in seen:
            seen.add((importer, node.lineno))
    return [
        f"{known[name].relative_to(ROOT) if known[name].is_relative_to(ROOT) else known[name]}:{line}"
        for name, line in sorted(seen)
    ]


def test_cast_has_at_most_the_listed_circles_and_no_knot():
    found = circles(modules(ROOT / "cast"))
    assert len(found) <= MAX_CIRCLES, sorted(sorted(c) for c in found)
    assert knots(found, ONE_IDEA) == [], [sorted(c) for c in knots(found, ONE_IDEA)]


def test_every_function_local_import_of_cast_says_why():
    assert unexplained(modules(ROOT / "cast")) == []


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules(tmp_path / "pkg")


def test_a_circle_through_a_function_local_import_is_found_and_is_a_knot_across_packages(tmp_path):
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low/__init__.py": "",
            "low/base.py": "def f():\n    from pkg.high import app  # deferred: a reason\n",
            "high/__init__.py": "",
            "high/app.py": "from pkg.low.base import f\n",
            "high/view.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high.keys import K\n",
            "high/keys.py": "from . import view\n",
        },
    )
    found = circles(known)
    assert sorted(sorted(c) for c in found) == [["pkg.high.app", "pkg.low.base"], ["pkg.high.keys", "pkg.high.view"]]
    pair = frozenset({"pkg.high.keys", "pkg.high.view"})
    assert knots(found, {pair: "one idea"}) == [frozenset({"pkg.high.app", "pkg.low.base"})]
    assert sorted(knots(found, {}), key=sorted) == sorted(found, key=sorted)  # an unlisted pair is a knot too


def test_a_function_local_import_without_a_comment_is_named(tmp_path):
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import json\n\ndef f():\n    import json as j\n    from pkg import b\n\ndef g():\n    # deferred: keeps b off the start\n    from pkg import b\n    from pkg.b import (\n        x,  # deferred: keeps b off the start\n    )\n",
            "b.py": "x = 1\n",
            "c.py": "def f():\n    from pkg import b  # noqa: F401\n\ndef g():\n    x = 1  # deferred: a comment of another line\n    from pkg import b\n\ndef h():\n    from pkg import b  # loaded by f: a lookup\n",
        },
    )
    assert unexplained(known) == [
        f"{tmp_path / 'pkg' / 'a.py'}:5",
        f"{tmp_path / 'pkg' / 'c.py'}:2",
        f"{tmp_path / 'pkg' / 'c.py'}:6",
    ]


if __name__ == "__main__":
    print("\n".join(unexplained(modules(ROOT / "cast"))))
    print(*(sorted(c) for c in circles(modules(ROOT / "cast"))), sep="\n", file=sys.stderr)
