"""The architecture holds (docs/architecture.md): no import circle anywhere in the service, the
contexts' one-way layers as pyproject.toml's import-linter contracts say, and migrations that
import nothing that changes after they ship."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import grimp

from tests.conftest import ROOT

MIGRATIONS = ROOT / "evidence_grpc/storage/migrations"
# Of the project's code a migration imports only its frozen neighbours (libraries are pinned
# by the release that installs them).
OWN_CODE = ("evidence_grpc", "rest_shim")
FROZEN = "evidence_grpc.storage.migrations."


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others():
    """Lazy imports inside functions count: a circle hidden in a function is still a circle."""
    graph = grimp.build_graph("evidence_grpc", "rest_shim")
    modules = {m for m in graph.modules if not m.startswith("evidence_grpc.api.")}
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    assert _circles(edges) == []


def test_the_import_contracts_hold():
    linted = subprocess.run([str(pathlib.Path(sys.executable).with_name("lint-imports")),
                             "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert linted.returncode == 0, linted.stdout[-3000:] + linted.stderr[-2000:]
    assert "0 broken" in linted.stdout


def _imports(path: pathlib.Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            names.append(node.module or "")
    return names


def test_no_migration_imports_what_changes_after_it_ships():
    wrong = {path.name: name for path in sorted(MIGRATIONS.glob("*.py"))
             for name in _imports(path)
             if name.split(".")[0] in OWN_CODE and not name.startswith(FROZEN)}
    assert wrong == {}
