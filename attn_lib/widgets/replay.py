"""The replay explorer: a head trained on associative recall, replayed step by step (notebook 09)."""

from __future__ import annotations

import functools

import numpy as np

from .._checks import InputValueError
from ..training import RecallTask, init_parameters, train
from ._explorer import BAR, THEORY, Explorer, axis, colormap, not_while_grading, slider


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

    saved_steps = [int(s) for s in history.saved_steps]
    n, m = len(queries), len(pairs)
    losses = history.losses
    low, high = float(losses.min()) / 1.5, float(losses.max()) * 1.5

    size = (680, 290)
    weights_rect, loss_rect = [44, 26, 266, 218], [446, 26, 220, 218]
    colorbar = {"rect": [318, 26 + 0.05 * 218, 14, 0.9 * 218], "cmap": "viridis", "vmin": 0, "vmax": 1,
                "ticks": [[t, f"{t:.1f}"] for t in np.linspace(0, 1, 6)], "label": "weight (0 to 1)"}
    figure_panels = [
        # Query 0 at the top, as imshow draws a matrix.
        {"rect": weights_rect, "title": "attention weights", "x": axis(-0.5, m - 0.5, range(m), pairs),
         "y": axis(n - 0.5, -0.5, range(n), queries), "xlabel": "key position (key symbol, value)",
         "ylabel": "query", "ylabelOffset": 24, "colorbar": colorbar},
        {"rect": loss_rect, "title": "loss of each step's batch", "x": axis(0, len(losses)),
         "y": axis(low, high, log=True), "xlabel": "training step", "ylabel": "batch loss (log scale)"},
    ]
    artists = [
        {"name": "weights", "panel": 0, "type": "cells", "cmap": "viridis", "vmin": 0, "vmax": 1,
         "xedges": np.arange(m + 1) - 0.5, "yedges": np.arange(n + 1) - 0.5},
        {"name": "loss", "panel": 1, "type": "line", "color": BAR, "width": 1.7, "x": np.arange(len(losses)),
         "y": losses},
        {"name": "step_line", "panel": 1, "type": "line", "color": THEORY, "width": 1.7, "y": [low, high]},
        {"name": "step_dot", "panel": 1, "type": "markers", "color": THEORY, "size": 4.2},
    ]

    def frame(step):
        index = saved_steps.index(step)
        weights = saved[index]
        loss = float(losses[step])
        accuracy = float(history.accuracy[step].min())
        share = float(on_match[index])
        largest = float(weights.max())
        readout = [
            ("step", f"{step} of {len(losses) - 1}"),
            ("batch loss", f"{loss:.3f} (uniform guess: {np.log(10):.3f})"),
            ("batch accuracy", f"{accuracy:.0%}"),
            ("weight on the key each query names", f"{share:.2f} on average (uniform: {1 / len(pairs):.3f})"),
            ("largest weight", f"{largest:.2f}"),
        ]
        description = (
            f"heatmap of the weights of {len(queries)} queries ({' '.join(queries)}) over {len(pairs)} keys "
            f"({' '.join(pairs)}) after {step} steps of training: on average {share:.2f} of each query's weight "
            f"is on the key it names; beside it the loss curve with step {step} marked, batch loss {loss:.3f}."
        )
        measured = {"step": float(step), "loss": loss, "accuracy": accuracy, "weight_on_match": share,
                    "largest_weight": largest}
        return {"artists": {"weights": {"values": weights}, "step_line": {"x": [step, step]},
                            "step_dot": {"x": [step], "y": [loss]}},
                "readout": readout, "description": description, "measured": measured}

    controls = [slider("step", "training step (updates of W so far)", saved_steps)]
    explorer = Explorer("replay", controls, "step", {"step": 0}, {"width": size[0], "height": size[1]},
                        figure_panels, artists, frame, colormaps={"viridis": colormap("viridis")})
    explorer.history = history
    return explorer
