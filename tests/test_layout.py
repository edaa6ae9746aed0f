"""The tree is the architecture (docs/design.md): checks import-linter cannot make.

``.importlinter`` holds the layer contracts and ``lint-imports`` runs them in CI; these
tests add what it does not check: no folder over 25 modules, no import cycle between any
two packages (nested ones included), and no NumPy-private module outside the one use that
is documented and guarded.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "symgrad"

# core/errstate.py reads NumPy's error-state context variable directly where the public API
# confirms it behaves as np.errstate (a third of each eager op's cost); see _errstate_var.
NUMPY_PRIVATE_ALLOWED = {
    ("core/errstate.py", "numpy._core"),  # NumPy 2: the error-state context variable
    ("core/errstate.py", "numpy.core"),  # NumPy 1.x: the per-thread error object
}


def test_no_folder_holds_more_than_25_modules():
    sizes = {
        str(d.relative_to(SRC)): len(list(d.glob("*.py")))
        for d in [SRC, *SRC.rglob("*")]
        if d.is_dir() and d.name != "__pycache__"
    }
    assert max(sizes.values()) <= 25, {d: n for d, n in sizes.items() if n > 25}


def test_no_numpy_private_imports():
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.startswith(("numpy._", "numpy.core")):
                    found.add((str(path.relative_to(SRC)), name))
    assert found == NUMPY_PRIVATE_ALLOWED


def _package_cycles() -> list[list[str]]:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter ([dev])")
    graph = grimp.build_graph("symgrad")
    modules = {m for m in graph.modules if m.startswith("symgrad.")}
    packages = {m for m in modules if any(x.startswith(m + ".") for x in modules)}

    def package(m: str) -> str:
        return m if m in packages else m.rsplit(".", 1)[0]

    edges: dict[str, set[str]] = {}
    for m in modules:
        for d in graph.find_modules_directly_imported_by(m):
            a, b = package(m), package(d)
            nested = b.startswith(a + ".") or a.startswith(b + ".")
            if d.startswith("symgrad.") and a != b and not nested:
                edges.setdefault(a, set()).add(b)
    return _strongly_connected(edges)


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in list(edges):
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycle_between_packages():
    assert _package_cycles() == []


def test_the_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _strongly_connected(edges) == [["a", "b", "c"]]


def test_importing_symgrad_provides_every_hook_the_lower_layers_call():
    import symgrad  # noqa: F401
    from symgrad.core import hooks

    called = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "hook"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                called.add(node.args[0].value)
    assert called >= {"autograph", "cond", "why_none", "IndexedSlices"}
    for name in sorted(called):
        assert callable(hooks.hook(name)), name
