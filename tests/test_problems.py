"""tools/problems.py: what a problem is, and whether it asks for a function, against the notebooks' placeholders."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import problems  # noqa: E402  (tools/problems.py)


@pytest.mark.parametrize("name", problems.numbered_notebooks())
def test_exactly_the_function_problems_have_a_stub_that_raises_not_implemented(name):
    nb = nbformat.read(problems.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    for problem in problems.problems(nb, name):
        stub = "raise NotImplementedError" in problem.answer.source
        assert stub == problem.asks_for_a_function, (name, problem.heading)


@pytest.mark.parametrize("source, expected", [
    ("def f(x):\n    raise NotImplementedError", True),
    ("import numpy as np\n\ndef f(x):\n    return x", True),
    ("answer = None  # your answer here", False),
    ("answer = (lambda x: x)", False),
    ("%time x = 1\ndef f(x):\n    return x", True),
    ("def broken(:", False),
])
def test_asks_for_a_function_when_the_answer_cell_defines_one(source, expected):
    assert problems.asks_for_a_function(nbformat.v4.new_code_cell(source)) is expected


def test_a_heading_without_its_two_code_cells_is_refused_by_name():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("### Problem 1: one"),
                                         nbformat.v4.new_code_cell("answer = None")])
    with pytest.raises(problems.ProblemShapeError, match="here: 'Problem 1: one' should be followed"):
        problems.problems(nb, "here")


def test_every_notebook_and_solutions_notebook_heads_a_problem_one_way():
    """Each cell that names a problem in a heading starts with "### Problem K: ..." (problems.FORM), in the learner
    notebooks and the solutions alike, and names no other problem in a heading below that line."""
    wrong = []
    for path in sorted([*problems.NOTEBOOKS.glob("*.ipynb"), *(problems.NOTEBOOKS / "solutions").glob("*.ipynb")]):
        rel = path.relative_to(problems.NOTEBOOKS).as_posix()
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if problems.is_problem_heading(cell):
                first, *rest = cell.source.strip().splitlines()
                if not problems.FORM.match(first) or problems.HEADING.search("\n".join(rest)):
                    wrong.append(f"{rel} cell {i}: {first[:80]!r}")
    assert not wrong, 'head each problem "### Problem K: <title>" as the first line of its cell:\n' + "\n".join(wrong)


@pytest.mark.parametrize("heading, one_way", [
    ("### Problem 3: the scores' shape", True),
    ("## Problem 3: the scores' shape", False),
    ("#### Problem 3: the scores' shape", False),
    ("### Problem 3 - the scores' shape", False),
    ("### Exercise 3: the scores' shape", False),
])
def test_the_one_form_of_a_problem_heading(heading, one_way):
    assert problems.is_problem_heading(nbformat.v4.new_markdown_cell(heading))
    assert bool(problems.FORM.match(heading)) is one_way


def _problem_then(*after):
    """A notebook of one prediction problem, then the cells ``after`` (("code", has_output) or ("markdown", text))."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md("### Problem 1: a guess"), code("answer = None"), code("check_number(answer, 2)")]
    for kind, what in after:
        cell = code("print(2)") if kind == "code" else md(what)
        if kind == "code" and what:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    return nb, problems.problems(nb, "test")[0]


@pytest.mark.parametrize("after, follows", [
    ([("code", True)], True),
    ([("markdown", "Prose first."), ("code", False), ("code", True)], True),
    ([("markdown", "## The next idea"), ("code", True)], False),
    ([("code", False)], False),
    ([], False),
])
def test_a_code_cell_with_output_before_the_next_heading_follows_the_checker(after, follows):
    assert problems.output_follows(*_problem_then(*after)) is follows


# --- what kind of thinking each problem asks for ------------------------------------------------------------------

