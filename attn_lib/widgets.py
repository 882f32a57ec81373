"""Explorers: live widgets that let a learner move d_k, a temperature, a mask or n and watch the effect.

Each explorer returns one ipywidgets container (an :class:`Explorer`) that a notebook shows as the last expression
of a cell::

    from attn_lib.widgets import dk_explorer
    dk_explorer()

No ``%matplotlib widget`` is needed: the figure is an ipympl canvas made here for this figure only, and importing
this module leaves matplotlib's global backend alone, so the notebook's other figures stay inline PNGs.

The figure is built once. A change of a control updates the artists that move (bars, curves, the heatmap) in
place and blits them: they are drawn over the background kept from the last full redraw, and only the changed
pixels go to the browser, a few milliseconds of work instead of a full redraw (ticks and text are what cost).
When axes or labels change (the d_k explorer's scaled/unscaled switch, the mask explorer's tokens), the browser is
asked for a full redraw (``draw_idle``), which ipympl coalesces while an image is in flight. Sliders send their
value when released (``continuous_update=False``), and ipywidgets sends only the latest value while a change is in
flight, so a burst of key presses does not queue a backlog. Everything that does not depend on a control (the
sampled queries and keys, the example scores, the weights of every mask and placement) is computed once, when the
explorer is made, from a fixed seed.

Readouts are text beside the figure; :attr:`Explorer.description` is a one-line text account of the figure for a
reader who cannot see it, shown under the figure and as the explorer's ``text/plain`` form.
"""

from __future__ import annotations

import html
import math
import warnings

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from .attention import attention as _attention
from .attention import scaled_scores, softmax
from .cost import attention_cost
from .masks import causal_mask, padding_mask
from .plotting import MASKED_COLOR, STYLE, WEIGHTS_CMAP


def _import_ipympl_keeping_backend():
    """Import ipympl's canvas without letting it switch matplotlib's global backend.

    ``import ipympl`` calls ``matplotlib.use("module://ipympl.backend_nbagg")`` when matplotlib is already
    imported. In a notebook that switch also makes IPython drop the inline backend's PNG display of figures, so
    the notebook's other figures would show as text. That one call is turned into nothing while ipympl loads.
    """
    real_use = mpl.use
    mpl.use = lambda *args, **kwargs: None
    try:
        from ipympl.backend_nbagg import Canvas, FigureManager
    finally:
        mpl.use = real_use
    return Canvas, FigureManager


Canvas, FigureManager = _import_ipympl_keeping_backend()

__all__ = ["Explorer", "cost_explorer", "dk_explorer", "mask_explorer", "softmax_explorer"]

_WIDE = {"description_width": "initial"}  # show each control's full label
_BAR = "#3b528b"  # viridis, a third of the way up: the colour of measured quantities
_THEORY = "#e07b00"  # orange, distinct from viridis blues in both themes: the colour of theory
_BROKEN = "#c0392b"  # red: the line a row sum must reach, and the outline of a blocked cell that took weight


def _live_figure(figsize, ncols=1, width_ratios=None):
    """A matplotlib figure on its own ipympl canvas (no pyplot, no global backend switch).

    Returns
    -------
    fig : matplotlib.figure.Figure
        ``fig.canvas`` is an ipympl ``Canvas`` widget, without toolbar, header or footer.
    axes : numpy.ndarray of Axes, shape (ncols,)
    """
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=figsize, dpi=100, layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, ncols, width_ratios=width_ratios, squeeze=False)[0])
    canvas = Canvas(fig)
    with warnings.catch_warnings():
        # ipympl 0.10's own Toolbar passes its canvas on to traitlets, which warns; nothing here can fix that.
        warnings.filterwarnings("ignore", "Passing unrecognized arguments", DeprecationWarning)
        FigureManager(canvas, num=id(fig))  # the manager answers the browser's draw requests; Gcf never sees it
    canvas.header_visible = False
    canvas.footer_visible = False
    canvas.toolbar_visible = False
    canvas.resizable = False
    canvas.capture_scroll = False
    return fig, axes


