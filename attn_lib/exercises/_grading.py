"""Graded checking: a checker's verdict turned into a pass or an exception, for nbgrader's test cells.

A notebook prints a checker's :class:`Feedback` and never fails. A graded copy of the course (built by
``tools/nbgrader_course.py``) wraps the same call in :func:`assert_correct`: a right answer's feedback is
displayed (the cell shows "Correct"), a wrong or missing one raises :class:`CheckFailed` whose message is the
verdict, the reason and the hint (wrapped for ``nbgrader validate``, and all that IPython shows of it), so the
autograder scores the cell 0 and the learner's feedback shows why.
nbgrader gives 0 points to a test cell that raises or writes to stderr, reads a value the cell returns as partial
credit, and gives full points otherwise: so a right answer is displayed, not returned (and what a learner's function
writes to stderr while it is checked goes to stdout, see ``_running``). The graded test cell reloads this module and
its checker's module before calling them, so a learner's cell that replaces ``attn_lib.exercises.assert_correct`` or
a checker there changes nothing; a patch deeper in the kernel still can, which is what the course's audit is for.
"""

from __future__ import annotations

from ._feedback import NOT_ANSWERED, Feedback, wrap

# Columns of CheckFailed's text: `nbgrader validate` (the learner's Validate button) cuts lines at about 88.
WIDTH = 76
# A missing answer's hint in a graded cell, which a learner reads while working and in the hand-in feedback alike
# (the notebook's own hint, "run that cell, then run this one again", means nothing in the feedback).
NOT_ANSWERED_HINT = ("Write your answer in the answer cell above, in place of `None`, `...` or "
                     "`raise NotImplementedError`. If you did, that cell stopped with an error before it set your "
                     "answer: run it and read the error.")


MISTAKE_MARK = "(mistake id: "  # the last line of a CheckFailed's value: "(mistake id: forgot-dk)"


class CheckFailed(AssertionError):
    """A graded problem's answer is wrong or missing; ``feedback`` holds the checker's answer.

    Its text is the verdict, the reason and the hint wrapped at :data:`WIDTH` columns, and it is also what IPython
    shows for it (``_render_traceback_``): the failing cell's output is the checker's words, not a traceback that
    repeats the test cell's hidden source and this file's path.
    """

    def __init__(self, feedback: Feedback):
        hint = NOT_ANSWERED_HINT if feedback.mistake == NOT_ANSWERED else feedback.hint
        lines = wrap(f"{feedback.verdict}: {feedback.reason}", WIDTH)
        if hint:
            lines += wrap(f"Hint: {hint}", WIDTH)
        self.text = "\n".join(lines)  # what the learner reads
        # The exception's value (the error output's ``evalue``, which no front end shows beside the lines below)
        # ends with the mistake's id: the class's page (tools/nbgrader_class.py) counts the mistakes from it.
        super().__init__(self.text + (f"\n{MISTAKE_MARK}{feedback.mistake})" if feedback.mistake else ""))
        self.feedback = feedback

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows in place of a traceback (and nbgrader's feedback with them): the text alone."""
        return self.text.split("\n")


def assert_correct(feedback: Feedback) -> None:
    """Show ``feedback`` if its answer passed; otherwise raise :class:`CheckFailed` with its reason and hint.

    A passing feedback is displayed (``display`` in a notebook, printed elsewhere) rather than returned: nbgrader
    reads a test cell's returned value as partial credit, and a cell that returns nothing and raises nothing scores
    its full points.

    Parameters
    ----------
    feedback : Feedback
        What a checker returned.

    Raises
    ------
    CheckFailed
        An ``AssertionError`` whose message is the feedback's text, when ``feedback.passed`` is false.
    TypeError
        When ``feedback`` is not a :class:`Feedback` (a checker's name rebound to something else).

    Examples
    --------
    >>> from attn_lib.exercises import check_number
    >>> assert_correct(check_number(8, 8, explain="8 = 2 x 4."))
    Correct: 8 = 2 x 4.
    >>> try:
    ...     assert_correct(check_number(None, 8))
    ... except CheckFailed as failed:
    ...     print(failed.feedback.verdict)
    Not answered yet
    """
    if not isinstance(feedback, Feedback):
        raise TypeError(f"feedback: expected the Feedback a checker returns, got {type(feedback).__name__}")
    if not feedback.passed:
        raise CheckFailed(feedback)
    try:
        from IPython.display import display
    except ImportError:  # attn_lib needs only numpy; without IPython the text is the display
        display = print
    display(feedback)
