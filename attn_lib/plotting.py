"""One figure style for the whole course, and the heatmap of attention weights.

Imports matplotlib; ``import attn_lib`` does not load this module until it is used.
"""

from __future__ import annotations

import html

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._checks import InputTypeError, InputValueError
from ._platform import autograding

# Opaque white figures with dark text read the same in JupyterLab's light and dark themes (a transparent
# figure would put black labels on a dark background). Colormaps are perceptually uniform.
STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "text.color": "#222222",
    "axes.labelcolor": "#222222",
    "xtick.color": "#222222",
    "ytick.color": "#222222",
    "axes.edgecolor": "#444444",
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "font.size": 10,
    "image.cmap": "viridis",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
}
WEIGHTS_CMAP = "viridis"
MASKED_COLOR = "#b8b8b8"  # a neutral grey that viridis never produces
BLOCKED_MARK = "#333333"  # the × on a blocked cell: 6.4:1 on MASKED_COLOR (WCAG 2 AA asks 4.5:1 of text)


def ink_on(colour) -> str:
    """``"black"`` or ``"white"``, whichever has the higher WCAG 2 contrast on ``colour`` (an RGB or RGBA tuple of
    floats from 0 to 1, matplotlib's): at least 4.58:1 (the square root of 21) on any colour, so text written on a
    heatmap cell meets AA's 4.5:1 whatever the cell's weight."""
    channels = np.round(np.asarray(colour, float)[:3] * 255) / 255  # the 8-bit colour the figure shows
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ np.array([0.2126, 0.7152, 0.0722]))  # WCAG 2 relative luminance
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def use_style() -> None:
    """Apply the course's figure style to matplotlib's defaults."""
    mpl.rcParams.update(STYLE)


