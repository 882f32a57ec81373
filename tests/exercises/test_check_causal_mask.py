"""check_causal_mask against hand-written learner answers: wrong ones get their own id, right ones pass."""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_causal_mask



def causal_right(n, m):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    return j <= i


CAUSAL_MISTAKES = {
    "inverted-mask": (lambda n, m: np.triu(np.ones((n, m), dtype=bool), k=1), "inverted"),
    "diagonal-blocked": (lambda n, m: np.tri(n, m, k=-1, dtype=bool), "blocks the diagonal"),
    "upper-triangle": (lambda n, m: np.triu(np.ones((n, m), dtype=bool)), "upper triangle"),
    "bottom-right-aligned": (lambda n, m: np.tri(n, m, k=m - n, dtype=bool), "top-left, like PyTorch's is_causal"),
    "ignores-m": (lambda n, m: np.tri(n, dtype=bool), "ignores m"),
    "shape-transposed": (lambda n, m: np.tri(m, n, dtype=bool), "one row per query"),
    "additive-mask": (lambda n, m: np.where(np.tri(n, m, dtype=bool), 0.0, -np.inf), "additive"),
    "not-boolean": (lambda n, m: np.tril(np.ones((n, m))), "dtype float64, not bool"),
    "wrong-shape": (lambda n, m: np.tri(n, m + 1, dtype=bool), "should have shape (n, m)"),
    "wrong-pattern": (lambda n, m: np.ones((n, m), dtype=bool), "which should be blocked"),
    "not-an-array": (lambda n, m: "lower triangle", "not an array"),
}


def causal_loops(n, m):
    mask = np.zeros((n, m), dtype=bool)
    for i in range(n):
        for j in range(m):
            mask[i, j] = j <= i
    return mask


def causal_list_of_lists(n, m):
    return [[j <= i for j in range(m)] for i in range(n)]


CAUSAL_RIGHT = [
    causal_right,
    causal_loops,
    lambda n, m: np.tri(n, m, dtype=bool),
    lambda n, m: np.tril(np.ones((n, m), dtype=bool)),
    lambda n, m: np.tril(np.ones((n, m))) == 1,
    lambda n, m: ~np.triu(np.ones((n, m), dtype=bool), k=1),
    lambda n, m: np.greater_equal.outer(np.arange(n), np.arange(m)),
    lambda n, m: np.fromfunction(lambda i, j: j <= i, (n, m), dtype=int),
    lambda n, m: np.array(causal_list_of_lists(n, m)),
]


@pytest.mark.parametrize("fn", CAUSAL_RIGHT)
def test_right_causal_mask_passes(fn):
    assert check_causal_mask(fn).passed


def test_a_list_of_lists_is_named_where_the_problem_asks_for_an_array():
    # 06 P5 asks for a boolean (n, m) array: the right bools as a list are named, with the way to an array.
    feedback = check_causal_mask(causal_list_of_lists)
    assert feedback.mistake == "returned-list" and "np.array(...)" in feedback.reason, feedback


def test_calling_attn_lib_causal_mask_is_told_to_write_it():
    assert check_causal_mask(lambda n, m: attn_lib.causal_mask(n, m)).mistake == "used-attn-lib"


@pytest.mark.parametrize("mistake", sorted(CAUSAL_MISTAKES))
def test_causal_mask_mistake_is_recognised(mistake):
    fn, phrase = CAUSAL_MISTAKES[mistake]
    feedback = check_causal_mask(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_causal_mask_mistakes_get_distinct_reasons():
    feedbacks = [check_causal_mask(fn) for fn, _ in CAUSAL_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(CAUSAL_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(CAUSAL_MISTAKES)


def test_additive_mask_with_the_wrong_pattern_says_both():
    feedback = check_causal_mask(lambda n, m: np.where(np.tri(n, m, dtype=bool), -np.inf, 0.0))
    assert feedback.mistake == "additive-mask"
    assert "not the causal one either" in feedback.reason
