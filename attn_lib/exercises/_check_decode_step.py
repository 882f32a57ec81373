"""check_decode_step: a learner's decoding step with a KV cache, one new token against the cached positions."""

from __future__ import annotations

import numpy as np

from ..attention import attention
from ..masks import causal_mask
from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, LARGE, Case, FunctionProblem, Mistake
from ._pieces import (FIX_POWER_PRECEDENCE, FIX_SPLIT_SCALE, POWER_PRECEDENCE, SCALED_TWICE, SPLIT_SCALE,
                      SPLIT_SCALE_POWERS, attention_out, row_softmax, scaled_qk)

_ARGS = ("q", "k", "v", "K_cache", "V_cache")


def _appended(cache, row):
    """The cache (..., t, d) with the new row (..., 1, d) as position t: what a right step attends over."""
    batch = np.broadcast_shapes(cache.shape[:-2], row.shape[:-2])
    return np.concatenate([np.broadcast_to(cache, (*batch, *cache.shape[-2:])),
                           np.broadcast_to(row, (*batch, *row.shape[-2:]))], axis=-2)


def _all(k, v, K_cache, V_cache):
    return _appended(K_cache, k), _appended(V_cache, v)  # (..., t + 1, d_k), (..., t + 1, d_v)


def _step_case(label, Q, K, V, t, tags=()):
    """Step t of the sequence Q, K, V (..., T, d): the cache holds positions 0 .. t-1; the answer is row t of
    full causal attention over positions 0 .. t."""
    inputs = dict(q=Q[..., t:t + 1, :], k=K[..., t:t + 1, :], v=V[..., t:t + 1, :],
                  K_cache=K[..., :t, :], V_cache=V[..., :t, :])
    full = attention(Q[..., :t + 1, :], K[..., :t + 1, :], V[..., :t + 1, :], mask=causal_mask(t + 1))
    return Case(label, inputs, full[..., -1:, :], tags, averaged=float(np.abs(V[..., :t + 1, :]).max()))


def _cases() -> list[Case]:
    rng = np.random.default_rng(17)
    T, d_k, d_v = 6, 4, 3
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    cases = [_step_case(f"step {t} of a sequence, with {t} cached position{'s' if t != 1 else ''} (d_k = 4, d_v = 3)",
                        Q, K, V, t) for t in range(T)]
    Q, K, V = rng.normal(size=(3, 8)), rng.normal(size=(3, 8)), rng.normal(size=(3, 2))
    cases.append(_step_case("one cached position, d_k = 8 and d_v = 2", Q, K, V, 1))
    Q, K, V = rng.normal(size=(2, 3, 5, 6)), rng.normal(size=(2, 3, 5, 6)), rng.normal(size=(2, 3, 5, 2))
    cases.append(_step_case("a batch: 2 sequences x 3 heads, 4 cached positions (q (2, 3, 1, 6))", Q, K, V, 4,
                            tags=(BATCH,)))
    Q, K, V = 60 * rng.normal(size=(4, 6)), 60 * rng.normal(size=(4, 6)), rng.normal(size=(4, 3))
    cases.append(_step_case("scores beyond 1000, 3 cached positions", Q, K, V, 3, tags=(LARGE,)))
    return cases


def _first_key_only(q, k, v, K_cache, V_cache):
    _, V_all = _all(k, v, K_cache, V_cache)
    return V_all[..., :1, :]  # a causal mask laid as if the new query were position 0: only key 0 is left


def _square_causal_mask(q, k, v, K_cache, V_cache):
    K_all, V_all = _all(k, v, K_cache, V_cache)
    t1 = K_all.shape[-2]
    scores = np.where(np.tril(np.ones((t1, t1), dtype=bool)), scaled_qk(q, K_all), -np.inf)  # (t+1, t+1)
    return row_softmax(scores) @ V_all


def _with_all(fn):
    """A variant computed on the appended caches: fn(q, k, K_all, V_all, d_k, d_v)."""
    def variant(q, k, v, K_cache, V_cache):
        K_all, V_all = _all(k, v, K_cache, V_cache)
        return fn(q, k, K_all, V_all, q.shape[-1], V_all.shape[-1])
    return variant


