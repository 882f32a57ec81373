"""check_shapes, check_count and check_variance: predicted shapes, counts and a variance."""

from __future__ import annotations

import numbers

import numpy as np

from .._checks import check_size
from ..cost import attention_cost
from ._compare import fmt as _fmt
from ._feedback import Feedback, NOT_ANSWERED, _blank, _fail, _not_answered


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
    for name in ("scores", "weights"):
        wrong[name] = [
            ((m, n), f"{name}-transposed", f"The {name} have one row per query and one column per key: (n, m), "
             "not (m, n)."),
            ((n, n), f"{name}-square", f"n x n would be self-attention; here n = {n} queries meet m = {m} keys, "
             f"so the {name} are n x m."),
            ((m, m), f"{name}-square", f"m x m would be self-attention; here n = {n} queries meet m = {m} keys, "
             f"so the {name} are n x m."),
            ((n, d_k), f"{name}-width-dk", "Each score is a single number, a dot product: its d_k terms are "
             "summed away. There is one per (query, key) pair: (n, m)."),
            ((n, d_v), f"{name}-width-dv", "A row of weights has one entry per key: length m; it knows nothing "
             "about d_v."),
        ]
    return right, wrong


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


def check_shapes(answers, n, m, d_k, d_v) -> Feedback:
    """Check predicted shapes of Q, K, V, the scores, the weights and the output.

    Parameters
    ----------
    answers : dict or None
        Any of "Q", "K", "V", "scores", "weights", "output", each mapped to a tuple of ints (or of the names
        "n", "m", "d_k", "d_v"). ``None`` or ``...`` as a value means not answered yet.
    n, m, d_k, d_v : int
        Queries, keys, query/key width, value width.

    Returns
    -------
    Feedback
        Lists every wrong shape with its reason; ``mistake`` is the id of the first.

    Raises
    ------
    TypeError, ValueError
        If a size is not a non-negative integer.

    Examples
    --------
    >>> print(check_shapes({"scores": (3, 3), "output": (3, 64)}, n=3, m=5, d_k=64, d_v=32))
    Not yet: 2 of 2 shapes are not right.
    - scores: (3, 3) should be (3, 5). n x n would be self-attention; here n = 3 queries meet m = 5
      keys, so the scores are n x m.
    - output: (3, 64) should be (3, 32). An output row is a mix of value rows, so it has width d_v, not
      d_k.
    Hint: Write the shapes next to the equation: Q (n, d_k), K (m, d_k), V (m, d_v), scores and weights
    (n, m), output (n, d_v).
    """
    sizes = {"n": check_size(n, "n"), "m": check_size(m, "m"), "d_k": check_size(d_k, "d_k"),
             "d_v": check_size(d_v, "d_v")}
    if _blank(answers) or (isinstance(answers, dict) and all(_blank(v) for v in answers.values())):
        return _not_answered("your answer")  # None, ..., {} or a dict of blanks
    if not isinstance(answers, dict):
        return _fail(
            "not-a-shape",
            f"check_shapes expects a dict such as {{'Q': (n, d_k), 'scores': (n, m)}}; got "
            f"{type(answers).__name__} {answers!r}.",
        )
    unknown = [k for k in answers if k not in _SHAPE_NAMES]
    if unknown:
        return _fail(
            "unknown-name",
            f"Unknown name {unknown[0]!r} in your answers; the names are {', '.join(_SHAPE_NAMES)}.",
        )
    blank = [k for k in _SHAPE_NAMES if k in answers and _blank(answers[k])]
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
            lines.append(f"- {name}: {answers[name]!r} is not a shape; write a tuple such as {want}.")
            first = first or "not-a-shape"
            continue
        if got == want:
            good.append(name)
            continue
        mistake_id, reason = "wrong-shape", f"It is {want}: {why}."
        for shape, mid, text in wrong[name]:
            if shape == got:
                mistake_id, reason = mid, text
                break
        lines.append(f"- {name}: {got} should be {want}. {reason}")
        first = first or mistake_id
    if not lines:
        return Feedback(True, f"All {len(good)} shapes are right ({', '.join(good)}).")
    total = len(lines) + len(good)
    right_text = f" ({', '.join(good)} {'is' if len(good) == 1 else 'are'} right)" if good else ""
    return _fail(
        first,
        "\n".join([f"{len(lines)} of {total} shapes {'is' if len(lines) == 1 else 'are'} not right{right_text}.",
                   *lines]),
        "Write the shapes next to the equation: Q (n, d_k), K (m, d_k), V (m, d_v), scores and weights (n, m), "
        "output (n, d_v).",
    )


