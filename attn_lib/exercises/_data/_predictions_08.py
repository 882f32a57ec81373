"""Notebook 08's prediction problems (cost, memory and the backward pass), as data: see ``_prediction``."""

from __future__ import annotations

from .._answers import added_apart, check_number
from .._prediction import Prediction


def _n(value) -> str:
    return f"{value:,}"


# Formats a running sum could be kept in: name -> (significant bits, the call that rounds a float32 to it).
FORMATS = {"bfloat16": (8, "to_bfloat16"), "float16": (11, "np.float16")}
# Each format's largest finite number, (2 - 2^(1 - bits)) x 2^(largest exponent): where it overflows to inf.
LARGEST = {"bfloat16": (2 - 2 ** -7) * 2.0 ** 127, "float16": 65504.0}
# The example of additive attention notebook 08 works through (its statement of 08-P7 recalls it): n = m, d_a.
EXAMPLE_N, EXAMPLE_D_A = 128, 64


def _growth(answer, p):
    factor = p.n_after // p.n
    count = (p.d_k + p.d_k) * p.n_after ** 2  # the new count of multiply-adds, d_v = d_k
    return check_number(answer, factor ** 2, rel=0, mistakes=added_apart(factor ** 2, [
        (factor ** 2 - 1, "more-for-times", f"That is how many times the count grew on top of what it was: the "
         f"question asks for the factor, the new count over the old, which counts the old count too."),
        (factor, "linear", f"{factor} is how a cost linear in n grows. Here the queries and the keys both grow, and "
         "every query meets every key: the count has two factors that grow."),
        (factor * factor / 2, "half-quadratic", f"{factor * factor / 2:g} would have one of n and m grow by {factor} "
         f"and the other by {factor / 2:g}; in self-attention both grow by the same factor."),
        (factor ** 3, "cubed", f"{factor ** 3} = {factor}^3 would need d_k to grow with n too; it stays {p.d_k}."),
    ], [
        (2 * factor ** 2, "doubled-for-two-products",
         "That counts the growth once for the scores and once more for the mixing. The two products grow by the "
         "same factor, and so does their sum: a factor is not added up over the parts it multiplies."),
        (count, "count-not-factor",
         f"That is the new count itself, n x m x (d_k + d_v) at n = m = {p.n_after}; the question asks for the "
         "factor, the new count over the old."),
        (2 * factor, "added-growths",
         f"{2 * factor} = {factor} + {factor} adds the growth of the queries to the growth of the keys. The count "
         "is a product, n x m: the two growths multiply."),
        (factor ** 2 * p.d_k, "multiplied-by-dk",
         f"That multiplies by d_k = {p.d_k}. d_k is in the old count and in the new one, and it stays {p.d_k}: it "
         "cancels in the factor."),
    ]),
        explain=f"The multiply-adds are n x m x (d_k + d_v): with n and m both {factor} times larger, {factor ** 2} "
                "times as many.",
        hint="Count the scores: n x m.")


def _draw_growth(rng):
    while True:  # not the notebook's own numbers, and no d_k that equals the answer (a reason names d_k)
        n, factor, d_k = rng.choice([500, 1000, 2000]), rng.choice([4, 5, 6, 8]), rng.choice([32, 64, 128])
        if (n, factor, d_k) != (1000, 4, 64) and d_k != factor ** 2:
            return dict(n=n, n_after=factor * n, d_k=d_k)


