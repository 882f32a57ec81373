"""The nbgrader course written by tools/nbgrader_course.py, run through nbgrader's own command line.

Every notebook is generated and released (``generate_assignment``); notebook 06 (its three functions to write and
its first three predictions, found by role) is also handed in by three learners, autograded and given feedback: the solutions, the released copy
untouched, and a submission with a classic mistake, a call of attn_lib's own function, rebound checkers, a
prediction's answer cell that raises and an emptied test cell; a fourth hands in the untouched copy with an inserted
cell that patches attn_lib.exercises, and one right function that writes to stderr.
The other notebooks' solutions are autograded by benchmarks/grading_cost.py.
"""

from __future__ import annotations

import copy
import html
import re
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

# nbgrader is a teacher's dependency (requirements-teacher.txt, included by requirements-dev.txt): without it these
# tests fail rather than skip.
from nbgrader.api import Gradebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nav  # noqa: E402  (tools/nav.py)
import nbgrader_audit  # noqa: E402  (tools/nbgrader_audit.py)
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
from nbgrader_run import hand_in, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)

from tests.artefacts import copy_of, released_course  # noqa: E402

from attn_lib.exercises import CheckFailed, check_causal_mask, check_masked_softmax  # noqa: E402
from attn_lib.exercises._problem_book import PREDICTIONS  # noqa: E402

NAMES = course.course_notebooks()
GRADED = "06-masking"


def _roles() -> dict[str, str]:
    """06's graded problems by the role the hand-in below gives them ("problem-N"), read off the notebook: a problem
    added to 06 renumbers nothing here."""
    _, graded = course.assignment(GRADED, set(course.course_notebooks()))
    label = {g.checker: g.grade_id.removesuffix("-check") for g in graded if g.checker != "check"}
    predictions = [g.grade_id.removesuffix("-check") for g in graded if g.checker == "check"]
    assert len(predictions) >= 3, f"{GRADED} needs three predictions for this round; it has {predictions}"
    return dict(MASKED=label["check_masked_softmax"], CAUSAL=label["check_causal_mask"],
                PADDING=label["check_padding_mask"], FIRST_PREDICTION=predictions[0],
                RIGHT_PREDICTION=predictions[1], RAISING_PREDICTION=predictions[2])


ROLES = _roles()
MASKED, CAUSAL, PADDING = ROLES["MASKED"], ROLES["CAUSAL"], ROLES["PADDING"]
FIRST_PREDICTION, RIGHT_PREDICTION, RAISING_PREDICTION = (ROLES["FIRST_PREDICTION"], ROLES["RIGHT_PREDICTION"],
                                                          ROLES["RAISING_PREDICTION"])


def cell_grading(cell) -> dict:
    """A cell's nbgrader metadata ({} for a cell nbgrader does not know)."""
    return cell.metadata.get("nbgrader", {})


def learner_problems(name):
    return course.problems(nbformat.read(course.NOTEBOOKS / f"{name}.ipynb", as_version=4), name)


# --- the generator alone -------------------------------------------------------------------------------------------


def test_every_numbered_notebook_of_course_toml_is_an_assignment_and_contents_is_not():
    assert NAMES == sorted(nav.load_course()["notebooks"])
    assert NAMES == [p.stem for p in sorted(course.NOTEBOOKS.glob("*.ipynb")) if nav.NUMBERED.match(p.name)]


def test_points_are_two_for_a_function_and_one_for_any_other_answer():
    for name in NAMES:
        _, graded = course.assignment(name, set(NAMES))
        for info, problem in zip(graded, learner_problems(name), strict=True):
            assert info.points == (2 if problem.asks_for_a_function else 1), (name, problem.heading)


