"""Notebook 09's prediction problems (what training measured), as data: see ``_prediction``.

Each is a choice about what the notebook's training runs measured, judged by ``check_learned``, whose options and
reasons stay in ``_check_learned``: one meaningful instance each.
"""

from __future__ import annotations

from .._check_learned import check_learned
from .._prediction import Prediction

PROBLEMS = [
    Prediction(
        "09-P2", "a key stored twice",
        first={},
        why_one="It asks what one trained head does, measured on that head: other numbers would need another "
                "training run, and the answer follows from how a score is made, not from a number.",
        kind="choice",
        statement="A single attention head was trained on the recall task: each sequence stores eight (key, value) "
                  "pairs with all keys different, and a query such as `c?` must return the value stored with key "
                  "`c`. It has only seen sequences whose keys are all different. Now give it a sequence in which "
                  "the key `c` is stored at two positions, with different values, and ask `c?`. Where does that "
                  "query's weight go?\n\n"
                  "- (a) almost all on the first `c`: the head finds the first match\n"
                  "- (b) almost all on the second `c`: the later one overrides\n"
                  "- (c) split between the two `c` positions, about half each\n"
                  "- (d) spread over all eight positions: the sequence is unlike anything seen in training",
        judge=lambda answer, p: check_learned("duplicate-key", answer),
    ),
    Prediction(
        "09-P3", "the same sweep under Adam",
        first={},
        why_one="It asks about one measured training sweep (d_k = 512, seeds 0 to 4, Adam at learning rate "
                "0.003): a variant would be another experiment, not other numbers for the same idea.",
        kind="choice",
        statement="Notebook 09 trained one head on its recall task at $d_k = 8$, 64 and 512, each with the division "
                  "by $\\sqrt{{d_k}}$ (scaled) and without it (unscaled), seeds 0 to 4, with plain gradient descent "
                  "at learning rate 0.5. Adam, the optimizer the paper used (section 5.3), divides each gradient "
                  "entry by a running measure of its own size before stepping, so a gradient ten times larger no "
                  "longer makes a step ten times larger. Run at $d_k = 512$, with the same seeds and a learning "
                  "rate of 0.003, which run reaches 90 % accuracy later?\n\n"
                  "- (a) the scaled one\n"
                  "- (b) the unscaled one\n"
                  "- (c) neither: within 10 % of each other",
        judge=lambda answer, p: check_learned("adam-at-512", answer),
    ),
    Prediction(
        "09-P4", "one head for two patterns",
        first={},
        why_one="It asks what one measured pair of models does after 200 steps (one head of width 32 against two "
                "of 16, seeds 0 to 4): the answer follows from how many rows of weights a head gives a query, not "
                "from a number a variant could change.",
        kind="choice",
        statement="Each query of notebook 09's task now gives two answers: the value stored with its key (recall) "
                  "and the value stored at the first position (first). Two heads of $d_k = d_v = 16$ can learn "
                  "both; a model with one head of $d_k = d_v = 32$ has the same total width and a read-out $W_o$ "
                  "of the same size. After 200 steps of plain gradient descent (learning rate 0.5), what does the "
                  "one-head model do, in most seeds?\n\n"
                  "- (a) both answers above 90 %, like two heads: the width is the same\n"
                  "- (b) one answer above 90 %, the other far below\n"
                  "- (c) both answers near 50 %: it splits its effort",
        judge=lambda answer, p: check_learned("one-head", answer),
    ),
]
