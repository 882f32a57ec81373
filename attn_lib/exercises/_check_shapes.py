"""check_shapes: predicted shapes of Q, K, V, the scores, the weights and the output, each wrong one with its
reason."""

from __future__ import annotations

import numbers

import numpy as np

from .._checks import InputValueError, check_size
from ._answers import note_answer
from ._feedback import Feedback, NOT_ANSWERED, is_blank, fail, not_answered


_SHAPE_NAMES = ("Q", "K", "V", "scores", "weights", "output")


def _shape_rules(n, m, d_k, d_v):
    """For each name: (right shape, why), and the known wrong shapes with their (id, reason)."""
    right = {
        "Q": ((n, d_k), "one query row per position that asks, each d_k wide"),
        "K": ((m, d_k), "one key row per position that can be attended to, as wide as the queries (d_k)"),
        "V": ((m, d_v), "one value row per key (m rows), each d_v wide"),
        "scores": ((n, m), "entry (i, j) is query i dotted with key j"),
        "weights": ((n, m), "the softmax keeps the shape of the scores: one row of m weights per query"),
        "output": ((n, d_v), "one output row per query, a mix of value rows, so of width d_v"),
    }
    wrong = {
        "Q": [
            ((d_k, n), "q-transposed", "Q stores one query per row: (n, d_k), not (d_k, n)."),
            ((m, d_k), "q-rows-m", "Q has one row per query: n rows. m counts the keys (in cross-attention, "
             "the encoder's positions)."),
            ((n, d_v), "q-width-dv", "Queries are compared with keys, so they share the keys' width d_k; d_v "
             "is the width of the values."),
        ],
        "K": [
            ((d_k, m), "k-transposed", "K stores one key per row: (m, d_k). K^T, of shape (d_k, m), is what "
             "multiplies Q, but K itself is (m, d_k)."),
            ((n, d_k), "k-rows-n", "K has one row per key: m rows. n counts the queries; in cross-attention the "
             "keys come from the encoder and m != n."),
            ((m, d_v), "k-width-dv", "Keys are compared with queries, so they are d_k wide; d_v is the width of "
             "the values."),
        ],
        "V": [
            ((m, d_k), "v-width-dk", "V has width d_v: the values are what is heard, and need not be as wide as "
             "the queries and keys (d_k)."),
            ((n, d_v), "v-rows-n", "V has one row per key: m rows, one value for each key."),
            ((d_v, m), "v-transposed", "V stores one value per row: (m, d_v), not (d_v, m)."),
        ],
        "output": [
            ((n, d_k), "output-width-dk", "An output row is a mix of value rows, so it has width d_v, not d_k."),
            ((n, m), "output-is-weights", "(n, m) is the shape of the weights; the output multiplies them by V: "
             "(n, m) x (m, d_v) -> (n, d_v)."),
            ((m, d_v), "output-rows-m", "There is one output row per query: n rows, not m."),
            ((d_v, n), "output-transposed", "One output row per query: (n, d_v), not (d_v, n)."),
        ],
    }
    width_dk = {
        "scores": "Each score is a single number, a dot product: its d_k terms are summed away. There is one per "
                  "(query, key) pair: (n, m).",
        "weights": "Each weight is a single number, one per (query, key) pair: the d_k terms of the dot product "
                   "are summed away before the softmax. The weights are (n, m).",
    }
    for name in ("scores", "weights"):
        wrong[name] = [
            ((m, n), f"{name}-transposed", f"The {name} have one row per query and one column per key: (n, m), "
             "not (m, n)."),
            ((n, n), f"{name}-square", "n x n would be self-attention, queries and keys from one sequence; here "
             f"they come from two sequences of different lengths, and there is one of the {name} for every "
             "(query, key) pair."),
            ((m, m), f"{name}-square", "m x m would be self-attention, queries and keys from one sequence; here "
             f"they come from two sequences of different lengths, and there is one of the {name} for every "
             "(query, key) pair."),
            ((n, d_k), f"{name}-width-dk", width_dk[name]),
            ((n, d_v), f"{name}-width-dv", f"A row of {name} has one entry per key: length m; it knows nothing "
             "about d_v."),
        ]
    return right, wrong


def _axis_reasons(n, m, d_k, d_v) -> dict:
    """For each name, where each axis of its right shape comes from, with the sizes."""
    return {
        "Q": f"its rows are the n = {n} queries, its columns the d_k = {d_k} components of each",
        "K": f"its rows are the m = {m} keys, its columns d_k = {d_k}, as wide as the queries each key is "
             "compared with",
        "V": f"one value row per key (m = {m} rows), each d_v = {d_v} wide",
        "scores": f"one row per query (n = {n}) and one column per key (m = {m}): entry (i, j) is query i . key "
                  f"j, its d_k = {d_k} products summed to one number",
        "weights": f"the softmax keeps the scores' shape: one row of m = {m} weights for each of the n = {n} "
                   "queries",
        "output": f"one row per query (n = {n}), each a mix of value rows and so d_v = {d_v} wide",
    }