def _course_problems(folder=""):
    """(notebook, problem) for every problem of the numbered notebooks (folder="solutions": of their solutions)."""
    found = []
    for name in problems.numbered_notebooks():
        rel = f"{folder}/{name}-solutions.ipynb" if folder else f"{name}.ipynb"
        nb = nbformat.read(problems.NOTEBOOKS / rel, as_version=4)
        found += [(rel, problem) for problem in problems.problems(nb, rel)]
    return found


@pytest.mark.parametrize("folder", ["", "solutions"])
def test_every_prediction_with_variants_is_stated_by_its_own_statement_cell_and_no_other_problem_is(folder):
    """A statement whose numbers change with the learner is written from the problem's data, in the cell
    ``statement("NN-PK")`` under its heading, naming the problem its checker checks; its output, stored, is the
    notebook's own statement (seed 0). A problem with one meaningful instance keeps its statement in its heading."""
    from attn_lib.exercises._problem_book import PREDICTIONS

    wrong = []
    for rel, p in _course_problems(folder):
        match = re.search(r'check\("(\d\d-P\d+)"', p.checker.source)
        varies = bool(match) and PREDICTIONS[match.group(1)].has_variants
        if not varies:
            if p.statement is not None:
                wrong.append(f"{rel} {p.heading!r}: a statement cell for a problem whose numbers never change")
            continue
        if p.statement_of != match.group(1):
            wrong.append(f"{rel} {p.heading!r}: states {p.statement_of}, checks {match.group(1)}")
            continue
        shown = [o for o in p.statement.get("outputs", []) if "attn_course" in o.get("metadata", {})]
        if ["problem-statement"] != p.statement.metadata.get("tags") or len(shown) != 1 or \
                shown[0]["metadata"]["attn_course"] != {"statement_of": p.statement_of, "seed": 0, "student": None} \
                or shown[0]["data"]["text/markdown"] != PREDICTIONS[p.statement_of].variant(0).text:
            wrong.append(f"{rel} {p.heading!r}: its statement cell is not tagged problem-statement or does not show "
                         "the notebook's own statement")
    assert not wrong, "\n".join(wrong)


def test_each_notebooks_assignment_is_its_file_stem():
    """A stated course id draws a student's seed from the assignment, which attn_lib names by notebook number."""
    from attn_lib.exercises._problem_book import ASSIGNMENTS

    assert ASSIGNMENTS == {stem[:2]: stem for stem in problems.numbered_notebooks()}


@pytest.mark.parametrize("folder", ["", "solutions"])
def test_every_problem_names_exactly_one_kind(folder):
    wrong = [f"{rel}: {p.heading!r} has kinds {p.kinds}" for rel, p in _course_problems(folder) if len(p.kinds) != 1]
    assert not wrong, "tag each problem's heading cell with one of " + ", ".join(
        problems.KIND_TAG.format(k) for k in problems.KINDS) + ":\n" + "\n".join(wrong)


def test_a_problem_has_the_same_kind_in_the_learner_and_the_solutions_notebook():
    learner = [(p.heading, p.kinds) for _, p in _course_problems()]
    solutions = [(p.heading, p.kinds) for _, p in _course_problems("solutions")]
    assert [k for _, k in learner] == [k for _, k in solutions], list(zip(learner, solutions))


def test_at_most_one_problem_per_notebook_only_recalls():
    by_notebook = {}
    for rel, p in _course_problems():
        if p.kinds == ["recall"]:
            by_notebook.setdefault(rel, []).append(p.heading)
    assert all(len(h) <= 1 for h in by_notebook.values()), {rel: h for rel, h in by_notebook.items() if len(h) > 1}


def test_most_problems_ask_for_transfer():
    found = _course_problems()
    transfer = sum(p.kinds == ["transfer"] for _, p in found)
    assert transfer >= 0.6 * len(found), f"{transfer} of {len(found)} problems ask for transfer; at least 60 % should"


