"""The checkers' package reads one way: no import circle (type hints included), no module reaching into a
sibling's underscore names, no checker importing another checker, the data (``_data/``) read by the logic in one
place each, one name per role in every checker module."""

import ast
from pathlib import Path

import pytest

import attn_lib.exercises as exercises
from attn_lib.exercises._types import FunctionProblem

PACKAGE = Path(exercises.__file__).parent
DATA = "_data"  # the subpackage of the data: the catalogue's words and the prediction problems


def _name(path: Path) -> str:
    """A module's name within the package: ``_judge``, ``_data._mistakes``; a subpackage's __init__ is its own."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


MODULES = {_name(path): ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def _sibling_imports(name: str) -> list[tuple[str, list[str]]]:
    """(module of the package, names) for every relative import anywhere in module ``name`` (functions and
    ``if TYPE_CHECKING:`` blocks included); a submodule imported from its package (``from ._data import
    _predictions_02``) is a module, not a name."""
    package = name.split(".")[:-1] if "." in name or name == DATA else []
    found = []
    for node in ast.walk(MODULES[name]):
        if isinstance(node, ast.ImportFrom) and 0 < node.level <= len(package) + 1:  # not attn_lib's other modules
            base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            modules = [".".join([*base, alias.name]) for alias in node.names]
            if all(m in MODULES for m in modules):  # from . import x, from ._data import x
                found += [(m, []) for m in modules]
            else:
                found.append((".".join(base), [alias.name for alias in node.names]))
    return found


def _graph() -> dict[str, set[str]]:
    return {name: {module for module, _ in _sibling_imports(name)} for name in MODULES}


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (module -> modules it imports), as a path, or None."""
    state: dict[str, str] = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return [*path, module, target]
            if target not in state:
                found = visit(target, [*path, module])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [])
            if found:
                return found
    return None


def test_the_package_has_no_import_circle():
    assert _circle(_graph()) is None, " -> ".join(_circle(_graph()))


def test_the_circle_finder_finds_a_circle_and_passes_a_tree():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_siblings_underscore_names(module):
    private = [(sibling, name) for sibling, names in _sibling_imports(module) for name in names
               if name.startswith("_")]
    assert not private, f"{module} imports {private}: a name a sibling uses is public within the package"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("_check_")))
def test_no_checker_imports_another_checker(module):
    checkers = [sibling for sibling, _ in _sibling_imports(module) if sibling.startswith("_check_")]
    assert not checkers, f"{module} imports {checkers}: what two checkers share lives in a shared module"


def _function_problem_modules():
    import importlib

    for name in sorted(MODULES):
        if name.startswith("_check_"):
            module = importlib.import_module(f"attn_lib.exercises.{name}")
            problems = [value for value in vars(module).values() if isinstance(value, FunctionProblem)]
            if problems:
                yield name, module, problems


@pytest.mark.parametrize("name, module, problems", list(_function_problem_modules()),
                         ids=[name for name, _, _ in _function_problem_modules()])
def test_a_function_checker_module_names_each_role_once(name, module, problems):
    """PROBLEM, its cases, its mistakes and its hooks under the same names in every module, and the checker
    named after its module (check_chunked_attention in _check_chunked, an older name kept)."""
    problem = module.PROBLEM
    assert problem.cases is module._cases
    assert problem.mistakes is getattr(module, "_mistakes", problem.mistakes)
    for hook in ("diagnose", "after_pass", "batch_mistake"):
        if getattr(problem, hook) is not None and getattr(problem, hook).__name__ != "<lambda>":
            assert getattr(problem, hook).__module__ != module.__name__ or getattr(problem, hook) is getattr(
                module, f"_{hook}"), (name, hook)
    assert callable(getattr(module, problem.checker)), (name, problem.checker)
    exported = getattr(exercises, problem.checker)  # (a graded cell may have reloaded the module: not `is`)
    assert (exported.__module__, exported.__qualname__) == (module.__name__, problem.checker)
    others = {p.checker for p in problems}
    assert others == {problem.checker}, f"{name} holds more than one problem: {sorted(others)}"


# The package's layers, bottom to top, as attn_lib/exercises/__init__.py's docstring lists them: a module imports
# only from the layers below its own.
LAYERS = [
    {"_entry", DATA},
    {f"{DATA}._mistakes"},
    {"_catalogue"},
    {"_feedback"},
    {"_types"},
    {"_compare", "_pieces", "_learner_code", "_record_verdict"},
    {"_running"},
    {"_explain"},
    {"_judge"},
    {"_answers", "_weights_diagnosis", "_attention_mistakes"},
    {name for name in MODULES if name.startswith("_check_")} | {"_grading", "_prediction"},
    {name for name in MODULES if name.startswith(f"{DATA}._predictions_")},
    {"_problem_book"},
    {"__init__"},
]


def test_every_module_is_in_one_layer():
    placed = [name for layer in LAYERS for name in layer]
    assert sorted(placed) == sorted(MODULES), set(MODULES) ^ set(placed)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_from_the_layers_below_it(module):
    level = next(i for i, layer in enumerate(LAYERS) if module in layer)
    below = set().union(*LAYERS[:level])
    upward = sorted(target for target in _graph()[module] if target not in below)
    assert not upward, f"{module} imports {upward}, which are not below it"


# The logic reads each kind of data in one place: the catalogue's words, the prediction problems.
READERS = {f"{DATA}._mistakes": {"_catalogue"}, f"{DATA}._predictions_": {"_problem_book"}}


def test_the_logic_reads_the_data_in_one_place_each():
    readers = {kind: sorted(name for name in MODULES if not name.startswith(f"{DATA}.") and any(
        target.startswith(kind) for target in _graph()[name])) for kind in READERS}
    assert readers == {kind: sorted(names) for kind, names in READERS.items()}, (
        "attn_lib/exercises/_data/ is read by _catalogue.py (the catalogue) and _problem_book.py (the prediction "
        f"problems) alone: {readers}")


def test_the_data_holds_every_prediction_module_and_the_catalogues_words():
    assert f"{DATA}._mistakes" in MODULES
    assert sorted(n for n in MODULES if "_predictions_" in n) == [f"{DATA}._predictions_{k:02d}" for k in range(11)]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_code_reads_facts_out_of_a_feedback_message(module):
    """A reason is written for the learner and may be reworded: code may add to one, never read one (no
    ``.reason.split``, no ``... in feedback.reason``)."""
    reads = []
    for node in ast.walk(MODULES[module]):
        if isinstance(node, ast.Attribute) and node.attr in ("split", "partition", "find", "index", "startswith") \
                and isinstance(node.value, ast.Attribute) and node.value.attr in ("reason", "hint"):
            reads.append(node.lineno)
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and any(
                isinstance(c, ast.Attribute) and c.attr in ("reason", "hint") for c in node.comparators):
            reads.append(node.lineno)
    assert not reads, f"{module} reads a feedback message at lines {reads}"
