"""Shared by the skeleton's tests: a small demo problem judged directly, and every function checker with the
number of arguments it passes to the learner's function."""

import numpy as np

from attn_lib.exercises import (
    check_attention,
    check_causal_mask,
    check_chunked_attention,
    check_masked_softmax,
    check_softmax,
    check_split_heads,
)
from attn_lib.exercises._types import LARGE, Case, FunctionProblem, Mistake


FUNCTION_CHECKERS = {
    "check_attention": (check_attention, 3),
    "check_softmax": (check_softmax, 1),
    "check_masked_softmax": (check_masked_softmax, 2),
    "check_causal_mask": (check_causal_mask, 2),
    "check_split_heads": (check_split_heads, 2),
    "check_chunked_attention": (check_chunked_attention, 4),
}


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _cases():
    rng = np.random.default_rng(0)
    x, big = rng.normal(size=(3, 4)), 1000 + rng.normal(size=(2, 5))
    return [Case("small", {"x": x}, softmax_rows(x)), Case("large", {"x": big}, softmax_rows(big), tags={LARGE})]


def _mistakes():
    return [Mistake("no-division", (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)),), what="weights")]


PROBLEM = FunctionProblem("check_demo", ("x",), _cases, _mistakes, "right on {count}", what="weights",
                          forbidden=("softmax",), time_limit=0.5)