class Explorer(widgets.VBox):
    """One explorer: controls above, the figure with its readout beside it, a text description below.

    Attributes
    ----------
    controls : dict of str -> ipywidgets.Widget
        Every control, by name; ``main_control`` names the one a learner moves first.
    figure : matplotlib.figure.Figure
        The live figure; ``figure.canvas`` is its ipympl widget.
    readout : ipywidgets.HTML
        The measured numbers, with their units.
    caption : ipywidgets.HTML
        The one-line description of the figure, as shown under it.
    description : str
        That description as plain text (also the explorer's ``text/plain`` form).
    measured : dict of str -> float
        The numbers the readout shows, unrounded, for the current values of the controls.
    updates : int
        How many times the figure has been updated since the explorer was made (one per change of a control).
    blits : int
        How many of those updates were drawn by blitting (the rest asked the browser for a full redraw).
    blit : bool
        Draw updates by blitting when the axes did not change (default); False forces a full redraw every time,
        for comparison.
    """

    def __init__(self, name, controls, main_control, fig, update, animated=(), **kwargs):
        self.name = name
        self.controls = dict(controls)
        self.main_control = main_control
        self.figure = fig
        self.updates = 0
        self.blits = 0
        self.blit = True
        self._update = update
        self._animated = list(animated)
        self._background = None
        for artist in self._animated:
            artist.set_animated(True)  # left out of full redraws' background, drawn on top of it
        fig.canvas.mpl_connect("draw_event", self._on_draw)
        self.readout = widgets.HTML(layout=widgets.Layout(flex="1 1 12em", min_width="12em", max_width="24em",
                                                          margin="0 0 0 1em"))
        self.readout.add_class("attn-readout")
        self.caption = widgets.HTML(layout=widgets.Layout(max_width="60em"))
        self.caption.add_class("attn-description")
        self.description = ""
        for widget in self.controls.values():
            widget.observe(self._on_change, names="value")
        self.controls[main_control].add_class("attn-main-control")
        fig.canvas.add_class("attn-figure")
        body = widgets.HBox([fig.canvas, self.readout], layout=widgets.Layout(flex_flow="row wrap",
                                                                            align_items="flex-start"))
        super().__init__([widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                          body, self.caption], **kwargs)
        self.add_class("attn-explorer")
        self.add_class(f"attn-explorer-{name}")
        self.update(draw=False)
        self.updates = 0

    def _on_draw(self, event):
        # After every full redraw (the first display, a resize, a change of axes): keep the background, then draw
        # the changing artists on top, so that the image the browser receives is complete.
        canvas = self.figure.canvas
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        for artist in self._animated:
            self.figure.draw_artist(artist)

    def _on_change(self, change):
        self.update()

    def update(self, draw=True):
        """Recompute from the controls' values, update the artists, readout and description in place.

        When only the changing artists moved, they are drawn over the kept background and sent as a diff at once
        (blitting: a few milliseconds); when axes, ticks or labels changed, the browser is asked for a full
        redraw (``canvas.draw_idle()``), which ipympl coalesces while an image is in flight.

        Parameters
        ----------
        draw : bool
            Redraw the figure (otherwise only the artists' data, the readout and the description change).
        """
        values = {name: widget.value for name, widget in self.controls.items()}
        readout, description, full_redraw, self.measured = self._update(**values)
        self.updates += 1
        if draw:  # the figure first: its pixels then reach the browser ahead of the text
            canvas = self.figure.canvas
            if full_redraw or self._background is None or not self.blit:
                canvas.draw_idle()
            else:
                canvas.restore_region(self._background)
                for artist in self._animated:
                    self.figure.draw_artist(artist)
                canvas.blit(self.figure.bbox)
                self.blits += 1
        self.readout.value = f'<div style="line-height: 1.35">{readout}</div>'
        self.description = description
        self.caption.value = (f'<div style="line-height: 1.3; font-size: 0.9em"><b>Figure:</b> '
                              f'{html.escape(description, quote=False)}</div>')

    def __repr__(self):
        return f"{self.name}_explorer: {self.description}"

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)  # the description, in full and deterministic (no model id)
        return data


def _rows(pairs):
    """Readout HTML: one line per (label, value) pair."""
    return "<br>".join(f"{html.escape(label, quote=False)}: <b>{html.escape(value, quote=False)}</b>" for label, value in pairs)


def _entropy(weights):
    """Entropy in nats of each row of weights (0 log 0 = 0)."""
    weights = np.asarray(weights, float)
    logs = np.log(np.where(weights > 0, weights, 1.0))
    return -np.sum(weights * logs, axis=-1)