def _table_ratio(answer, p):
    right = p.n / p.d
    return check_number(answer, right, rel=0.01, mistakes=added_apart(right, [
        (p.d / p.n, "inverted", f"{p.d / p.n:g} = d / n is recurrence over attention; the question asks attention "
         "over recurrence."),
        (2 * p.n / p.d, "both-products", f"{2 * p.n / p.d:g} counts both products of attention (2 n^2 d). That is "
         "the fuller count, but the question takes Table 1's terms as they stand, without their constant factors."),
        (p.n, "forgot-d", f"{p.n} is n alone: the d of n^2 d cancels only one of the two d's of n d^2."),
    ], [
        (p.n * p.n * p.d, "attention-term-only",
         f"{_n(p.n * p.n * p.d)} is the attention term alone, n^2 d at these sizes; the question asks how it "
         "compares with the recurrence term, the one divided by the other."),
        (right ** 2, "squared-ratio",
         "That squares the ratio, as if both exponents of n^2 d / (n d^2) stayed. Cancelling takes one n and one d "
         "from each term: what is left is one factor above and one below."),
        (1, "equal-terms",
         "1 would make the two terms equal, and they are equal only where n = d. Both multiply three sizes, but "
         "n^2 d has two n's where n d^2 has two d's."),
        (p.n * p.d, "shared-factor",
         f"{_n(p.n * p.d)} is n d, the factor the two terms share. Cancelling it is how to reach their ratio: the "
         "ratio is what is left of each term, the one over the other."),
        *[(round(right, places), "rounded-too-coarsely",
           f"That is the ratio rounded to {places} decimal{'s' * (places != 1)}: too coarse for this question, "
           "whose number is judged to within 1 %. Keep more digits, or give it as a fraction.")
          for places in (1, 2)],
    ], rel=0.01),
        explain=f"n^2 d / (n d^2) = n / d = {p.n} / {p.d} = {p.n / p.d:g}: the ratio grows in proportion to n, "
                "which is what the table's comparison is about.", hint="Cancel what the two terms share.")


