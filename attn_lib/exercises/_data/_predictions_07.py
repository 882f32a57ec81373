"""Notebook 07's prediction problems (heads, their cost, and what a causal mask does to order), as data: see
``_prediction``."""

from __future__ import annotations

from .._answers import added_apart, check_choice, check_number
from .._prediction import Prediction, show


def _n(k: int) -> str:
    return f"{k:,}"


# Problem 2: the parameters of W^O when d_v is not d_model / heads.

def _times(ratio: float) -> str:
    """How many times: "half", "a quarter of", "1/8 of", "twice", "4 times" (the ratios are powers of 2)."""
    if ratio < 1:
        return {0.5: "half", 0.25: "a quarter of"}.get(ratio, f"1/{show(1 / ratio)} of")
    return "twice" if ratio == 2 else f"{show(ratio)} times"


def _w_o(answer, p):
    width = p.heads * p.d_v
    return check_number(answer, width * p.d_model, rel=0, mistakes=added_apart(width * p.d_model, [
        (width * p.d_model + p.d_model, "with-bias", "Your count includes a bias vector beside the matrix. The "
         "paper's W^O is a matrix with no bias (attn_lib's MultiHeadAttention has none either): count only its "
         "entries, rows times columns."),
        (p.d_model * p.d_model, "square-w-o", "That is a square d_model x d_model matrix, which assumes the "
         "concatenated heads are d_model wide. Their width is heads x d_v, and here d_v is not d_model / heads."),
        (p.heads * p.d_k * p.d_model, "used-dk", "That uses d_k for the heads' width; W^O reads the heads' outputs, "
         "whose width is d_v."),
        (p.d_v * p.d_model, "one-head", "That is one head's block of rows of W^O; W^O reads the concatenation of "
         "every head."),
        (width, "concat-width", "That is the width of the concatenated heads, the number of rows of W^O, not its "
         "number of entries: each row holds one parameter per output column."),
    ], [
        (width * width, "square-of-concat", "That squares the width of the concatenated heads, as if W^O gave back "
         "as many numbers as it reads. Its rows meet the heads' outputs, but its columns give back d_model."),
        (width + p.d_model, "added-not-multiplied", "That adds W^O's number of rows to its number of columns; a "
         "matrix holds one parameter for each (row, column) pair: the sizes multiply."),
        (4 * p.d_model * p.d_model, "four-projections", "That counts four d_model x d_model matrices, W^Q, W^K, W^V "
         "and W^O of heads whose widths add up to d_model. The question asks for W^O alone, and its rows meet the "
         "concatenated heads, heads x d_v wide."),
    ]), explain=f"W^O is (heads x d_v, d_model) = ({p.heads} x {p.d_v}, {p.d_model}): its rows meet the concatenated "
               f"heads, {width} numbers per position, and its columns give back d_model, so {width} x {p.d_model} = "
               f"{_n(width * p.d_model)} parameters, {_times(width / p.d_model)} the {p.d_model} x {p.d_model} of "
               "heads whose d_v is d_model / heads.",
        hint="Shape of W^O: (width of the concatenated heads, d_model).")


