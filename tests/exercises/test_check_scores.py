"""check_scores against hand-written learner answers: each wrong one gets its own mistake id, every right one
passes whatever its style."""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises._explain import NAIVE_OVERFLOW
from attn_lib.exercises import check_scores


def swap(K):
    return np.swapaxes(K, -1, -2)


def loops(Q, K):
    out = np.zeros(Q.shape[:-1] + (K.shape[-2],))
    for batch in np.ndindex(*Q.shape[:-2]):
        for i in range(Q.shape[-2]):
            for j in range(K.shape[-2]):
                out[batch + (i, j)] = sum(Q[batch + (i, t)] * K[batch + (j, t)] for t in range(Q.shape[-1]))
    return out


def reshaped(Q, K):  # flattens the batch axes, multiplies, restores them
    batch = Q.shape[:-2]
    q = Q.reshape(-1, *Q.shape[-2:])
    k = K.reshape(-1, *K.shape[-2:])
    return np.stack([a @ b.T for a, b in zip(q, k)]).reshape(*batch, Q.shape[-2], K.shape[-2])


RIGHT = {
    "swapaxes": lambda Q, K: Q @ swap(K),
    "einsum": lambda Q, K: np.einsum("...nd,...md->...nm", Q, K),
    "matmul-moveaxis": lambda Q, K: np.matmul(Q, np.moveaxis(K, -1, -2)),
    "transpose-last-two": lambda Q, K: Q @ K.transpose(*range(K.ndim - 2), K.ndim - 1, K.ndim - 2),
    "float32": lambda Q, K: Q.astype(np.float32) @ swap(K).astype(np.float32),
    "plain-loops": loops,
    "batch-loop-of-2d": reshaped,
    "K-side-first": lambda Q, K: swap(K @ swap(Q)),
    "broadcast-sum": lambda Q, K: (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-1),
}

WRONG = {
    "transpose-on-batch": lambda Q, K: Q @ K.T,
    "dot-on-batch": lambda Q, K: np.dot(Q, swap(K)),
    "no-transpose": lambda Q, K: Q @ K,
    "keys-times-queries": lambda Q, K: K @ swap(Q),
    "scaled-too-early": lambda Q, K: Q @ swap(K) / np.sqrt(Q.shape[-1]),
    "no-batch": lambda Q, K: Q @ swap(K) if Q.ndim == 2 else (Q @ swap(K))[..., ::-1, :],
    "wrong-values": lambda Q, K: Q @ swap(K) + 1.0,
    "wrong-shape": lambda Q, K: (Q @ swap(K))[..., :1],
    "returned-tuple": lambda Q, K: (Q @ swap(K), None),
}


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass_whatever_their_style(name):
    feedback = check_scores(RIGHT[name])
    assert feedback.passed, f"{name}: {feedback}"


@pytest.mark.parametrize("mistake", WRONG)
def test_each_wrong_answer_gets_its_own_mistake(mistake):
    feedback = check_scores(WRONG[mistake])
    assert not feedback.passed
    assert feedback.mistake == mistake, f"expected {mistake}, got {feedback.mistake}: {feedback}"
    assert feedback.reason


def test_K_dot_T_on_a_batch_is_named_with_its_axes():
    feedback = check_scores(lambda Q, K: Q @ K.T)
    assert "reverses every axis" in feedback.reason and "swapaxes" in feedback.hint


def test_a_2d_only_einsum_is_not_blamed_on_a_transpose():
    assert check_scores(lambda Q, K: np.einsum("ij,kj->ik", Q, K)).mistake == "no-batch"


def test_placeholders_and_calls_to_attn_lib_are_named():
    def stub(Q, K):
        raise NotImplementedError

    assert check_scores(None).mistake == "not-answered"
    assert check_scores(stub).mistake == "not-answered"
    assert check_scores(lambda Q, K: attn_lib.scaled_scores(Q, K) * np.sqrt(Q.shape[-1])).mistake == "used-attn-lib"
    assert check_scores(lambda Q: Q).mistake == "wrong-signature"


def test_the_same_answer_always_gets_the_same_words():
    assert repr(check_scores(WRONG["no-transpose"])) == repr(check_scores(WRONG["no-transpose"]))


def test_the_module_table_lists_every_mistake_id():
    import attn_lib.exercises as exercises
    from attn_lib.exercises._check_scores import PROBLEM

    for mistake in PROBLEM.mistakes():
        assert mistake.id in exercises.__doc__, mistake.id
    assert (PROBLEM.overflow or NAIVE_OVERFLOW)[0] in exercises.__doc__


@pytest.mark.parametrize("fn, mistake", [
    (lambda Q, K: Q @ np.swapaxes(K, -1, -2) / Q.shape[-1], "scaled-too-early"),
    (lambda Q, K: np.einsum("...ij,...jk->...ik", Q, K), "no-transpose"),
])
def test_more_scores_mistakes_are_named(fn, mistake):
    assert check_scores(fn).mistake == mistake


def test_scores_slightly_too_large_cast_to_float16_do_not_pass():
    # Issue 17: the tolerance followed the answer's dtype (about 2 % for float16), so 1.5 % too large passed.
    feedback = check_scores(lambda Q, K: (Q @ swap(K) * 1.015).astype(np.float16))
    assert feedback.mistake == "wrong-values", feedback
    assert check_scores(lambda Q, K: (Q @ swap(K)).astype(np.float16)).mistake == "low-precision"
    assert check_scores(lambda Q, K: (Q @ swap(K)).astype(np.float32)).passed
