"""The problem book: check(id, answer), another(id) with its answer box, variants drawn from seeds, per-student seeds,
and the errors a notebook's author or a learner meets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from attn_lib.exercises import another, check, set_student_id, use_student_numbers
from attn_lib.exercises._prediction import Prediction, read_answer
from attn_lib.exercises._problem_book import (PREDICTIONS, STUDENT_VARIABLE, current_seed, statement_output,
                                             student_seed)

WITH_VARIANTS = sorted(pid for pid, p in PREDICTIONS.items() if p.has_variants)
ONE_INSTANCE = sorted(pid for pid, p in PREDICTIONS.items() if not p.has_variants)


def test_every_notebook_with_predictions_has_problems_with_variants_and_each_single_one_says_why():
    assert len(WITH_VARIANTS) >= 30 and ONE_INSTANCE
    assert all(len(PREDICTIONS[pid].why_one.split()) >= 8 for pid in ONE_INSTANCE)


@pytest.mark.parametrize("pid", WITH_VARIANTS)
def test_a_variant_states_every_number_and_is_judged_with_the_same_reasons_as_the_notebooks(pid):
    prediction = PREDICTIONS[pid]
    for seed in range(1, 21):
        variant = prediction.variant(seed)
        assert "{" not in variant.text.replace("{,}", "").replace("_{", "").replace("^{", "") or "$" in variant.text
        assert variant.params.keys() == prediction.first.keys()
        assert variant.check(None).verdict == "Not answered yet"
    texts = {prediction.variant(seed).text for seed in range(1, 21)}
    assert len(texts) >= 3, f"{pid}: twenty seeds gave {len(texts)} different statements"


@pytest.mark.parametrize("pid", WITH_VARIANTS)
def test_seed_zero_is_the_notebooks_numbers_and_a_seed_gives_the_same_numbers_every_time(pid):
    prediction = PREDICTIONS[pid]
    assert prediction.numbers(0) == prediction.first
    assert [prediction.numbers(s) for s in (1, 7, 99_999)] == [prediction.numbers(s) for s in (1, 7, 99_999)]


def test_the_same_seed_gives_the_same_numbers_in_another_process_with_another_hash_seed():
    code = ("import json; from attn_lib.exercises._problem_book import PREDICTIONS; "
            "print(json.dumps({p: [PREDICTIONS[p].variant(s).text for s in (1, 2, 3)] for p in sorted(PREDICTIONS) "
            "if PREDICTIONS[p].has_variants}))")
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                      env={**os.environ, "PYTHONHASHSEED": seed}).stdout) for seed in ("1", "2")]
    assert runs[0] == runs[1] == {p: [PREDICTIONS[p].variant(s).text for s in (1, 2, 3)] for p in WITH_VARIANTS}


def test_check_names_the_call_that_poses_the_problem_again_only_where_there_are_variants():
    assert check(WITH_VARIANTS[0], None).verdict == "Not answered yet"
    wrong = check(WITH_VARIANTS[0], -12_345)
    assert not wrong.passed and f'another("{WITH_VARIANTS[0]}")' in repr(wrong)
    assert "another(" not in repr(check(ONE_INSTANCE[0], "zz"))


def test_another_shows_its_seed_and_the_call_that_shows_it_again_and_a_fresh_one_differs():
    box = another("02-P3", seed=4321)
    assert box.seed == 4321 and 'another("02-P3", seed=4321)' in box._repr_markdown_()
    assert box.params == another("02-P3", seed=4321).params
    fresh = {another("02-P3").seed for _ in range(5)}
    assert len(fresh) >= 4 and all(1 <= s <= 99_999 for s in fresh)


def test_the_answer_box_judges_what_is_typed_as_a_click_or_enter_would():
    pytest.importorskip("ipywidgets")
    box = another("02-P3", seed=11)
    p = box.params
    widget = box.widget()
    field = widget.fields[0]
    assert field.description == "Your answer" and not field.continuous_update  # a label; Enter sends the value
    field.value = f"{p['batch']} * {p['n']} * {p['m']} * {p['d_k']}"  # arithmetic is read, as a learner types it
    assert widget.verdict.passed
    field.value = str(p["n"] * p["m"] * p["d_k"])
    assert widget.verdict.mistake == "forgot-batch"
    button = widget.children[-2]
    assert button.description == "Check" and button.tooltip


def test_a_shapes_variant_has_one_labelled_box_per_shape():
    pytest.importorskip("ipywidgets")
    shapes = next(pid for pid in WITH_VARIANTS if PREDICTIONS[pid].kind == "shapes")
    box = another(shapes, seed=3)
    widget = box.widget()
    assert [f.description for f in widget.fields] == [f"shape of {name}" for name in PREDICTIONS[shapes].asks]
    for field in widget.fields:
        field.value = "(1, 2)"
    assert widget.verdict.verdict == "Not yet"
    n, d_v = box.params["n"], box.params["d_v"]
    widget.fields[-1].value = f"({n}, {d_v})"  # the output's shape, right; the other boxes still wrong
    assert widget.verdict.verdict == "Not yet" and "output:" not in widget.verdict.reason


@pytest.mark.parametrize("text, kind, read", [
    ("4 * 10 * 1_000 * 64", "number", 2_560_000), ("1e-3", "number", 0.001), ("exp(sqrt(4))", "number", 7.38905609893065),
    ("  ", "number", None), ("import os", "number", "import os"), ("9 ** 9 ** 9", "number", "9 ** 9 ** 9"),
    ("2 ** 1024", "number", 2 ** 1024), ("2^10", "number", 1024), ("262,144", "number", 262_144),
    ("10,380,800", "number", 10_380_800), ("8 000 000", "number", 8_000_000), ("12,000.5", "number", 12_000.5),
    ("\u22123.5", "number", -3.5), ("4 \u00d7 1,000", "number", 4000), ("25 %", "number", 0.25), ("1/8", "number", 0.125),
    ("2.56e6", "number", 2_560_000.0), ("1,5", "number", "1,5"), ("0,125", "number", "0,125"),
    ("1,234,5678", "number", "1,234,5678"), ("(8, 0)", "number", "(8, 0)"),
    ("'b'", "choice", "b"), (" B) ", "choice", "B)"), ("(6, 6)", "shapes", (6, 6)), ("(6,", "shapes", "(6,"),
])
def test_a_typed_answer_is_read_as_its_kind_and_what_cannot_be_read_goes_to_the_checker_as_text(text, kind, read):
    value = read_answer(text, kind)
    assert value == pytest.approx(read) if isinstance(read, float) else value == read


@settings(max_examples=50, deadline=None)
@given(student=st.text(min_size=1, max_size=20), assignment=st.sampled_from(["02-scores", "05-weighted-average"]))
def test_a_students_seed_is_a_five_digit_variant_fixed_by_id_and_assignment(student, assignment):
    seed = student_seed(student, assignment)
    assert 1 <= seed <= 99_999 and seed == student_seed(student, assignment)


def test_students_get_different_numbers_and_check_uses_the_students_own(monkeypatch):
    monkeypatch.setenv(STUDENT_VARIABLE, "")  # set through monkeypatch, so that what the test sets is undone
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seeds = {student_seed(s, "02-scores") for s in ("ada", "bo", "cy", "di", "ed")}
    assert len(seeds) == 5
    assert current_seed(PREDICTIONS["02-P3"]) == 0
    use_student_numbers("ada", "02-scores")
    assert current_seed(PREDICTIONS["02-P3"]) == student_seed("ada", "02-scores")
    assert current_seed(PREDICTIONS[ONE_INSTANCE[0]]) == 0  # one instance: the notebook's, for everyone


def test_while_nbgrader_autogrades_the_student_is_the_folder_it_grades_in(monkeypatch, tmp_path):
    folder = tmp_path / "autograded" / "bo" / "02-scores"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(STUDENT_VARIABLE, "ada/02-scores")  # what a cell set is ignored
    assert use_student_numbers() == "bo"
    assert current_seed(PREDICTIONS["02-P3"]) == student_seed("bo", "02-scores")


def test_a_course_that_never_asked_for_student_numbers_grades_everyone_on_the_notebooks(monkeypatch, tmp_path):
    folder = tmp_path / "autograded" / "bo" / "02-scores"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(STUDENT_VARIABLE, "")
    assert current_seed(PREDICTIONS["02-P3"]) == 0


@pytest.mark.parametrize("call, error, words", [
    (lambda: check("99-P1", 1), ValueError, "'99-P1' is not a prediction problem of the course; known ids: 00-P"),
    (lambda: check(3, 1), TypeError, "problem_id must be a string such as '02-P3'; got int 3"),
    (lambda: check("02-P3", 1, seed=-1), TypeError, "seed must be a whole number >= 0"),
    (lambda: another(ONE_INSTANCE[0]), ValueError, "has one meaningful instance and no variants"),
    (lambda: another("02-P3", seed=1.5), TypeError, "seed must be a whole number >= 0"),
    (lambda: use_student_numbers("ada"), TypeError, "student and assignment must be non-empty strings"),
])
def test_bad_calls_name_the_argument_what_was_expected_and_what_came(call, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call()


@pytest.mark.parametrize("fields, words", [
    (dict(id="2-P3"), "id must look like '02-P3'"),
    (dict(kind="essay"), "kind must be one of"),
    (dict(draw=None), "must say why it has one instance"),
    (dict(kind="shapes"), "names the shapes it asks for"),
])
def test_an_authors_malformed_problem_is_refused_by_name(fields, words):
    base = dict(id="02-P9", title="t", first={}, statement="s", judge=lambda a, p: None, draw=lambda rng: {})
    with pytest.raises(ValueError, match=words):
        Prediction(**{**base, **fields})


def test_a_draw_that_always_makes_a_named_mistake_equal_the_answer_is_an_authors_error():
    from attn_lib.exercises import check_number

    broken = Prediction("02-P9", "t", first=dict(x=2), statement="{x}", draw=lambda rng: dict(x=rng.choice([3, 4])),
                        judge=lambda a, p: check_number(a, p.x, mistakes=[(p.x, "same", "the answer itself")]))
    with pytest.raises(RuntimeError, match="kept its named mistakes apart from the answer"):
        broken.numbers(1)


def test_a_variants_tex_writes_thousands_so_that_tex_renders_them():
    # The review: "12,000" inside $...$ renders as "12, 000"; TeX needs 12{,}000.
    seen = 0
    for pid, prediction in PREDICTIONS.items():
        if prediction.has_variants:
            for seed in range(1, 40):
                for tex in re.findall(r"\$[^$]+\$", prediction.variant(seed).text):
                    assert not re.search(r"\d,\d{3}", tex), (pid, seed, tex)
                    seen += "{,}" in tex
    assert seen  # some variant does write a number of five digits or more in TeX


def _first_variant(pid, condition):
    for seed in range(1, 200):
        variant = PREDICTIONS[pid].variant(seed)
        expected = variant.problem.expected(variant.params)[0]
        if condition(expected):
            return variant, expected
    raise AssertionError(f"no variant of {pid} meets the condition")


def test_a_right_number_in_the_wrong_form_is_named_by_its_form_on_variants():
    variant, share = _first_variant("08-P2", lambda e: 0 < e < 1)
    assert variant.check(share * 100).mistake == "percent-for-share"
    variant, factor = _first_variant("02-P7", lambda e: e > 2)
    assert variant.check(factor - 1).mistake == "more-for-times"
    variant, weight = _first_variant("10-P6", lambda e: round(e, 3) != int(e * 1000) / 1000)
    cut = int(weight * 1000) / 1000
    feedback = variant.check(cut)
    assert feedback.mistake == "truncated-not-rounded" and "3 decimals" in feedback.reason
    for said in (feedback, variant.check(share * 100)):
        assert not re.search(r"\d\.\d", said.reason + said.hint)  # a form is named, no number is stated
    assert variant.check(round(weight, 3)).passed  # rounded, it is right


def test_a_number_rounded_coarser_than_it_is_judged_is_named_on_variants_and_no_right_answer_is_refused():
    """04-P6 judges a weight to within 1 %, as its variants' text says: one decimal is too coarse there (the review's
    0.7 for a weight of 0.7214, told only how far off it was). A rounding within the precision passes first."""
    variant, weight = _first_variant("04-P6", lambda e: abs(round(e, 1) - e) > 0.011 * e)
    assert "judged to within 1 %" in variant.text
    feedback = variant.check(round(weight, 1))
    assert feedback.mistake == "rounded-too-coarsely" and "1 decimal" in feedback.reason
    assert "to within 1 %" in feedback.reason and not re.search(r"\d\.\d", feedback.reason + feedback.hint)
    assert variant.check(round(weight, 2)).passed and variant.check(round(weight, 3)).passed
    assert variant.check(1.0).mistake == "one-hot"  # a whole number is not taken for a rounding


# --- who the learner is, and what a statement shows -------------------------------------------------------------

@pytest.fixture
def learner_here(monkeypatch, tmp_path):
    """A learner's machine: a record of its own, no student chosen in this kernel, no hub, no nbgrader."""
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(tmp_path / "attn-course-record.json"))
    monkeypatch.setenv(STUDENT_VARIABLE, "")
    for name in ("JUPYTERHUB_USER", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def right_for(pid: str, seed: int):
    prediction = PREDICTIONS[pid]
    return prediction.expected(prediction.numbers(seed))[0]


def test_a_course_id_stated_once_sets_every_notebooks_numbers_and_check_judges_them(learner_here, capsys):
    assert current_seed(PREDICTIONS["02-P3"]) == 0
    assert set_student_id("ada") == "ada"
    assert "ada's numbers" in capsys.readouterr().out
    assert (learner_here / "attn-course-record.student-id.txt").read_text() == "ada\n"  # beside the record
    ada_02, ada_05 = student_seed("ada", "02-scores"), student_seed("ada", "05-weighted-average")
    assert ada_02 != ada_05
    assert current_seed(PREDICTIONS["02-P3"]) == ada_02 and current_seed(PREDICTIONS["05-P2"]) == ada_05
    assert check("02-P3", right_for("02-P3", ada_02)).passed
    assert not check("02-P3", right_for("02-P3", 0)).passed  # the notebook's answer is not ada's
    data, metadata = statement_output("02-P3", ada_02, "ada")
    assert PREDICTIONS["02-P3"].variant(ada_02).text in data["text/markdown"]
    assert data["text/markdown"].endswith(f"*Your numbers: variant {ada_02}.*")
    assert metadata == {"attn_course": {"statement_of": "02-P3", "seed": ada_02, "student": "ada"}}
    set_student_id(None)
    assert current_seed(PREDICTIONS["02-P3"]) == 0 and not (learner_here / "attn-course-record.student-id.txt").exists()


def test_the_notebooks_own_statement_is_the_problems_text_with_no_mark(learner_here):
    data, metadata = statement_output("02-P3", 0, None)
    assert data["text/markdown"] == PREDICTIONS["02-P3"].variant(0).text and "$" not in data["text/plain"]
    assert metadata["attn_course"]["seed"] == 0 and metadata["attn_course"]["student"] is None


def test_a_hub_user_is_the_student_only_in_a_per_student_release(learner_here, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "bo")
    assert current_seed(PREDICTIONS["02-P3"]) == 0  # the course's own notebook on a hub: the notebook's numbers
    use_student_numbers()  # a per-student course's setup cell
    assert current_seed(PREDICTIONS["02-P3"]) == student_seed("bo", "02-scores")
    set_student_id("cy")  # an id stated by the learner comes before the hub's user name
    assert current_seed(PREDICTIONS["02-P3"]) == student_seed("cy", "02-scores")
    use_student_numbers("dee", "02-scores")  # and a kernel's own choice before both
    assert current_seed(PREDICTIONS["02-P3"]) == student_seed("dee", "02-scores")


def test_nbgrader_never_reads_or_writes_a_stated_id(learner_here, monkeypatch, tmp_path):
    set_student_id("ada")
    folder = tmp_path / "autograded" / "bo" / "02-scores"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert current_seed(PREDICTIONS["02-P3"]) == 0  # a course without student numbers: the notebook's, for all
    set_student_id("eve")
    assert (learner_here / "attn-course-record.student-id.txt").read_text() == "ada\n"


def test_an_id_file_that_holds_no_id_means_the_notebooks_numbers(learner_here):
    (learner_here / "attn-course-record.student-id.txt").write_text("../../etc\n")
    assert current_seed(PREDICTIONS["02-P3"]) == 0


@pytest.mark.parametrize("bad", ["", "../eve", "ada lovelace", 3, b"ada"])
def test_a_course_id_that_cannot_name_a_student_is_refused_with_what_was_expected(learner_here, bad):
    with pytest.raises(TypeError, match=r"student must be your course id, letters, digits and \. @ \+ - _ .*; got"):
        set_student_id(bad)