def _notebook_with_problems(*problems):
    """A learner-style notebook: a setup cell, then (heading, answer, checker) triples."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("import numpy as np"))
    for heading, answer, checker in problems:
        nb.cells += [nbformat.v4.new_markdown_cell(heading), nbformat.v4.new_code_cell(answer),
                     nbformat.v4.new_code_cell(checker)]
    return nb


def test_a_new_problem_is_graded_without_changing_the_generator():
    learner = nbformat.read(course.NOTEBOOKS / f"{GRADED}.ipynb", as_version=4)
    solved = nbformat.read(course.SOLUTIONS / f"{GRADED}-solutions.ipynb", as_version=4)
    _, before = course.assignment(GRADED, set(NAMES), copy.deepcopy(learner), copy.deepcopy(solved))
    problem = ("### Problem 7: a new one", "answer = None  # your answer here", 'check("02-P3", answer)')
    learner.cells[-1:-1] = _notebook_with_problems(problem).cells[1:]
    solved.cells[-1:-1] = _notebook_with_problems(("### Problem 7: a new one", "answer = 3", problem[2])).cells[1:]
    source, after = course.assignment(GRADED, set(NAMES), learner, solved)
    assert len(after) == len(before) + 1
    assert (after[-1].grade_id, after[-1].checker, after[-1].points, after[-1].problem_id) == (
        "problem-7-check", "check", 1, "02-P3")
    function = ("### Problem 8: a function", "def f(x):\n    raise NotImplementedError", "check_softmax(f)")
    learner.cells[-1:-1] = _notebook_with_problems(function).cells[1:]
    solved.cells[-1:-1] = _notebook_with_problems(("### Problem 8: a function", "def f(x):\n    return x",
                                                   function[2])).cells[1:]
    _, more = course.assignment(GRADED, set(NAMES), learner, solved)
    assert (more[-1].grade_id, more[-1].points, more[-1].problem_id) == ("problem-8-check", 2, None)
    answer = next(c for c in source.cells if cell_grading(c).get("grade_id") == "problem-7-answer")
    assert solutions(source)["problem-7-answer"] == "answer = 3" and answer.source.startswith(problem[1])


ONE, TWO, THREE = 'check("02-P2", answer)', 'check("02-P3", answer)', 'check("02-P4", answer)'


@pytest.mark.parametrize("solutions, message", [
    ([("### Problem 1: one", "answer = 1", ONE)], "problem 2 is 'Problem 2: two'"),
    ([("### Problem 1: one", "answer = 1", ONE), ("### Problem 2: other", "answer = 2", TWO)],
     "but 'Problem 2: other'"),
    ([("### Problem 1: one", "answer = 1", ONE), ("### Problem 2: two", "answer = 2", "check_softmax(f)")],
     "call different checkers"),
    ([("### Problem 1: one", "answer = 1", ONE), ("### Problem 2: two", "answer = 2", TWO),
      ("### Problem 3: three", "answer = 3", THREE)], "1 problem(s) more, from 'Problem 3"),
])
def test_learner_and_solutions_notebooks_that_disagree_are_refused_by_name(solutions, message):
    learner = _notebook_with_problems(("### Problem 1: one", "answer = None", ONE),
                                      ("### Problem 2: two", "answer = None", TWO))
    with pytest.raises(course.CourseError, match=re.escape(message)) as error:
        course.assignment("99-made-up", set(NAMES), learner, _notebook_with_problems(*solutions))
    assert str(error.value).startswith("99-made-up")


@pytest.mark.parametrize("checker, message", [
    ('print(check("02-P2", answer))', "should be one call"), ('x = 1\ncheck("02-P2", answer)', "should be one call"),
    ("check_nothing(answer)", "not a checker"), ('check("02-P2",', "does not parse"),
    ("check_number(answer, 1)", "calls check_number with the problem's numbers"),
    ('check_choice(answer, "a", {"a": "why"})', "calls check_choice with the problem's numbers"),
    ('check("99-P1", answer)', "names no prediction problem"),
])
def test_a_checker_cell_that_is_not_one_checker_call_or_holds_its_answer_is_refused(checker, message):
    learner = _notebook_with_problems(("### Problem 1: one", "answer = None", checker))
    solved = _notebook_with_problems(("### Problem 1: one", "answer = 1", checker))
    with pytest.raises(course.CourseError, match="99-made-up") as error:
        course.assignment("99-made-up", set(NAMES), learner, solved)
    assert message in str(error.value)


def test_links_point_at_the_sibling_assignments_and_the_contents_link_is_dropped():
    stems = {"05-weighted-average", "07-heads-and-cross-attention"}
    nav = ("[← 05 Weighted average](05-weighted-average.ipynb) | [Contents](contents.ipynb) | "
           "[07 Heads and cross-attention →](07-heads-and-cross-attention.ipynb)")
    assert release.relink(nav, stems) == (
        "[← 05 Weighted average](../05-weighted-average/05-weighted-average.ipynb) | "
        "[07 Heads and cross-attention →](../07-heads-and-cross-attention/07-heads-and-cross-attention.ipynb)")
    assert release.relink("[Contents](contents.ipynb) | [next](05-weighted-average.ipynb)", stems) == (
        "[next](../05-weighted-average/05-weighted-average.ipynb)")
    with pytest.raises(release.CourseError, match="99-gone.ipynb"):
        release.relink("see [it](99-gone.ipynb)", stems)


# --- every notebook generated and released by nbgrader ---------------------------------------------------------------


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The whole course, written and released once per run (tests/artefacts.py), in a copy of this module's own:
    (course folder, {name: graded problems})."""
    root = copy_of(released_course(tmp_path_factory), tmp_path_factory.mktemp("course") / "course")
    stems = set(NAMES)
    return root, {name: course.assignment(name, stems)[1] for name in NAMES}


