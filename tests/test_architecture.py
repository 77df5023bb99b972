"""The package's shape: parts that import one way, no import circles, no private names reached into.

The parts and what each may import are the table below (docs/architecture.md, "The parts"). Every
import counts, those inside functions too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gitgarden"

# part -> the parts it may import (besides itself). A top-level module is a part of its own.
MAY_IMPORT: dict[str, set[str]] = {
    "errors": set(),
    "atomic": set(),  # the one atomic write: any part may use it
    "wiki": {"errors", "atomic"},
    "repo": {"wiki", "errors", "atomic"},
    "config": {"wiki", "errors", "atomic"},
    "store": {"repo", "wiki", "errors", "atomic"},
    "sharing": {"repo", "wiki", "errors", "atomic"},
    "adopt": {"wiki", "errors", "atomic"},
    "project": {"adopt", "config", "store", "repo", "wiki", "errors", "atomic"},
    "guard": {"wiki", "errors", "atomic"},
    "gitguard": {"guard", "project", "config", "store", "repo", "wiki", "errors", "atomic"},
    "model": {"project", "config", "wiki", "errors", "atomic"},
    "search": {"project", "config", "repo", "wiki", "errors", "atomic"},
    "history": {"project", "config", "repo", "wiki", "errors", "atomic"},
    "gardener": {"history", "search", "model", "guard", "project", "config", "sharing", "store", "repo", "wiki", "errors", "atomic"},
    "answer": {"search", "model", "guard", "history", "project", "config", "store", "repo", "wiki", "errors", "atomic"},
    "schedule": {"gardener", "history", "model", "guard", "project", "config", "sharing", "store", "repo", "wiki", "errors", "atomic"},
    "services": {
        "answer", "schedule", "gardener", "history", "search", "model", "gitguard", "guard", "project", "config", "sharing", "store",
        "repo", "wiki", "errors",
    },
    # The faces call services (and history's log, show, undo and review, which the CLI calls too),
    # never the gardener, the scheduler, the model or git directly.
    "agents": {"services", "search", "project", "config", "errors"},
    "web": {"services", "history", "project", "config", "wiki", "errors"},
    "cli": {
        "web", "agents", "services", "schedule", "gardener", "history", "search", "model", "gitguard", "guard", "project",
        "config", "sharing", "store", "repo", "wiki", "errors",
    },
}  # fmt: skip
TOP = {"__init__", "__main__"}  # the package's own door: the version, `python -m gitgarden`


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        out[name] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every gitgarden import in the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.split(".")[0] == "gitgarden"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != "gitgarden":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub, []) if sub in known else (base, [alias.name]))
    return found


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_is_in_the_table() -> None:
    parts = {_part(m) for m in _modules()} - TOP
    assert parts <= set(MAY_IMPORT), f"a part the table does not know: {sorted(parts - set(MAY_IMPORT))}"


def test_parts_import_one_way() -> None:
    known = _modules()
    wrong = []
    for name, path in sorted(known.items()):
        here = _part(name)
        if here in TOP:
            continue
        for target, _names in _imports(name, path, known):
            there = _part(target)
            if there != here and there not in MAY_IMPORT[here] and target != "gitgarden":
                wrong.append(f"{name} imports {target} ({here} may not import {there})")
    assert wrong == []


def test_no_module_imports_one_that_imports_it_back() -> None:
    known = _modules()
    edges = {m: {t for t, _ in _imports(m, p, known) if t in known and t != m} for m, p in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert circles == []


def test_no_private_name_is_taken_from_another_module() -> None:
    known = _modules()
    reached = [
        f"{name} takes {n} from {target}"
        for name, path in sorted(known.items())
        for target, names in _imports(name, path, known)
        for n in names
        if n.startswith("_") and not n.startswith("__") and target != name
    ]
    assert reached == []


def test_every_part_says_what_it_is_for() -> None:
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"{init.parent.name}/__init__.py should say what the part is for and may import"


def test_no_part_is_named_like_a_library_it_uses() -> None:
    parts = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert not parts & {"git", "mcp", "litellm", "click", "rich", "yaml", "frontmatter", "starlette", "uvicorn", "sqlite3"}


MODULE_LINES = 500  # a module small enough to hold in your head (STYLE.md, habit 8)
FUNCTION_LINES = 80  # a function that reads as a few named steps


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for name, path in sorted(_modules().items()):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            too_long.append(f"{name}: {lines} lines (module, at most {MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1  # from `def`: decorators declare
                if size > FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {size} lines (function, at most {FUNCTION_LINES})")
    assert not too_long, "too long (split by idea, not by line count):\n" + "\n".join(too_long)
