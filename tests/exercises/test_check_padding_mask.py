"""check_padding_mask: each hand-written wrong answer gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

import attn_lib
from attn_lib import padding_mask
from attn_lib.exercises import check_padding_mask


def loop_version(lengths, m):
    mask = np.zeros((len(lengths), 1, m), dtype=bool)
    for b, length in enumerate(lengths):
        for j in range(length):
            mask[b, 0, j] = True
    return mask


RIGHT = {
    "comparison with broadcasting": lambda lengths, m: (np.arange(m) < lengths[:, None])[:, None, :],
    "np.newaxis and expand_dims": lambda lengths, m: np.expand_dims(np.arange(m)[np.newaxis, :] < lengths[:, np.newaxis], 1),
    "plain loops": loop_version,
    "tri-free: cumulative ones": lambda lengths, m: np.stack([[np.arange(m) < L] for L in lengths]),
    "reshape": lambda lengths, m: (np.arange(m).reshape(1, 1, m) < np.asarray(lengths).reshape(-1, 1, 1)),
    "list of lengths converted": lambda lengths, m: np.array([[[j < L for j in range(m)]] for L in list(lengths)]),
}

WRONG = [
    ("inverted-mask", lambda lengths, m: (np.arange(m) >= lengths[:, None])[:, None, :]),
    ("off-by-one", lambda lengths, m: (np.arange(m) <= lengths[:, None])[:, None, :]),
    ("off-by-one", lambda lengths, m: (np.arange(m) < lengths[:, None] - 1)[:, None, :]),
    ("same-length-for-all", lambda lengths, m: np.broadcast_to(np.arange(m) < lengths[0], (len(lengths), 1, m))),
    ("same-length-for-all", lambda lengths, m: np.broadcast_to(np.arange(m) < lengths.max(), (len(lengths), 1, m))),
    ("missing-query-axis", lambda lengths, m: np.arange(m) < lengths[:, None]),
    ("masks-queries", lambda lengths, m: (np.arange(m) < lengths[:, None])[:, :, None]),
    ("not-boolean", lambda lengths, m: (np.arange(m) < lengths[:, None])[:, None, :].astype(int)),
    ("additive-mask", lambda lengths, m: np.where(np.arange(m) < lengths[:, None], 0.0, -np.inf)[:, None, :]),
    ("wrong-shape", lambda lengths, m: np.ones((m, m), dtype=bool)),
    ("wrong-pattern", lambda lengths, m: np.ones((len(lengths), 1, m), dtype=bool)),
    ("used-attn-lib", lambda lengths, m: padding_mask(lengths, m)),
    ("used-attn-lib", lambda lengths, m: attn_lib.masks.padding_mask(lengths, m)),
    ("exception", lambda lengths, m: np.arange(m) < lengths[:, None, None, None, 7]),
    ("returned-none", lambda lengths, m: None),
]


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass(name):
    fb = check_padding_mask(RIGHT[name])
    assert fb.passed, (name, fb)


@pytest.mark.parametrize("mistake, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_each_wrong_answer_gets_its_own_mistake(mistake, fn):
    fb = check_padding_mask(fn)
    assert not fb.passed
    assert fb.mistake == mistake, fb


def test_placeholders_are_not_answered():
    def stub(lengths, m):
        raise NotImplementedError

    assert check_padding_mask(None).mistake == "not-answered"
    assert check_padding_mask(stub).mistake == "not-answered"


def test_the_shortest_length_for_every_sequence_is_same_length_for_all():
    feedback = check_padding_mask(
        lambda lengths, m: np.broadcast_to(np.arange(m) < np.min(lengths), (len(lengths), m))[:, None, :])
    assert feedback.mistake == "same-length-for-all"


def test_a_list_is_named_where_the_problem_asks_for_an_array():
    # 06 P6 says "Return a boolean array of shape (batch, 1, m)".
    feedback = check_padding_mask(lambda lengths, m: [[[j < n for j in range(m)]] for n in lengths])
    assert feedback.mistake == "returned-list", feedback