def _encoder_decoder(answer, p):
    L, h, n, m = p.layers, p.heads, p.n, p.m
    head = m * m + n * n + n * m  # one head of each kind of sublayer, one layer of each stack
    return check_number(answer, L * h * head, rel=0, mistakes=added_apart(L * h * head, [
        (L * h * (m * m + n * (n + 1) // 2 + n * m), "causal-half",
         f"{_n(L * h * (m * m + n * (n + 1) // 2 + n * m))} counts only the lower triangle (with the diagonal) of "
         "the decoder's self-attention scores. Its causal mask blocks the upper triangle, but those entries are "
         "still computed and stored (-inf before the softmax, 0 after): each decoder self-attention head holds a "
         f"full {n} x {n} matrix."),
        (L * h * (m * m + n * n // 2 + n * m), "causal-half",
         f"{_n(L * h * (m * m + n * n // 2 + n * m))} counts half of the decoder's self-attention scores. Its "
         "causal mask blocks the upper triangle, but those entries are still computed and stored: each head holds "
         f"a full {n} x {n} matrix."),
        (L * h * m * m, "encoder-only", f"That is the encoder's self-attention alone; the decoder's {2 * L} "
         "attention sublayers hold scores too."),
        (L * h * (n * n + n * m), "decoder-only", "That is the decoder alone (self-attention and cross-attention); "
         f"the encoder's {L} self-attention sublayers hold scores too."),
        (L * h * (m * m + n * n), "forgot-cross", "That leaves out cross-attention: each decoder layer also has a "
         "sublayer whose queries come from the target and whose keys come from the source."),
        (L * h * (m * m + n * m), "forgot-decoder-self", "That leaves out the decoder's self-attention over the "
         f"target, one sublayer in each of its {L} layers."),
        (3 * L * h * m * m, "all-square", f"{_n(3 * L * h * m * m)} counts every sublayer at {m} x {m}; the "
         f"decoder's queries are the n = {n} target tokens."),
        (4 * L * h * (m * m + n * n + n * m), "counted-bytes", "That counts bytes in float32; the question asks how "
         "many scores there are, whatever their size."),
    ], [
        (L * head, "forgot-heads", f"That counts one head in each sublayer; every attention sublayer has {h} "
         "heads, and each head keeps score matrices of its own."),
        (h * head, "forgot-layers", f"That counts one layer of the encoder and one of the decoder; each has {L} "
         "layers, and every layer keeps scores of its own."),
        (head, "one-head-one-layer", "That is one head of one layer of each kind; every head of every layer keeps "
         "its own scores."),
        (L * h * (2 * m * m + n * n), "cross-square",
         f"That gives cross-attention an m x m matrix. Its queries come from the target: n = {n} rows, one per "
         f"target token, each meeting the m = {m} source keys."),
        (2 * L * h * head, "layers-counted-twice",
         f"That counts {2 * L} layers for every kind of sublayer. Each sublayer belongs to one stack of {L} "
         "layers: the encoder's holds its self-attention, the decoder's the other two."),
        (L * h * (m + n) ** 2, "one-sequence",
         f"That treats source and target as one sequence of m + n = {m + n} tokens: (m + n)^2 counts the pairs "
         "between them twice, once each way. Cross-attention goes one way only, target queries against source "
         "keys."),
    ]),
        explain=f"Encoder self-attention {L} x {h} x {m} x {m} = {_n(L * h * m * m)}, decoder self-attention "
                f"{L} x {h} x {n} x {n} = {_n(L * h * n * n)}, cross-attention {L} x {h} x {n} x {m} = "
                f"{_n(L * h * n * m)}: {_n(L * h * (m * m + n * n + n * m))} scores, "
                f"{4 * L * h * (m * m + n * n + n * m) / 1e6:,.0f} MB in float32.",
        hint=f"Three kinds of sublayer, {L} layers of each, {h} heads each: add the three score matrices.")


def _draw_encoder_decoder(rng):
    m = rng.choice([400, 600, 800, 1200, 2000])
    n = rng.choice([k for k in (100, 300, 500, 700, 900, 1500) if k != m])
    return dict(layers=rng.choice([4, 6, 12]), heads=rng.choice([4, 8, 12, 16]), m=m, n=n)


def _hidden_layer(answer, p):
    n, d_a = p.n, p.d_a
    return check_number(answer, n * n * d_a, rel=0, mistakes=added_apart(n * n * d_a, [
        (n * n * d_a + (n + n) * d_a, "plus-projections",
         "That adds the projections q W_1 (n, d_a) and k W_2 (m, d_a), two arrays of their own. The hidden layer "
         "is the (n, m, d_a) array alone."),
        (n * n * d_a + n * n, "plus-scores",
         "That adds the n x m scores that w reduces the hidden layer to. The hidden layer is the (n, m, d_a) "
         "array alone."),
        (n * n * d_a + (n + n) * d_a + n * n, "plus-projections-and-scores",
         "That adds the projections and the scores. The hidden layer is the (n, m, d_a) array alone."),
        (n * n, "scores-only", "That is n x m, the number of scores. Additive attention first builds a hidden vector "
         "for every pair of positions, and only then reduces it to one score."),
        ((n + n) * d_a, "projections-only", f"{_n((n + n) * d_a)} counts the projections q W_1 (n, d_a) and k W_2 "
         "(m, d_a); the hidden layer adds them for every pair: (n, m, d_a)."),
        (n * n * 64, "used-64", f"That uses d_a = 64, the example's width; this head has d_a = {d_a}."),
    ], [
        (4 * n * n * d_a, "counted-bytes", "That counts bytes in float32 (4 per number); the question asks how many "
         "numbers the array holds, whatever each takes in memory."),
        (n * d_a, "one-query", f"That is one query's hidden vectors: its {n} pairs, d_a = {d_a} numbers each. "
         "Every query has pairs of its own, one with each key."),
        (EXAMPLE_N * EXAMPLE_N * EXAMPLE_D_A, "used-example",
         f"That is the example's hidden layer, n = m = {EXAMPLE_N} with d_a = {EXAMPLE_D_A}; this head reads "
         f"n = m = {n} with d_a = {d_a}."),
        (2 * n * n * d_a, "two-vectors-per-pair",
         "That keeps q W_1 and k W_2 as two d_a-wide vectors for every pair. The hidden layer is tanh of their sum: "
         "one d_a-wide vector per pair."),
        (n * n + d_a, "added-da",
         "That adds d_a to the number of pairs. Every pair holds a whole hidden vector of its own, d_a numbers, "
         "not one number."),
    ]),
        explain=f"n x m x d_a = {n} x {n} x {d_a} = {_n(n * n * d_a)} numbers, {d_a} times the {_n(n * n)} "
                "scores: additive attention holds d_a numbers per pair where dot-product attention holds one.",
        hint="Count what additive attention builds before it reduces anything to a score.")


def _running_sum(answer, p):
    bits = p.bits
    stop = 2 ** bits  # the first whole number whose successor needs one bit more: s + 1 is a tie, rounded to even
    largest = LARGEST[p.dtype]
    return check_number(answer, stop, rel=0, mistakes=added_apart(stop, [
        (p.m, "exact-sum", f"{p.m} is the exact sum, which float32 keeps (it holds every whole number up to 2^24). "
         f"In {p.dtype} the gap between neighbouring numbers grows with their size, and each addition is rounded "
         "to the nearest one: once 1 is no more than half a gap, s + 1 rounds back to s and the sum stops."),
        (stop // 2, "stopped-early", f"Just above {stop // 2}, {p.dtype}'s neighbours are still 1 apart, so adding "
         "1 there is exact and the sum keeps growing."),
        (stop * 2, "stopped-late", f"The gap between {p.dtype} neighbours doubles at every power of two: the sum "
         "stops where 1 first becomes half a gap, and rounding to even sends the halfway case back down."),
    ], [
        (stop - 1, "stopped-at-all-ones",
         f"That is where the {bits} significant bits are all ones, but the sum goes on: adding 1 there gives a "
         f"power of two, and a power of two needs a single significant bit, so {p.dtype} holds it exactly."),
        (largest, "largest-finite",
         f"{largest:,.6g} is {p.dtype}'s largest finite number, where a sum overflows to inf. A running sum of "
         "ones stops far below it, where each + 1 is less than half the gap between neighbouring numbers, or "
         "exactly half and rounded away."),
        (stop + 2, "tie-rounded-up",
         "That rounds the tie up. Halfway between two neighbours, rounding to nearest goes to the even one, the "
         "neighbour whose last significant bit is 0: find which of the two that is."),
        (2 ** 16, "all-bits-significant",
         f"2^16 takes all 16 bits of {p.dtype} as significant. {bits} are (with the leading 1, which it does not "
         "store); the others hold the sign and the exponent."),
    ]),
        explain=f"Up to {stop}, {bits} significant bits hold every whole number. {stop} + 1 = {stop + 1} needs "
                f"{bits + 1}, so it lies exactly halfway between its {p.dtype} neighbours {stop} and {stop + 2} and "
                f"rounds to the even one, {stop}: every later + 1 is lost. The sum stops at about "
                f"{_fraction(stop / p.m)} of {p.m}, and each weight 1 / sum would come out about {p.m / stop:.1f} "
                "times too large; that is why fused kernels keep the running maximum and sum in float32.",
        hint=f"{p.dtype} keeps {bits} significant bits: try adding 1 to whole numbers of {bits} bits, then of "
             f"{bits + 1}.")


def _fraction(share: float) -> str:
    """A share as words where it is near one (a quarter for 0.256), else as a percentage."""
    words = {2: "a half", 3: "a third", 4: "a quarter", 5: "a fifth"}
    k = round(1 / share)
    return words[k] if k in words and abs(1 / share - k) < 0.15 * k else f"{share:.0%}"


def _draw_running_sum(rng):
    dtype = rng.choice(sorted(FORMATS))
    bits, rounding = FORMATS[dtype]
    stop = 2 ** bits
    return dict(dtype=dtype, bits=bits, rounding=rounding,
                m=rng.choice([k for k in (600, 700, 900, 1000, 1500, 3000, 5000, 6000, 10_000)
                              if 2 * stop + 100 < k < 6 * stop]))


def _draw_table_ratio(rng):
    while True:  # n != d (a ratio of 1 is its own inverse), not the notebook's own numbers, and no ratio that a
        # reason or hint writes for another purpose ("2 n^2 d", "the two terms", "between 1.5 and 3 times")
        n, d = rng.choice([128, 256, 384, 1536, 3072]), rng.choice([256, 768, 1024, 2048])
        if n != d and (n, d) != (256, 1024) and n / d not in (1.5, 2, 3):
            return dict(n=n, d=d)


PROBLEMS = [
    Prediction(
        "08-P1", "four times the tokens",
        first=dict(n=1000, n_after=4000, d_k=64),
        draw=_draw_growth,
        statement="One head with $d_k = d_v = {d_k}$ reads $n = m = {n}$ tokens, then $n = m = {n_after}$. By what "
                  "factor do its multiply-adds (scores and mixing) grow?",
        judge=_growth,
    ),
    Prediction(
        "08-P2", "Table 1's terms at another width",
        first=dict(n=256, d=1024),
        draw=_draw_table_ratio,
        statement="Take Table 1's terms as they stand, $n^2 d$ for self-attention and $n d^2$ for recurrence, at "
                  "$d = {d}$ and $n = {n}$. What is their ratio, attention / recurrence?",
        judge=_table_ratio,
    ),
    Prediction(
        "08-P4", "a loss that counts only the total weight",
        first=dict(weights=(0.5, 0.3, 0.2), d_weight=2, key_weight=0.3),
        why_one="The answer is 0 for every constant dP and every row of weights (a row's weights sum to one): "
                "other numbers would ask the same question with the same answer.",
        statement="Suppose a loss sees the softmax's weights only through each row's total: "
                  "$L = {d_weight} (p_1 + \\dots + p_m)$ in every row, so $dP = {d_weight}$ in every entry. One row "
                  "has weights $p = {weights}$. What is $dS$, the gradient of $L$ with respect to the score, for the "
                  "key whose weight is {key_weight}?",
        judge=lambda answer, p: check_number(answer, 0.0, abs_tol=1e-9, mistakes=[
            (0.6, "missing-row-sum", "0.6 = p_k dP_k keeps only the diagonal part (delta_jk) of the softmax's "
             "Jacobian. Raising one score also lowers every other weight of the row, since they share one "
             "denominator: the row-sum term rowsum(dP * P) accounts for that."),
            (0.42, "diagonal-only", "0.42 = dP_k p_k (1 - p_k) is the Jacobian's diagonal entry alone; its "
             "off-diagonal entries -p_j p_k add what the other two weights lose when this score rises."),
            (2, "returned-d-weights", "2 is dP, the gradient with respect to the weight; the question asks for the "
             "score's, one step further back, through the softmax."),
            (-1.2, "row-sum-without-weights", "-1.2 = 0.3 x (2 - 6) sums dP without weighting it by P; the row-sum "
             "term is sum_j dP_j p_j, each dP_j weighted by its own p_j."),
        ], explain="dS_k = p_k (dP_k - sum_j dP_j p_j) = 0.3 x (2 - 2 x (0.5 + 0.3 + 0.2)) = 0.3 x (2 - 2) = 0. The "
                   "weights of a row always sum to one, so a loss that sees only their total cannot be moved by any "
                   "score: the softmax ignoring a constant added to its row (04), seen from the backward pass.",
            hint="Work out the row-sum term sum_j dP_j p_j first: what do the weights of one row add up to?"),
    ),
    Prediction(
        "08-P5", "an encoder and a decoder",
        first=dict(layers=6, heads=8, m=1000, n=500),
        draw=_draw_encoder_decoder,
        statement="A model of the paper's shape has an encoder of {layers} layers and a decoder of {layers} "
                  "layers, with {heads} heads in every attention sublayer: an encoder layer has one, self-attention "
                  "over the source; a decoder layer has two, self-attention over the target and cross-attention "
                  "from the target to the source. It translates a source sentence of $m = {m}$ tokens into "
                  "$n = {n}$ tokens. How many scores do all attention sublayers of the model (encoder and decoder, "
                  "all heads) hold at once during training? Count every entry of every score matrix: the decoder's "
                  "self-attention is causal, but its blocked entries are still computed and stored ($-\\infty$ "
                  "before the softmax, 0 after), so each of its heads holds a full $n \\times n$ matrix.",
        judge=_encoder_decoder,
    ),
    Prediction(
        "08-P7", "the hidden layer of additive attention",
        first=dict(n=512, d_a=128),
        draw=lambda rng: dict(n=rng.choice([256, 384, 1024, 2048]), d_a=rng.choice([32, 96, 128, 256])),
        statement="Additive attention scores a pair with a small network, $w^\\top \\tanh(q W_1 + k W_2)$, with "
                  "$W_1$ and $W_2$ of size $d_k \\times d_a$: it builds a $d_a$-wide hidden vector for every pair "
                  "of positions before reducing it to one score. (Notebook 08's example used $n = m = 128$ and "
                  "$d_a = 64$.) One head of additive attention reads $n = m = {n}$ tokens with a hidden width "
                  "$d_a = {d_a}$. How many numbers does its hidden layer, the `(n, m, d_a)` array of tanh values "
                  "alone, hold?",
        judge=_hidden_layer,
    ),
    Prediction(
        "08-P9", "a running sum in bfloat16",
        first=dict(dtype="bfloat16", bits=8, rounding="to_bfloat16", m=1000),
        draw=_draw_running_sum,
        statement="A row has $m = {m}$ equal scores, so each $e^{{s_j - \\max}}$ is exactly 1 and the softmax's sum "
                  "should be {m}. A kernel that kept its running sum in {dtype} would round after every addition "
                  "to the nearest {dtype} number, ties to even: `s = {rounding}(s + 1)`, {m} times, from `s = 0`. "
                  "What is `s` at the end? Predict it from {dtype}'s {bits} significant bits.",
        judge=_running_sum,
    ),
]
