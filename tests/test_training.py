"""attn_lib.training: the recall task, the gradients of every weight (against finite differences), and train."""

import numpy as np
import pytest

from attn_lib.training import KEY_SYMBOLS, RecallTask, init_weights, loss_and_gradients, train

TASK = RecallTask(d_model=8, pairs=5, queries=3)


def numerical_gradient(weights, batch, name, scale, targets, eps=1e-6):
    grad = np.zeros_like(weights[name])
    for index in np.ndindex(grad.shape):
        plus = {k: w.copy() for k, w in weights.items()}
        minus = {k: w.copy() for k, w in weights.items()}
        plus[name][index] += eps
        minus[name][index] -= eps
        grad[index] = (loss_and_gradients(plus, batch, scale, targets)[0]
                       - loss_and_gradients(minus, batch, scale, targets)[0]) / (2 * eps)
    return grad


@pytest.mark.parametrize("heads, d_k, d_v, targets", [(1, 3, 2, ("recall",)), (2, 4, 3, ("recall", "first"))])
@pytest.mark.parametrize("scale", [None, 1.0, 0.3])
def test_every_gradient_matches_finite_differences(heads, d_k, d_v, targets, scale):
    weights = init_weights(np.random.default_rng(1), TASK.d_model, heads, d_k, d_v, outputs=len(targets))
    batch = TASK.batch(np.random.default_rng(2), size=3)
    _, _, _, grads = loss_and_gradients(weights, batch, scale, targets)
    for name, W in weights.items():
        assert grads[name].shape == W.shape, name
        np.testing.assert_allclose(grads[name], numerical_gradient(weights, batch, name, scale, targets),
                                   rtol=1e-5, atol=1e-8, err_msg=name)


def test_the_batch_holds_different_keys_and_the_right_targets():
    batch = TASK.batch(np.random.default_rng(3), size=50)
    assert batch.X_q.shape == (50, 3, 8) and batch.X_kv.shape == (50, 5, 8)
    assert all(len(set(row)) == TASK.pairs for row in batch.keys)
    rows = np.arange(50)[:, None]
    assert np.array_equal(batch.keys[rows, batch.match], batch.query_keys)
    assert np.array_equal(batch.values[rows, batch.match], batch.targets["recall"])
    assert np.array_equal(batch.targets["first"], np.repeat(batch.values[:, :1], 3, axis=1))
    queries, pairs = batch.labels(0)
    assert queries[0] == KEY_SYMBOLS[batch.query_keys[0, 0]] + "?" and len(pairs) == 5


def test_encode_rebuilds_the_batch_from_its_symbols():
    batch = TASK.batch(np.random.default_rng(4), size=6)
    again = TASK.encode(batch.keys, batch.values, batch.match)
    np.testing.assert_array_equal(again.X_q, batch.X_q)
    np.testing.assert_array_equal(again.X_kv, batch.X_kv)


def test_positions_have_components_of_variance_about_one():
    batch = RecallTask(d_model=64).batch(np.random.default_rng(5), size=400)
    assert batch.X_kv.var() == pytest.approx(1.0, abs=0.15)
    assert batch.X_q.var() == pytest.approx(1.0, abs=0.15)


def test_a_plain_gradient_step_is_w_minus_lr_times_the_gradient():
    weights = init_weights(np.random.default_rng(6), TASK.d_model, 1, 4, 4)
    start = {k: w.copy() for k, w in weights.items()}
    grads = loss_and_gradients(start, TASK.batch(np.random.default_rng(0), size=16))[3]
    train(TASK, weights, steps=1, lr=0.1, batch_size=16, seed=0)
    for name in weights:
        np.testing.assert_allclose(weights[name], start[name] - 0.1 * grads[name])


def test_adams_first_step_moves_every_weight_by_about_lr():
    weights = init_weights(np.random.default_rng(6), TASK.d_model, 1, 4, 4)
    start = {k: w.copy() for k, w in weights.items()}
    train(TASK, weights, steps=1, lr=1e-3, batch_size=16, optimizer="adam")
    for name in weights:
        moved = np.abs(weights[name] - start[name])
        assert np.all(moved <= 1e-3 * (1 + 1e-6)) and np.median(moved) > 0.9e-3


def test_training_learns_the_recall_pattern_and_is_reproducible():
    task = RecallTask()
    runs = [train(task, init_weights(np.random.default_rng(0)), 60, 0.5, seed=1, save_every=20) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].losses, runs[1].losses)
    assert runs[0].losses[-1] < 0.3 * runs[0].losses[0]
    assert list(runs[0].saved_steps) == [0, 20, 40]
    np.testing.assert_allclose(runs[0].saved_weights.sum(axis=-1), 1.0)


def test_stop_at_stops_at_the_first_batch_that_reaches_it():
    history = train(RecallTask(), init_weights(np.random.default_rng(0)), 300, 0.5, stop_at=0.9)
    assert history.reached == len(history.losses) - 1
    assert history.accuracy[-1, 0] >= 0.9 and np.all(history.accuracy[:-1, 0] < 0.9)


@pytest.mark.parametrize("make, argument", [
    (lambda: RecallTask(pairs=17), "pairs"),
    (lambda: RecallTask(queries=9, pairs=8), "queries"),
    (lambda: RecallTask(d_model=0), "d_model"),
    (lambda: TASK.encode(np.zeros((2, 4), int), np.zeros((2, 4), int), np.zeros((2, 3), int)), "keys"),
    (lambda: TASK.encode(np.zeros((2, 5), int), np.zeros((2, 5), int), np.zeros((2, 2), int)), "match"),
    (lambda: init_weights(np.random.default_rng(0), d_k=0), "d_k"),
    (lambda: train(TASK, init_weights(np.random.default_rng(0), 8), 1, 0.1, optimizer="sgdm"), "optimizer"),
    (lambda: loss_and_gradients(init_weights(np.random.default_rng(0), 8), TASK.batch(np.random.default_rng(0)),
                                targets=("recall", "first")), "targets"),
])
def test_bad_arguments_name_themselves(make, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        make()
