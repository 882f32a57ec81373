"""The audit of collected submissions: the code cells a learner could write (answer cells and inserted cells) that
reach for the grading machinery, for the teacher to read before trusting their points.

nbgrader puts every locked cell of the source notebook back before it autogrades; any other code cell of a
submission runs as the learner wrote it: an answer cell, or a cell the learner inserted (it has no nbgrader id).
Run it through ``python tools/nbgrader_course.py DIR --audit``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from problems import python_source  # noqa: E402  (tools/problems.py)
from nbgrader_release import has_release_metadata, locked_ids  # noqa: E402  (tools/nbgrader_release.py)
import nbgrader_ways_in as ways_in  # noqa: E402  (tools/nbgrader_ways_in.py: the release's ids of a course notebook)

# What a learner's cell has no business touching: the grading machinery (a checker, its Feedback, assert_correct),
# and the ways to reach past a name into modules, attributes or the namespace. "sys" is reported on its own: an
# honest debug print (`print(..., file=sys.stderr)`) uses it, so a cell whose only hit is "sys" is usually that.
SUSPECT_NAMES = {"exercises", "check", "use_student_numbers", "Feedback", "CheckFailed", "assert_correct", "builtins",
                 "__builtins__", "sys", "importlib", "__import__", "globals", "locals", "vars", "getattr", "setattr",
                 "delattr", "get_ipython", "exec", "eval", "compile", "environ", "chdir"}
# Modules whose attributes a learner's cell should never set, imported in the cell or not.
PATCHED_MODULES = {"np", "numpy", "attn_lib", "math"}


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (``np`` for ``np.linalg.norm``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment or del statement writes to, tuples unpacked."""
    if isinstance(node, ast.Assign):
        found = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [node.target]
    elif isinstance(node, ast.Delete):
        found = list(node.targets)
    else:
        return []
    flat = []
    while found:
        target = found.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            found.extend(target.elts)
        else:
            flat.append(target)
    return flat


def suspicious(source: str) -> list[str]:
    """What in a cell's code reaches for the grading machinery: checker names, attn_lib.exercises, Feedback, module
    and namespace surgery (``sys.modules``, ``__import__``, ``vars(``, ``setattr`` ...), and an attribute set or
    deleted on a module the cell imports or on numpy, math or attn_lib (``sets np.isclose``); sorted, each once."""
    try:
        tree = ast.parse(python_source(source))
    except SyntaxError:
        return ["does not parse"]
    imported = set(PATCHED_MODULES)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
            if node.attr == "modules" and _root(node) == "sys":
                found.add("sys.modules")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            names = [*module.split("."), *(part for a in node.names for part in a.name.split("."))]
        found |= {n for n in names if n in SUSPECT_NAMES or n.startswith("check_")}
        verb = "deletes" if isinstance(node, ast.Delete) else "sets"
        for target in _targets(node):
            if isinstance(target, ast.Attribute) and _root(target) in imported:
                found.add(f"{verb} {ast.unparse(target)}")
    return sorted(found)


def audit(directory: Path) -> list[str]:
    """One line per learner-written code cell of a collected submission (DIR/submitted/STUDENT/ASSIGNMENT/*.ipynb)
    that reaches for the grading machinery: answer cells by grade_id, inserted cells (and any cell whose nbgrader id
    is not a locked cell of DIR/source/) by position. A course notebook handed in from another way in is read with
    the release's ids, as autograde reads it (tools/nbgrader_ways_in.py); one it cannot read so gets a line saying
    why.

    Raises
    ------
    FileNotFoundError
        When DIR/submitted/ does not exist (not a course folder, or nothing collected yet).
    """
    submitted = directory / "submitted"
    if not submitted.is_dir():
        raise FileNotFoundError(f"{directory}: no submitted/ folder (is it the course folder, and have you "
                                "collected the submissions?)")
    lines = []
    for path in sorted(submitted.glob("*/*/*.ipynb")):
        student, name = path.parent.parent.name, path.parent.name
        source = directory / "source" / name / path.name
        restored = locked_ids(source)
        nb = nbformat.read(path, as_version=4)
        if source.is_file() and not has_release_metadata(nb):  # a course notebook from another way in
            try:
                ways_in.give_release_metadata(nb, nbformat.read(source, as_version=4), name)
            except ways_in.HandInError as error:
                lines.append(f"{student} {name}: not graded: {error}")
                continue
        for index, cell in enumerate(nb.cells):
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or grade_id in restored:
                continue
            found = suspicious(cell.source)
            if found:
                where = grade_id if grade_id else f"inserted cell {index}"
                lines.append(f"{student} {name} {where}: {', '.join(found)}")
    return lines