def _largest_jacobian_entry(weights):
    """Largest |d weight_i / d score_j| of the softmax of one row: J = diag(w) - w w^T."""
    jacobian = np.diag(weights) - np.outer(weights, weights)  # (m,) outer (m,) -> (m, m)
    return float(np.abs(jacobian).max())


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _three(x):
    """Three significant figures, without an exponent: 63.8, 0.948, 1021."""
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _sig(x, digits=3):
    """A number with ``digits`` significant figures, in plain notation while that stays short."""
    x = float(x)
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


# ---------------------------------------------------------------------------------------------------------------
# d_k: why divide by sqrt(d_k)

DK_VALUES = tuple(2**p for p in range(11))  # 1, 2, 4, ..., 1024


def dk_explorer(d_k=64, scaled=False, pairs=5000, keys=16, seed=0):
    """Move d_k and watch the spread of the scores q·k and the sharpness of one softmax row.

    Queries and keys have independent components of mean 0 and variance 1, so an unscaled score q·k has
    variance d_k and a scaled one, q·k / sqrt(d_k), variance 1 (F7). Unscaled, a large d_k makes the softmax
    nearly one-hot and its gradient tiny (F8).

    Parameters
    ----------
    d_k : int
        Starting width of queries and keys, a power of two from 1 to 1024.
    scaled : bool
        Start with the scores divided by sqrt(d_k).
    pairs : int
        Sampled (q, k) pairs in the histogram.
    keys : int
        Keys in the softmax row (one query against ``keys`` keys).
    seed : int
        Seed of every sample; the same seed gives the same figure.

    Returns
    -------
    Explorer
        Controls ``"d_k"`` (main) and ``"scaled"``.
    """
    if d_k not in DK_VALUES:
        raise ValueError(f"d_k must be a power of two from 1 to 1024; got {d_k!r}")
    for name, value, least in (("pairs", pairs, 100), ("keys", keys, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer of at least {least}; got {value!r}")
    rng = np.random.default_rng(seed)
    top = DK_VALUES[-1]
    # Sample the widest queries and keys once; the scores for a smaller d_k use the first d_k components.
    # Summing the products block by block ([0,1), [1,2), [2,4), ..., [512,1024)) and accumulating gives the score
    # at every power of two without keeping the (pairs, 1024) arrays.
    starts = [0] + list(DK_VALUES[:-1])
    Q = rng.standard_normal((pairs, top), dtype=np.float32)  # (pairs, 1024)
    K = rng.standard_normal((pairs, top), dtype=np.float32)  # (pairs, 1024)
    blocks = np.add.reduceat((Q * K).astype(np.float64), starts, axis=1)  # (pairs, 11)
    pair_scores = np.cumsum(blocks, axis=1)  # (pairs, 11): column p holds q·k over the first 2**p components
    del Q, K, blocks
    q = rng.standard_normal(top)  # (1024,)
    K_row = rng.standard_normal((keys, top))  # (keys, 1024)
    row_blocks = np.add.reduceat(K_row * q, starts, axis=1)  # (keys, 1024) * (1024,) -> (keys, 11)
    row_scores = np.cumsum(row_blocks, axis=1)  # (keys, 11)

    fig, (ax_hist, ax_row) = _live_figure((6.8, 2.9), ncols=2, width_ratios=(1.5, 1.0))
    # Fixed axes and bins per mode, so that the spread is seen to grow with d_k (and only the bars move).
    # Unscaled: 64 bins of 4 score units over +-128 (4 standard deviations at d_k = 1024); scaled: 50 bins of 0.2.
    modes = {False: {"edges": np.linspace(-128, 128, 65), "top": 1.0, "xlabel": "score q·k (unscaled)"},
             True: {"edges": np.linspace(-5, 5, 51), "top": 0.25, "xlabel": "score q·k / √d_k"}}
    hist = ax_hist.stairs(np.zeros(64), modes[False]["edges"], fill=True, color=_BAR, alpha=0.75,
                          label="sampled scores")
    (curve,) = ax_hist.plot([], [], color=_THEORY, lw=2, label="normal curve, theory's variance")
    ax_hist.set_title(f"{pairs} sampled scores")
    ax_hist.legend(loc="upper left", fontsize=8, frameon=False)
    row = ax_row.stairs(np.zeros(keys), np.arange(keys + 1) - 0.5, fill=True, color=_BAR)
    ax_row.set_xlim(-0.5, keys - 0.5)
    ax_row.set_ylim(0, 1.02)
    ax_row.set_xlabel("key j")
    ax_row.set_ylabel("weight (row sums to 1)")
    ax_row.set_title(f"one query's weights ({keys} keys)")

    def set_mode(scaled):
        edges = modes[scaled]["edges"]
        ax_hist.set_xlim(edges[0], edges[-1])
        ax_hist.set_ylim(0, modes[scaled]["top"])
        ax_hist.set_xlabel(modes[scaled]["xlabel"])
        ax_hist.set_ylabel(f"share of scores per bin of {edges[1] - edges[0]:g}")

    set_mode(False)

    d_k_control = widgets.SelectionSlider(options=DK_VALUES, value=d_k, continuous_update=False,
                                          description="d_k (components per query and key)", style=_WIDE,
                                          layout=widgets.Layout(width="36em"))
    scaled_control = widgets.ToggleButtons(options=[("unscaled: q·k", False), ("scaled: q·k / √d_k", True)],
                                           value=bool(scaled), description="scores shown", style=_WIDE,
                                           tooltips=["scores as dot products", "scores divided by √d_k"])
    state = {"scaled": False}

    def update(d_k, scaled):
        p = DK_VALUES.index(d_k)
        scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
        sample = pair_scores[:, p] * scale
        edges = modes[scaled]["edges"]
        counts, _ = np.histogram(sample, bins=edges)  # scores beyond the axis are left out
        hist.set_data(counts / pairs, edges)
        full_redraw = state["scaled"] != scaled
        if full_redraw:
            set_mode(scaled)
            state["scaled"] = scaled
        theory = 1.0 if scaled else float(d_k)
        sd = math.sqrt(theory)
        x = np.linspace(edges[0], edges[-1], 401)
        width = edges[1] - edges[0]
        curve.set_data(x, width * np.exp(-0.5 * (x / sd) ** 2) / (sd * math.sqrt(2 * math.pi)))
        weights = softmax(row_scores[:, p] * scale)
        row.set_data(weights)
        variance = float(sample.var())
        largest = float(weights.max())
        entropy = float(_entropy(weights))
        gradient = _largest_jacobian_entry(weights)
        mode = "q·k / √d_k" if scaled else "q·k"
        readout = _rows([
            ("d_k", f"{d_k} components"),
            (f"measured variance of {mode}", _three(variance)),
            ("theory", f"{theory:g}" + (" (whatever d_k)" if scaled else " (= d_k)")),
            ("largest weight in the row", f"{largest:.3f} (of 1)"),
            ("entropy of the row", f"{entropy:.2f} nats (uniform: {math.log(keys):.2f})"),
            ("largest |∂weight/∂score|", f"{_sig(gradient)} (at most 0.25)"),
        ])
        description = (
            f"histogram of {pairs} scores {mode} at d_k = {d_k}: measured variance {_three(variance)}, theory "
            f"{theory:g}, with the normal curve; one query's softmax over {keys} keys has largest weight "
            f"{largest:.3f} and entropy {entropy:.2f} nats."
        )
        measured = {"variance": variance, "theory": theory, "largest_weight": largest, "entropy": entropy,
                    "largest_jacobian_entry": gradient}
        return readout, description, full_redraw, measured

    return Explorer("dk", {"d_k": d_k_control, "scaled": scaled_control}, "d_k", fig, update,
                    animated=(hist, curve, row))


# ---------------------------------------------------------------------------------------------------------------
# softmax: weights from a row of scores, sharpened or flattened by a temperature

SOFTMAX_SCORES = (2.0, 1.0, 0.5, -0.5, -1.5)


def softmax_explorer(scores=SOFTMAX_SCORES, temperature=1.0):
    """Move a temperature T and the scores of one row; watch ``softmax(scores / T)``.

    Parameters
    ----------
    scores : sequence of float, shape (m,)
        The starting row of scores, each between -5 and 5; from 2 to 8 of them.
    temperature : float
        Starting temperature, from 0.1 to 10.

    Returns
    -------
    Explorer
        Controls ``"temperature"`` (main) and ``"s0"``, ``"s1"``, ... (one per score).
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or not 2 <= scores.size <= 8:
        raise ValueError(f"scores must be a row of 2 to 8 numbers (m,); got shape {scores.shape}")
    if not np.all(np.abs(scores) <= 5):
        raise ValueError(f"scores must each lie between -5 and 5; got {scores.tolist()}")
    if not 0.1 <= temperature <= 10:
        raise ValueError(f"temperature must lie between 0.1 and 10; got {temperature!r}")
    m = scores.size
    temperature_control = widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05,
                                                 continuous_update=False, readout_format=".2f",
                                                 description="temperature T (no unit; divides the scores)",
                                                 style=_WIDE, layout=widgets.Layout(width="40em"))
    controls = {"temperature": temperature_control}
    for j, s in enumerate(scores):
        controls[f"s{j}"] = widgets.FloatSlider(value=float(s), min=-5, max=5, step=0.1, continuous_update=False,
                                                description=f"score s{j} (no unit)", style=_WIDE,
                                                layout=widgets.Layout(width="22em"), readout_format=".1f")

    fig, (ax_scores, ax_weights) = _live_figure((6.6, 2.8), ncols=2)
    edges = np.arange(m + 1) - 0.5
    score_bars = ax_scores.stairs(np.zeros(m), edges, fill=True, color=_BAR, baseline=0)
    ax_scores.axhline(0, color="#444444", lw=0.8)
    ax_scores.set_xlim(-0.5, m - 0.5)
    ax_scores.set_ylim(-5.5, 5.5)
    ax_scores.set_xticks(range(m))
    ax_scores.set_xlabel("key j")
    ax_scores.set_ylabel("score s_j (no unit)")
    ax_scores.set_title("scores")
    weight_bars = ax_weights.stairs(np.zeros(m), edges, fill=True, color=_BAR)
    ax_weights.set_xlim(-0.5, m - 0.5)
    ax_weights.set_xticks(range(m))
    ax_weights.set_ylim(0, 1.02)
    ax_weights.set_xlabel("key j")
    ax_weights.set_ylabel("weight (row sums to 1)")
    ax_weights.set_title("weights = softmax(s / T)")

    def update(temperature, **values):
        row = np.array([values[f"s{j}"] for j in range(m)])
        seen = row / temperature
        weights = softmax(seen)
        score_bars.set_data(row)
        weight_bars.set_data(weights)
        largest, winner = float(weights.max()), int(weights.argmax())
        entropy = float(_entropy(weights))
        readout = _rows([
            ("temperature T", f"{temperature:.2f}"),
            ("scores / T", ", ".join(f"{x:.2f}" for x in seen)),
            ("weights", ", ".join(f"{w:.3f}" for w in weights)),
            ("sum of the weights", f"{weights.sum():.3f}"),
            ("largest weight", f"{largest:.3f} (key {winner})"),
            ("entropy", f"{entropy:.2f} nats (uniform: {math.log(m):.2f}, one-hot: 0)"),
        ])
        description = (
            f"bars of the {m} scores and of their softmax weights at T = {temperature:.2f}: "
            f"{', '.join(f'{w:.2f}' for w in weights)}; largest weight {largest:.3f} on key {winner}, "
            f"entropy {entropy:.2f} nats."
        )
        measured = {"largest_weight": largest, "entropy": entropy, "weight_sum": float(weights.sum()),
                    **{f"w{j}": float(w) for j, w in enumerate(weights)}}
        return readout, description, False, measured

    return Explorer("softmax", controls, "temperature", fig, update, animated=(score_bars, weight_bars))


# ---------------------------------------------------------------------------------------------------------------
# masks: where the mask goes

MASK_KINDS = (("no mask", "none"), ("causal: key j ≤ query i", "causal"), ("padding: last 2 keys are <pad>",
                                                                           "padding"))
MASK_PLACEMENTS = (
    ("before the softmax: blocked scores = −inf (right)", "before"),
    ("after the softmax: blocked weights set to 0 (wrong)", "after"),
    ("before the softmax: blocked scores = 0, not −inf (wrong)", "zero"),
)
_TOKENS = ("I", "like", "green", "tea", "with", "milk")
_PADDED_TOKENS = ("I", "like", "green", "tea", "<pad>", "<pad>")


def _masked_weights(Q, K, V, mask, placement):
    """Attention weights (n, m) with the mask applied as ``placement`` says ("before", "after" or "zero")."""
    if mask is None or placement == "before":
        _, weights = _attention(Q, K, V, mask=mask, return_weights=True)  # (n, m)
    elif placement == "after":
        _, weights = _attention(Q, K, V, return_weights=True)  # (n, m)
        weights = weights * mask  # zeroes blocked weights after normalising: rows no longer sum to 1
    else:
        scores = scaled_scores(Q, K)  # (n, d_k) x (d_k, m) -> (n, m)
        weights = softmax(np.where(mask, scores, 0.0))  # 0 is a score like any other: blocked keys get weight
    return np.asarray(weights, float).reshape(Q.shape[0], K.shape[0])


def mask_explorer(mask="causal", placement="before", seed=0):
    """Choose a mask and where it goes; watch the weights and each row's sum.

    Right: blocked scores become -inf before the softmax, get weight exactly 0, and each row still sums to 1
    (F11). Wrong: zeroing weights after the softmax leaves rows that sum to less than 1 (and the blocked keys
    still shaped the other weights through the denominator); a score of 0 instead of -inf lets blocked keys
    take weight (a leak).

    Parameters
    ----------
    mask : {"none", "causal", "padding"}
        Starting mask.
    placement : {"before", "after", "zero"}
        Starting placement: before the softmax as -inf (right), after the softmax (wrong), or as a score of 0.
    seed : int
        Seed of the example queries and keys.

    Returns
    -------
    Explorer
        Controls ``"placement"`` (main) and ``"mask"``.
    """
    kinds = [value for _, value in MASK_KINDS]
    places = [value for _, value in MASK_PLACEMENTS]
    if mask not in kinds:
        raise ValueError(f"mask must be one of {kinds}; got {mask!r}")
    if placement not in places:
        raise ValueError(f"placement must be one of {places}; got {placement!r}")
    n = m = len(_TOKENS)
    d_k = 8
    rng = np.random.default_rng(seed)
    Q = 1.5 * rng.standard_normal((n, d_k))  # (n, d_k)
    K = 1.5 * rng.standard_normal((m, d_k))  # (m, d_k)
    V = rng.standard_normal((m, d_k))  # (m, d_v)
    masks = {"none": None, "causal": causal_mask(n, m), "padding": padding_mask([m - 2], m)[0]}  # (n, m), (1, m)
    table = {}  # every (mask, placement): weights (n, m) and the blocked cells (n, m), computed once
    for kind, mask_array in masks.items():
        blocked = np.zeros((n, m), bool) if mask_array is None else ~np.broadcast_to(mask_array, (n, m))
        for place in places:
            table[kind, place] = (_masked_weights(Q, K, V, mask_array, place), blocked)

    fig, (ax, ax_sum) = _live_figure((5.8, 3.4), ncols=2, width_ratios=(6, 1.3))
    cmap = mpl.colormaps[WEIGHTS_CMAP].with_extremes(bad=MASKED_COLOR)
    image = ax.imshow(np.zeros((n, m)), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    fig.colorbar(image, ax=ax, label="weight", shrink=0.9, pad=0.02)
    ax.set_xticks(range(m), _TOKENS)
    ax.set_yticks(range(n), _TOKENS)
    ax.set_xlabel("key j (attended to)")
    ax.set_ylabel("query i (attending)")
    ax.spines[:].set_visible(False)
    ax.set_title("weights (× blocked, red square: blocked yet weighted)", fontsize=9)
    # Markers, not one text per cell: two collections draw in a fraction of the time of 36 texts.
    crosses = ax.scatter([], [], marker="x", s=40, color="#333333", linewidths=1.5)
    leaks = ax.scatter([], [], marker="s", s=330, facecolors="none", edgecolors=_BROKEN, linewidths=2.5)
    # Each row's sum as a horizontal bar against a dashed line at 1: a short bar is a broken row.
    sums = list(ax_sum.barh(range(n), np.ones(n), height=0.7, color=_BAR))
    ax_sum.axvline(1.0, color=_BROKEN, lw=1.5, ls="--")
    ax_sum.set_xlim(0, 1.15)
    ax_sum.set_ylim(n - 0.5, -0.5)
    ax_sum.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax_sum.set_yticks([])
    ax_sum.set_xlabel("sum")
    ax_sum.set_title("row sum", fontsize=9)

    kind_control = widgets.RadioButtons(options=MASK_KINDS, value=mask, description="mask (which keys are blocked)",
                                        style=_WIDE)
    place_control = widgets.RadioButtons(options=MASK_PLACEMENTS, value=placement,
                                         description="where the mask goes", style=_WIDE,
                                         layout=widgets.Layout(width="34em"))
    labels = {value: label for label, value in MASK_KINDS + MASK_PLACEMENTS}

    state = {"tokens": _TOKENS}

    def update(placement, mask):
        weights, blocked = table[mask, placement]
        tokens = _PADDED_TOKENS if mask == "padding" else _TOKENS
        full_redraw = tokens != state["tokens"]  # new tick labels: the background changes
        if full_redraw:
            ax.set_xticks(range(m), tokens)
            ax.set_yticks(range(n), tokens)
            state["tokens"] = tokens
        # Grey: blocked and weight exactly 0 (the mask worked). A blocked cell with weight > 0 is a leak.
        leak = blocked & (weights > 0)
        image.set_data(np.ma.masked_array(weights, blocked & ~leak))
        crosses.set_offsets(np.argwhere(blocked)[:, ::-1].reshape(-1, 2))  # (row i, column j) -> (x = j, y = i)
        leaks.set_offsets(np.argwhere(leak)[:, ::-1].reshape(-1, 2))
        row_sums = weights.sum(axis=1)
        broken = ~np.isclose(row_sums, 1.0)
        for bar, row_sum in zip(sums, row_sums):
            bar.set_width(row_sum)
        leaked = float(weights[blocked].sum())
        readout = _rows([
            ("mask", labels[mask]),
            ("placement", labels[placement]),
            ("row sums", ", ".join(f"{s:.2f}" for s in row_sums)),
            ("rows not summing to 1", f"{int(broken.sum())} of {n}"),
            ("weight on blocked keys (leak)", f"{leaked:.2f} in {int(leak.sum())} cells"),
        ])
        verdict = "right" if placement == "before" or mask == "none" else "wrong"
        description = (
            f"heatmap of {n}×{m} attention weights, {labels[mask]}, mask {labels[placement].split(':')[0]} "
            f"({verdict}): {int(blocked.sum())} blocked cells, {int(leak.sum())} of them with weight > 0; "
            f"{int(broken.sum())} of {n} rows do not sum to 1."
        )
        measured = {"leaked_weight": leaked, "leak_cells": int(leak.sum()), "broken_rows": int(broken.sum()),
                    **{f"row_sum{i}": float(x) for i, x in enumerate(row_sums)}}
        return readout, description, full_redraw, measured

    return Explorer("mask", {"placement": place_control, "mask": kind_control}, "placement", fig, update,
                    animated=[image, crosses, leaks, *sums])


# ---------------------------------------------------------------------------------------------------------------
# cost: the quadratic term

LENGTHS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
COST_DK = (8, 16, 32, 64, 128, 256, 512)
BASE_MODEL = {"n": 1000, "m": 1000, "d_k": 64, "heads": 8, "layers": 6}


def _bytes(count):
    """Bytes in decimal units (1 MB = 10**6 bytes)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count:.0f} bytes"


def _count(count):
    """A large count in words: 48,000,000 -> '48 million'."""
    for unit, size in (("trillion", 1e12), ("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count:.0f}"


def cost_explorer(n=1000, m=1000, d_k=64, heads=8, layers=6):
    """Move n, m, d_k, heads and layers; watch the scores alive, the multiply-adds and the memory.

    The curves are self-attention (m = n) at the chosen d_k, heads and layers, on log-log axes where a quadratic
    is a line of slope 2 (x 4 per doubling); a dashed line of slope 1 (linear growth) is there to compare. The
    base model (n = m = 1000, d_k = 64, eight heads, six layers) is marked.

    Parameters
    ----------
    n, m : int
        Starting numbers of queries and keys, from ``LENGTHS``.
    d_k : int
        Starting width per head, from ``COST_DK`` (d_v = d_k).
    heads : int
        Starting heads per layer, 1 to 16.
    layers : int
        Starting layers whose scores are alive at once, 1 to 24.

    Returns
    -------
    Explorer
        Controls ``"n"`` (main), ``"m"``, ``"d_k"``, ``"heads"``, ``"layers"``.
    """
    for name, value, allowed in (("n", n, LENGTHS), ("m", m, LENGTHS), ("d_k", d_k, COST_DK)):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")
    if not 1 <= heads <= 16:
        raise ValueError(f"heads must be from 1 to 16; got {heads!r}")
    if not 1 <= layers <= 24:
        raise ValueError(f"layers must be from 1 to 24; got {layers!r}")
    slider = {"continuous_update": False, "style": _WIDE, "layout": widgets.Layout(width="34em")}
    controls = {
        "n": widgets.SelectionSlider(options=LENGTHS, value=n, description="n (queries, tokens)", **slider),
        "m": widgets.SelectionSlider(options=LENGTHS, value=m, description="m (keys, tokens)", **slider),
        "d_k": widgets.SelectionSlider(options=COST_DK, value=d_k, description="d_k = d_v (components per head)",
                                       **slider),
        "heads": widgets.IntSlider(value=heads, min=1, max=16, description="heads (per layer)", **slider),
        "layers": widgets.IntSlider(value=layers, min=1, max=24, description="layers (scores kept for backward)",
                                    **slider),
    }
    x = np.geomspace(LENGTHS[0], LENGTHS[-1], 200)
    base = attention_cost(**BASE_MODEL)
    fig, (ax_mem, ax_macs) = _live_figure((7.0, 3.1), ncols=2)
    lines = {}
    for ax, key, ylabel, title, base_value in (
        (ax_mem, "bytes", "memory of the scores (bytes, float32)", "scores kept", base.score_bytes("float32")),
        (ax_macs, "macs", "multiply-adds (QKᵀ and weights·V)", "multiply-adds", base.macs),
    ):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(LENGTHS[0], LENGTHS[-1])
        ax.set_xlabel("sequence length n (tokens)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="major", color="#dddddd", lw=0.6)
        (curve,) = ax.plot([], [], color=_BAR, lw=2, label="self-attention, m = n")
        ax.plot(x, base_value * x / 1000, color="#888888", lw=1, ls="--", label="linear (slope 1)")
        ax.plot([1000], [base_value], marker="*", ms=13, color=_THEORY, ls="none",
                label="base model (n = m = 1000, 8 heads, 6 layers)")
        (point,) = ax.plot([], [], marker="o", ms=8, mfc="none", mec="black", mew=1.5, ls="none",
                           label="your choice (n, m)")
        lines[key] = (curve, point)
    ax_mem.set_ylim(1e2, 1e14)
    ax_macs.set_ylim(1e3, 1e17)
    ax_mem.legend(loc="upper left", fontsize=7, frameon=False)

    def update(n, m, d_k, heads, layers):
        cost = attention_cost(n, m, d_k=d_k, heads=heads, layers=layers)
        self_cost = 4.0 * x * x * heads * layers  # float32 bytes of m = n scores, for every n on the x-axis
        lines["bytes"][0].set_data(x, self_cost)
        lines["bytes"][1].set_data([n], [cost.score_bytes("float32")])
        lines["macs"][0].set_data(x, x * x * 2 * d_k * heads * layers)  # score and mix: d_k + d_v = 2 d_k
        lines["macs"][1].set_data([n], [cost.macs])
        memory = cost.score_bytes("float32")
        readout = _rows([
            ("scores alive", f"{cost.scores:,} ({_count(cost.scores)})"),
            ("  = n · m · heads · layers", f"{n:,} · {m:,} · {heads} · {layers}"),
            ("multiply-adds QKᵀ", f"{_count(cost.score_macs)}"),
            ("multiply-adds weights·V", f"{_count(cost.mix_macs)}"),
            ("memory of the scores (float32)", _bytes(memory)),
            ("vs the base model", f"{memory / base.score_bytes('float32'):.3g} × its {_bytes(base.score_bytes())}"),
            ("doubling n (m = n)", "× 4 scores, × 4 memory"),
        ])
        description = (
            f"log-log plots of score memory and multiply-adds against n for self-attention (slope 2: quadratic); "
            f"at n = {n}, m = {m}, d_k = {d_k}, {heads} heads, {layers} layers: {_count(cost.scores)} scores, "
            f"{_bytes(memory)} in float32, {_count(cost.macs)} multiply-adds; base model marked at n = 1000."
        )
        measured = {"scores": cost.scores, "score_macs": cost.score_macs, "mix_macs": cost.mix_macs,
                    "score_bytes_float32": memory}
        return readout, description, False, measured

    return Explorer("cost", controls, "n", fig, update,
                    animated=[artist for pair in lines.values() for artist in pair])
