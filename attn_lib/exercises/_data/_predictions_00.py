"""Notebook 00's prediction problems (the six words read by hand), as data: see ``_prediction``."""

from __future__ import annotations

from .._answers import check_choice
from .._check_shapes import check_shapes
from .._prediction import Prediction

# 00-P2's draws: a sentence length, a key width and a new value width, all three different (so that every wrong
# shape check_shapes names is a shape of its own) and the new width not the old one, 2.
_SIZES = [(n, d_k, d_v) for n in (4, 5, 6, 7, 8, 9) for d_k in (3, 4, 8) for d_v in (5, 7, 9, 10, 12, 16)
          if len({n, d_k, d_v}) == 3]


PROBLEMS = [
    Prediction(
        "00-P1", "who hears the animal now?",
        first=dict(),
        why_one="The answer is read off the heatmap of the six hand-written words; other numbers would be another "
                "figure, and the problem is reading this one.",
        kind="choice",
        statement="In the six-word sentence \"the cat sat on a mat\", change one value row: suppose \"mat\" passed "
                  "on animal as well as location, so that its value row is `[1, 1]` instead of `[0, 1]`. The "
                  "queries and keys stay, and so do the weights in the heatmap. Which word's output row would then "
                  "carry the most \"animal\" (the first column of the output)? Answer with one letter:\n\n"
                  "- `\"a\"`: \"the\" and \"a\" (tied)\n"
                  "- `\"b\"`: \"sat\"\n"
                  "- `\"c\"`: \"on\"\n"
                  "- `\"d\"`: \"mat\"",
        judge=lambda answer, p: check_choice(answer, "b", {
            "a": "'the' and 'a' give the most weight to 'cat' alone, but now 'mat' passes on animal too: a word's "
                 "animal is its weight on 'cat' plus its weight on 'mat'. Add the two columns in every row before "
                 "choosing.",
            "b": "A word's animal is now its weight on 'cat' plus its weight on 'mat', the two value rows with "
                 "animal 1. 'sat' splits its weight between exactly those two keys (who sat, and where), 0.57 + "
                 "0.32; 'the' and 'a' give 'cat' more but 'mat' less, 0.67 + 0.21.",
            "c": "'on' puts most of its weight on 'mat', which now passes on animal, but little on 'cat': its "
                 "weights on the two keys add to less than some other rows' do.",
            "d": "'mat' looks for an action and listens mostly to 'sat', whose value carries no animal.",
        }, hint="A word's animal is the sum of its weights on the keys whose value rows carry animal 1: add the "
                "'cat' and 'mat' columns of the heatmap, row by row."),
    ),
    Prediction(
        "00-P2", "what shape comes out?",
        first=dict(n=6, d_k=3, d_v=5),
        draw=lambda rng: dict(zip(("n", "d_k", "d_v"), rng.choice(_SIZES))),
        kind="shapes", asks=("weights", "output"),
        statement="A sentence of {n} words attends to itself: {n} queries and {n} keys, each $d_k = {d_k}$ wide, "
                  "and a value row of 2 numbers for each word. Keep the words, their queries and their keys, but "
                  "give each value row {d_v} numbers instead of 2 ($d_v = {d_v}$). Write the shape of the weights "
                  "and the shape of the output as tuples, such as `(2, 3)`.",
        judge=lambda answer, p: check_shapes(answer, n=p.n, m=p.n, d_k=p.d_k, d_v=p.d_v, asks=("weights", "output")),
    ),
]