def read(root, folder, name):
    return nbformat.read(root / folder / name / f"{name}.ipynb", as_version=4)


@pytest.mark.parametrize("name", NAMES)
def test_release_shows_placeholders_locks_the_rest_and_checks_every_problem_in_sight(released, name):
    root, graded = released
    source, release = read(root, "source", name), read(root, "release", name)
    problems = learner_problems(name)
    assert len(graded[name]) == len(problems)
    assert len(release.cells) == len(source.cells)

    answers = [c for c in release.cells if cell_grading(c).get("solution")]
    tests = [c for c in release.cells if cell_grading(c).get("grade")]
    assert len(answers) == len(tests) == len(problems)
    assert [cell_grading(c)["points"] for c in tests] == [g.points for g in graded[name]]
    assert all(cell_grading(c)["locked"] and cell_grading(c)["points"] >= 1 for c in tests)
    others = [c for c in release.cells if not cell_grading(c).get("solution") and not cell_grading(c).get("grade")]
    assert all(cell_grading(c)["locked"] for c in others)

    text = "\n".join(c.source for c in release.cells)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    solution_code = solutions(source)
    for problem, answer, test, info in zip(problems, answers, tests, graded[name]):
        assert answer.source.rstrip() == problem.answer.source.rstrip(), (name, problem.heading)
        own = solution_code[cell_grading(answer)["grade_id"]]
        assert own.strip() not in text, (name, problem.heading, "the solution is in the released notebook")
        assert problem.checker.source in test.source and "assert_correct(" in test.source


def test_predictions_are_checked_by_id_and_functions_by_their_checker(released):
    _, graded = released
    everything = [g for name in NAMES for g in graded[name]]
    assert all((g.checker == "check") == (g.points == 1) == (g.problem_id is not None) for g in everything)
    assert {g.problem_id for g in everything if g.problem_id} == {
        pid for pid in PREDICTIONS if any(name.startswith(pid[:2]) for name in NAMES)}


# --- notebook 06 handed in, autograded, given feedback ---------------------------------------------------------------

MASK_AFTER_SOFTMAX = '''\
def masked_softmax(scores, mask):
    """Row-wise softmax of scores (..., n, m), with blocked entries (mask False) getting weight 0."""
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.where(mask, weights, 0.0)  # the mask after the softmax
'''
CALLS_ATTN_LIB = '''\
import attn_lib

def causal(n, m):
    """Boolean (n, m): True where query i may attend to key j, that is j <= i."""
    return attn_lib.causal_mask(n, m)
'''
REBINDS_FUNCTION_CHECKER = '''\
from attn_lib.exercises import Feedback

def my_padding_mask(lengths, m):
    raise NotImplementedError

def check_padding_mask(fn):
    return Feedback(True, "Looks right to me.")
'''
# A prediction's answer cell that fails before it assigns: the answer it leaves is the previous problem's.
RAISES_BEFORE_ANSWERING = 'answer = int("two")'
REBINDS_PREDICTION_CHECKER = '''\
from attn_lib.exercises import Feedback

answer = "A"
check = lambda *args, **kwargs: Feedback(True, "Looks right to me.")
'''