def _shape_of(value, sizes):
    """The learner's shape as a tuple of ints, with names like "n" or "d_k" allowed; None if not a shape."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = tuple(value.tolist())
    if not isinstance(value, (tuple, list)):
        return None
    out = []
    for item in value:
        if isinstance(item, np.ndarray) and item.size == 1 and item.dtype.kind in "iu":
            item = item.reshape(()).item()  # a 0-d or one-element integer array
        if isinstance(item, str) and item.strip() in sizes:
            out.append(sizes[item.strip()])
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            out.append(int(item))
        else:
            return None
    return tuple(out)


def check_shapes(answers, n, m, d_k, d_v, *, asks=None) -> Feedback:
    """Check predicted shapes of Q, K, V, the scores, the weights and the output.

    Parameters
    ----------
    answers : dict or None
        Any of "Q", "K", "V", "scores", "weights", "output", each mapped to a tuple of ints (or of the names
        "n", "m", "d_k", "d_v"). ``None`` or ``...`` as a value means not answered yet.
    n, m, d_k, d_v : int
        Queries, keys, query/key width, value width.
    asks : sequence of str, optional
        The shapes the problem asks for; one missing from ``answers`` (its line deleted) is not answered yet, not
        passed over. By default only the shapes given are judged.

    Returns
    -------
    Feedback
        Lists every wrong shape with its reason (never the right shape); ``mistake`` is the id of the first.

    Raises
    ------
    TypeError, ValueError
        If a size is not a non-negative integer.

    Examples
    --------
    >>> print(check_shapes({"scores": (3, 3), "output": (3, 64)}, n=3, m=5, d_k=64, d_v=32))
    Not yet: 2 of 2 shapes are not right.
    - scores: (3, 3) is not it. n x n would be self-attention, queries and keys from one sequence; here
      they come from two sequences of different lengths, and there is one of the scores for every
      (query, key) pair.
    - output: (3, 64) is not it. An output row is a mix of value rows, so it has width d_v, not d_k.
    Hint: Write each shape next to the equation, and say for each axis what it counts: queries, keys, or
    the width of a row.
    """
    sizes = {"n": check_size(n, "n"), "m": check_size(m, "m"), "d_k": check_size(d_k, "d_k"),
             "d_v": check_size(d_v, "d_v")}
    note_answer(tuple(sizes.values()))  # the sizes decide every shape
    if is_blank(answers) or (isinstance(answers, dict) and all(is_blank(v) for v in answers.values())):
        names = [k for k in _SHAPE_NAMES if isinstance(answers, dict) and k in answers] or list(_SHAPE_NAMES)
        return not_answered(f"your predicted shapes of {', '.join(names)}")  # None, ..., {} or a dict of blanks
    if not isinstance(answers, dict):
        return fail(
            "not-a-shape",
            f"check_shapes expects a dict such as {{'Q': (n, d_k), 'scores': (n, m)}}; got "
            f"{type(answers).__name__} {answers!r}.",
        )
    unknown = [k for k in answers if k not in _SHAPE_NAMES]
    if unknown:
        return fail(
            "unknown-name",
            f"Unknown name {unknown[0]!r} in your answers; the names are {', '.join(_SHAPE_NAMES)}.",
        )
    if asks is not None:
        if isinstance(asks, str) or not all(name in _SHAPE_NAMES for name in asks):
            raise InputValueError(f"asks must name some of {', '.join(_SHAPE_NAMES)}; got {asks!r}")
        missing = [k for k in asks if k not in answers]
        if missing:
            return Feedback(False, f"Not everything is answered yet: {', '.join(missing)} "
                                   f"{'is' if len(missing) == 1 else 'are'} missing from your answers; put "
                                   f"{'it' if len(missing) == 1 else 'them'} back and fill in the shape.", "",
                            NOT_ANSWERED)
    blank = [k for k in _SHAPE_NAMES if k in answers and is_blank(answers[k])]
    if blank:
        return Feedback(False, f"Not everything is answered yet: fill in {', '.join(blank)}.", "", NOT_ANSWERED)
    right, wrong = _shape_rules(sizes["n"], sizes["m"], sizes["d_k"], sizes["d_v"])
    lines, first, good = [], None, []
    for name in _SHAPE_NAMES:
        if name not in answers:
            continue
        want, why = right[name]
        got = _shape_of(answers[name], sizes)
        if got is None:
            lines.append(f"- {name}: {answers[name]!r} is not a shape; write a tuple of sizes, in numbers or in "
                         "the names n, m, d_k, d_v.")
            first = first or "not-a-shape"
            continue
        if got == want:
            good.append(name)
            continue
        mistake_id, reason = "wrong-shape", f"Think of what it holds: {why}."
        for shape, mid, text in wrong[name]:
            if shape == got:
                mistake_id, reason = mid, text
                break
        lines.append(f"- {name}: {got} is not it. {reason}")
        first = first or mistake_id
    if not lines:
        axes = _axis_reasons(**sizes)
        return Feedback(True, "\n".join([f"All {len(good)} shapes are right; each axis counts something:",
                                          *(f"- {name} {right[name][0]}: {axes[name]}." for name in good)]))
    total = len(lines) + len(good)
    right_text = f" ({', '.join(good)} {'is' if len(good) == 1 else 'are'} right)" if good else ""
    return fail(
        first,
        "\n".join([f"{len(lines)} of {total} shapes {'is' if len(lines) == 1 else 'are'} not right{right_text}.",
                   *lines]),
        "Write each shape next to the equation, and say for each axis what it counts: queries, keys, or the "
        "width of a row.",
    )
