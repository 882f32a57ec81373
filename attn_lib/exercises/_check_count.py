"""check_count: a predicted count of scores, multiply-adds, bytes of the scores, or one head's W_q weights; also
how a number answer is read and how far off it is (shared with check_variance)."""

from __future__ import annotations



from .._checks import check_size
from ._answers import (COUNT_EXAMPLES, NUMBER_UNREAD, how_far, named_mistakes, note_answer, read_number,
                       record_call)
from ._catalogue import entry
from ._compare import isclose
from ._feedback import Feedback, fail, failure, is_blank, not_answered


_QUANTITIES = ("scores", "score_macs", "mix_macs", "score_bytes_float32", "projection_weights")


_WHAT = {  # what each quantity counts, for the not-answered prompt
    "scores": "the scores held at once",
    "score_macs": "the multiply-adds that make the scores, Q K^T",
    "mix_macs": "the multiply-adds that mix the values, weights @ V",
    "score_bytes_float32": "the bytes the scores take in float32",
    "projection_weights": "the numbers in one head's W_q",
}


def _count_candidates(quantity, n, m, d_k, d_v, heads, layers, d_model):
    """(right value, [(id, value, fields[, rounded]), ...]) for one quantity: each id's words are the catalogue's,
    ``fields`` fill them in (no sizes that would make the factor left out one step away)."""
    H, L, S = heads, layers, n * m
    per = H * L
    if quantity == "projection_weights":
        d_model = 512 if d_model is None else d_model  # the paper's base model
        right = d_model * d_k
        return right, [
            ("all-heads", d_model * d_model, {}),
            ("all-heads", H * d_model * d_k, {}),
            ("three-projections", 3 * d_model * d_k, {}),
            ("dk-squared", d_k * d_k, {"value": _fmt_int(d_k * d_k)}),
            ("added-not-multiplied", d_model + d_k, {}),
            ("with-bias", d_model * d_k + d_k, {}),
        ]
    square = [("square-when-cross", x, {"a": a}) for a, x in (("n", n * n), ("m", m * m))] if n != m else []
    causal = [("causal-half", x, {}) for x in (n * (n + 1) // 2, n * (n - 1) // 2)]
    if quantity in ("scores", "score_bytes_float32"):
        unit = 1 if quantity == "scores" else 4
        right = S * per * unit
        cands = [
            ("forgot-heads", S * L * unit, {}),
            ("forgot-layers", S * H * unit, {}),
            ("forgot-heads-and-layers", S * unit, {}),
        ]
        cands += [(i, v * per * unit, f) for i, v, f in square]
        cands += [(i, v * per * unit, f) for i, v, f in causal]
        if quantity == "scores":
            cands += [
                ("counted-macs", S * d_k * per, {}),
                ("counted-bytes", S * per * 4, {"per": 4, "dtype": "float32"}),
                ("counted-bytes", S * per * 8, {"per": 8, "dtype": "float64"}),
            ]
        else:
            cands += [
                ("float64-bytes", S * per * 8, {}),
                ("float16-bytes", S * per * 2, {}),
                ("counted-scores", S * per, {}),
                ("bits", S * per * 32, {}),
                ("not-bytes", right / 1e6, {"unit": "megabytes", "size": "10^6"}, 1),
                ("not-bytes", right / 2**20, {"unit": "mebibytes", "size": "2^20"}, 1),
                ("not-bytes", right / 1e9, {"unit": "gigabytes", "size": "10^9"}, 1),
                ("not-bytes", right / 2**30, {"unit": "gibibytes", "size": "2^30"}, 1),
            ]
        return right, cands
    width, width_name = (d_k, "d_k") if quantity == "score_macs" else (d_v, "d_v")
    right = S * width * per
    general = [
        ("forgot-heads", S * width * L, {}),
        ("forgot-layers", S * width * H, {}),
        ("forgot-heads-and-layers", S * width, {}),
        ("counted-flops", 2 * right, {}),
    ]
    if d_model is not None:  # named only when the problem gives the model's width
        general.append(("used-d-model", S * d_model * per, {"width": width_name}))
    general += [(i, v * width * per, f) for i, v, f in square]
    general += [(i, v * width * per, f) for i, v, f in causal]
    # The confusions of this quantity come first: when two readings give the same number, the width
    # confusion (d_k for d_v) is the likelier one.
    if quantity == "score_macs":
        cands = [("forgot-dk", S * per, {}), ("used-dv", S * d_v * per, {})]
    else:
        cands = [("forgot-dv", S * per, {}), ("forgot-m", n * d_v * per, {}), ("used-dk", S * d_k * per, {})]
    return right, cands + general


# The ids check_count gives (the teacher's table is generated from them); "<own>": the author's ``mistakes=``.
GIVES = {
    "check_count": (
        "<own>", "forgot-heads", "forgot-layers", "forgot-heads-and-layers", "counted-macs", "forgot-dk",
        "forgot-dv", "forgot-m", "used-dk", "used-dv", "used-d-model", "counted-flops", "square-when-cross",
        "causal-half", "counted-bytes", "counted-scores", "float64-bytes", "float16-bytes", "bits", "not-bytes",
        "all-heads", "three-projections", "dk-squared", "added-not-multiplied", "with-bias", "wrong-count",
        *NUMBER_UNREAD,
    ),
}


def check_count(quantity, answer, n, m=None, d_k=64, d_v=None, heads=1, layers=1, d_model=None, *,
                mistakes=()) -> Feedback:
    """Check a predicted count: scores, multiply-adds, bytes of the scores, or one head's W_q.

    Parameters
    ----------
    quantity : {"scores", "score_macs", "mix_macs", "score_bytes_float32", "projection_weights"}
        Scores alive at once (n m heads layers); multiply-adds of Q K^T (x d_k) or of weights @ V (x d_v);
        bytes of the scores in float32 (x 4); weights in one head's W_q (d_model d_k, whatever heads is).
    answer : number or None
        The learner's count; exact (integers, or floats equal to them; 1e6 is fine).
    n, m : int
        Queries and keys; ``m`` defaults to ``n``.
    d_k, d_v : int
        Per-head widths; ``d_v`` defaults to ``d_k``.
    heads, layers : int
        Heads per layer and layers counted.
    d_model : int, optional
        Model width. For "projection_weights" 512 (the paper's base model) when not given; for the multiply-adds,
        an answer that used d_model for the per-head width is named only when d_model is given.
    mistakes : sequence of tuples, optional
        The author's own mistakes, as in check_number: ``(value, mistake_id, reason)`` or ``(value, mistake_id,
        reason, hint)``; an answer equal to ``value`` fails with that id and reason (and hint, else the
        quantity's). Checked before the built-in ones.

    Returns
    -------
    Feedback

    Raises
    ------
    ValueError
        For an unknown ``quantity``.
    TypeError, ValueError
        For a size that is not a non-negative integer (``heads``, ``layers`` at least 1), or a bad ``mistakes``
        table (named in the message).

    Examples
    --------
    >>> check_count("score_macs", 64_000_000, n=1000).passed
    True
    >>> check_count("score_macs", 1_000_000, n=1000).mistake
    'forgot-dk'
    """
    record_call("check_count", (quantity, answer, n, m, d_k, d_v, heads, layers, d_model), dict(mistakes=mistakes))
    if quantity not in _QUANTITIES:
        raise ValueError(f"quantity must be one of {', '.join(map(repr, _QUANTITIES))}; got {quantity!r}")
    n = check_size(n, "n")
    m = n if m is None else check_size(m, "m")
    d_k = check_size(d_k, "d_k")
    d_v = d_k if d_v is None else check_size(d_v, "d_v")
    heads = check_size(heads, "heads", minimum=1)
    layers = check_size(layers, "layers", minimum=1)
    d_model = None if d_model is None else check_size(d_model, "d_model", minimum=1)
    right, candidates = _count_candidates(quantity, n, m, d_k, d_v, heads, layers, d_model)
    own = named_mistakes(mistakes, right, 1e-9, 0.0)
    note_answer(right, "exactly")
    if is_blank(answer):
        return not_answered(f"your count of {_WHAT[quantity]}")
    value = read_number(answer, examples=COUNT_EXAMPLES, finite=True)
    if isinstance(value, Feedback):
        return value
    if isclose(value, right, rtol=1e-9, atol=0):
        return Feedback(True, _right_reason(quantity, right, n, m, d_k, d_v, heads, layers, d_model))
    for wrong, mid, reason, hint in own:
        if isclose(value, wrong, rtol=1e-9, atol=0):
            return fail(mid, reason, _count_hint(quantity) if hint is None else hint)
    for mid, wrong, fields, *rounded in candidates:  # a unit conversion may be rounded to 3 or 4 digits
        if wrong != right and isclose(value, wrong, rtol=5e-3 if rounded else 1e-9, atol=0):
            reason, hint = entry(mid, hint=_count_hint(quantity), **fields)
            return fail(mid, f"{_fmt_int(value)} is not it: {reason}", hint)
    return failure("wrong-count", how_far=how_far(value, right), hint=_count_hint(quantity))


def _right_reason(quantity, right, n, m, d_k, d_v, heads, layers, d_model) -> str:
    """Why a right count is right: the product that gives it, with the numbers, in the terms of the idea."""
    if quantity == "projection_weights":
        d_model = 512 if d_model is None else d_model
        return (f"{_fmt_int(right)} is right: one head's W_q maps a d_model-wide row to a d_k-wide query, so it is "
                f"a d_model x d_k matrix, {_fmt_int(d_model)} x {_fmt_int(d_k)} = {_fmt_int(right)} numbers, "
                "whatever the number of heads.")
    factors = [("n", n), ("m", m)]
    why = {
        "scores": "one score per (query, key) pair, whatever d_k is",
        "score_bytes_float32": "one score per (query, key) pair, 4 bytes each in float32",
        "score_macs": "each of the n x m scores is a dot product of d_k multiply-adds",
        "mix_macs": "weights (n, m) times V (m, d_v) makes n x d_v output entries, each a sum of m products",
    }[quantity]
    factors += {"score_macs": [("d_k", d_k)], "mix_macs": [("d_v", d_v)]}.get(quantity, [])
    factors += [(name, size) for name, size in (("heads", heads), ("layers", layers)) if size != 1]
    if quantity == "score_bytes_float32":
        factors.append(("bytes", 4))
    names = " x ".join(name for name, _ in factors)
    sizes = " x ".join(_fmt_int(size) for _, size in factors)
    return f"{_fmt_int(right)} is right: {why}: {names} = {sizes} = {_fmt_int(right)}."


def _fmt_int(x) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:.6g}"


def _count_hint(quantity) -> str:
    return {
        "scores": "One score per (query, key) pair: n x m for each head of each layer.",
        "score_macs": "Each score is a dot product of d_k multiply-adds; count scores, then multiply.",
        "mix_macs": "weights (n, m) x V (m, d_v): n x d_v outputs, each a sum of m products; per head, per layer.",
        "score_bytes_float32": "Count the scores of every head and layer, then 4 bytes each in float32.",
        "projection_weights": "W_q of one head maps a d_model-wide row to a d_k-wide query: a d_model x d_k "
        "matrix.",
    }[quantity]
