"""attn_lib.training: the recall task, the gradients of every parameter (against finite differences), train, and
train_seeds (several seeds along a leading axis) against train run once per seed."""

import numpy as np
import pytest

from attn_lib.training import (KEY_SYMBOLS, RecallTask, init_parameters, loss_and_gradients, stack_batches,
                               stack_parameters, train, train_seeds)
from attn_lib.widgets.replay import _replayed_run

TASK = RecallTask(d_model=8, pairs=5, queries=3)


def numerical_gradient(weights, batch, name, scale, targets, eps=1e-6, qk_norm=False):
    grad = np.zeros_like(weights[name])
    for index in np.ndindex(grad.shape):
        plus = {k: w.copy() for k, w in weights.items()}
        minus = {k: w.copy() for k, w in weights.items()}
        plus[name][index] += eps
        minus[name][index] -= eps
        grad[index] = (loss_and_gradients(plus, batch, scale, targets, qk_norm)[0]
                       - loss_and_gradients(minus, batch, scale, targets, qk_norm)[0]) / (2 * eps)
    return grad


@pytest.mark.parametrize("heads, d_k, d_v, targets", [(1, 3, 2, ("recall",)), (2, 4, 3, ("recall", "first")),
                                                    (2, 8, 3, ("recall",)), (1, 12, 3, ("recall",))])  # d_k >= d_model
@pytest.mark.parametrize("scale", [None, 1.0, 0.3])
def test_every_gradient_matches_finite_differences(heads, d_k, d_v, targets, scale):
    weights = init_parameters(np.random.default_rng(1), TASK.d_model, heads, d_k, d_v, outputs=len(targets))
    batch = TASK.batch(np.random.default_rng(2), size=3)
    _, _, _, grads = loss_and_gradients(weights, batch, scale, targets)
    for name, W in weights.items():
        assert grads[name].shape == W.shape, name
        np.testing.assert_allclose(grads[name], numerical_gradient(weights, batch, name, scale, targets),
                                   rtol=1e-5, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("heads, d_k, d_v, targets", [(1, 3, 2, ("recall",)), (2, 4, 3, ("recall", "first")),
                                                    (1, 12, 3, ("recall",))])  # d_k >= d_model: Q and K made all the same
def test_every_gradient_matches_finite_differences_under_qk_norm(heads, d_k, d_v, targets):
    weights = init_parameters(np.random.default_rng(1), TASK.d_model, heads, d_k, d_v, len(targets), qk_norm=True)
    weights["g"] *= np.linspace(0.7, 1.3, heads)  # heads with different scales
    batch = TASK.batch(np.random.default_rng(2), size=3)
    _, _, _, grads = loss_and_gradients(weights, batch, None, targets, qk_norm=True)
    assert set(grads) == {"W_q", "W_k", "W_v", "W_o", "g"}
    for name, W in weights.items():
        assert grads[name].shape == W.shape, name
        np.testing.assert_allclose(grads[name], numerical_gradient(weights, batch, name, None, targets, qk_norm=True),
                                   rtol=1e-5, atol=1e-8, err_msg=name)


def test_under_qk_norm_the_sizes_of_w_q_and_w_k_change_no_weight_and_g_bounds_them():
    weights = init_parameters(np.random.default_rng(3), TASK.d_model, 2, 4, 4, qk_norm=True)
    batch = TASK.batch(np.random.default_rng(4), size=64)
    attn = loss_and_gradients(weights, batch, qk_norm=True)[2]  # (B, h, n, m)
    larger = {**weights, "W_q": 1e3 * weights["W_q"], "W_k": 0.01 * weights["W_k"]}
    np.testing.assert_allclose(loss_and_gradients(larger, batch, qk_norm=True)[2], attn, rtol=1e-10)
    np.testing.assert_allclose(weights["g"], 2.0)  # sqrt(d_k)
    # every score within +-g: no weight above e^g / (e^g + (m - 1) e^-g), none below the mirror of it
    m, g = TASK.pairs, 2.0
    assert attn.max() <= np.exp(g) / (np.exp(g) + (m - 1) * np.exp(-g))
    assert attn.min() >= np.exp(-g) / (np.exp(-g) + (m - 1) * np.exp(g))


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
    weights = init_parameters(np.random.default_rng(6), TASK.d_model, 1, 4, 4)
    start = {k: w.copy() for k, w in weights.items()}
    grads = loss_and_gradients(start, TASK.batch(np.random.default_rng(0), size=16))[3]
    train(TASK, weights, steps=1, lr=0.1, batch_size=16, seed=0)
    for name in weights:
        np.testing.assert_allclose(weights[name], start[name] - 0.1 * grads[name])


def test_adams_first_step_moves_every_weight_by_about_lr():
    weights = init_parameters(np.random.default_rng(6), TASK.d_model, 1, 4, 4)
    start = {k: w.copy() for k, w in weights.items()}
    train(TASK, weights, steps=1, lr=1e-3, batch_size=16, optimizer="adam")
    for name in weights:
        moved = np.abs(weights[name] - start[name])
        assert np.all(moved <= 1e-3 * (1 + 1e-6)) and np.median(moved) > 0.9e-3


def test_training_learns_the_recall_pattern_and_is_reproducible():
    task = RecallTask()
    runs = [train(task, init_parameters(np.random.default_rng(0)), 60, 0.5, seed=1, save_every=20) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].losses, runs[1].losses)
    assert runs[0].losses[-1] < 0.3 * runs[0].losses[0]
    assert list(runs[0].saved_steps) == [0, 20, 40]
    np.testing.assert_allclose(runs[0].saved_weights.sum(axis=-1), 1.0)


