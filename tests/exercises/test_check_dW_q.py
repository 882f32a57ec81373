"""check_dW_q: every right way of writing dW_q passes, every classic mistake gets its own id."""

import numpy as np
import pytest

from attn_lib.exercises import check_dW_q


def sum_over_batch(X, dQ):
    """X^T dQ for X (..., n, d_model), dQ (..., n, d_k), summed over the leading axes, with einsum."""
    X3, dQ3 = X.reshape(-1, *X.shape[-2:]), dQ.reshape(-1, *dQ.shape[-2:])
    return np.einsum("bnd,bnk->dk", X3, dQ3)


def einsum_answer(X, K, d_scores):
    dQ = d_scores @ K / np.sqrt(K.shape[-1])
    return sum_over_batch(X, dQ)


def swapaxes_answer(X, K, d_scores):
    dQ = d_scores @ K / np.sqrt(K.shape[-1])
    grad = np.swapaxes(X, -1, -2) @ dQ
    return grad.reshape(-1, *grad.shape[-2:]).sum(axis=0)


def loop_answer(X, K, d_scores):
    d_model, d_k = X.shape[-1], K.shape[-1]
    Xs, Ks, Ds = X.reshape(-1, *X.shape[-2:]), K.reshape(-1, *K.shape[-2:]), d_scores.reshape(-1, *d_scores.shape[-2:])
    grad = np.zeros((d_model, d_k))
    for x, k, d in zip(Xs, Ks, Ds):
        for i in range(x.shape[0]):  # one query row at a time
            grad += np.outer(x[i], d[i] @ k) / d_k**0.5
    return grad


def scale_first_answer(X, K, d_scores):
    K_scaled = K / np.sqrt(K.shape[-1])  # scaling K first is the same product
    return np.tensordot(X, d_scores @ K_scaled, axes=(tuple(range(X.ndim - 1)), tuple(range(X.ndim - 1))))


def float32_answer(X, K, d_scores):
    X, K, d_scores = X.astype(np.float32), K.astype(np.float32), d_scores.astype(np.float32)
    dQ = d_scores @ K / np.float32(np.sqrt(K.shape[-1]))
    return sum_over_batch(X, dQ)  # float32 throughout, right to float32 rounding


@pytest.mark.parametrize("answer", [einsum_answer, swapaxes_answer, loop_answer, scale_first_answer, float32_answer])
def test_right_answers_in_any_style_pass(answer):
    feedback = check_dW_q(answer)
    assert feedback.passed, feedback.reason
    assert feedback.verdict == "Correct"


def dQ(X, K, d_scores, factor=None):
    d_k = K.shape[-1]
    return d_scores @ K * (d_k**-0.5 if factor is None else factor(d_k, X.shape[-1]))


WRONG = {
    "no-scale": lambda X, K, d: sum_over_batch(X, d @ K),
    "scaled-twice": lambda X, K, d: sum_over_batch(X, d @ K) / K.shape[-1],  # 1/d_k: the same numbers
    "multiply-by-sqrt-dk": lambda X, K, d: sum_over_batch(X, d @ K) * np.sqrt(K.shape[-1]),
    "d-model-scaling": lambda X, K, d: sum_over_batch(X, d @ K) / np.sqrt(X.shape[-1]),
    "x-not-transposed": lambda X, K, d: X @ dQ(X, K, d),
    "result-transposed": lambda X, K, d: sum_over_batch(X, dQ(X, K, d)).T,
    "d-scores-transposed": lambda X, K, d: sum_over_batch(X, np.swapaxes(d, -1, -2) @ K) / np.sqrt(
        K.shape[-1]),
    "batch-not-summed": lambda X, K, d: np.swapaxes(X, -1, -2) @ dQ(X, K, d),
    "batch-axes": lambda X, K, d: X.T @ dQ(X, K, d),
    "wrong-shape": lambda X, K, d: sum_over_batch(X, dQ(X, K, d))[:, :2],
    "wrong-values": lambda X, K, d: sum_over_batch(X, dQ(X, K, d)) + 1.0,
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_each_mistake_is_named(mistake):
    feedback = check_dW_q(WRONG[mistake])
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback.reason
    assert feedback.reason


def test_dividing_by_d_model_itself_is_the_d_model_mistake():
    feedback = check_dW_q(lambda X, K, d: sum_over_batch(X, d @ K) / X.shape[-1])
    assert feedback.mistake == "d-model-scaling"


@pytest.mark.parametrize("answer", [None, ...])
def test_blank_is_not_answered(answer):
    assert check_dW_q(answer).mistake == "not-answered"


def test_placeholder_function_is_not_answered():
    def my_dW_q(X, K, d_scores):
        raise NotImplementedError

    assert check_dW_q(my_dW_q).mistake == "not-answered"


def test_wrong_signature_and_exceptions_become_feedback():
    assert check_dW_q(lambda X, K: X).mistake == "wrong-signature"
    assert check_dW_q(lambda X, K, d_scores: 1 / 0).mistake == "exception"
    assert check_dW_q(einsum_answer(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))).mistake == "not-callable"


