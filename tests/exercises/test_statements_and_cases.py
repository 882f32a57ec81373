"""What the function problems' statements promise (issue 24: 06 P1, 06 P6, 08 P3, 08 P6, 09 P1, made exact) is what
their checkers try: the words and the cases agree."""

import numpy as np

from attn_lib.exercises._check_chunked import PROBLEM as CHUNKED
from attn_lib.exercises._check_dW_q import PROBLEM as DW_Q
from attn_lib.exercises._check_masked_softmax import PROBLEM as MASKED_SOFTMAX
from attn_lib.exercises._check_padding_mask import PROBLEM as PADDING_MASK
from attn_lib.exercises._check_softmax_backward import PROBLEM as SOFTMAX_BACKWARD


def _leading_axes(problem, name):
    return {case.inputs[name].ndim - 2 for case in problem.cases()}


def test_06_p1_blocked_weights_are_promised_exactly_0_and_scores_near_1000_and_minus_30000_are_tried():
    cases = MASKED_SOFTMAX.cases()
    assert all(case.zeros is not None and case.zeros.any() for case in cases)
    assert any(np.median(case.inputs["scores"]) < -29_000 for case in cases)
    assert any(case.inputs["scores"].max() >= 1000 for case in cases)
    # no case has a row whose keys are all blocked: the statement says such a row is not marked
    assert all(np.broadcast_to(case.inputs["mask"], case.inputs["scores"].shape).any(axis=-1).all() for case in cases)


def test_06_p6_a_length_of_0_is_tried():
    assert any((case.inputs["lengths"] == 0).any() for case in PADDING_MASK.cases())
    assert all(((0 <= case.inputs["lengths"]) & (case.inputs["lengths"] <= case.inputs["m"])).all()
               for case in PADDING_MASK.cases())


def test_08_p3_and_09_p1_try_no_one_and_two_leading_batch_axes():
    assert _leading_axes(SOFTMAX_BACKWARD, "scores") == {0, 1, 2}
    assert _leading_axes(DW_Q, "X") == {0, 1, 2}


def test_08_p6_tries_scores_near_1000_and_near_minus_1000():
    scores = [case.inputs["Q"] @ case.inputs["K"].T / np.sqrt(case.inputs["Q"].shape[1]) for case in CHUNKED.cases()]
    assert any(s.max() >= 990 for s in scores)
    assert any(s.max() <= -900 for s in scores)
