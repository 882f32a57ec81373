"""One figure style for the whole course, and the heatmap of attention weights.

Imports matplotlib; ``import attn_lib`` does not load this module until it is used.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

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
        raise ValueError(f"weights must be 2-D (n, m); got shape {weights.shape}")
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
        ax.text(j, i, "×", ha="center", va="center", color="#555555", fontsize=12)
    if annotate:
        for i, j in zip(*np.nonzero(~blocked)):
            dark_cell = weights[i, j] < 0.55 * vmax  # viridis is dark at the bottom, light at the top
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if dark_cell else "black")
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, label="weight", shrink=0.9)
    return image