def test_dividing_by_sqrt_dk_twice_is_scaled_twice():
    def twice(X, K, d_scores):
        d_k = K.shape[-1]
        return sum_over_batch(X, d_scores @ K / np.sqrt(d_k)) / np.sqrt(d_k)

    feedback = check_dW_q(twice)
    assert feedback.mistake == "scaled-twice", feedback
    assert "already" in feedback.reason


@pytest.mark.parametrize("fn, mistake", [
    (lambda X, K, d: (np.swapaxes(X, -1, -2) @ dQ(X, K, d)).reshape(-1, X.shape[-1], K.shape[-1]).mean(axis=0),
     "batch-averaged"),
    (lambda X, K, d: np.dot(X.T, dQ(X, K, d)), "batch-axes"),
])
def test_more_dW_q_mistakes_are_named(fn, mistake):
    assert check_dW_q(fn).mistake == mistake


def test_an_einsum_for_one_batch_axis_is_no_batch():
    def one_batch_axis(X, K, d_scores):
        dQ = d_scores @ K / np.sqrt(K.shape[-1])
        return X.T @ dQ if X.ndim == 2 else np.einsum("bnd,bnk->dk", X, dQ)

    feedback = check_dW_q(one_batch_axis)
    assert feedback.mistake == "no-batch", feedback
    assert "two leading axes" in feedback.reason


@pytest.mark.parametrize("fn", [
    lambda X, K, d_scores: np.einsum("nd,nm,mk->dk", X, d_scores, K) / np.sqrt(K.shape[-1]),
    lambda X, K, d_scores: np.einsum("ij,ik,kl->jl", X, d_scores, K) / np.sqrt(K.shape[-1]),
    lambda X, K, d_scores: X.T @ (d_scores @ K) / np.sqrt(K.shape[-1]),
], ids=["einsum-2d", "einsum-2d-other-letters", "X.T"])
def test_every_2d_only_answer_gets_batch_axes(fn):
    # Issue 17: a 2-D-only einsum got a generic `exception` (with a hint naming another problem's arguments),
    # while X.T got batch-axes.
    feedback = check_dW_q(fn)
    assert feedback.mistake == "batch-axes", feedback


def test_an_exception_hint_names_this_problems_own_arguments():
    def wrong_reshape(X, K, d_scores):
        return X.reshape(-1, X.shape[-1]).T @ (d_scores @ K)[..., :2].reshape(-1, K.shape[-1])

    feedback = check_dW_q(wrong_reshape)
    assert feedback.mistake == "exception", feedback
    assert "X (..., n, d_model), K (..., m, d_k), d_scores (..., n, m)" in feedback.hint
    assert "(d_model, d_k)" in feedback.hint and "V (" not in feedback.hint and "Q (" not in feedback.hint


def test_an_einsum_without_ellipsis_in_its_output_is_not_told_to_count_axes_from_the_end():
    # The review (09 P1): '...nd,...nk->dk' with a scale mistake was told to count axes from the end; it does.
    def unscaled(X, K, d_scores):
        return np.einsum("...nd,...nk->dk", X, d_scores @ K)

    feedback = check_dW_q(unscaled)
    assert feedback.mistake == "no-scale", feedback
    assert "count axes from the end" not in feedback.reason and "'...' in the output" in feedback.reason, feedback
