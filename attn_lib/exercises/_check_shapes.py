"""check_shapes: predicted shapes of Q, K, V, the scores, the weights and the output, each wrong one with its
reason."""

from __future__ import annotations

import numbers

import numpy as np

from .._checks import InputValueError, check_size
from ._answers import note_answer
from ._catalogue import entry
from ._feedback import Feedback, fail, failure, is_blank, not_answered


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
    # The known wrong shapes of each name and their ids (the words are the catalogue's).
    wrong = {
        "Q": [((d_k, n), "q-transposed"), ((m, d_k), "q-rows-m"), ((n, d_v), "q-width-dv")],
        "K": [((d_k, m), "k-transposed"), ((n, d_k), "k-rows-n"), ((m, d_v), "k-width-dv")],
        "V": [((m, d_k), "v-width-dk"), ((n, d_v), "v-rows-n"), ((d_v, m), "v-transposed")],
        "output": [((n, d_k), "output-width-dk"), ((n, m), "output-is-weights"), ((m, d_v), "output-rows-m"),
                   ((d_v, n), "output-transposed")],
    }
    for name in ("scores", "weights"):
        wrong[name] = [((m, n), f"{name}-transposed"), ((n, n), f"{name}-square"), ((m, m), f"{name}-square"),
                       ((n, d_k), f"{name}-width-dk"), ((n, d_v), f"{name}-width-dv")]
    return right, wrong


def _words(mistake_id: str, **fields) -> str:
    """A wrong shape's reason, from the catalogue (check_shapes gives one hint for all its lines)."""
    return entry(mistake_id, **fields)[0]


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


# The ids check_shapes gives (the teacher's table is generated from them).
GIVES = {
    "check_shapes": (
        "q-transposed", "q-rows-m", "q-width-dv", "k-transposed", "k-rows-n", "k-width-dv", "v-transposed",
        "v-rows-n", "v-width-dk", "scores-transposed", "weights-transposed", "scores-square", "weights-square",
        "scores-width-dk", "weights-width-dk", "scores-width-dv", "weights-width-dv", "output-width-dk",
        "output-is-weights", "output-rows-m", "output-transposed", "wrong-shape", "not-a-shape", "unknown-name",
    ),
}


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
        names = ([k for k in _SHAPE_NAMES if isinstance(answers, dict) and k in answers] or list(asks or ())
                 or list(_SHAPE_NAMES))  # what the learner left blank, else what the problem asks
        return not_answered(f"your predicted shapes of {', '.join(names)}")  # None, ..., {} or a dict of blanks
    if not isinstance(answers, dict):
        return failure("not-a-shape", got=f"{type(answers).__name__} {answers!r}")  # not a dict
    unknown = [k for k in answers if k not in _SHAPE_NAMES]
    if unknown:
        return failure("unknown-name", name=repr(unknown[0]), names=", ".join(_SHAPE_NAMES))
    if asks is not None:
        if isinstance(asks, str) or not all(name in _SHAPE_NAMES for name in asks):
            raise InputValueError(f"asks must name some of {', '.join(_SHAPE_NAMES)}; got {asks!r}")
        missing = [k for k in asks if k not in answers]
        if missing:
            return not_answered(f"your predicted shapes of {', '.join(asks)}; {', '.join(missing)} "
                                f"{'is' if len(missing) == 1 else 'are'} missing from your answers: put "
                                f"{'it' if len(missing) == 1 else 'them'} back and fill in the shape")
    blank = [k for k in _SHAPE_NAMES if k in answers and is_blank(answers[k])]
    if blank:
        return not_answered(f"your predicted shapes of {', '.join(answers)}; fill in {', '.join(blank)}")
    right, wrong = _shape_rules(sizes["n"], sizes["m"], sizes["d_k"], sizes["d_v"])
    lines, first, good = [], None, []
    for name in _SHAPE_NAMES:
        if name not in answers:
            continue
        want, why = right[name]
        got = _shape_of(answers[name], sizes)
        if got is None:
            lines.append(f"- {name}: {_words('not-a-shape', got=repr(answers[name]))}")
            first = first or "not-a-shape"
            continue
        if got == want:
            good.append(name)
            continue
        mistake_id, reason = "wrong-shape", f"Think of what it holds: {why}."
        for shape, mid in wrong[name]:
            if shape == got:
                fields = {"a": "n" if shape[0] == sizes["n"] else "m"} if mid.endswith("-square") else {}
                mistake_id, reason = mid, _words(mid, **fields)
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