_QUANTITIES = ("scores", "score_macs", "mix_macs", "score_bytes_float32", "projection_weights")


def _as_number(answer):
    if isinstance(answer, np.ndarray) and answer.size == 1 and answer.dtype.kind in "iuf":
        answer = answer.reshape(()).item()  # 0-d or one-element arrays count as numbers
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None
    value = float(answer)
    return value if np.isfinite(value) else None


def _count_candidates(quantity, n, m, d_k, d_v, heads, layers, d_model):
    """(right value, [(id, value, reason), ...]) for one quantity."""
    H, L, S = heads, layers, n * m
    per = H * L
    heads_text = f"each of the {H} heads keeps its own scores"
    layers_text = f"each of the {L} layers has its own attention"
    if quantity == "projection_weights":
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
    square = [("square-when-cross", x, f"that counts {a} x {a} pairs; in cross-attention n = {n} queries meet "
               f"m = {m} keys: n x m pairs.") for a, x in (("n", n * n), ("m", m * m))] if n != m else []
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
                ("counted-bytes", S * per * 4, "that is bytes in float32 (4 per score); the question asks how "
                 "many scores."),
                ("counted-bytes", S * per * 8, "that is bytes in float64 (8 per score); the question asks how "
                 "many scores."),
            ]
        else:
            cands += [
                ("float64-bytes", S * per * 8, "8 bytes per number is float64; float32 takes 4."),
                ("float16-bytes", S * per * 2, "2 bytes per number is float16; float32 takes 4."),
                ("counted-scores", S * per, "that is the number of scores; each takes 4 bytes in float32."),
                ("bits", S * per * 32, "that is bits; a float32 is 32 bits = 4 bytes."),
                ("not-bytes", right / 1e6, "that is megabytes (10^6 bytes); the question asks for bytes."),
                ("not-bytes", right / 2**20, "that is mebibytes (2^20 bytes); the question asks for bytes."),
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
        ("used-d-model", S * d_model * per, f"each head's vectors are {width_name} = {width} wide, not "
         f"d_model = {d_model}."),
    ]
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


def _ratio_text(answer, right, noun="count") -> str:
    if right == 0:
        return f"Your answer is {_fmt(answer)}; the {noun} is 0 here."
    ratio = answer / right
    if ratio <= 0:
        return f"Your answer, {_fmt(answer)}, cannot be right: a {noun} is positive."
    bigger = ratio > 1
    factor = ratio if bigger else 1 / ratio
    how = f"{factor:.0f} times" if abs(factor - round(factor)) < 1e-6 else f"about {factor:.3g} times"
    return f"Your answer, {_fmt(answer)}, is {how} too {'large' if bigger else 'small'}."


