"""check_learned: predictions about what training does to attention (notebook 09), each option with its reason."""

from __future__ import annotations

from ._answers import check_choice
from ._feedback import Feedback

# question -> (right option, {option: reason}, hint). The reasons speak of what the notebook measured: a head trained
# on the recall task, the d_k sweep with and without 1/sqrt(d_k), and one head against two.
_QUESTIONS = {
    "duplicate-key": (
        "c",
        {
            "a": "Attention has no 'first match': every key is scored at once, each by the query and that key's "
                 "vector alone, and this trained head's keys carry their place without the head using it.",
            "b": "Attention has no 'latest match': every key is scored at once, each by the query and that key's "
                 "vector alone, and this trained head's keys carry their place without the head using it.",
            "c": "The trained head scores a key by its key symbol and has learned to ignore the value and place "
                 "stored with it. Two positions with the same key get about the same score, so the softmax splits "
                 "the weight between them, and the output is about the average of their two value rows.",
            "d": "The other six keys are scored exactly as in training: their symbols do not match the query, so "
                 "their scores stay low, and they get little weight.",
        },
        "A score is q . k for one key at a time; the softmax only compares scores. What makes two keys' scores "
        "differ, for this trained head?",
    ),
    "adam-at-512": (
        "b",
        {
            "a": "The scaled run starts with soft rows (none above 0.99), so the gradient reaches every score. Its "
                 "steps under Adam do not depend on the size of its gradients either, so nothing slows it.",
            "b": "The unscaled rows start nearly one-hot, and a one-hot softmax row passes back almost no gradient "
                 "at the scores (notebook 03). Under plain gradient descent the missing division also made each "
                 "step move the scores further (d_k times for the same gradient at the scores: a factor sqrt(d_k) "
                 "in the gradient at W_q, another on the way back to the scores), which hid this. Adam divides "
                 "each gradient by its own running size, so a larger gradient no longer makes a larger step: that "
                 "removes the first factor, not the second. Adam's steps still move the unscaled scores about "
                 "sqrt(d_k) times as far, and the rows still start saturated; the unscaled run is the slower one.",
            "c": "At d_k = 512 the two runs start very differently: most unscaled rows are above 0.99 at step 0, "
                 "none of the scaled ones. Adam rescales gradients, but it cannot give a saturated row back the "
                 "gradient its softmax does not pass on.",
        },
        "Compare the share of rows above 0.99 at step 0 in the table above, and what Adam does to the size of "
        "a step.",
    ),
    "one-head": (
        "b",
        {
            "a": "The same width gives the same number of parameters, not a second row of weights: one head still "
                 "gives each query one row, whatever its width.",
            "b": "One head gives each query one row of weights, and the two answers need weight on two places. A "
                 "row split between them returns an average of two value rows, which a linear read-out cannot "
                 "cleanly take apart into which value came from where. So early in training the head follows the "
                 "easier pattern, the fixed position that is the same for every query: that answer is right, and "
                 "recall gets only what position 0's value gives it. A second head brings a second row of "
                 "weights, with its own W_q and W_k.",
            "c": "Splitting its row is what one head would need to serve both answers, and given much longer it "
                 "does split in some seeds; but early in training it does not. Look at which pattern is the same for every "
                 "query.",
        },
        "How many rows of weights does a query get from one head, and what does a row spread over two positions "
        "return?",
    ),
}


# The ids check_learned gives (the teacher's table is generated from them): one per option, and not-an-option.
GIVES = {"check_learned": ("chose-<label>", "not-an-option")}


def check_learned(question, answer) -> Feedback:
    """Check a prediction about attention in training (notebook 09).

    Parameters
    ----------
    question : {"duplicate-key", "adam-at-512", "one-head"}
        ``duplicate-key``: where a trained recall head puts its weight when the asked-for key is stored twice.
        ``adam-at-512``: which of the scaled and unscaled runs at d_k = 512 reaches 90 % last under Adam.
        ``one-head``: what one head of the width of two does on a task needing two patterns.
    answer : str or None
        The option's letter.

    Returns
    -------
    Feedback
        Mistake ids ``chose-<letter>``, ``not-an-option``, ``not-answered``.

    Raises
    ------
    ValueError
        For an unknown ``question``.

    Examples
    --------
    >>> check_learned("duplicate-key", "c").passed
    True
    >>> check_learned("one-head", "a").mistake
    'chose-a'
    """
    if question not in _QUESTIONS:
        raise ValueError(f"question must be one of {sorted(_QUESTIONS)}; got {question!r}")
    right, reasons, hint = _QUESTIONS[question]
    return check_choice(answer, right, reasons, hint=hint)