def test_stop_at_stops_at_the_first_batch_that_reaches_it():
    history = train(RecallTask(), init_parameters(np.random.default_rng(0)), 300, 0.5, stop_at=0.9)
    assert history.reached == len(history.losses) - 1
    assert history.accuracy[-1, 0] >= 0.9 and np.all(history.accuracy[:-1, 0] < 0.9)


@pytest.mark.parametrize("make, argument", [
    (lambda: RecallTask(pairs=17), "pairs"),
    (lambda: RecallTask(queries=9, pairs=8), "queries"),
    (lambda: RecallTask(d_model=0), "d_model"),
    (lambda: TASK.encode(np.zeros((2, 4), int), np.zeros((2, 4), int), np.zeros((2, 3), int)), "keys"),
    (lambda: TASK.encode(np.zeros((2, 5), int), np.zeros((2, 5), int), np.zeros((2, 2), int)), "match"),
    (lambda: init_parameters(np.random.default_rng(0), d_k=0), "d_k"),
    (lambda: train(TASK, init_parameters(np.random.default_rng(0), 8), 1, 0.1, optimizer="sgdm"), "optimizer"),
    (lambda: train_seeds(TASK, init_parameters(np.random.default_rng(0), 8), [0], 1, 0.1), "params"),
    (lambda: train_seeds(TASK, stack_parameters([init_parameters(np.random.default_rng(0), 8)] * 2), [0], 1, 0.1),
     "params"),
    (lambda: train_seeds(TASK, stack_parameters([init_parameters(np.random.default_rng(0), 8)]), [0], 2, 0.1,
                         keep_at=(3,)), "keep_at"),
    (lambda: loss_and_gradients(stack_parameters([init_parameters(np.random.default_rng(0), 8)] * 2),
                                TASK.batch(np.random.default_rng(0))), "batch"),
    (lambda: stack_parameters([]), "models"),
    (lambda: loss_and_gradients(init_parameters(np.random.default_rng(0), 8, qk_norm=True),
                                TASK.batch(np.random.default_rng(0))), "params"),  # g without qk_norm
    (lambda: loss_and_gradients(init_parameters(np.random.default_rng(0), 8), TASK.batch(np.random.default_rng(0)),
                                qk_norm=True), "params"),  # qk_norm without g
    (lambda: loss_and_gradients(init_parameters(np.random.default_rng(0), 8, qk_norm=True),
                                TASK.batch(np.random.default_rng(0)), 1.0, qk_norm=True), "scale"),
    (lambda: loss_and_gradients(init_parameters(np.random.default_rng(0), 8), TASK.batch(np.random.default_rng(0)),
                                targets=("recall", "first")), "targets"),
])
def test_bad_arguments_name_themselves(make, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        make()


LEARNABLE = RecallTask(d_model=16, pairs=4, queries=2)  # learned within 50 steps of batches of 16


def models(seeds, heads=1, d_k=8, d_v=8, outputs=1, task=LEARNABLE):
    return [init_parameters(np.random.default_rng(100 + s), task.d_model, heads, d_k, d_v, outputs) for s in seeds]


def test_gradients_with_a_seeds_axis_are_each_seeds_own():
    seeds = (0, 1, 2)
    targets = ("recall", "first")
    alone = [loss_and_gradients(m, TASK.batch(np.random.default_rng(s), size=5), 0.7, targets)
             for s, m in zip(seeds, models(seeds, heads=2, outputs=2, task=TASK))]
    together = loss_and_gradients(stack_parameters(models(seeds, heads=2, outputs=2, task=TASK)),
                                  stack_batches(TASK.batch(np.random.default_rng(s), size=5) for s in seeds), 0.7,
                                  targets)
    assert together[0].shape == (3,) and together[1].shape == (3, 2) and together[2].shape == (3, 5, 2, 3, 5)
    for s, (loss, acc, attn, grads) in enumerate(alone):
        assert together[0][s] == pytest.approx(loss, rel=1e-12)
        np.testing.assert_array_equal(together[1][s], acc)
        np.testing.assert_allclose(together[2][s], attn, rtol=1e-12)
        for name in grads:
            np.testing.assert_allclose(together[3][name][s], grads[name], rtol=1e-10, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("optimizer, lr", [("sgd", 0.5), ("adam", 3e-2)])
@pytest.mark.parametrize("scale", [None, 1.0])
def test_train_seeds_gives_what_train_gives_for_each_seed_alone(optimizer, lr, scale):
    seeds = (3, 0, 5, 7)
    alone = [train(LEARNABLE, m, 50, lr, scale=scale, seed=s, batch_size=16, optimizer=optimizer, stop_at=0.7)
             for s, m in zip(seeds, models(seeds))]
    together = train_seeds(LEARNABLE, stack_parameters(models(seeds)), seeds, 50, lr, scale=scale, batch_size=16,
                           optimizer=optimizer, stop_at=0.7)
    assert [h.reached if h.reached is not None else -1 for h in alone] == together.reached.tolist()
    assert len({h.reached for h in alone}) > 1  # the seeds stop at different steps: the freezing is exercised
    for s, history in enumerate(alone):
        steps = len(history.losses)
        np.testing.assert_allclose(together.losses[:steps, s], history.losses, rtol=1e-10)
        assert np.all(np.isnan(together.losses[steps:, s]))
        np.testing.assert_array_equal(together.accuracy[:steps, s], history.accuracy)
        for name, W in history.parameters.items():
            np.testing.assert_allclose(together.parameters[name][s], W, rtol=1e-9, atol=1e-12, err_msg=name)


def test_train_seeds_gives_what_train_gives_for_each_seed_alone_under_qk_norm():
    seeds = (3, 0)
    start = [init_parameters(np.random.default_rng(100 + s), LEARNABLE.d_model, 1, 8, 8, qk_norm=True) for s in seeds]
    alone = [train(LEARNABLE, {k: w.copy() for k, w in m.items()}, 30, 0.5, seed=s, batch_size=16, qk_norm=True)
             for s, m in zip(seeds, start)]
    together = train_seeds(LEARNABLE, stack_parameters(start), seeds, 30, 0.5, batch_size=16, qk_norm=True)
    for s, history in enumerate(alone):
        np.testing.assert_allclose(together.losses[:, s], history.losses, rtol=1e-10)
        for name, W in history.parameters.items():
            np.testing.assert_allclose(together.parameters[name][s], W, rtol=1e-9, atol=1e-12, err_msg=name)
    assert np.all(together.parameters["g"] != np.sqrt(8))  # g is trained with the others


def test_train_seeds_keeps_the_parameters_after_the_asked_numbers_of_updates():
    seeds = (0, 1)
    short = train_seeds(LEARNABLE, stack_parameters(models(seeds)), seeds, 7, 0.5, batch_size=8)
    longer = train_seeds(LEARNABLE, stack_parameters(models(seeds)), seeds, 12, 0.5, batch_size=8, keep_at=(7, 12))
    assert sorted(longer.kept) == [7, 12]
    for name, W in short.parameters.items():
        np.testing.assert_array_equal(longer.kept[7][name], W)
        np.testing.assert_array_equal(longer.kept[12][name], longer.parameters[name])
    assert longer.kept[12]["W_q"] is not longer.parameters["W_q"]


def test_a_learning_rate_per_parameter_moves_each_parameter_by_its_own():
    seeds = (0, 1)
    rates = {"W_q": 0.01, "W_k": 0.5, "W_v": 0.0, "W_o": 2.0}
    before = stack_parameters(models(seeds))
    grads = loss_and_gradients(before, stack_batches(LEARNABLE.batch(np.random.default_rng(s), 8) for s in seeds))[3]
    after = train_seeds(LEARNABLE, {k: w.copy() for k, w in before.items()}, seeds, 1, rates, batch_size=8).parameters
    for name, rate in rates.items():
        np.testing.assert_allclose(after[name], before[name] - rate * grads[name], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="a learning rate for each of"):
        train_seeds(LEARNABLE, before, seeds, 1, {"W_q": 0.1}, batch_size=8)


def test_a_model_whose_loss_blows_up_stops_as_diverged_and_the_others_train_on():
    seeds = (3, 0, 5)
    params = stack_parameters(models(seeds))
    params["W_o"][1] *= 1e300  # seed 0's logits overflow at once
    run = train_seeds(LEARNABLE, params, seeds, 50, 0.5, batch_size=16, stop_at=0.7)
    assert run.diverged.tolist() == [False, True, False] and run.reached[1] == -1
    assert np.all(np.isnan(run.losses[1:, 1])) and not np.isfinite(run.losses[0, 1])
    others = train_seeds(LEARNABLE, stack_parameters(models((3, 5))), (3, 5), 50, 0.5, batch_size=16, stop_at=0.7)
    assert run.reached[[0, 2]].tolist() == others.reached.tolist() and not others.diverged.any()
    np.testing.assert_allclose(run.losses[:, [0, 2]], others.losses[: len(run.losses)], rtol=1e-10)


def test_the_replay_explorer_replays_notebook_09s_first_run():
    """09's first run, written out in the notebook as a loop of loss_and_gradients and W -= lr dW: 150 steps of
    one head (d_k = d_v = 16) from default_rng(100), batches of seed 0. The explorer's run must be it."""
    task = RecallTask()
    params = init_parameters(np.random.default_rng(100), 32, 1, 16, 16)
    batches = np.random.default_rng(0)
    losses = []
    for _ in range(150):
        loss, _, _, grads = loss_and_gradients(params, task.batch(batches, 128))
        losses.append(loss)
        for name, grad in grads.items():
            params[name] -= 0.5 * grad
    replayed = _replayed_run(151, 5, 0.5, 0)
    np.testing.assert_allclose(replayed.losses[:150], losses, rtol=1e-12)


def test_importing_the_module_pins_numpys_blas_to_one_thread():
    """09 trains on small products; the pin used to be environment plumbing in a learner cell."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = [info for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    assert blas and all(info["num_threads"] == 1 for info in blas)


def test_one_head_of_width_32_answers_recall_from_position_0_at_step_200():
    """Notebook 09's figure 0.22: at step 200 one head of width 32 reads position 0 for every query, so recall is
    right when the key sits there or the two values agree, 1/8 + 7/8 x 1/10 of queries (two seeds here, 8 there)."""
    task, both = RecallTask(), ("recall", "first")
    seeds = (0, 1)
    params = stack_parameters([init_parameters(np.random.default_rng(s), 32, 1, 32, 32, 2) for s in seeds])
    train_seeds(task, params, seeds, 200, 0.5, targets=both)
    test = task.batch(np.random.default_rng(9), size=256)
    _, accuracy, attn, _ = loss_and_gradients(params, stack_batches([test] * 2), targets=both)
    position_0_answers = np.mean((test.match == 0) | (test.targets["recall"] == test.targets["first"]))
    assert np.all(attn[..., 0].mean(axis=(1, 2, 3)) > 0.7)
    np.testing.assert_allclose(accuracy[:, 0], position_0_answers, atol=0.02)
    assert np.all(accuracy[:, 1] > 0.95)
