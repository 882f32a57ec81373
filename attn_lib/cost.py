"""Counting what attention costs: scores alive, multiply-adds, and the bytes the scores take; and timing it."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._blas import one_blas_thread
from ._checks import check_size


@dataclass(frozen=True)
class AttentionCost:
    """Counts for ``layers`` layers of ``heads`` heads attending from n queries to m keys: the sizes, and what
    follows from them (``scores``, ``score_macs``, ``mix_macs``, ``macs``, ``score_bytes``)."""

    n: int
    m: int
    d_k: int
    d_v: int
    heads: int
    layers: int

    @property
    def scores(self) -> int:
        """Scores (and weights) alive at once: n * m per head per layer, all kept for the backward pass."""
        return self.n * self.m * self.heads * self.layers

    @property
    def score_macs(self) -> int:
        """Multiply-adds making Q K^T: each of the scores is a dot product of d_k products."""
        return self.scores * self.d_k

    @property
    def mix_macs(self) -> int:
        """Multiply-adds of the weights times V: each of the n * d_v outputs sums m products, per head and
        layer."""
        return self.scores * self.d_v

    @property
    def macs(self) -> int:
        """Multiply-adds of both matrix products (projections not included)."""
        return self.score_macs + self.mix_macs

    def score_bytes(self, dtype="float32") -> int:
        """Bytes the scores take at ``dtype`` (4 per score in float32, 8 in float64)."""
        return self.scores * np.dtype(dtype).itemsize


def attention_cost(n, m=None, d_k=64, d_v=None, heads=8, layers=1):
    """Count scores and multiply-adds of attention; ``m`` defaults to ``n`` and ``d_v`` to ``d_k``.

    Parameters
    ----------
    n, m : int
        Queries and keys (self-attention: m = n).
    d_k, d_v : int
        Per-head width of queries/keys and of values.
    heads, layers : int
        Heads per layer, and layers whose scores are alive at once.

    Returns
    -------
    AttentionCost

    Raises
    ------
    TypeError, ValueError
        If a size is not an integer, or is negative (``heads`` and ``layers`` must be at least 1).

    Examples
    --------
    >>> c = attention_cost(1000, d_k=64, heads=1)
    >>> c.scores, c.score_macs
    (1000000, 64000000)
    >>> attention_cost(1000, heads=8, layers=6).score_bytes("float32")
    192000000
    """
    n = check_size(n, "n")
    m = n if m is None else check_size(m, "m")
    d_k = check_size(d_k, "d_k")
    d_v = d_k if d_v is None else check_size(d_v, "d_v")
    heads = check_size(heads, "heads", minimum=1)
    layers = check_size(layers, "layers", minimum=1)
    return AttentionCost(n=n, m=m, d_k=d_k, d_v=d_v, heads=heads, layers=layers)


def best_time(fn, repeats=10):
    """Seconds taken by the fastest of ``repeats`` calls of ``fn()``, with numpy's BLAS on one thread.

    The fastest call is the one least disturbed by whatever else the machine was doing.

    Examples
    --------
    >>> best_time(lambda: sum(range(100)), repeats=3) > 0
    True
    """
    repeats = check_size(repeats, "repeats", minimum=1)
    best = float("inf")
    with one_blas_thread():
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
    return best
