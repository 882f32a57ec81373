"""check_decode_step: each hand-written wrong decoding step gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_decode_step


def _sm(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _cat(cache, row):
    return np.concatenate([cache, row], axis=-2)


def _scores(q, K, divide_by=None):
    return q @ np.swapaxes(K, -1, -2) / (np.sqrt(q.shape[-1]) if divide_by is None else divide_by)


def einsum_step(q, k, v, K_cache, V_cache):
    K, V = _cat(K_cache, k), _cat(V_cache, v)
    w = _sm(np.einsum("...id,...jd->...ij", q, K) / np.sqrt(K.shape[-1]))
    return np.einsum("...ij,...jd->...id", w, V)


def separate_new_key(q, k, v, K_cache, V_cache):
    """The new key's score kept apart from the cache's, then one softmax over both."""
    d_k = q.shape[-1]
    cached = q @ np.swapaxes(K_cache, -1, -2) / np.sqrt(d_k)  # (..., 1, t)
    own = (q * k).sum(axis=-1, keepdims=True) / np.sqrt(d_k)  # (..., 1, 1)
    w = _sm(np.concatenate([cached, own], axis=-1))
    return w[..., :-1] @ V_cache + w[..., -1:] * v


def float32_step(q, k, v, K_cache, V_cache):
    K, V = _cat(K_cache, k).astype(np.float32), _cat(V_cache, v).astype(np.float32)
    return _sm(_scores(q.astype(np.float32), K)) @ V


RIGHT = {
    "concatenate then softmax": lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k))) @ _cat(Vc, v),
    "attn_lib's softmax is allowed": lambda q, k, v, Kc, Vc: attn_lib.softmax(_scores(q, _cat(Kc, k))) @ _cat(Vc, v),
    "einsum": einsum_step,
    "new key kept apart": separate_new_key,
    "float32": float32_step,
    "prepended new key (order does not change the output)":
        lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(k, Kc))) @ _cat(v, Vc),
}

WRONG = [
    ("forgot-append", lambda q, k, v, Kc, Vc: _sm(_scores(q, Kc)) @ Vc),
    ("forgot-cache", lambda q, k, v, Kc, Vc: v),
    ("forgot-cache", lambda q, k, v, Kc, Vc: _sm(_scores(q, k)) @ v),
    ("masked-cache", lambda q, k, v, Kc, Vc: _sm(np.where(np.tril(np.ones((1, Kc.shape[-2] + 1), bool)),
                                                           _scores(q, _cat(Kc, k)), -np.inf)) @ _cat(Vc, v)),
    ("scaled-by-dv", lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k), np.sqrt(v.shape[-1]))) @ _cat(Vc, v)),
    ("no-scaling", lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k), 1.0)) @ _cat(Vc, v)),
    ("divide-by-dk", lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k), q.shape[-1])) @ _cat(Vc, v)),
    ("queries-from-keys", lambda q, k, v, Kc, Vc: _sm(_scores(k, _cat(Kc, k))) @ _cat(Vc, v)),
    ("softmax-wrong-axis", lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k)), axis=-2) @ _cat(Vc, v)),
    ("returned-weights", lambda q, k, v, Kc, Vc: _sm(_scores(q, _cat(Kc, k)))),
    ("naive-overflow", lambda q, k, v, Kc, Vc: (lambda e: e / e.sum(-1, keepdims=True))(
        np.exp(_scores(q, _cat(Kc, k)))) @ _cat(Vc, v)),
    ("no-batch", lambda q, k, v, Kc, Vc: _sm(q @ _cat(Kc, k).T / np.sqrt(q.shape[-1])) @ _cat(Vc, v)),
    ("returned-tuple", lambda q, k, v, Kc, Vc: (RIGHT["einsum"](q, k, v, Kc, Vc), _cat(Kc, k), _cat(Vc, v))),
    ("used-attn-lib", lambda q, k, v, Kc, Vc: attn_lib.attention(q, _cat(Kc, k), _cat(Vc, v))),
    ("used-attn-lib", lambda q, k, v, Kc, Vc: attn_lib.decode_step(q, k, v, Kc, Vc)[0]),
    ("wrong-signature", lambda q, K_cache, V_cache: q),
]


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass(name):
    fb = check_decode_step(RIGHT[name])
    assert fb.passed, (name, fb)
    assert "It is right because the new token is the latest position" in fb.reason


@pytest.mark.parametrize("mistake, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_wrong_answers_get_their_own_mistake(mistake, fn):
    fb = check_decode_step(fn)
    assert not fb.passed
    assert fb.mistake == mistake, (mistake, fb)


def test_placeholder_is_not_answered_yet():
    def placeholder(q, k, v, K_cache, V_cache):
        raise NotImplementedError

    assert check_decode_step(placeholder).verdict == "Not answered yet"
    assert check_decode_step(None).verdict == "Not answered yet"


def test_the_cases_start_from_an_empty_cache_and_try_one_cached_position():
    from attn_lib.exercises._check_decode_step import PROBLEM

    cached = {case.inputs["K_cache"].shape[-2] for case in PROBLEM.cases()}
    assert {0, 1} <= cached
    assert any(case.inputs["q"].shape[-1] != case.inputs["v"].shape[-1] for case in PROBLEM.cases())
    assert any(case.inputs["q"].ndim > 2 for case in PROBLEM.cases())


def test_attending_to_the_cache_alone_is_named_when_the_empty_first_step_gives_zeros():
    # A learner review: this got a generic wrong-values (its first step, over an empty cache, returns zeros).
    def cache_alone(q, k, v, K_cache, V_cache):
        scores = q @ np.swapaxes(K_cache, -1, -2) / np.sqrt(q.shape[-1])
        if scores.shape[-1] == 0:
            return np.zeros(np.broadcast_shapes(q.shape[:-1], v.shape[:-2] + (1,)) + v.shape[-1:])
        e = np.exp(scores - scores.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True)) @ V_cache
    assert check_decode_step(cache_alone).mistake == "forgot-append"
