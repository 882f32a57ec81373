"""Every Feedback the tests of this folder make is recorded: a reason or hint with an unfilled template field
fails the test that made it, and at the end every failing verdict's id must be in the catalogue or be a problem's
own (a prediction problem's table, check_number's ``mistakes=``, an option's chose-<label>)."""

import re

import pytest

from attn_lib.exercises import _feedback
from attn_lib.exercises._catalogue import CATALOGUE

UNFILLED = re.compile(r"\{[a-z_]+(?:[:!][^}]*)?\}")  # "{label}", "{nm:,}": a template field left as it was
GIVEN: set = set()
_init = _feedback.Feedback.__init__


def _recording_init(self, passed, reason, hint="", mistake=None, again=""):
    _init(self, passed, reason, hint, mistake, again)
    for text in (reason, hint):
        assert not UNFILLED.search(text), f"unfilled template field in {mistake!r}'s words: {text!r}"
    if not passed and mistake is not None:
        GIVEN.add(mistake)


_feedback.Feedback.__init__ = _recording_init


def catalogue_id(mistake_id: str) -> str:
    return "no-<name>-parameter" if re.fullmatch(r"no-\w+-parameter", mistake_id) else mistake_id


def pytest_sessionfinish(session, exitstatus):
    """With the whole folder run: the ids the tests produced that are not in the catalogue must be problems' own
    (they are named in the tests' own tables, or by a prediction problem; test_catalogue holds those apart)."""
    from test_catalogue import _local_ids  # noqa: PLC0415  (the recorder of prediction ids)

    if not GIVEN or session.testscollected < 1000:
        return
    own = set(_local_ids()) | OWN_IN_TESTS
    unknown = sorted(i for i in GIVEN if catalogue_id(i) not in CATALOGUE and i not in own
                     and not i.startswith("chose-"))
    if unknown:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nids given in these tests that are neither in the catalogue nor a problem's own: {unknown}")


# Ids the tests' own check_number / check_count calls pass as mistakes= (an author's own ids, as a notebook's are).
# "std": check_number's docstring example (attn_lib/exercises/_answers.py), run with the doctests.
OWN_IN_TESTS = {"one", "one-dot-product", "seven", "some-mistake", "std", "x"}