def check_count(quantity, answer, n, m=None, d_k=64, d_v=None, heads=1, layers=1, d_model=512) -> Feedback:
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
    d_model : int
        Model width (512 in the paper's base model).

    Returns
    -------
    Feedback

    Raises
    ------
    ValueError
        For an unknown ``quantity``.
    TypeError, ValueError
        For a size that is not a non-negative integer (``heads``, ``layers`` at least 1).

    Examples
    --------
    >>> check_count("score_macs", 64_000_000, n=1000).passed
    True
    >>> check_count("score_macs", 1_000_000, n=1000).mistake
    'forgot-dk'
    """
    if quantity not in _QUANTITIES:
        raise ValueError(f"quantity must be one of {', '.join(map(repr, _QUANTITIES))}; got {quantity!r}")
    n = check_size(n, "n")
    m = n if m is None else check_size(m, "m")
    d_k = check_size(d_k, "d_k")
    d_v = d_k if d_v is None else check_size(d_v, "d_v")
    heads = check_size(heads, "heads", minimum=1)
    layers = check_size(layers, "layers", minimum=1)
    d_model = check_size(d_model, "d_model", minimum=1)
    if _blank(answer):
        return _not_answered("your answer")
    value = _as_number(answer)
    if value is None:
        return _fail(
            "not-a-number",
            f"Your answer should be a number, like 64_000_000 or 6.4e7; got {type(answer).__name__} {answer!r}.",
        )
    right, candidates = _count_candidates(quantity, n, m, d_k, d_v, heads, layers, d_model)
    if quantity == "scores":  # keep the reference honest: it is attn_lib's own count
        assert right == attention_cost(n, m, d_k, d_v, heads, layers).scores
    if np.isclose(value, right, rtol=1e-9, atol=0):
        return Feedback(True, f"{_fmt_int(right)} is right.")
    for mid, wrong, reason in candidates:
        if wrong != right and np.isclose(value, wrong, rtol=1e-9, atol=0):
            return _fail(mid, f"{_fmt_int(value)} is not it: {reason}", _count_hint(quantity))
    return _fail("wrong-count", _ratio_text(value, right), _count_hint(quantity))


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


def check_variance(answer, d_k, scaled) -> Feedback:
    """Check a predicted variance of one score q . k whose 2 d_k components are independent, mean 0, variance 1.

    Unscaled the variance is d_k (the d_k products each have variance 1, and variances add); divided by
    sqrt(d_k) it is 1. Answers within 10 % pass (an estimate from samples is fine).

    Parameters
    ----------
    answer : number or None
    d_k : int
        Length of the vectors, at least 1.
    scaled : bool
        Whether the score was divided by sqrt(d_k).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_variance(1.0, d_k=64, scaled=True).passed
    True
    >>> check_variance(64, d_k=64, scaled=True).mistake
    'dk-when-scaled'
    """
    d_k = check_size(d_k, "d_k", minimum=1)
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be True or False; got {type(scaled).__name__} {scaled!r}")
    if _blank(answer):
        return _not_answered("your answer")
    value = _as_number(answer)
    if value is None:
        return _fail("not-a-number", f"Your answer should be a number; got {type(answer).__name__} {answer!r}.")
    right = 1.0 if scaled else float(d_k)
    rule = "Variances of independent terms add: d_k products, each of variance 1, give variance d_k."
    if abs(value - right) <= 0.1 * right:
        why = ("dividing by sqrt(d_k) divides the variance by d_k, so the scaled score has variance 1 whatever "
               "d_k is" if scaled else "q . k is a sum of d_k products, each of variance 1, and variances add")
        return Feedback(True, f"{_fmt(value)} is right: {why}.")
    r = np.sqrt(d_k)
    candidates = [
        ("mean-not-variance", 0.0, "0 is the mean of a score; the question asks for its variance (the spread).",
         "The mean is 0, but the spread is not: each product q_i k_i has variance 1."),
    ]
    if scaled:
        candidates += [
            ("dk-when-scaled", d_k, f"{d_k} = d_k is the variance before the division. Dividing a score by "
             "sqrt(d_k) divides its variance by (sqrt(d_k))^2 = d_k, which leaves 1.", rule),
            ("sqrt-when-scaled", r, f"{_fmt(r)} = sqrt(d_k) would be the variance if dividing by sqrt(d_k) "
             "divided the variance by sqrt(d_k); it divides it by the square, d_k.",
             "Var(a X) = a^2 Var(X)."),
            ("inverse-dk", 1 / d_k, f"1/d_k = {_fmt(1 / d_k)} divides by d_k once too often: the unscaled "
             "variance is d_k (not 1), and d_k / d_k = 1.", rule),
            ("inverse-sqrt-dk", 1 / r, f"{_fmt(1 / r)} = 1/sqrt(d_k): the unscaled variance is d_k, and dividing "
             "the score by sqrt(d_k) divides the variance by d_k.", "Var(a X) = a^2 Var(X)."),
        ]
    else:
        candidates += [
            ("std-not-variance", r, f"{_fmt(r)} is sqrt(d_k), the standard deviation of one score; the question "
             f"asks for its variance, which is the square of that: d_k = {d_k}.", rule),
            ("one-when-unscaled", 1.0, "1 is the variance of each product q_i k_i, or of the score after "
             f"dividing by sqrt(d_k); unscaled, the d_k = {d_k} products add their variances.", rule),
            ("dk-squared", float(d_k) ** 2, f"{_fmt(float(d_k) ** 2)} = d_k^2: variances of independent terms "
             "add; they do not multiply, and the sum of d_k terms is not squared.", rule),
            ("inverse-dk", 1 / d_k, f"1/d_k = {_fmt(1 / d_k)}: a sum of more terms spreads more, not less.",
             rule),
        ]
    # The nearest known wrong answer within 10 % (0 only when exactly 0), unless it is also near the right one.
    close = [
        (abs(value - v), mid, text, hint)
        for mid, v, text, hint in candidates
        if (value == v if v == 0 else abs(value - v) <= 0.1 * abs(v)) and abs(v - right) > 0.1 * right
    ]
    if close:
        _, mid, text, hint = min(close, key=lambda c: c[0])
        return _fail(mid, text if mid == "std-not-variance" else f"{_fmt(value)} is not it: {text}", hint)
    return _fail("wrong-variance", _ratio_text(value, right, "variance"), rule)