def _mistakes() -> list[Mistake]:
    return [
        Mistake(
            "forgot-append",
            "Your output attends to the cached keys and values alone: the new token's own k and v are missing "
            "(not appended to the cache, or blocked by a mask). Under the causal mask position t may see every "
            "position up to and including itself, so the step attends over the cache with k and v appended as "
            "its last row; at the first step the cache is empty and the new key is all there is.",
            "Append first: K_all = np.concatenate([K_cache, k], axis=-2), and the same for the values.",
            (lambda q, k, v, K_cache, V_cache: attention_out(q, K_cache, V_cache),
             # the same, where an empty cache at the first step averages nothing and gives zeros
             lambda q, k, v, K_cache, V_cache: (np.zeros_like(v + 0.0 * q[..., :1]) if K_cache.shape[-2] == 0
                                                else attention_out(q, K_cache, V_cache))),
        ),
        Mistake(
            "forgot-cache",
            "Your output is the new token's own value v: it attends to its own key alone and never reads the "
            "cache. The point of the cache is that the new query meets the keys and values of every earlier "
            "position, kept from their own steps.",
            "Attend over the cache with the new key and value appended: (..., t + 1, d_k) keys.",
            (lambda q, k, v, K_cache, V_cache: attention_out(q, k, v),),
        ),
        Mistake(
            "new-token-twice",
            "Your step attends over the new key and value twice: they were appended to the cache, and then "
            "appended again (a cache updated in place and concatenated once more, say). The new position then "
            "counts double in the softmax, as two keys with the same score.",
            "Append k and v once: K_all = np.concatenate([K_cache, k], axis=-2), the same for V; use K_all and "
            "V_all from there on.",
            (lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(_appended(K_cache, k), k),
                                                          _appended(_appended(V_cache, v), v)),),
        ),
        Mistake(
            "cache-order-mismatch",
            "You put the new key at one end of the cache and its value at the other (np.concatenate([k, K_cache]) "
            "but [V_cache, v], or the reverse): row j of the keys and row j of the values no longer belong to the "
            "same position, so the weight each key earns mixes another position's value. The order itself does "
            "not matter to attention; keys and values must share it.",
            "Append both the same way: np.concatenate([K_cache, k], axis=-2) and np.concatenate([V_cache, v], "
            "axis=-2).",
            (lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(k, K_cache), _appended(V_cache, v)),
             lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(K_cache, k), _appended(v, V_cache))),
        ),
        Mistake(
            "masked-cache",
            "Your step masks the cache with a causal mask laid out as for a square score matrix: row 0 of "
            "np.tril lets the new query see only the first position. The new token is the latest position, so "
            "every cached key is earlier than it: the causal mask blocks nothing in this row, and the step "
            "needs no mask at all.",
            "Drop the mask: the new query's row of the causal mask is all True.",
            (_first_key_only, _square_causal_mask),
        ),
        Mistake(
            "scaled-by-dv",
            "Your scores are divided by sqrt(d_v), the values' width. The division is by sqrt(d_k): the scores "
            "are dot products of d_k numbers, and d_v never enters them.",
            "Read d_k from the last axis of q (or of the keys).",
            (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=np.sqrt(d_v))),),
        ),
        Mistake(
            "no-scaling",
            "Your scores are not divided by sqrt(d_k). A decoding step is the same attention as the full pass, "
            "so its scores are scaled the same way, or the step disagrees with the full causal attention it "
            "stands for.",
            "Divide q @ K_all^T by np.sqrt(d_k) before the softmax.",
            (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=1.0)),),
        ),
        Mistake(
            "divide-by-dk",
            "Your scores are divided by d_k; the division is by sqrt(d_k), the standard deviation of one score "
            "when the components have unit variance." + SCALED_TWICE,
            "Use np.sqrt(d_k).",
            (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=d_k)),),
        ),
        Mistake("power-precedence", POWER_PRECEDENCE, FIX_POWER_PRECEDENCE,
                (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=2.0 * d_k)),
                 _with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=d_k / 2)))),
        Mistake("split-scale", SPLIT_SCALE, FIX_SPLIT_SCALE,
                tuple(_with_all(lambda q, k, K, V, d_k, d_v, p=p: attention_out(q, K, V, divide_by=d_k ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake(
            "d-model-scaling",
            "Your scores are divided by sqrt(512) (or 512), the base model's width d_model. A decoding step is "
            "one head's attention: its scores are dot products of d_k = q.shape[-1] terms, so they are divided "
            "by sqrt(d_k), the per-head width.",
            "Read d_k from the last axis of q and divide by np.sqrt(d_k).",
            (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=np.sqrt(512))),
             _with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=512.0))),
        ),
        Mistake(
            "queries-from-keys",
            "Your scores use the new token's key k where its query q belongs: the step asks with q and is "
            "answered by the keys, the cached ones and k.",
            "Score q against the keys: q @ K_all^T.",
            (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(k, K, V)),),
        ),
        Mistake(
            "softmax-wrong-axis",
            "Your softmax runs over the query axis, which has length one here: every weight becomes 1 and the "
            "output is the sum of all value rows. The new query's weights run over the keys, the last axis.",
            "Take the maximum and the sum along axis=-1, with keepdims=True.",
            (_with_all(lambda q, k, K, V, d_k, d_v: row_softmax(scaled_qk(q, K), axis=-2) @ V),),
        ),
        Mistake(
            "returned-weights",
            "You returned the new query's weights over the positions (..., 1, t + 1), not the output. The "
            "weights say who is listened to; the step returns what is heard: the weights times the values, "
            "(..., 1, d_v).",
            "Multiply the weights by the values (the cache with v appended) and return that.",
            (_with_all(lambda q, k, K, V, d_k, d_v: row_softmax(scaled_qk(q, K))),),
        ),
    ]


