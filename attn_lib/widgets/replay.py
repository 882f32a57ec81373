"""The replay explorer: a head trained on associative recall, replayed step by step (notebook 09)."""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from .._checks import InputValueError
from ..training import RecallTask, init_parameters, train
from ._explorer import BAR, THEORY, WIDE, Explorer, live_figure, not_while_grading, readout_rows


@functools.lru_cache(maxsize=4)
def _replayed_run(steps, save_every, lr, seed):
    """Notebook 09's first run: one head (d_model 32, d_k = d_v = 16) on 8 pairs and 4 queries, plain gradient
    descent. The watched sequence is the notebook's ``example`` (the first draw of ``default_rng(0)``)."""
    task = RecallTask(d_model=32, pairs=8, queries=4)
    example = task.batch(np.random.default_rng(0), size=1)
    params = init_parameters(np.random.default_rng(100), 32, 1, 16, 16)
    return train(task, params, steps, lr, seed=seed, save_every=save_every, example=example)


@not_while_grading
def replay_explorer(steps=151, save_every=5, lr=0.5, seed=0):
    """Replay the training of one attention head: a slider over saved steps redraws the weights and marks the loss.

    The head is trained when the explorer is made (about a second; the same arguments reuse the run), exactly as
    notebook 09's first run: the loss at step s is that of the batch seen at step s, and the weights shown at
    step s are those after s updates.

    Parameters
    ----------
    steps : int
        Steps of plain gradient descent, from 10 to 1000.
    save_every : int
        The slider's stride in steps, from 1 to 50; the weights are saved at every multiple of it.
    lr : float
        Learning rate, above 0 and at most 2.
    seed : int
        Seed of the batches.

    Returns
    -------
    Explorer
        Control ``"step"`` (main).
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 10 <= steps <= 1000:
        raise InputValueError(f"steps must be an integer from 10 to 1000; got {steps!r}")
    if isinstance(save_every, bool) or not isinstance(save_every, (int, np.integer)) or not 1 <= save_every <= 50:
        raise InputValueError(f"save_every must be an integer from 1 to 50; got {save_every!r}")
    if not isinstance(lr, (int, float)) or not 0 < lr <= 2:
        raise InputValueError(f"lr must be a number above 0 and at most 2; got {lr!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputValueError(f"seed must be a non-negative integer; got {seed!r}")
    history = _replayed_run(int(steps), int(save_every), float(lr), int(seed))
    queries, pairs = history.example.labels(0)
    match = history.example.match[0]  # (n,): the key position each query asks for
    saved = history.saved_weights[:, 0]  # (saved steps, n, m): head 0
    on_match = saved[:, np.arange(len(match)), match].mean(axis=1)  # (saved steps,)

    step_control = widgets.SelectionSlider(options=[int(s) for s in history.saved_steps], value=0,
                                           continuous_update=False, style=WIDE,
                                           description="training step (updates of W so far)",
                                           layout=widgets.Layout(width="40em"))
    fig, (ax_weights, ax_loss) = live_figure((6.8, 2.9), ncols=2, width_ratios=[1.25, 1])
    image = ax_weights.imshow(saved[0], cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax_weights.set_xticks(range(len(pairs)), pairs, fontsize=8)
    ax_weights.set_yticks(range(len(queries)), queries)
    ax_weights.set_xlabel("key position (key symbol, value)")
    ax_weights.set_ylabel("query")
    ax_weights.set_title("attention weights")
    fig.colorbar(image, ax=ax_weights, shrink=0.9, label="weight (0 to 1)")
    steps_axis = np.arange(len(history.losses))
    ax_loss.semilogy(steps_axis, history.losses, color=BAR, lw=1.2)
    ax_loss.set_xlim(0, len(history.losses))
    low, high = history.losses.min(), history.losses.max()
    ax_loss.set_ylim(low / 1.5, high * 1.5)
    ax_loss.set_xlabel("training step")
    ax_loss.set_ylabel("batch loss (log scale)")
    ax_loss.set_title("loss of each step's batch")
    marker_line = ax_loss.axvline(0, color=THEORY, lw=1.2)
    (marker_dot,) = ax_loss.plot([0], [history.losses[0]], "o", color=THEORY, markersize=6)

    def update(step):
        index = int(np.searchsorted(history.saved_steps, step))
        weights = saved[index]
        loss = float(history.losses[step])
        accuracy = float(history.accuracy[step].min())
        image.set_data(weights)
        marker_line.set_xdata([step, step])
        marker_dot.set_data([step], [loss])
        share = float(on_match[index])
        largest = float(weights.max())
        readout = readout_rows([
            ("step", f"{step} of {len(history.losses) - 1}"),
            ("batch loss", f"{loss:.3f} (uniform guess: {np.log(10):.3f})"),
            ("batch accuracy", f"{accuracy:.0%}"),
            ("weight on the key each query names", f"{share:.2f} on average (uniform: {1 / len(pairs):.3f})"),
            ("largest weight", f"{largest:.2f}"),
        ])
        description = (
            f"heatmap of the weights of {len(queries)} queries ({' '.join(queries)}) over {len(pairs)} keys "
            f"({' '.join(pairs)}) after {step} steps of training: on average {share:.2f} of each query's weight "
            f"is on the key it names; beside it the loss curve with step {step} marked, batch loss {loss:.3f}."
        )
        measured = {"step": float(step), "loss": loss, "accuracy": accuracy, "weight_on_match": share,
                    "largest_weight": largest}
        return readout, description, False, measured

    explorer = Explorer("replay", {"step": step_control}, "step", fig, update,
                        animated=(image, marker_line, marker_dot))
    explorer.history = history
    return explorer
