"""Notebook 01's prediction problems (shapes, projections, counts of their numbers), as data: see ``_prediction``."""

from __future__ import annotations

from .._answers import added_apart, check_choice, check_number
from .._check_count import check_count
from .._check_shapes import check_shapes
from .._prediction import Prediction

_ALL_SIX = ("Q", "K", "V", "scores", "weights", "output")

# 01-P1's draws: n, d_k and d_v all different, so that every wrong shape check_shapes names (a transpose, d_v for
# d_k, ...) is a shape of its own.
_SELF_SIZES = [(n, d_k, d_v) for n in (3, 5, 6, 7, 9, 10, 12) for d_k in (2, 4, 8, 16) for d_v in (3, 5, 6, 8, 12)
               if len({n, d_k, d_v}) == 3]


def _one_head_wq(d_model, heads):
    """01-P3: the count and every mistake the judge names, for one model."""
    d_k = d_model // heads
    return [d_model * d_k,  # the answer
            d_model * (d_model // 8), 512 * 64,  # the problem's own mistakes
            d_model * d_model, 3 * d_model * d_k, d_k * d_k, d_model + d_k, d_model * d_k + d_k]  # check_count's


# 01-P3's draws: a model of another width and number of heads (not the base model's 512 and 8), each head d_model / h
# wide, whose count and named mistakes are all different.
_MODELS = [(heads * d_k, heads) for d_k in (32, 64, 80, 128) for heads in (4, 6, 10, 12, 16, 20, 24, 32)
           if heads * d_k % 8 == 0 and heads * d_k != 512 and heads * d_k <= 4096
           and len(set(_one_head_wq(heads * d_k, heads))) == len(_one_head_wq(heads * d_k, heads))]


def _one_head_w_q(answer, p):
    d_model, heads = p.d_model, p.heads
    d_k = d_model // heads
    first = [
        (d_model * (d_model // 8), "eight-heads",
         f"That is {d_model} x {d_model // 8}: a head as wide as if this model had the base model's 8 heads. Count "
         "this model's heads again."),
        (512 * 64, "base-model",
         f"That is the base model's W_q, 512 x 64. This model's rows, one per input feature, are {d_model} wide."),
    ]
    added = [
        (d_k, "head-width",
         "That is the width of one head, d_k: the number of columns of W_q. The question asks how many numbers W_q "
         "holds, and it has a row for every input feature too."),
        (512 * d_k, "base-d-model",
         f"That gives W_q the base model's 512 rows. W_q has one row per input feature, and this model's inputs are "
         f"d_model = {d_model} wide."),
        (d_model * 64, "base-head-width",
         f"That keeps the base model's head width, 64. This model splits its {d_model} features between {heads} "
         "heads: each head is d_model / h wide."),
    ]
    return check_count("projection_weights", answer, n=1, d_k=d_k, d_model=d_model, heads=heads,
                       mistakes=added_apart(d_model * d_k, first, added, taken=_one_head_wq(d_model, heads)[3:]))


def _narrower_values(rng):
    d_k = rng.choice([32, 64, 128])
    heads = rng.choice([6, 8, 12, 16])
    return dict(d_model=heads * d_k, heads=heads, d_k=d_k, d_v=rng.choice([d_k // 2, d_k // 4]))


def _projections(answer, p):
    d_model, d_k, d_v = p.d_model, p.d_k, p.d_v
    right = d_model * d_k * 2 + d_model * d_v
    return check_number(answer, right, rel=0, mistakes=added_apart(right, [
        (3 * d_model * d_k, "dv-as-dk",
         f"That gives W_v the queries' width. The values here are d_v = {d_v} wide, so W_v has d_v columns."),
        (3 * d_model * d_v, "all-dv-or-forgot-w_k",
         "That makes every projection d_v wide" + (", or (the same count) leaves W_k out" if 2 * d_v == d_k else "")
         + ". Queries and keys are dotted with each other, so both need a projection of their own, d_k wide; only "
         "W_v follows d_v."),
        (d_model * d_k, "w_q-only", "That is W_q alone; the question counts W_q, W_k and W_v."),
        (d_model * d_k * 2, "forgot-w_v", "That counts W_q and W_k; W_v is a projection of its own."),
        (p.heads * right, "all-heads", "That counts the projections of every head; the question asks for one head's."),
        (d_k * d_k * 2 + d_k * d_v, "dk-rows",
         f"Each projection reads a whole input row, d_model = {d_model} numbers: it has d_model rows, not d_k."),
    ], [
        (d_model * (d_k + d_v), "forgot-w_k",
         "That counts W_q and W_v. W_k is a projection of its own: the keys are made from the input as the "
         "queries are, and as wide."),
        (d_model * (d_k + 2 * d_v), "w_k-width-dv",
         "That gives W_k the values' width. Keys are dotted with queries, so W_k is d_k wide like W_q; only W_v "
         "follows d_v."),
        (d_model * d_k * d_v, "widths-multiplied",
         "That multiplies the widths d_k and d_v together. The three projections are three matrices, each "
         "(d_model, its width): count each one's numbers, then add them."),
        (2 * d_k + d_v, "widths-only",
         "That adds the widths of the three projections, their columns. Each also has a row for every input "
         "feature, d_model of them: count each matrix's numbers, then add."),
        (right + 2 * d_k + d_v, "with-bias",
         "That adds a bias to each projection (d_k, d_k and d_v numbers). The paper's projections are plain "
         "matrices, with no bias."),
    ]), explain=f"{right:,} = {d_model} x {d_k} (W_q) + {d_model} x {d_k} (W_k) + {d_model} x {d_v} (W_v): queries "
               "and keys must share d_k to be dotted; the values only need to be mixed, so their width d_v is free.",
        hint="Write the shape of each of the three matrices, (d_model, width), then add their sizes.")


PROBLEMS = [
    Prediction(
        "01-P1", "predict before you print",
        first=dict(n=6, d_k=4, d_v=3),
        draw=lambda rng: dict(zip(("n", "d_k", "d_v"), rng.choice(_SELF_SIZES))),
        kind="shapes", asks=_ALL_SIX,
        statement="{n} words attend to each other (self-attention), with $d_k = {d_k}$ and $d_v = {d_v}$. Write "
                  "the shape of each array as a tuple: `Q`, `K`, `V`, the scores, the weights and the output.",
        judge=lambda answer, p: check_shapes(answer, n=p.n, m=p.n, d_k=p.d_k, d_v=p.d_v, asks=_ALL_SIX),
    ),
    Prediction(
        "01-P2", "projecting a batch",
        first=dict(),
        why_one="The right option does not depend on the batch, the length or the widths: other sizes would change "
                "the labels, not the idea.",
        kind="choice",
        statement="A batch of 32 sentences, each of 10 positions of width $d_{{\\text{{model}}}} = 16$, is stored "
                  "as one array `X (32, 10, 16)`; the query projection is `W_q (16, 8)`. What does `X @ W_q` give? "
                  "Answer with one letter:\n\n"
                  "- `\"a\"`: an error: the two arrays have different numbers of axes\n"
                  "- `\"b\"`: an array of shape (32, 10, 8)\n"
                  "- `\"c\"`: an array of shape (10, 8)\n"
                  "- `\"d\"`: an array of shape (32, 16, 8)",
        judge=lambda answer, p: check_choice(answer, "b", {
            "a": "@ treats the last two axes as the matrix and repeats the product over the axes in front: each of "
                 "the 32 sentences, a (10, 16) matrix, is multiplied by W_q. The inner sizes, 16 and 16, agree.",
            "b": "@ pairs the last axis of X with the first of W_q (both d_model = 16), which disappears, and keeps "
                 "every other axis: each of the 32 x 10 positions gets its own query, 8 wide, from the same W_q.",
            "c": "Nothing is added up across the batch: the only axis that disappears is the inner one, d_model = "
                 "16, and each sentence keeps its own queries.",
            "d": "The axis that disappears is the inner one, d_model = 16, shared by the last axis of X and the "
                 "first of W_q; the 10 positions stay, one query each.",
        }, hint="Which axis of X meets the 16 rows of W_q, and what happens to the axes in front of it?"),
    ),
    Prediction(
        "01-P3", "a wider model",
        first=dict(d_model=768, heads=12),
        draw=lambda rng: dict(zip(("d_model", "heads"), rng.choice(_MODELS))),
        statement="A model of width $d_{{\\text{{model}}}} = {d_model}$ splits its attention into {heads} heads in "
                  "the same way as the base model ($d_{{\\text{{model}}}} = 512$, 8 heads): each head is "
                  "$d_{{\\text{{model}}}} / h$ wide. How many numbers are in one head's `W_q`? Write the count as "
                  "an integer.",
        judge=_one_head_w_q,
    ),
    Prediction(
        "01-P4", "narrower values",
        first=dict(d_model=768, heads=12, d_k=64, d_v=32),
        draw=_narrower_values,
        statement="In a model of width $d_{{\\text{{model}}}} = {d_model}$ with {heads} heads, one head keeps "
                  "$d_k = {d_k}$ for its queries and keys but gives its values only $d_v = {d_v}$ numbers. How many "
                  "numbers do its three projections, `W_q`, `W_k` and `W_v`, hold together?",
        judge=_projections,
    ),
    Prediction(
        "01-P5", "one more token",
        first=dict(),
        why_one="The right option does not depend on the lengths or the widths: other numbers would change only the "
                "labels.",
        kind="choice",
        statement="A decoder has written 7 tokens; the encoder read 11. One head of encoder-decoder attention has "
                  "$d_k = 64$ and $d_v = 32$. The decoder writes its 8th token, and the head runs again. Which "
                  "arrays change shape? Answer with one letter:\n\n"
                  "- `\"a\"`: all six: $Q$, $K$, $V$, the scores, the weights and the output\n"
                  "- `\"b\"`: $Q$, the scores, the weights and the output\n"
                  "- `\"c\"`: $K$ and $V$\n"
                  "- `\"d\"`: the output alone",
        judge=lambda answer, p: check_choice(answer, "b", {
            "a": "K and V are projections of the encoder's output: one key and one value per input position, and "
                 "the 11 input positions do not change while the decoder writes.",
            "b": "Only n, the decoder's length, changes. Q gains a row, and so does every array with one row per "
                 "query: the scores, the weights and the output. K and V hold one row per encoder position (m), "
                 "which stays.",
            "c": "K and V come from the encoder, whose 11 positions do not change while the decoder writes. Look "
                 "at the arrays whose rows come from the decoder instead.",
            "d": "The output does gain a row, since it has one row per query; look for every other array whose "
                 "rows are counted in queries, n.",
        }, hint="For each array, say which sequence its rows come from: the decoder (n) or the encoder (m)."),
    ),
    Prediction(
        "01-P6", "wider values",
        first=dict(),
        why_one="The right option does not depend on d_v, and the problem is about the six words' arrays, measured "
                "in the cell after it.",
        kind="choice",
        statement="Keep the six words' `Q (6, 4)` and `K (6, 4)` of notebook 01, and replace `V` by values 8 wide "
                  "($d_v = 8$). What happens to the weights? Answer with one letter:\n\n"
                  "- `\"a\"`: same shape (6, 6) and the same numbers as before\n"
                  "- `\"b\"`: same shape (6, 6), but other numbers, since $V$ changed\n"
                  "- `\"c\"`: shape (6, 8)\n"
                  "- `\"d\"`: shape (8, 8)",
        judge=lambda answer, p: check_choice(answer, "a", {
            "a": "The weights are softmax(Q K^T / sqrt(d_k)), made from Q and K alone; V is used only after them, "
                 "so neither their shape nor their numbers change.",
            "b": "The weights are softmax(Q K^T / sqrt(d_k)): look for V in that formula. V enters the line only "
                 "after the softmax, in weights times V.",
            "c": "(6, 8) would be the output's shape, (n, d_v). A row of weights has one entry per key: m = 6, "
                 "whatever d_v is.",
            "d": "The weights have one row per query and one column per key: (n, m) = (6, 6); d_v counts neither "
                 "queries nor keys.",
        }, hint="Write the weights' formula and look for V in it."),
    ),
    Prediction(
        "01-P7", "when the sizes happen to match",
        first=dict(),
        why_one="The problem exists for its edge case, m = d_k, and the right option is the same for any sizes with "
                "m = d_k.",
        kind="choice",
        statement="Take four keys of width 4 ($m = d_k = 4$) and six queries: `Q (6, 4)`, `K (4, 4)`. Someone "
                  "writes `Q @ K`, forgetting the transpose (with six keys, `(6, 4) @ (6, 4)` raises an error). "
                  "What happens? Answer with one letter:\n\n"
                  "- `\"a\"`: numpy raises an error, as with six keys\n"
                  "- `\"b\"`: it runs and gives the scores\n"
                  "- `\"c\"`: it runs and gives a (6, 4) array of other numbers",
        judge=lambda answer, p: check_choice(answer, "c", {
            "a": "numpy checks only that the inner sizes agree, and (6, 4) x (4, 4) has inner sizes 4 and 4. The "
                 "error above came from 4 != 6.",
            "b": "The scores pair each query with each key, Q K^T: entry (i, j) = query i . key j. Q @ K dots "
                 "query i with column j of K, which mixes the keys' components: a shape that looks right is not a "
                 "score.",
            "c": "The inner sizes agree, so numpy multiplies without complaint, but entry (i, j) is query i dotted "
                 "with column j of K, not with key j. Only the shape comment on the line catches it.",
        }, hint="numpy checks that the inner sizes agree, nothing else. Which two sizes meet in (6, 4) x (4, 4)?"),
    ),
]
