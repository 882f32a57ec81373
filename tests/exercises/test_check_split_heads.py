"""check_split_heads against hand-written learner answers: wrong ones get their own id, right ones pass."""

import numpy as np
import pytest

from attn_lib.exercises import check_split_heads


def split_right(X, heads):
    n, d_model = X.shape
    d_k = d_model // heads
    return X.reshape(n, heads, d_k).transpose(1, 0, 2)  # (n, heads, d_k) -> (heads, n, d_k)


def split_by_slicing(X, heads):
    d_k = X.shape[1] // heads
    return np.stack([X[:, h * d_k:(h + 1) * d_k] for h in range(heads)])


def split_swapaxes(X, heads):
    return np.swapaxes(X.reshape(X.shape[0], heads, -1), 0, 1)


def split_array_split(X, heads):
    return np.array(np.split(X, heads, axis=1))


def split_einops_style(X, heads):
    n, d_model = X.shape
    return np.moveaxis(X.reshape(n, heads, d_model // heads), 1, 0)


def split_loops(X, heads):
    n, d_model = X.shape
    d_k = d_model // heads
    out = np.zeros((heads, n, d_k))
    for h in range(heads):
        for i in range(n):
            for c in range(d_k):
                out[h, i, c] = X[i, h * d_k + c]
    return out


def split_float32(X, heads):
    return split_right(X.astype(np.float32), heads)


SPLIT_RIGHT = [split_right, split_by_slicing, split_swapaxes, split_array_split, split_einops_style, split_loops,
               split_float32]


@pytest.mark.parametrize("fn", SPLIT_RIGHT, ids=lambda f: f.__name__)
def test_right_but_unusual_split_passes(fn):
    assert check_split_heads(fn).passed


SPLIT_MISTAKES = {
    "no-transpose": (lambda X, heads: X.reshape(heads, X.shape[0], X.shape[1] // heads), "straight to"),
    "heads-last": (lambda X, heads: X.reshape(X.shape[0], heads, -1), "heads axis is not first"),
    "full-width": (lambda X, heads: np.stack([X] * heads), "d_model wide"),
    "interleaved-columns": (
        lambda X, heads: X.reshape(X.shape[0], -1, heads).transpose(2, 0, 1),
        "every heads-th column",
    ),
    "positions-last": (lambda X, heads: split_right(X, heads).transpose(0, 2, 1), "(heads, d_k, n)"),
    "wrong-shape": (lambda X, heads: X.reshape(heads, -1), "should have shape (heads, n, d_k)"),
    "wrong-values": (lambda X, heads: split_right(X, heads)[::-1], "should be X["),
    "exception": (lambda X, heads: X.reshape(heads, 5, -1), "ValueError"),
}


@pytest.mark.parametrize("mistake", sorted(SPLIT_MISTAKES))
def test_split_mistake_is_recognised(mistake):
    fn, phrase = SPLIT_MISTAKES[mistake]
    feedback = check_split_heads(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_split_mistakes_get_distinct_reasons():
    feedbacks = [check_split_heads(fn) for fn, _ in SPLIT_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(SPLIT_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(SPLIT_MISTAKES)


def test_split_wrong_values_names_the_source_entry():
    feedback = check_split_heads(SPLIT_MISTAKES["wrong-values"][0])
    assert "(that is X[" in feedback.reason


def test_split_other_spellings():
    # numpy's order="F" reshape reads columns first: it interleaves positions and columns.
    assert not check_split_heads(lambda X, heads: X.reshape((heads, X.shape[0], -1), order="F")).passed
    assert check_split_heads(lambda X, heads: np.transpose(X.reshape(X.shape[0], heads, -1), (1, 0, 2)).copy()).passed


def test_np_split_along_the_positions_is_named():
    feedback = check_split_heads(lambda X, heads: np.stack(np.split(X, heads, axis=0)))
    assert feedback.mistake == "split-positions", feedback


def split_into_int_array(X, heads):
    n, d_model = X.shape
    d_k = d_model // heads
    out = np.zeros((heads, n, d_k), dtype=int)  # assigning floats into it truncates them
    for h in range(heads):
        out[h] = X[:, h * d_k:(h + 1) * d_k]
    return out


@pytest.mark.parametrize("fn", [split_into_int_array,
                                lambda X, heads: np.round(X.reshape(X.shape[0], heads, -1).transpose(1, 0, 2))],
                         ids=["int array", "rounded"])
def test_heads_cut_to_whole_numbers_are_integer_heads(fn):
    feedback = check_split_heads(fn)
    assert feedback.mistake == "integer-heads", feedback
    assert "real numbers" in feedback.reason


def test_a_list_of_heads_is_named_where_the_problem_asks_for_an_array():
    # Issue 17: 07 P4 says "Return an array"; a list of the heads' blocks passed.
    def as_list(X, heads):
        d_k = X.shape[-1] // heads
        return [X[:, h * d_k:(h + 1) * d_k] for h in range(heads)]

    feedback = check_split_heads(as_list)
    assert feedback.mistake == "returned-list" and "np.stack" in feedback.reason, feedback
    assert check_split_heads(lambda X, heads: np.stack(as_list(X, heads))).passed


# ------------------------------------------------------------------------------- learner review (07 P3)


def test_heads_and_d_k_swapped_in_the_reshape_are_named():
    # The review: X.reshape(n, d // h, h).transpose(1, 0, 2), (d_k, n, heads), got a generic wrong-shape.
    feedback = check_split_heads(lambda X, heads: X.reshape(X.shape[0], X.shape[1] // heads, heads).transpose(1, 0, 2))
    assert feedback.mistake == "heads-dk-swapped" and "(d_k, n, heads)" in feedback.reason, feedback


def test_a_returned_list_gets_a_hint():
    # The review: returned-list failed with an empty hint.
    feedback = check_split_heads(lambda X, heads: list(X.reshape(X.shape[0], heads, -1).transpose(1, 0, 2)))
    assert feedback.mistake == "returned-list" and "np.stack" in feedback.hint, feedback
