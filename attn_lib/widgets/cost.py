"""The cost explorer: how the scores' memory and the multiply-adds grow with n, m, d_k, heads and layers."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..cost import attention_cost
from ._explorer import BAR, THEORY, WIDE, Explorer, live_figure, not_while_grading, readout_rows
from .._checks import InputValueError
from .._platform import whole

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
    slider = {"continuous_update": False, "style": WIDE, "layout": widgets.Layout(width="34em")}
    controls = {
        "n": widgets.SelectionSlider(options=LENGTHS, value=n, description="n (queries, tokens)", **slider),
        "m": widgets.SelectionSlider(options=LENGTHS, value=m, description="m (keys, tokens)", **slider),
        "d_k": widgets.SelectionSlider(options=COST_DK, value=d_k, description="d_k = d_v (components per head)",
                                       **slider),
        "heads": widgets.IntSlider(value=heads, min=1, max=16, description="heads (per layer)", **slider),
        "layers": widgets.IntSlider(value=layers, min=1, max=24, description="layers (scores kept for backward)",
                                    **slider),
    }
    x = np.unique(whole(np.geomspace(LENGTHS[0], LENGTHS[-1], 200)))  # whole numbers of tokens, 64-bit everywhere
    base = attention_cost(**BASE_MODEL)
    fig, (ax_mem, ax_macs) = live_figure((7.0, 3.1), ncols=2)
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
        (curve,) = ax.plot([], [], color=BAR, lw=2, label="self-attention, m = n")
        ax.plot(x, base_value * x / 1000, color="#888888", lw=1, ls="--", label="linear (slope 1)")
        ax.plot([1000], [base_value], marker="*", ms=13, color=THEORY, ls="none",
                label="base model (n = m = 1000, 8 heads, 6 layers)")
        (point,) = ax.plot([], [], marker="o", ms=8, mfc="none", mec="black", mew=1.5, ls="none",
                           label="your choice (n, m)")
        lines[key] = (curve, point)
    ax_mem.set_ylim(1e2, 1e14)
    ax_macs.set_ylim(1e3, 1e17)
    ax_mem.legend(loc="upper left", fontsize=7, frameon=False)

    def update(n, m, d_k, heads, layers):
        cost = attention_cost(n, m, d_k=d_k, heads=heads, layers=layers)
        curve = [attention_cost(length.item(), d_k=d_k, heads=heads, layers=layers) for length in x]  # m = n
        # Counts reach 10**16: as floats, not numpy's default int (32 bits in the browser, where they overflow).
        lines["bytes"][0].set_data(x, np.array([c.score_bytes("float32") for c in curve], dtype=float))
        lines["bytes"][1].set_data([n], np.array([cost.score_bytes("float32")], dtype=float))
        lines["macs"][0].set_data(x, np.array([c.macs for c in curve], dtype=float))
        lines["macs"][1].set_data([n], np.array([cost.macs], dtype=float))
        memory = cost.score_bytes("float32")
        readout = readout_rows([
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
