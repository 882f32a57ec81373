"""check_softmax_backward: each hand-written wrong answer gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

from attn_lib.exercises import check_softmax_backward


def jacobian_loops(scores, weights, d_weights):
    d_scores = np.zeros_like(weights)
    for index in np.ndindex(weights.shape[:-1]):
        p = weights[index]
        jacobian = np.diag(p) - np.outer(p, p)  # dp_j/ds_k
        d_scores[index] = d_weights[index] @ jacobian
    return d_scores


def recomputed_from_scores(scores, weights, d_weights):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p * d_weights - p * np.einsum("...m,...m->...", d_weights, p)[..., None]


RIGHT = {
    "keepdims": lambda S, P, dP: P * (dP - (dP * P).sum(axis=-1, keepdims=True)),
    "full Jacobian per row": jacobian_loops,
    "einsum with the Jacobian": lambda S, P, dP: np.einsum(
        "...j,...jk->...k", dP, np.einsum("...j,jk->...jk", P, np.eye(P.shape[-1])) - P[..., :, None] * P[..., None, :]),
    "weights recomputed from the scores": recomputed_from_scores,
    "float32": lambda S, P, dP: (P.astype(np.float32) * (dP.astype(np.float32)
                                  - (dP * P).astype(np.float32).sum(axis=-1, keepdims=True))),
    "expanded": lambda S, P, dP: P * dP - P * np.sum(P * dP, axis=-1)[..., np.newaxis],
}

WRONG = [
    ("missing-row-sum", lambda S, P, dP: P * dP),
    ("diagonal-only", lambda S, P, dP: dP * P * (1 - P)),
    ("missing-outer-weights", lambda S, P, dP: dP - (dP * P).sum(axis=-1, keepdims=True)),
    ("row-sum-without-weights", lambda S, P, dP: P * (dP - dP.sum(axis=-1, keepdims=True))),
    ("sum-wrong-axis", lambda S, P, dP: P * (dP - (dP * P).sum(axis=-2, keepdims=True))),
    ("fixed-axis-on-batch", lambda S, P, dP: P * (dP - (dP * P).sum(axis=1, keepdims=True))),
    ("no-keepdims", lambda S, P, dP: P * (dP - (dP * P).sum(axis=-1))),
    ("used-scores", lambda S, P, dP: S * (dP - (dP * S).sum(axis=-1, keepdims=True))),
    ("used-scores", lambda S, P, dP: P * (dP - (dP * S).sum(axis=-1, keepdims=True))),
    ("sign-flipped", lambda S, P, dP: P * ((dP * P).sum(axis=-1, keepdims=True) - dP)),
    ("returned-d-weights", lambda S, P, dP: dP),
    ("wrong-shape", lambda S, P, dP: (P * dP).sum(axis=-1)),
    ("wrong-values", lambda S, P, dP: 2 * P * (dP - (dP * P).sum(axis=-1, keepdims=True))),
    ("exception", lambda S, P, dP: P @ dP),
    ("wrong-signature", lambda P, dP: P),
]


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass(name):
    fb = check_softmax_backward(RIGHT[name])
    assert fb.passed, (name, fb)


@pytest.mark.parametrize("mistake, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_each_wrong_answer_gets_its_own_mistake(mistake, fn):
    fb = check_softmax_backward(fn)
    assert not fb.passed
    assert fb.mistake == mistake, fb


def test_placeholders_are_not_answered():
    def stub(scores, weights, d_weights):
        raise NotImplementedError

    assert check_softmax_backward(None).mistake == "not-answered"
    assert check_softmax_backward(stub).mistake == "not-answered"


@pytest.mark.parametrize("fn, mistake", [
    (lambda S, P, dP: P * (dP - (dP * P).mean(axis=-1, keepdims=True)), "mean-not-sum"),
    (lambda S, P, dP: P * (dP - (dP * P).sum()), "sum-whole-array"),
])
def test_more_backward_mistakes_are_named(fn, mistake):
    assert check_softmax_backward(fn).mistake == mistake


def test_a_loop_over_one_batch_axis_is_no_batch():
    def rows_of_2d(P, dP):  # axis=1: right on 2-D only
        return P * (dP - (dP * P).sum(axis=1, keepdims=True))

    feedback = check_softmax_backward(
        lambda S, P, dP: rows_of_2d(P, dP) if P.ndim == 2 else np.array([rows_of_2d(a, b) for a, b in zip(P, dP)]))
    assert feedback.mistake == "no-batch", feedback
    assert "two leading axes" in feedback.reason