def _checker_call(problem):
    """The checker cell's call, without the author's texts: the checker's name and its arguments as written; for a
    prediction, the call its judge makes on the notebook's numbers (the checker and its arguments, the answer left
    out)."""
    import ast

    from attn_lib.exercises._answers import CALLS
    from attn_lib.exercises._problem_book import PREDICTIONS
    try:
        tree = ast.parse(problems.python_source(problem.checker.source))
    except SyntaxError:
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id.startswith("check")]
    if not calls:
        return None
    call = calls[0]
    if call.func.id == "check":
        token = CALLS.set([])
        try:
            PREDICTIONS[call.args[0].value].variant(0).check(None)
            recorded = CALLS.get()
        finally:
            CALLS.reset(token)
        if not recorded:  # a choice or a checker of its own: its id is its own check
            return None
        name, args, kwargs = recorded[-1]
        answer_at = 1 if name == "check_count" else 0
        named = tuple(m[1] for m in kwargs.get("mistakes", ()))  # what the problem asks shows in what it names
        return name, tuple(repr(a) for k, a in enumerate(args) if k != answer_at), named, tuple(sorted(
            (k, repr(v)) for k, v in kwargs.items() if k in ("rel", "abs_tol", "decimals")))
    args = [ast.dump(a) for a in call.args]
    kwargs = sorted((k.arg, ast.dump(k.value)) for k in call.keywords if k.arg not in {"mistakes", "explain", "hint"})
    return call.func.id, tuple(args), tuple(kwargs)


def test_no_two_problems_make_the_same_check():
    """A problem asked twice (the same checker with the same arguments) asks nothing new the second time. Choice
    problems differ by their reasons, which this cannot read, so they are left out."""
    seen = {}
    repeats = []
    for rel, p in _course_problems():
        call = _checker_call(p)
        if call is None or call[0] == "check_choice":
            continue
        if call in seen:
            repeats.append(f"{rel} {p.heading!r} repeats {seen[call]}")
        seen.setdefault(call, f"{rel} {p.heading!r}")
    assert not repeats, "\n".join(repeats)


# --- no answer in a notebook ---------------------------------------------------------------------------------------

PREDICTION_CALL = re.compile(r'check\("(\d\d)-P(\d+)", answers?\)')
FUNCTION_CALL = re.compile(r"check_\w+\(\w+\)")


@pytest.mark.parametrize("folder", ["", "solutions"])
def test_every_checker_cell_names_its_problem_and_the_answer_and_nothing_else(folder):
    """A prediction's checker cell is check("NN-PK", answer), with its own notebook's number and its own problem's;
    a function problem's is check_<name>(fn): no number, no option, no reason a learner could read the answer from."""
    wrong = []
    for rel, p in _course_problems(folder):
        source = p.checker.source.strip()
        number = re.search(r"(?:problem|exercise)\s+(\d+)", p.heading, re.IGNORECASE).group(1)
        if p.asks_for_a_function if not folder else FUNCTION_CALL.fullmatch(source):
            ok = bool(FUNCTION_CALL.fullmatch(source))
        else:
            match = PREDICTION_CALL.fullmatch(source)
            ok = bool(match) and match.groups() == (rel.split("/")[-1][:2], number)
        if not ok:
            wrong.append(f"{rel} {p.heading!r}: {source[:100]!r}")
    assert not wrong, "checker cells that hold more than the problem's id and the answer:\n" + "\n".join(wrong)


def test_every_prediction_of_the_problem_book_is_set_by_its_notebook_and_no_other():
    from attn_lib.exercises._problem_book import PREDICTIONS

    set_ = {"-P".join(PREDICTION_CALL.fullmatch(p.checker.source.strip()).groups()) for _, p in _course_problems()
            if PREDICTION_CALL.fullmatch(p.checker.source.strip())}
    assert set_ == set(PREDICTIONS), set_ ^ set(PREDICTIONS)


WORDS = dict(enumerate("zero one two three four five six seven eight nine ten eleven twelve".split()))