def show_weights(weights, query_labels=None, key_labels=None, mask=None, ax=None, title="attention weights",
                 annotate=True, vmax=1.0):
    """Heatmap of attention weights (n, m): queries on y, keys on x, one colorbar from 0 to ``vmax``.

    Parameters
    ----------
    weights : array_like, shape (n, m)
    query_labels, key_labels : sequence of str, optional
        Tick labels (tokens) for the n queries and the m keys.
    mask : array_like of bool, shape broadcastable to (n, m), optional
        True where the query may attend. Blocked cells are drawn grey with a cross, whatever their weight.
    ax : matplotlib.axes.Axes, optional
    title : str
    annotate : bool
        Write each weight in its cell (for small examples).
    vmax : float
        Top of the colour scale.

    Returns
    -------
    matplotlib.image.AxesImage
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2:
        raise InputValueError(f"weights must be 2-D (n, m); got shape {weights.shape}")
    n, m = weights.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 0.55 * m, 0.9 + 0.5 * n), layout="constrained")
    blocked = np.zeros((n, m), bool) if mask is None else ~np.broadcast_to(np.asarray(mask, bool), (n, m))
    cmap = mpl.colormaps[WEIGHTS_CMAP].with_extremes(bad=MASKED_COLOR)
    image = ax.imshow(np.ma.masked_array(weights, blocked), cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto")
    ax.set_xlabel("key j (attended to)")
    ax.set_ylabel("query i (attending)")
    ax.set_xticks(range(m), key_labels if key_labels is not None else range(m))
    ax.set_yticks(range(n), query_labels if query_labels is not None else range(n))
    ax.tick_params(axis="x", labelrotation=45 if key_labels is not None else 0)
    ax.spines[:].set_visible(False)
    for i, j in zip(*np.nonzero(blocked)):
        ax.text(j, i, "×", ha="center", va="center", color=BLOCKED_MARK, fontsize=12)
    if annotate:
        for i, j in zip(*np.nonzero(~blocked)):
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color=ink_on(image.cmap(image.norm(weights[i, j]))))
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, label="weight", shrink=0.9)
    return image


# Told apart with every common colour-vision deficiency, legible on the white figure:
# Okabe-Ito's blue, vermilion, bluish green and reddish purple, the last three darkened to 4.5:1 on white (WCAG 2 AA
# for the labels' normal-size text; Okabe-Ito's own shades reach 3.1-3.9:1).
_PIECE_COLORS = {"softmax": "#0072B2", "scores": "#b85000", "scale": "#007a5a", "mix": "#9c5c80"}


def equation_figure(fontsize=28):
    """The equation ``softmax(Q K^T / sqrt(d_k)) V`` drawn large, with its four pieces labelled.

    Each piece and its label share a colour: softmax (row by row), Q K^T (every query meets every key),
    sqrt(d_k) (the standard deviation of one score) and V (the weights mix the value rows).

    Parameters
    ----------
    fontsize : float
        Size of the equation's text; the labels are drawn at about 40 % of it.

    Returns
    -------
    matplotlib.figure.Figure
        One axes without ticks, on an opaque white background.

    Examples
    --------
    >>> fig = equation_figure()
    >>> len([text for text in fig.axes[0].texts if ":" in text.get_text()])  # the four labels
    4
    """
    with mpl.rc_context(STYLE):
        fig = plt.figure(figsize=(9, 4.2), layout=None)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")
        renderer = fig.canvas.get_renderer()
        ink = "#222222"
        mid = 0.5  # the fraction bar's height

        def put(x, y, text, color=ink, size=fontsize, va="center"):
            """Write ``text`` with its left edge at x; return it and its box in axes coordinates."""
            artist = ax.text(x, y, text, color=color, fontsize=size, ha="left", va=va)
            box = artist.get_window_extent(renderer).transformed(ax.transAxes.inverted())
            return artist, box

        _, box = put(0.04, mid, r"$\mathrm{Attention}(Q,K,V)\ =\ $")
        _, soft = put(box.x1, mid, r"$\mathrm{softmax}$", color=_PIECE_COLORS["softmax"])
        _, left = put(soft.x1, mid, "(", color=_PIECE_COLORS["softmax"], size=2.1 * fontsize)
        start = left.x1 + 0.005
        num_artist, num = put(start, mid + 0.02, r"$QK^{T}$", color=_PIECE_COLORS["scores"], va="bottom")
        den_artist, den = put(start, mid - 0.025, r"$\sqrt{d_k}$", color=_PIECE_COLORS["scale"], va="top")
        width = max(num.width, den.width)
        for artist, box_ in ((num_artist, num), (den_artist, den)):  # centre both over the bar
            artist.set_x(start + (width - box_.width) / 2)
        num = num_artist.get_window_extent(renderer).transformed(ax.transAxes.inverted())
        den = den_artist.get_window_extent(renderer).transformed(ax.transAxes.inverted())
        ax.plot([start - 0.004, start + width + 0.004], [mid, mid], color=ink, lw=1.6)
        _, right = put(start + width + 0.01, mid, ")", color=_PIECE_COLORS["softmax"], size=2.1 * fontsize)
        _, value = put(right.x1 + 0.004, mid, r"$V$", color=_PIECE_COLORS["mix"])

        label_size = 0.4 * fontsize
        labels = [
            # (piece, anchor point on the piece, label position, text)
            ("softmax", (soft.x0 + soft.width / 2, soft.y1 + 0.01), (0.04, 0.95),
             "softmax, row by row: each row of weights (n, m)\nis non-negative and sums to one"),
            ("scores", (num.x0 + num.width / 2, num.y1 + 0.01), (0.50, 0.95),
             "$QK^T$: every query meets every key;\nscore (i, j) = query i $\\cdot$ key j, a sum of $d_k$ products"),
            ("scale", (den.x0 + den.width / 2, den.y0 - 0.01), (0.17, 0.17),
             "$\\sqrt{d_k}$: the standard deviation of one score;\ndividing by it gives scores of unit variance"),
            ("mix", (value.x0 + value.width / 2, value.y0 - 0.01), (0.62, 0.17),
             "weights $\\times$ $V$: each output row (n, $d_v$)\nis a weighted average of the value rows"),
        ]
        for piece, anchor, where, text in labels:
            color = _PIECE_COLORS[piece]
            ax.annotate(
                text, xy=anchor, xytext=where, xycoords="axes fraction", textcoords="axes fraction",
                fontsize=label_size, color=color, ha="left", va="top" if where[1] > mid else "bottom",
                arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.4, "shrinkA": 2, "shrinkB": 2},
            )
        ax.text(0.5, 0.03, "Q (n, d_k)    K (m, d_k)    V (m, d_v)    scores and weights (n, m)    output (n, d_v)",
                ha="center", va="bottom", fontsize=label_size, color="#555555")
    return fig


def show_figure(fig=None, *, alt):
    """Show a static figure in the notebook with ``alt`` as its alternative text, then close it.

    JupyterLab (4.6) draws an ``image/png`` output as an ``<img>`` without alt text, whatever the output's metadata
    holds; a ``text/html`` output keeps its ``alt``, even when the notebook is untrusted and the HTML sanitised. So
    in a Jupyter kernel the figure goes out as HTML alone: an ``<img alt=...>`` holding the PNG the inline backend
    would show, with the usual ``<Figure size ...>`` text beside it for a front end that shows no HTML. The PNG is
    stored once, inside the HTML: nbconvert's HTML export shows it from there (tools/build_html.py then sets the
    "Figure:" description as its alt), and nbval compares the HTML with the PNG's bytes masked.

    Outside a kernel with a display (plain ``python``, or a terminal IPython) this is ``plt.show()``: the figure
    opens in a window if matplotlib's backend has one, and ``alt`` is not used. While nbgrader autogrades
    (``attn_lib._platform.autograding``) the figure is not drawn: ``alt`` stands in for it as text, since no graded
    cell reads a figure and drawing is most of what a figure costs.

    Parameters
    ----------
    fig : matplotlib.figure.Figure, optional
        The figure; by default the current one.
    alt : str
        What the figure shows, for a reader who cannot see it (a screen reader reads it out).

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure (an Axes, say: pass ``ax.figure``), or ``alt`` is not a string.
    ValueError
        If ``alt`` is empty or blank.
    """
    if not isinstance(alt, str):
        raise InputTypeError(f"alt must be a str describing the figure; got {type(alt).__name__} {alt!r}")
    if not alt.strip():
        raise InputValueError(f"alt must be a non-empty description of the figure; got {alt!r}")
    fig = plt.gcf() if fig is None else fig
    if not isinstance(fig, Figure):
        hint = " (pass ax.figure for an Axes)" if isinstance(fig, Axes) else ""
        raise InputTypeError(f"fig must be a matplotlib.figure.Figure{hint}; got {type(fig).__name__}")
    if autograding():
        from IPython.display import display

        display({"text/plain": f"Figure, not drawn while grading: {alt}"}, raw=True)
        plt.close(fig)
        return
    if not _in_kernel():
        plt.show()
        return
    from IPython.core.pylabtools import print_figure
    from IPython.display import display

    png = print_figure(fig, fmt="png", bbox_inches="tight", base64=True)
    bundle = {
        "text/html": f'<img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{png}">',
        "text/plain": repr(fig),
    }
    display(bundle, raw=True)
    plt.close(fig)


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (IPython running with a front end that displays rich output)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