def _draw_w_o(rng):
    while True:
        d_model, heads = rng.choice([256, 512, 1024]), rng.choice([4, 8, 16])
        d_k, d_v = rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])
        # d_v is not d_model / heads (the problem's point), d_k != d_v, and d_k is not d_model / heads either, so
        # that the d_k mistake and the square W^O give two different numbers; heads x d_k != d_v, so that the d_k
        # mistake and one head's block differ too
        if len({d_k, d_v, d_model // heads}) == 3 and heads * d_k != d_v:
            return dict(d_model=d_model, heads=heads, d_k=d_k, d_v=d_v)


# Problem 4: sixteen narrower heads.

def _narrower(answer, p):
    return check_choice(answer, "B", {
        "A": "Each head spends n x m x d_k multiply-adds on its scores: twice the heads, but each dot product is half "
             "as long, so the total stays.",
        "B": "Right: every head holds its own n x m score matrix, so the scores alive follow h alone, while the "
             "multiply-adds follow h x d_k and the projection parameters d_model x h x d_k, and h x d_k is still 512.",
        "C": "The heads' total width is the same, and everything in the table that follows h x d_k stays; but not "
             "every row of the table follows the width.",
        "D": "The count of scores does not depend on how wide the compared vectors are: each head has one score per "
             "(query, key) pair, n x m, however long its dot products are.",
    }, hint="Write each row of the table as a product of n, m, heads and d_k, then change heads and d_k.")


# Problem 6: swap two neighbouring tokens under a causal mask.

def _stay(first: int, last: int) -> str:
    """ "token 3 sits where it was and sees", "tokens 2 to 5 sit where they were and see" """
    if first == last:
        return f"token {first} sits where it was and sees"
    return f"tokens {first} {'and' if last == first + 1 else 'to'} {last} sit where they were and see"


def _swap_explain(p) -> str:
    i, j, n = p.first_row, p.first_row + 1, p.n
    parts = []
    if i > 0:
        parts.append(f"{_stay(0, i - 1)} keys 0 to i, none of which moved")
    if j < n - 1:
        parts.append(f"{_stay(j + 1, n - 1)} keys 0 to i: the same tokens as before, two of them in swapped order, "
                     "and a weighted average ignores the order of its terms")
    stay = "; ".join(parts)
    return (f"{stay[:1].upper() + stay[1:]}, so their {n - 2} output rows are unchanged. The two swapped tokens now "
            "sit at positions that see another set of keys (one loses a key, the other gains one), so theirs change: "
            "the causal mask breaks permutation equivariance, because it is position information.")


def _swap(answer, p):
    return check_number(answer, p.n - 2, rel=0, mistakes=added_apart(p.n - 2, [
        (p.n, "still-equivariant", "Without a mask every output would follow its token, but the causal mask is a rule "
         "about positions: a token that moves to another position sees another set of keys."),
        (0, "all-change", "The later queries see keys 0 to i, the same set of tokens as before in another order, and "
         "a weighted average does not depend on the order of its terms: their outputs stay."),
        (2, "counted-the-moved", "You counted the tokens that moved, but the question asks which outputs stay the "
         "same, and that depends on the set of keys each position sees before and after the swap."),
        (p.n - 1, "one-changes", "Check each of the two tokens that moved: does either of them see the same set of "
         "keys as before?"),
    ], [
        (p.first_row, "only-before", "That counts only the tokens before the swapped pair. The tokens after it see "
         "keys 0 to i too: the same tokens as before, the pair among them in swapped order, and a weighted average "
         "does not depend on the order of its terms."),
        (p.n - p.first_row - 2, "only-after", "That counts only the tokens after the swapped pair. The tokens before "
         "it sit where they were and see keys that did not move: their outputs stay as well."),
        (p.n - 3, "next-changes", "Check the tokens besides the swapped pair: any before it see keys that did not "
         "move, and any after it see both of the pair, as before, the same set of keys in another order; a "
         "weighted average does not depend on the order of its terms."),
    ]), explain=_swap_explain(p),
        hint="For each position i, write the set of tokens among keys 0 to i, before and after the swap.")


def _draw_swap(rng):
    n = rng.randint(5, 10)  # n - 2 (the answer) stays apart from 2 (the tokens that moved)
    first_row = rng.randint(0, n - 3)  # two neighbours, with at least one later token (a later query sees both)
    return dict(n=n, first_row=first_row, second_row=first_row + 1)


PROBLEMS = [
    Prediction(
        "07-P2", "the size of $W^O$ when $d_v$ is not $d_{\\text{model}}/h$",
        first=dict(d_model=512, heads=8, d_k=64, d_v=32),
        draw=_draw_w_o,
        statement="A model has $d_{{\\text{{model}}}} = {d_model}$ and {heads} heads, but its heads have "
                  "$d_k = {d_k}$ and $d_v = {d_v}$. How many parameters are in $W^O$ (the matrix alone: the paper's "
                  "projections have no bias)?",
        judge=_w_o,
    ),
    Prediction(
        "07-P4", "sixteen narrower heads",
        first=dict(),
        draw=None,
        why_one="The right option is the same for every split of d_model into more, narrower heads: other sizes "
                "would change the options' words, never which option is right.",
        kind="choice",
        statement="A table counts, for one layer of 8 heads of $d_k = d_v = 64$ at $d_{{\\text{{model}}}} = 512$ and "
                  "$n = m = 1000$: the projection parameters and multiply-adds, the score multiply-adds "
                  "($QK^\\top$), the mixing multiply-adds (weights times $V$), the parameters of $W^O$ and the scores "
                  "alive. Keep $d_{{\\text{{model}}}} = 512$ and $n = m = 1000$, but split the model into 16 heads of "
                  "$d_k = d_v = 32$. Next to the 8 heads of the table, what changes?\n\n"
                  "- A: the score multiply-adds double, because there are twice as many heads\n"
                  "- B: the scores alive double; the projection parameters and every multiply-add stay as they are\n"
                  "- C: nothing at all: the heads still add up to a width of 512\n"
                  "- D: the scores alive halve, because each head's queries and keys are half as wide",
        judge=_narrower,
    ),
    Prediction(
        "07-P6", "swap two tokens under a causal mask",
        first=dict(n=6, first_row=0, second_row=1),
        draw=_draw_swap,
        statement="No positions are added, but the self-attention is causal (query $i$ sees keys 0 to $i$). Swap "
                  "rows {first_row} and {second_row} (counting from 0) of an X of {n} tokens and run it again. For "
                  "how many of the {n} tokens is the output row the same as before (compared token by token, "
                  "wherever the token now sits)?",
        judge=_swap,
    ),
]