# A cell the learner inserts (no nbgrader metadata) that makes every checker of attn_lib.exercises, and
# assert_correct, pass anything.
PATCHES_THE_CHECKERS = '''\
import attn_lib.exercises as e
e.check = lambda *a, **k: e.Feedback(True, 'fine')
for name in e.__all__:
    if name.startswith("check"):
        setattr(e, name, lambda *a, **k: e.Feedback(True, "fine"))
e.assert_correct = lambda feedback: None
'''
# A right masked_softmax that writes to stderr each time it runs.
WRITES_TO_STDERR = '''
_quiet_masked_softmax = masked_softmax

def masked_softmax(scores, mask):
    import sys
    print("masked_softmax: called on", scores.shape, file=sys.stderr)
    return _quiet_masked_softmax(scores, mask)
'''
STUDENTS = ("solved", "untouched", "mistaken", "inserted")


def _run(source: str, name: str):
    namespace = {"np": np}
    exec(compile(source, name, "exec"), namespace)  # noqa: S102  (the test's own learner code)
    return namespace[name]


def plain_text(page: str) -> str:
    """An HTML page's text with tags dropped, entities decoded and whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.fixture(scope="module")
def graded_06(released):
    """Notebook 06 handed in by four learners, autograded and given feedback: (course folder, {student: grades}, the
    mistaken learner's answers)."""
    root, _ = released
    right = solutions(read(root, "source", GRADED))
    wrong = {MASKED + "-answer": MASK_AFTER_SOFTMAX, FIRST_PREDICTION + "-answer": REBINDS_PREDICTION_CHECKER,
             RAISING_PREDICTION + "-answer": RAISES_BEFORE_ANSWERING, CAUSAL + "-answer": CALLS_ATTN_LIB,
             PADDING + "-answer": REBINDS_FUNCTION_CHECKER}
    emptied_test = {RAISING_PREDICTION + "-check": "pass"}  # a locked cell edited outside JupyterLab: restored
    hand_in(root, "solved", GRADED, right)
    hand_in(root, "untouched", GRADED, {})
    hand_in(root, "mistaken", GRADED, {**right, **wrong, **emptied_test})
    # The inserted learner also deletes the check of the one problem they answered rightly (nbgrader must put it
    # back, and score it), and their first prediction's answer cell raises before anything assigned `answer`.
    hand_in(root, "inserted", GRADED, {MASKED + "-answer": right[MASKED + "-answer"] + WRITES_TO_STDERR,
                                       FIRST_PREDICTION + "-answer": RAISES_BEFORE_ANSWERING},
            inserted={"cell-000": PATCHES_THE_CHECKERS}, deleted=frozenset({MASKED + "-check"}))
    run_nbgrader(root, "autograde", GRADED, "--force")
    run_nbgrader(root, "generate_feedback", GRADED, "--force")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        scores = {student: {g.name: (g.score, g.max_score) for g in
                            gradebook.find_submission_notebook(GRADED, GRADED, student).grades}
                  for student in STUDENTS}
    return root, scores, wrong


def test_the_solutions_score_full_marks_and_the_untouched_release_scores_nothing(graded_06):
    _, scores, _ = graded_06
    assert len(scores["solved"]) == len(learner_problems(GRADED))
    assert all(score == possible > 0 for score, possible in scores["solved"].values()), scores["solved"]
    assert all(score == 0 for score, _ in scores["untouched"].values()), scores["untouched"]


def test_a_passing_test_cell_returns_nothing_nbgrader_could_read_as_partial_credit(graded_06):
    root, _, _ = graded_06
    tests = [c for c in read(root, "autograded/solved", GRADED).cells if cell_grading(c).get("grade")]
    shown = [o.output_type for c in tests for o in c.outputs]
    assert tests and "execute_result" not in shown and "error" not in shown
    assert all("Correct" in c.outputs[0].data["text/plain"] for c in tests)


def test_an_inserted_cell_that_patches_the_checkers_earns_nothing_and_stderr_costs_a_right_function_nothing(
        graded_06):
    root, scores, _ = graded_06
    earned = {grade_id for grade_id, (score, _) in scores["inserted"].items() if score > 0}
    assert earned == {MASKED + "-check"}, scores["inserted"]
    cells = read(root, "autograded/inserted", GRADED).cells
    check = next(c for c in cells if cell_grading(c).get("grade_id") == MASKED + "-check")
    streams = {o.name: o.text for o in check.outputs if o.output_type == "stream"}
    assert "masked_softmax: called on" in streams.get("stdout", "") and "stderr" not in streams


def test_a_mistake_loses_exactly_its_own_problems_points(graded_06):
    _, scores, wrong = graded_06
    lost = {grade_id.replace("-answer", "-check") for grade_id in wrong}
    for grade_id, (score, possible) in scores["mistaken"].items():
        assert score == (0 if grade_id in lost else possible), (grade_id, score, possible)


def test_feedback_shows_the_checkers_reason_for_the_mistake_and_for_calling_attn_lib(graded_06):
    root, _, wrong = graded_06
    mask_after = check_masked_softmax(_run(wrong[MASKED + "-answer"], "masked_softmax"))
    borrowed = check_causal_mask(_run(wrong[CAUSAL + "-answer"], "causal"))
    assert (mask_after.mistake, borrowed.mistake) == ("mask-after-softmax", "used-attn-lib")
    page = plain_text((root / "feedback" / "mistaken" / GRADED / f"{GRADED}.html").read_text(encoding="utf-8"))
    for feedback in (mask_after, borrowed):
        assert " ".join(feedback.reason.split()) in page, feedback.mistake
    untouched = plain_text((root / "feedback" / "untouched" / GRADED / f"{GRADED}.html").read_text(encoding="utf-8"))
    assert "Not answered yet" in untouched and "mask-after" not in untouched


def test_a_failed_test_cell_scores_nothing_and_shows_only_the_checkers_words(graded_06):
    root, scores, wrong = graded_06
    assert scores["mistaken"][MASKED + "-check"][0] == 0
    cells = {cell_grading(c).get("grade_id"): c for c in read(root, "autograded/mistaken", GRADED).cells}
    errors = [o for o in cells[MASKED + "-check"].outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "CheckFailed"
    expected = CheckFailed(check_masked_softmax(_run(wrong[MASKED + "-answer"], "masked_softmax")))
    assert errors[0].traceback == expected._render_traceback_()  # no test source, no frame of _grading.py
    page = (root / "feedback" / "mistaken" / GRADED / f"{GRADED}.html").read_text(encoding="utf-8")
    assert "_grading.py" not in page and "HIDDEN TESTS" not in page


def test_feedback_writes_the_formulas_as_mathml_drawn_offline(graded_06):
    """nbgrader's feedback template leaves TeX for MathJax 2.7.7 from a CDN; the course's config renders each formula
    of the markdown to MathML instead (tools/build_html.py), which a browser draws with no network. The course's
    feedback template (tools/feedback_page/) shows each problem's heading twice more: in the table of problems and
    over its check. A statement cell's output is markdown too: the statement graded, its formulas in MathML."""
    import build_html

    root, _, _ = graded_06
    page = (root / "feedback" / "solved" / GRADED / f"{GRADED}.html").read_text(encoding="utf-8")
    markdown = [c for c in read(root, "release", GRADED).cells if c.cell_type == "markdown"]
    headings = [c.source.split("\n")[0] for c in markdown if c.source.startswith("### Problem")]
    stated = [str(o.data["text/markdown"]) for c in read(root, "autograded/solved", GRADED).cells
              if c.cell_type == "code" for o in c.get("outputs", []) if "text/markdown" in o.get("data", {})]
    assert stated  # 06's problems with variants, each stated by its cell
    expected = (sum(len(build_html.formulas(c.source)) for c in markdown)
                + sum(len(build_html.formulas(text)) for text in stated)
                + 2 * sum(len(build_html.formulas(h)) for h in headings))
    assert expected and len(build_html.MATH_ELEMENT.findall(page)) == expected
    assert not re.search(r"\$[^$<>]*\\(?:neq|infty|le)\b", page)  # no formula left as TeX


def test_a_prediction_whose_answer_cell_fails_is_not_judged_on_the_previous_answer(graded_06):
    root, scores, _ = graded_06
    assert scores["mistaken"][RIGHT_PREDICTION + "-check"][0] > 0  # the previous problem's answer was right
    check = next(c for c in read(root, "autograded/mistaken", GRADED).cells
                 if cell_grading(c).get("grade_id") == RAISING_PREDICTION + "-check")
    error = next(o for o in check.outputs if o.output_type == "error")
    assert error.traceback[0].startswith("Not answered yet:"), error.traceback


def test_a_first_prediction_whose_answer_cell_fails_reads_as_not_answered_not_as_a_name_error(graded_06):
    root, _, _ = graded_06
    _, graded = course.assignment(GRADED, set(NAMES))
    first = next(info for info, problem in zip(graded, learner_problems(GRADED), strict=True)
                 if not problem.asks_for_a_function)
    check = next(c for c in read(root, "autograded/inserted", GRADED).cells
                 if cell_grading(c).get("grade_id") == first.grade_id)
    errors = [o for o in check.outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "CheckFailed", errors
    assert errors[0].traceback[0].startswith("Not answered yet:"), errors[0].traceback


def test_a_deleted_test_cell_is_put_back_and_scored(graded_06):
    root, scores, _ = graded_06
    assert "c.OverwriteCells.add_missing_cells = True" in (root / course.CONFIG_FILE).read_text(encoding="utf-8")
    assert scores["inserted"][MASKED + "-check"][0] == scores["inserted"][MASKED + "-check"][1] > 0


def test_the_audit_names_the_learners_cells_that_touch_the_checkers_inserted_ones_too_and_nothing_else(graded_06):
    root, _, _ = graded_06
    inserted_at = 1 + [cell_grading(c).get("grade_id") for c in read(root, "release", GRADED).cells].index("cell-000")
    assert nbgrader_audit.audit(root) == [
        f"inserted {GRADED} inserted cell {inserted_at}: Feedback, assert_correct, check, exercises, "
        "setattr, sets e.assert_correct, sets e.check",
        f"inserted {GRADED} {MASKED}-answer: sys",
        f"mistaken {GRADED} {FIRST_PREDICTION}-answer: Feedback, check, exercises",
        f"mistaken {GRADED} {PADDING}-answer: Feedback, check_padding_mask, exercises"]


def test_a_learner_reaching_into_the_grading_machinery_is_listed():
    assert nbgrader_audit.suspicious("import attn_lib.exercises as e\ne.assert_correct = lambda f: f") == [
        "assert_correct", "exercises", "sets e.assert_correct"]
    assert nbgrader_audit.suspicious("import sys\nsys.modules['attn_lib'] = None") == ["sys", "sys.modules"]
    assert nbgrader_audit.suspicious("import sys\nprint('here', file=sys.stderr)") == ["sys"]  # a debug print


@pytest.mark.parametrize(("source", "named"), [
    ('g = __import__("attn_lib." + "exer" + "cises")\nvars(g)["assert_" + "correct"] = print', ["__import__", "vars"]),
    ('globals()["check_" + "number"] = print', ["globals"]),
    ('import attn_lib\ngetattr(attn_lib, "exer" + "cises").assert_correct = print', ["assert_correct", "getattr"]),
    ('delattr(e, "x")', ["delattr"]),
    ("import importlib\nm = importlib.import_module('attn_lib')", ["importlib"]),
    ('exec("x = 1")\neval("1")\ncompile("1", "x", "eval")', ["compile", "eval", "exec"]),
    ("numpy.isclose = lambda *a, **k: True", ["sets numpy.isclose"]),
    ("import numpy as n\nn.allclose, n.isfinite = print, print\ndel n.array_equal",
     ["deletes n.array_equal", "sets n.allclose", "sets n.isfinite"]),
    ("import math\nmath.isfinite = lambda x: True", ["sets math.isfinite"]),
    ("np.testing.assert_allclose += 1", ["sets np.testing.assert_allclose"]),
])
def test_the_audit_names_dodges_and_patched_modules(source, named):
    assert nbgrader_audit.suspicious(source) == named


def test_setting_an_attribute_of_a_learners_own_object_is_not_listed():
    assert nbgrader_audit.suspicious("x = np.zeros(6)\nx.shape = (2, 3)\nclass A: pass\na = A()\na.b = 1") == []
    softmax = "def softmax(x):\n    e = np.exp(x - x.max(-1, keepdims=True))\n    return e"
    assert nbgrader_audit.suspicious(softmax) == []
    assert nbgrader_audit.suspicious("def broken(:") == ["does not parse"]


def test_files_the_prose_links_to_are_found_and_urls_anchors_and_notebooks_are_not(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "NOTEBOOKS", tmp_path)
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "heads.png").write_bytes(b"png")
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "06-masking-solutions.ipynb").write_text("{}")
    nb = _notebook_with_problems()
    nb.cells.append(nbformat.v4.new_markdown_cell(
        "[web](https://arxiv.org/abs/1706.03762) [up](#top) [next](05-weighted-average.ipynb) ![x](mailto:a@b.c) "
        "[the answers](solutions/06-masking-solutions.ipynb#problem-1) ![heads](figures/heads.png)"))
    assert course.local_files(nb, "x") == [tmp_path / "figures" / "heads.png"]
    nb.cells.append(nbformat.v4.new_markdown_cell("![figure](figures/missing.png)"))
    with pytest.raises(course.CourseError, match="figures/missing.png, which is not a file under notebooks/"):
        course.local_files(nb, "x")


# --- the command line on bad input -------------------------------------------------------------------------------


def _main(capsys, *argv):
    """``tools/nbgrader_course.py ARGV``: (exit code, stdout, stderr)."""
    code = course.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_folder_that_holds_a_course_is_refused_unless_forced_and_forcing_keeps_grades_and_submissions(
        tmp_path, capsys):
    assert _main(capsys, tmp_path, "--only", "06")[0] == 0
    config = tmp_path / course.CONFIG_FILE
    config.write_text(config.read_text() + "c.Execute.timeout = 60  # the teacher's edit\n")
    (tmp_path / "gradebook.db").write_bytes(b"grades")
    (tmp_path / "submitted" / "ada" / GRADED).mkdir(parents=True)
    (tmp_path / "source" / "99-old-notebook").mkdir()
    code, out, err = _main(capsys, tmp_path, "--only", "06")
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert str(tmp_path) in err and "nbgrader_config.py, gradebook.db, submitted" in err and "--force" in err
    assert "the teacher's edit" in config.read_text()

    code, out, _ = _main(capsys, tmp_path, "--only", "06", "--force")
    assert code == 0 and "not course notebooks: 99-old-notebook" in out
    assert f"{course.BACKUP_FILE} and no longer in effect" in out  # the teacher learns where their edit went
    assert "the teacher's edit" not in config.read_text()
    assert "the teacher's edit" in (tmp_path / course.BACKUP_FILE).read_text()
    assert (tmp_path / "gradebook.db").read_bytes() == b"grades" and (tmp_path / "submitted" / "ada" / GRADED).is_dir()
    assert (tmp_path / "source" / GRADED / f"{GRADED}.ipynb").is_file()


def test_a_gradebook_of_another_course_version_is_refused_by_the_writer_and_the_parallel_grader_and_nothing_changes(
        tmp_path, tmp_path_factory, capsys):
    """The released course's gradebook holds one submission of 02; this version's graded form matches it (no
    false alarm), then the gradebook is made another version's (a checker worth other points, a locked cell edited):
    writing the course over it and preparing a parallel grading are each refused with one sentence, and neither
    the gradebook nor the course's source changes."""
    import hashlib

    import nbgrader_parallel

    name = "02-scores"
    root = copy_of(released_course(tmp_path_factory), tmp_path / "course")
    url = f"sqlite:///{root / 'gradebook.db'}"
    with Gradebook(url, course.COURSE_ID) as gradebook:
        gradebook.update_or_create_student("ana")
        gradebook.add_submission(name, "ana")
        held = release.gradebook_form(gradebook.find_notebook(name, name))
    assert held == release.graded_form(read(root, "source", name))  # the release's gradebook has this version's form
    assert _main(capsys, root, "--only", "02", "--force")[0] == 0
    assert nbgrader_parallel.prepare(root, [name], url, ["ana"]) == []

    with Gradebook(url, course.COURSE_ID) as gradebook:  # last term's version: other points, another checker text
        checker = gradebook.find_grade_cell("problem-2-check", name, name)
        checker.max_score = 3.0
        locked = next(c for c in gradebook.find_notebook(name, name).source_cells
                      if c.locked and c.name != "problem-2-check")
        locked.source += "\n# last term's words"
        gradebook.db.commit()

    def state():
        return [hashlib.sha256(p.read_bytes()).hexdigest()
                for p in (root / "gradebook.db", root / "source" / name / f"{name}.ipynb")]

    before = state()
    code, out, err = _main(capsys, root, "--only", "02", "--force")
    assert code == 1 and out == "" and len(err.splitlines()) == 1, err
    assert f"holds 1 submission of {name} from another version of the course" in err
    assert "problem-2-check is worth 3 points in the gradebook's version and 1 in this one (and 1 more" in err
    assert "new course folder" in err and "nothing was written" in err
    assert state() == before

    with pytest.raises(nbgrader_parallel.GradingError) as refused:
        nbgrader_parallel.prepare(root, [name], url, ["ana"])
    assert f"holds 1 submission of {name} from another version" in str(refused.value)
    assert "Grade into a new database" in str(refused.value) and "nothing was graded" in str(refused.value)
    assert state() == before


@pytest.mark.parametrize("held, here, phrase", [
    ({"a": 1.0}, {"a": 1.0, "b": 2.0}, "b is graded in this version and not in the gradebook's"),
    ({"a": 1.0, "b": 2.0}, {"a": 1.0}, "b is graded in the gradebook's version and not in this one"),
])
def test_each_difference_of_versions_is_named(held, here, phrase):
    locked = {"setup": "from attn_lib.exercises import check"}
    assert release.version_differences({"points": held, "locked": locked}, {"points": held, "locked": locked}) == []
    assert release.version_differences({"points": held, "locked": locked},
                                       {"points": here, "locked": locked}) == [phrase]
    assert release.version_differences({"points": held, "locked": locked}, {"points": held, "locked": {}}) == [
        "the locked cell setup is in the gradebook's version only"]


@pytest.mark.parametrize("argv, message", [
    (("{file}",), "{file}: it is a file, not a folder"),
    (("{dir}", "--audit"), "{dir}: no submitted/ folder"),
    (("{dir}", "--only", "06", "99"), "--only: 99 names no course notebook; expected a number prefix (00, 01, "),
    (("--summary", "--only", "6"), "--only: 6 names no course notebook"),
])
def test_bad_input_is_one_line_naming_it_and_a_non_zero_exit(tmp_path, capsys, argv, message):
    (tmp_path / "a-file").write_text("not a folder")
    where = {"file": tmp_path / "a-file", "dir": tmp_path / "course"}
    (tmp_path / "course").mkdir()
    code, out, err = _main(capsys, *(a.format(**where) for a in argv))
    assert code == 1 and out == ""
    assert err.startswith("error: " + message.format(**where)) and len(err.splitlines()) == 1, err
    assert list((tmp_path / "course").iterdir()) == []
