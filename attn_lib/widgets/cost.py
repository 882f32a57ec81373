"""The cost explorer: how the scores' memory and the multiply-adds grow with n, m, d_k, heads and layers."""

from __future__ import annotations

import numpy as np

from ..cost import attention_cost
from ._explorer import BAR, SUPERSCRIPT_DIGITS, THEORY, Explorer, axis, not_while_grading, panels, slider
from .._checks import InputValueError
from .._platform import whole

LENGTHS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
COST_DK = (8, 16, 32, 64, 128, 256, 512)
BASE_MODEL = {"n": 1000, "m": 1000, "d_k": 64, "heads": 8, "layers": 6}
LINEAR = "#888888"  # the dashed line of slope 1 (3.5:1 on white)
GRID = "#dddddd"  # grid lines at the labelled ticks, under everything drawn


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


def _decades(low, high, step=1):
    """A log axis from 10**low to 10**high, ticks at every ``step`` decades labelled 10¹, 10², ..."""
    exponents = range(low, high + 1, step)
    return axis(10.0**low, 10.0**high, ticks=[10.0**k for k in exponents],
                labels=[f"10{str(k).translate(SUPERSCRIPT_DIGITS)}" for k in exponents], log=True)


@not_while_grading
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
            raise InputValueError(f"{name} must be one of {list(allowed)}; got {value!r}")
    if not 1 <= heads <= 16:
        raise InputValueError(f"heads must be from 1 to 16; got {heads!r}")
    if not 1 <= layers <= 24:
        raise InputValueError(f"layers must be from 1 to 24; got {layers!r}")
    controls = [
        slider("n", "n (queries, tokens)", LENGTHS),
        slider("m", "m (keys, tokens)", LENGTHS),
        slider("d_k", "d_k = d_v (components per head)", COST_DK),
        slider("heads", "heads (per layer)", range(1, 17)),
        slider("layers", "layers (scores kept for backward)", range(1, 25)),
    ]
    # Python ints, as the integer sliders took them (numpy's integers too; 2.7 heads are 2, as int() makes them).
    start = {name: np.int64(value).item() for name, value in
             (("n", n), ("m", m), ("d_k", d_k), ("heads", heads), ("layers", layers))}
    # Whole numbers of tokens, 64-bit everywhere; 12 per decade (the curves are straight on these log-log axes, and
    # every frame the page holds carries both).
    x = np.unique(whole(np.geomspace(LENGTHS[0], LENGTHS[-1], 49)))
    base = attention_cost(**BASE_MODEL)

    size = (700, 310)
    lengths = _decades(1, 5)
    figure_panels, artists = [], []
    for index, (rect, key, ylabel, title, y, base_value) in enumerate(zip(
        panels(size, ncols=2), ("bytes", "macs"),
        ("memory of the scores (bytes, float32)", "multiply-adds (QKᵀ and weights·V)"),
        ("scores kept", "multiply-adds"),
        (_decades(2, 14, 2), _decades(3, 17, 2)), (base.score_bytes("float32"), base.macs),
    )):
        figure_panels.append({"rect": rect, "title": title, "x": lengths, "y": y, "grid": GRID,
                              "xlabel": "sequence length n (tokens)", "ylabel": ylabel})
        artists += [
            {"name": f"{key}_linear", "panel": index, "type": "line", "color": LINEAR, "width": 1, "dash": [5, 2.5],
             "x": x, "y": base_value * x / 1000},
            {"name": f"{key}_base", "panel": index, "type": "markers", "shape": "star", "size": 9, "color": THEORY,
             "x": [1000], "y": [base_value]},
            {"name": f"{key}_curve", "panel": index, "type": "line", "color": BAR, "width": 2, "x": x},
            {"name": f"{key}_point", "panel": index, "type": "markers", "size": 5.5, "color": "#000000",
             "fill": "none", "linewidth": 2},
        ]
    figure_panels[0]["legend"] = [
        {"label": "self-attention, m = n", "color": BAR, "kind": "line"},
        {"label": "linear (slope 1)", "color": LINEAR, "kind": "line", "dash": [5, 2.5]},
        {"label": "base model (n = m = 1000, 8 heads, 6 layers)", "color": THEORY, "kind": "marker", "shape": "star"},
        {"label": "your choice (n, m)", "color": "#000000", "kind": "marker", "fill": "none", "linewidth": 1.5},
    ]
    curves = {}  # (d_k, heads, layers) -> (bytes, macs) of self-attention at each length x: n and m move neither

    def self_attention(d_k, heads, layers):
        if (d_k, heads, layers) not in curves:
            curve = [attention_cost(length.item(), d_k=d_k, heads=heads, layers=layers) for length in x]  # m = n
            # Counts reach 10**16: as floats, not numpy's default int (32 bits in the browser, where they overflow).
            curves[d_k, heads, layers] = (np.array([c.score_bytes("float32") for c in curve], dtype=float),
                                          np.array([c.macs for c in curve], dtype=float))
        return curves[d_k, heads, layers]

    def frame(n, m, d_k, heads, layers):
        cost = attention_cost(n, m, d_k=d_k, heads=heads, layers=layers)
        curve_bytes, curve_macs = self_attention(d_k, heads, layers)
        memory = cost.score_bytes("float32")
        readout = [
            ("scores alive", f"{cost.scores:,} ({_count(cost.scores)})"),
            ("  = n · m · heads · layers", f"{n:,} · {m:,} · {heads} · {layers}"),
            ("multiply-adds QKᵀ", f"{_count(cost.score_macs)}"),
            ("multiply-adds weights·V", f"{_count(cost.mix_macs)}"),
            ("memory of the scores (float32)", _bytes(memory)),
            ("vs the base model", f"{memory / base.score_bytes('float32'):.3g} × its {_bytes(base.score_bytes())}"),
            ("doubling n (m = n)", "× 4 scores, × 4 memory"),
        ]
        description = (
            f"log-log plots of score memory and multiply-adds against n for self-attention (slope 2: quadratic); "
            f"at n = {n}, m = {m}, d_k = {d_k}, {heads} heads, {layers} layers: {_count(cost.scores)} scores, "
            f"{_bytes(memory)} in float32, {_count(cost.macs)} multiply-adds; base model marked at n = 1000."
        )
        measured = {"scores": cost.scores, "score_macs": cost.score_macs, "mix_macs": cost.mix_macs,
                    "score_bytes_float32": memory}
        return {"artists": {"bytes_curve": {"y": curve_bytes}, "bytes_point": {"x": [n], "y": [float(memory)]},
                            "macs_curve": {"y": curve_macs}, "macs_point": {"x": [n], "y": [float(cost.macs)]}},
                "readout": readout, "description": description, "measured": measured}

    return Explorer("cost", controls, "n", start, {"width": size[0], "height": size[1]}, figure_panels, artists,
                    frame)
