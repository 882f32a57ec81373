"""Imports run one way: no import circle in attn_lib/ nor in tools/, read with ``ast`` (nothing is imported).

Every import statement counts, wherever it stands: at the top, inside a function (an import made lazily still ties
the two modules together) and under ``if TYPE_CHECKING:``. An edge goes from the importing module to:

- in attn_lib/, the module imported (``from .x import y``, ``from ..review import z``, ``import attn_lib.masks``;
  ``from . import x`` names the module x), and the packages above it that the import runs and the importer is not
  inside: ``from ..review._store import load`` in attn_lib.exercises runs attn_lib/review/__init__.py first, so it
  ties the checkers to everything the review package imports;
- in tools/, the tool imported by its own name (``import nav``, ``from problems import python_source``): the tools
  put tools/ on sys.path and import each other as top-level modules.

A failure names each circle, module by module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def package_modules(package: Path) -> dict[str, Path]:
    """Module name -> file for every module of ``package`` (a package's ``__init__.py`` is the package itself)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name ``from <node.level dots><node.module> import ...`` reads in ``module``."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_names(module: str, is_package: bool, tree: ast.AST) -> set[str]:
    """Every absolute module name an import in ``tree`` may name, inside functions too; a ``from x import y`` names
    both x and x.y (y may be a module)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, is_package, node)
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts))]


def package_graph(package: Path) -> dict[str, set[str]]:
    """attn_lib's import graph: module -> the modules of the package its imports run (see the module docstring)."""
    modules = package_modules(package)
    graph = {}
    for module, path in modules.items():
        inside = {module, *_ancestors(module)}  # already being imported when this module runs
        targets = set()
        for name in imported_names(module, path.name == "__init__.py", ast.parse(path.read_text(encoding="utf-8"))):
            if name in modules:
                targets.update(target for target in (*_ancestors(name), name)
                               if target in modules and target not in inside)
        graph[module] = targets
    return graph


def tools_graph(folder: Path) -> dict[str, set[str]]:
    """tools/'s import graph: tool -> the tools it imports by name."""
    tools = {path.stem: path for path in sorted(folder.glob("*.py"))}
    graph = {}
    for name, path in tools.items():
        imported = {found.split(".")[0] for found in imported_names(name, False, ast.parse(path.read_text("utf-8")))}
        graph[name] = {other for other in imported if other in tools and other != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import each other (a strongly connected component of more
    than one module, or a module importing itself), as a path that ends where it starts; [] when there is none."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def connect(module):  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                connect(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set()
            while module not in group:
                group.add(stack.pop())
            if len(group) > 1 or module in graph.get(module, ()):
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return [_circle_within(graph, group) for group in groups]


def _circle_within(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest circle from the group's first module back to itself, through the group only."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph[module] & group):
                if target == start:
                    return [*paths[module], start]
                if target not in paths:
                    paths[target] = [*paths[module], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{sorted(group)} is no circle")


GRAPHS = {
    "attn_lib": lambda: package_graph(ROOT / "attn_lib"),
    "tools": lambda: tools_graph(ROOT / "tools"),
}


@pytest.mark.parametrize("tree", sorted(GRAPHS))
def test_imports_run_one_way(tree):
    found = circles(GRAPHS[tree]())
    assert not found, f"import circles in {tree}/: " + "; ".join(" -> ".join(circle) for circle in found)


# A package -> the packages above it, which none of its modules may import, even through another module.
LOWER = {"attn_lib._record": ("attn_lib.exercises", "attn_lib.review"), "attn_lib.exercises": ("attn_lib.review",)}


def test_the_record_sits_below_the_checkers_and_the_review():
    """attn_lib/_record/ imports neither package, and the checkers never import the review (it imports them)."""
    graph = package_graph(ROOT / "attn_lib")

    def reached(module: str) -> set[str]:
        seen, todo = set(), [module]
        while todo:
            for target in graph[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        return seen

    def within(module: str, packages) -> bool:
        return any(module == package or module.startswith(package + ".") for package in packages)

    for module in graph:
        above = next((packages for below, packages in LOWER.items() if within(module, [below])), ())
        wrong = sorted(target for target in reached(module) if within(target, above))
        assert not wrong, f"{module} imports {wrong}, which sit above it"


def test_the_graph_sees_every_kind_of_import():
    graph = package_graph(ROOT / "attn_lib")
    assert {"attn_lib.exercises._judge", "attn_lib.exercises._types"} <= graph["attn_lib.exercises._check_scores"]
    assert "attn_lib._checks" in graph["attn_lib.exercises._check_count"]  # from .._checks import
    data_module = "attn_lib.exercises._data._predictions_00"  # in attn_lib/exercises/_data/ since the data moved
    assert "attn_lib.exercises" not in graph[data_module]  # from .._answers import: no edge to the package itself
    assert data_module in graph["attn_lib.exercises._problem_book"]  # from ._data import x
    assert "attn_lib.review._box" in graph["attn_lib.review._sessions"]  # an import inside a function
    assert "attn_lib.exercises" in graph["attn_lib.review._sessions"]  # a package's __init__ runs first
    assert "nav" in tools_graph(ROOT / "tools")["build_html"]  # import nav


def test_the_circle_finder_finds_circles_and_passes_a_tree():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"a"}}) == [["a", "a"]]
    two = circles({"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"e"}, "e": {"c"}})
    assert sorted(two) == [["a", "b", "a"], ["c", "d", "e", "c"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_a_circle_in_a_package_on_disk_is_found(tmp_path):
    package = tmp_path / "house"
    (package / "rooms").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rooms" / "__init__.py").write_text("from ._hall import door\n")
    (package / "rooms" / "_hall.py").write_text("def door():\n    from ..garden import gate\n")
    (package / "garden.py").write_text("from .rooms._hall import door\n")
    graph = package_graph(package)
    assert graph["house.garden"] == {"house.rooms", "house.rooms._hall"}
    assert circles(graph) == [["house.garden", "house.rooms._hall", "house.garden"]]
