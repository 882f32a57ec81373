"""check_count: a predicted count of scores, multiply-adds, bytes of the scores, or one head's W_q weights; also
how a number answer is read and how far off it is (shared with check_variance)."""

from __future__ import annotations



from .._checks import check_size
from ._answers import COUNT_EXAMPLES, as_number, how_far, named_mistakes, record_call
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
    """(right value, [(id, value, reason), ...]) for one quantity."""
    H, L, S = heads, layers, n * m
    per = H * L
    heads_text = "every head keeps scores of its own"  # no sizes: the factor left out would be one step away
    layers_text = "every layer has attention of its own"
    if quantity == "projection_weights":
        d_model = 512 if d_model is None else d_model  # the paper's base model
        right = d_model * d_k
        return right, [
            ("all-heads", d_model * d_model, "d_model x d_model is every head's W_q side by side (or one full "
             "width projection); one head's W_q maps a d_model-wide row to d_k: d_model x d_k."),
            ("all-heads", H * d_model * d_k, f"that counts all {H} heads; the question asks for one head's W_q, "
             "d_model x d_k."),
            ("three-projections", 3 * d_model * d_k, "that counts W_q, W_k and W_v together; the question asks "
             "for W_q alone."),
            ("dk-squared", d_k * d_k, "W_q maps a d_model-wide row to a d_k-wide query, so it has d_model rows "
             "and d_k columns."),
            ("added-not-multiplied", d_model + d_k, "a matrix of d_model rows and d_k columns holds d_model x d_k "
             "numbers (the sizes multiply)."),
            ("with-bias", d_model * d_k + d_k, "that includes a bias; the paper's projections are plain matrices "
             "with no bias."),
        ]
    square = [("square-when-cross", x, f"that counts {a} x {a} pairs, as if queries and keys were one sequence; "
               "in cross-attention they come from two sequences of different lengths, and every query meets "
               "every key.") for a, x in (("n", n * n), ("m", m * m))] if n != m else []
    causal = [("causal-half", x, "a causal mask blocks about half the pairs, but their scores are still "
               "computed (and set to -inf), and the n x m array is stored whole.")
              for x in (n * (n + 1) // 2, n * (n - 1) // 2)]
    if quantity in ("scores", "score_bytes_float32"):
        unit, unit_text = (1, "") if quantity == "scores" else (4, " x 4 bytes")
        right = S * per * unit
        cands = [
            ("forgot-heads", S * L * unit, f"that is one head's count; {heads_text}."),
            ("forgot-layers", S * H * unit, f"that is one layer's count; {layers_text}, all kept for the "
             "backward pass."),
            ("forgot-heads-and-layers", S * unit, f"that is one head of one layer; {heads_text} and "
             f"{layers_text}."),
        ]
        cands += [(i, v * per * unit, r) for i, v, r in square]
        cands += [(i, v * per * unit, r) for i, v, r in causal]
        if quantity == "scores":
            cands += [
                ("counted-macs", S * d_k * per, "that counts multiply-adds; a score is one number, however long "
                 "the dot product that makes it."),
                ("counted-bytes", S * per * 4, "that is bytes in float32; the question asks how many scores, "
                 "whatever each takes in memory."),
                ("counted-bytes", S * per * 8, "that is bytes in float64 (8 per score); the question asks how "
                 "many scores."),
            ]
        else:
            cands += [
                ("float64-bytes", S * per * 8, "that is 8 bytes per score: float64 (float32 takes 4), or two "
                 "arrays of float32 (the scores and the weights, say); the question asks for the scores alone, in "
                 "float32."),
                ("float16-bytes", S * per * 2, "2 bytes per number is float16; float32 takes 4."),
                ("counted-scores", S * per, "that is the number of scores; each takes 4 bytes in float32."),
                ("bits", S * per * 32, "that is bits; a float32 is 32 bits = 4 bytes."),
                ("not-bytes", right / 1e6, "that is megabytes (10^6 bytes); the question asks for bytes.", 1),
                ("not-bytes", right / 2**20, "that is mebibytes (2^20 bytes); the question asks for bytes.", 1),
                ("not-bytes", right / 1e9, "that is gigabytes (10^9 bytes); the question asks for bytes.", 1),
                ("not-bytes", right / 2**30, "that is gibibytes (2^30 bytes); the question asks for bytes.", 1),
            ]
        return right, cands
    width, width_name = (d_k, "d_k") if quantity == "score_macs" else (d_v, "d_v")
    right = S * width * per
    dot = ("each score is a dot product of d_k multiply-adds" if quantity == "score_macs"
           else "each output entry sums m products of a weight and a value entry, and there are n x d_v of them")
    general = [
        ("forgot-heads", S * width * L, f"that is one head's count; {heads_text}."),
        ("forgot-layers", S * width * H, f"that is one layer's count; {layers_text}."),
        ("forgot-heads-and-layers", S * width, f"that is one head of one layer; {heads_text} and {layers_text}."),
        ("counted-flops", 2 * right, "that counts a multiplication and an addition as two; a multiply-add "
         "counts once."),
    ]
    if d_model is not None:  # named only when the problem gives the model's width
        general.append(("used-d-model", S * d_model * per, f"each head's vectors are {width_name} wide, not "
                        "d_model wide: the model's width is split between the heads."))
    general += [(i, v * width * per, r) for i, v, r in square]
    general += [(i, v * width * per, r) for i, v, r in causal]
    # The confusions of this quantity come first: when two readings give the same number, the width
    # confusion (d_k for d_v) is the likelier one.
    if quantity == "score_macs":
        cands = [
            ("forgot-dk", S * per, f"that counts scores, not multiply-adds: {dot}."),
            ("used-dv", S * d_v * per, "the scores are dot products of queries and keys, d_k long; d_v is the "
             "width of the values."),
        ]
    else:
        cands = [
            ("forgot-dv", S * per, f"that counts weights, not multiply-adds: {dot}."),
            ("forgot-m", n * d_v * per, f"that counts output entries, not multiply-adds: {dot}."),
            ("used-dk", S * d_k * per, "mixing the values multiplies the weights (n, m) by V (m, d_v): the "
             "width is d_v, not d_k."),
        ]
    return right, cands + general


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
    if is_blank(answer):
        return not_answered(f"your count of {_WHAT[quantity]}")
    value = as_number(answer, finite=True)
    if value is None:
        return failure("not-a-number", what="Your answer", examples=COUNT_EXAMPLES,
                       got=f"{type(answer).__name__} {answer!r}")
    if isclose(value, right, rtol=1e-9, atol=0):
        return Feedback(True, _right_reason(quantity, right, n, m, d_k, d_v, heads, layers, d_model))
    for wrong, mid, reason, hint in own:
        if isclose(value, wrong, rtol=1e-9, atol=0):
            return fail(mid, reason, _count_hint(quantity) if hint is None else hint)
    for mid, wrong, reason, *rounded in candidates:  # a unit conversion may be rounded to 3 or 4 digits
        if wrong != right and isclose(value, wrong, rtol=5e-3 if rounded else 1e-9, atol=0):
            return fail(mid, f"{_fmt_int(value)} is not it: {reason}", _count_hint(quantity))
    return fail("wrong-count", how_far(value, right), _count_hint(quantity))


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
