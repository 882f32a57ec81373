"""check_weighted_average: each hand-written wrong answer gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

from attn_lib.exercises import check_weighted_average


def loop_version(weights, V):
    out = np.zeros((*weights.shape[:-1], V.shape[-1]))
    for index in np.ndindex(weights.shape[:-1]):
        batch, i = index[:-1], index[-1]
        for j in range(weights.shape[-1]):
            out[index] += weights[index + (j,)] * V[batch + (j,)]
    return out


RIGHT = {
    "matmul operator": lambda weights, V: weights @ V,
    "np.matmul": lambda weights, V: np.matmul(weights, V),
    "einsum": lambda weights, V: np.einsum("...nm,...md->...nd", weights, V),
    "broadcast and sum over keys": lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-2),
    "float32": lambda weights, V: weights.astype(np.float32) @ V.astype(np.float32),
    "plain loops": loop_version,
    "swapaxes twice": lambda weights, V: np.swapaxes(np.swapaxes(V, -1, -2) @ np.swapaxes(weights, -1, -2), -1, -2),
    "returns a list of lists": lambda weights, V: (weights @ V).tolist(),
}

WRONG = [
    ("returned-weights", lambda weights, V: weights),
    ("unweighted-mean", lambda weights, V: V.mean(axis=0)),
    ("unweighted-mean", lambda weights, V: np.repeat(V.mean(axis=-2, keepdims=True), weights.shape[-2], axis=-2)),
    ("v-transposed", lambda weights, V: weights @ np.swapaxes(V, -1, -2)),
    ("weights-transposed", lambda weights, V: np.swapaxes(weights, -1, -2) @ V),
    ("sum-wrong-axis", lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-3)),
    ("fixed-axis-on-batch", lambda weights, V: (weights[..., None] * V[..., None, :, :]).sum(axis=1)
     if weights.ndim == 2 else (weights[..., None] * V[:, None]).sum(axis=1)),
    ("np-dot-on-batch", lambda weights, V: np.dot(weights, V)),
    ("no-batch", lambda weights, V: weights @ V if weights.ndim == 2 else (weights @ V)[::-1]),
    ("wrong-shape", lambda weights, V: (weights @ V)[..., :1]),
    ("wrong-values", lambda weights, V: weights @ V + 0.01),
    ("exception", lambda weights, V: np.dot(weights, V, out=1)),
    ("returned-none", lambda weights, V: None),
    ("wrong-signature", lambda weights: weights),
]


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass(name):
    fb = check_weighted_average(RIGHT[name])
    assert fb.passed, (name, fb)


@pytest.mark.parametrize("mistake, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_each_wrong_answer_gets_its_own_mistake(mistake, fn):
    fb = check_weighted_average(fn)
    assert not fb.passed
    assert fb.mistake == mistake, fb
    assert fb.reason


def test_placeholders_are_not_answered():
    def stub(weights, V):
        raise NotImplementedError

    assert check_weighted_average(None).mistake == "not-answered"
    assert check_weighted_average(stub).mistake == "not-answered"


def two_d_einsum(weights, V):
    return np.einsum("nm,md->nd", weights, V)


def two_d_transposes(weights, V):
    return (V.T @ weights.T).T


def two_d_dot(weights, V):
    return np.dot(weights, V)


@pytest.mark.parametrize("fn, mistake", [(two_d_einsum, "einsum-2d-only"), (two_d_transposes, "dot-T-on-batch"),
                                         (two_d_dot, "np-dot-on-batch")])
def test_answers_written_for_2d_only_are_told_about_the_batch_axis(fn, mistake):
    fb = check_weighted_average(fn)
    assert fb.mistake == mistake, fb
    assert "batch" in fb.reason


def test_tensordot_is_not_told_about_np_dot():
    feedback = check_weighted_average(lambda weights, V: np.tensordot(weights, V, axes=([-1], [-2])))
    assert "np.dot does not" not in feedback.reason


def test_an_einsum_for_one_batch_axis_is_wrong_on_two():
    feedback = check_weighted_average(
        lambda weights, V: weights @ V if weights.ndim == 2 else np.einsum("bnm,bmd->bnd", weights, V))
    assert feedback.mistake == "einsum-2d-only", feedback
    assert "two leading axes" in feedback.reason


@pytest.mark.parametrize("axes", [1, (-1, 0)], ids=["axes=1", "axes=(-1, 0)"])
def test_tensordot_that_pairs_the_keys_with_the_batch_is_named(axes):
    # Issue 17: these raise on a batch and got the generic no-batch, which did not say what tensordot pairs.
    feedback = check_weighted_average(lambda weights, V: np.tensordot(weights, V, axes=axes))
    assert feedback.mistake == "tensordot-on-batch", feedback
    assert "pairs the weights' last axis, the keys, with V's first axis" in feedback.reason


def test_the_generic_batch_hint_names_this_problems_arguments():
    feedback = check_weighted_average(lambda weights, V: np.stack([w @ v for w, v in zip(weights, V)])
                                      if weights.ndim == 3 else weights @ V if weights.ndim == 2 else weights)
    assert feedback.mistake == "no-batch", feedback
    assert "K.T" not in feedback.hint and "Q.shape" not in feedback.hint