def check_decode_step(fn) -> Feedback:
    """Check a learner's ``fn(q, k, v, K_cache, V_cache) -> output``, one decoding step with a KV cache.

    q, k (..., 1, d_k) and v (..., 1, d_v) are the new token's; K_cache (..., t, d_k) and V_cache (..., t, d_v)
    hold the t earlier positions (t = 0 at the first step). The answer is the new token's output (..., 1, d_v),
    the last row of full causal attention over positions 0 .. t. Cases: every step of one sequence (t = 0 to 5),
    d_k != d_v, a batch of sequences and heads, and scores beyond 1000. attn_lib's ``softmax`` may be called;
    ``attention``, ``chunked_attention`` and ``decode_step`` may not.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> import numpy as np
    >>> def step(q, k, v, K_cache, V_cache):
    ...     K, V = np.concatenate([K_cache, k], axis=-2), np.concatenate([V_cache, v], axis=-2)
    ...     s = q @ np.swapaxes(K, -1, -2) / np.sqrt(q.shape[-1])
    ...     w = np.exp(s - s.max(axis=-1, keepdims=True))
    ...     return w / w.sum(axis=-1, keepdims=True) @ V
    >>> check_decode_step(step).passed
    True
    >>> check_decode_step(lambda q, k, v, K_cache, V_cache: v).mistake
    'forgot-cache'
    """
    return judge(fn, PROBLEM)


PROBLEM = FunctionProblem(
    checker="check_decode_step",
    params=_ARGS,
    cases=_cases,
    mistakes=_mistakes,
    passed="Your step equals the last row of full causal attention on all {count} cases, from an empty cache "
    "(t = 0) to 5 cached positions, with d_k != d_v, a batch of sequences and heads, and scores beyond 1000. It "
    "is right because the new token is the latest position: its query may see every cached key and its own, so "
    "one softmax over the cache with k and v appended, scaled by sqrt(d_k), gives the row the full causal pass "
    "would compute, without recomputing a single earlier key or value.",
    what="output",
    forbidden=("attention", "chunked_attention", "decode_step"),
    forbidden_why="Your step calls one of attn_lib's attention functions (attention, chunked_attention or "
    "decode_step), which do the whole step for you. Write the step with numpy (attn_lib's softmax may be "
    "called): append k and v, score q against the keys, softmax, mix the values.",
    hint="Print the shapes: K_all (..., t + 1, d_k) after appending k, the scores (..., 1, t + 1), the output "
    "(..., 1, d_v). At the first step K_cache has 0 rows.",
)
