"""check_decode_step: a learner's decoding step with a KV cache, one new token against the cached positions."""

from __future__ import annotations

import numpy as np

from ..attention import attention
from ..masks import causal_mask
from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, LARGE, Case, FunctionProblem, Mistake
from ._pieces import SPLIT_SCALE_POWERS, attention_out, row_softmax, scaled_qk

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


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "output", "d_k": "q.shape[-1]"}


def _mistakes() -> list[Mistake]:
    return [
        Mistake("forgot-append",
                (lambda q, k, v, K_cache, V_cache: attention_out(q, K_cache, V_cache),
                 lambda q, k, v, K_cache, V_cache: (np.zeros_like(v + 0.0 * q[..., :1]) if K_cache.shape[-2] == 0
                                                else attention_out(q, K_cache, V_cache)))),
        Mistake("forgot-cache", (lambda q, k, v, K_cache, V_cache: attention_out(q, k, v),)),
        Mistake("new-token-twice",
                (lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(_appended(K_cache, k), k),
                                                          _appended(_appended(V_cache, v), v)),)),
        Mistake("cache-order-mismatch",
                (lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(k, K_cache), _appended(V_cache, v)),
                 lambda q, k, v, K_cache, V_cache: attention_out(q, _appended(K_cache, k), _appended(v, V_cache)))),
        Mistake("masked-cache", (_first_key_only, _square_causal_mask)),
        Mistake("scaled-by-dv",
                (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=np.sqrt(d_v))),),
                **_SCALE_FIELDS),
        Mistake("no-scaling", (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=1.0)),),
                **_SCALE_FIELDS),
        Mistake("divide-by-dk", (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=d_k)),),
                **_SCALE_FIELDS),
        Mistake("power-precedence",
                (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=2.0 * d_k)),
                 _with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=d_k / 2)))),
        Mistake("split-scale",
                tuple(_with_all(lambda q, k, K, V, d_k, d_v, p=p: attention_out(q, K, V, divide_by=d_k ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake("d-model-scaling",
                (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=np.sqrt(512))),
                 _with_all(lambda q, k, K, V, d_k, d_v: attention_out(q, K, V, divide_by=512.0))),
                **_SCALE_FIELDS),
        Mistake("queries-from-keys", (_with_all(lambda q, k, K, V, d_k, d_v: attention_out(k, K, V)),)),
        Mistake("softmax-wrong-axis",
                (_with_all(lambda q, k, K, V, d_k, d_v: row_softmax(scaled_qk(q, K), axis=-2) @ V),)),
        Mistake("returned-weights", (_with_all(lambda q, k, K, V, d_k, d_v: row_softmax(scaled_qk(q, K))),),
                shape="over the positions, (..., 1, t + 1)", product="(..., 1, d_v)",
                values="the cache with v appended"),
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