def _renderings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if float(value).is_integer():
        words = {WORDS[int(value)], WORDS[int(value)].capitalize()} if int(value) in WORDS else set()
        return {str(int(value)), f"{int(value):,}", f"{int(value):,}".replace(",", "{,}")} | words
    return {repr(value), f"{value:g}", str(value).rstrip("0")}


def test_the_first_variant_is_the_numbers_the_notebook_states():
    """Variant 0 is what every learner meets first: each of its numbers is written in the problem's statement (or
    above it, in prose, code or output, for a problem that builds on what came before: 10's model sizes)."""
    from attn_lib.exercises._problem_book import PREDICTIONS

    missing = []
    for name in problems.numbered_notebooks():
        nb = nbformat.read(problems.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        for p in problems.problems(nb, name):
            match = PREDICTION_CALL.fullmatch(p.checker.source.strip())
            if not match:
                continue
            prediction = PREDICTIONS["-P".join(match.groups())]
            text = "\n".join([c.source for c in nb.cells[:p.index + 1]] + [
                str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                for c in nb.cells[:p.answer_index] if c.cell_type == "code" for o in c.get("outputs", [])])
            for key, value in prediction.first.items():
                parts = value if isinstance(value, (tuple, list)) else (value,)
                missing += [f"{prediction.id} {key} = {value!r}" for part in parts
                            if not any(r in text for r in _renderings(part))][:1]
    assert not missing, "numbers of the first variant that the notebook never states:\n" + "\n".join(missing)


# --- what a function problem may call ------------------------------------------------------------------------------

def _function_problems_by_checker():
    """checker name -> its FunctionProblem, from every checker module of attn_lib.exercises."""
    import importlib
    import pkgutil

    import attn_lib.exercises as exercises
    from attn_lib.exercises._types import FunctionProblem

    found = {}
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"attn_lib.exercises.{info.name}")
        for value in vars(module).values():
            if isinstance(value, FunctionProblem):
                found[value.checker] = value
    return found


def test_every_function_problem_says_what_may_be_called():
    """One rule, said in every function problem: numpy and attn_lib may be called, except the attn_lib functions
    its checker refuses (the ones that do the problem's step in one call); each of those is named in the problem."""
    by_checker = _function_problems_by_checker()
    missing = []
    learner, solutions = _course_problems(), _course_problems("solutions")
    asks = [p.asks_for_a_function for _, p in learner]  # the learner's stub says it (a solution may define helpers)
    for (rel, p), function in zip(learner + solutions, asks + asks):
        if not function:
            continue
        call = _checker_call(p)
        problem = by_checker.get(call[0]) if call else None
        assert problem is not None, f"{rel} {p.heading!r}: no FunctionProblem found for {call}"
        text = p.heading_cell.source
        if "You may call" not in text:
            missing.append(f"{rel} {p.heading!r}: says nothing of what may be called")
        missing += [f"{rel} {p.heading!r}: does not name attn_lib.{name}, which its checker refuses"
                    for name in problem.forbidden if f"attn_lib.{name}" not in text]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("folder", ["", "solutions"])
def test_a_notebook_whose_problems_have_variants_imports_another_in_its_setup_cell(folder):
    """A verdict says 'Meet it again with other numbers: another("NN-PK")': that call must work as written."""
    from attn_lib.exercises._problem_book import PREDICTIONS

    missing = []
    for name in problems.numbered_notebooks():
        if not any(p.has_variants for pid, p in PREDICTIONS.items() if pid.startswith(name[:2])):
            continue
        rel = f"solutions/{name}-solutions.ipynb" if folder else f"{name}.ipynb"
        nb = nbformat.read(problems.NOTEBOOKS / rel, as_version=4)
        setup = next(c for c in nb.cells if c.cell_type == "code" and "from attn_lib.exercises import" in c.source)
        if not re.search(r"from attn_lib\.exercises import \(?[^)]*\banother\b", setup.source):
            missing.append(rel)
    assert not missing, f"these notebooks' setup cells do not import another: {missing}"
