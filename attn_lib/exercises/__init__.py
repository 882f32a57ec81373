"""Checkers for the course's problems: each answers with a reason, not a tick.

Every checker returns a :class:`Feedback` (``passed``, ``reason``, ``hint``, ``mistake``). A notebook shows it
as a verdict line ("Correct", "Not yet"), the reason, and a hint the learner can open; an answer still a
placeholder gets one line instead, saying what the cell checks ("Not answered yet" in its text).
Given ``None`` (or ``...``), or a function that raises ``NotImplementedError``, a checker says "not answered
yet". The checkers that run a learner's function share one pipeline, ``_judge.py`` (its docstring shows how to
write a new one): the learner's code runs on copies of seeded inputs; an exception comes back as feedback naming
the exception, its message and the learner's line, never as a traceback; so do ``SystemExit``, a run longer
than 10 s, and a call of the attn_lib function the problem asks the learner to write. An answer passes when it
matches on every case to the precision of the inputs (float32 rounding at the coarsest), whatever the dtype of
the answer; where a problem promises exactly 0 (a blocked key's weight), the answer must be 0.0 itself. Mistakes are recognised by
computing each mistaken variant on the same inputs and comparing; a wrong answer that matches none gets its
first measurable difference, printed with enough digits that the two numbers differ.

Layout, bottom to top (each module imports only those above it in this list): ``_feedback.py`` (the
:class:`Feedback` itself), ``_types.py`` (what every judging step shares: ``Case``, ``Mistake``,
``FunctionProblem``, ``Raised``, ``Bad``, one ``Attempt`` per case, the case tags), ``_compare.py`` (tolerance,
printed differences), ``_pieces.py`` (learner-style numpy pieces and the texts several checkers share),
``_learner_code.py`` (the learner's line and signature), ``_running.py`` (the ``Runner``: copies, the time limit,
``SystemExit``, the guard against attn_lib's own function, how a case becomes a call), ``_explain.py`` (the steps
that explain a wrong answer), ``_judge.py`` (the whole pipeline, ``BEFORE_RUNNING`` and ``JUDGING_STEPS``);
the shared pieces of several checkers (``_answers.py``: check_number and check_choice and what the checkers built
on them use; ``_weights_diagnosis.py``, ``_attention_mistakes.py``); then one module per checker,
``_check_<name>.py``; ``_grading.py`` :func:`assert_correct` (a failed check raised as :class:`CheckFailed`, for
nbgrader's test cells) and ``_prediction.py`` (a prediction problem as data: its numbers, its statement, its judge,
its variants); then ``_predictions_NN.py``, notebook NN's prediction problems; then ``_problem_book.py``, every
prediction problem by its id and the notebook's calls :func:`check`, :func:`another` and
:func:`use_student_numbers`.

Inputs are seeded, so the same answer always gets the same words (nbval compares them). Where a problem promises
(..., n, m), the cases include leading batch axes and masks that broadcast; n != m and d_k != d_v throughout. A
row whose keys are all blocked has no softmax: attn_lib raises there, and a learner's function that returns NaN
for it still passes, with a note saying why a NaN is dangerous.

Bad arguments from a notebook's author (an unknown ``quantity``, a negative ``n``) raise ``ValueError`` or
``TypeError``; the learner's answers never do.

Checkers and the mistakes they recognise (``mistake`` ids)
-----------------------------------------------------------
Every function checker also recognises ``not-answered``, ``not-callable``, ``wrong-signature``, ``exception``,
``exit``, ``too-slow``, ``returned-none``, ``returned-tuple``, ``not-an-array``, ``masked-array`` (a numpy
masked array with masked entries), ``low-precision`` (the right answer rounded to float16: judged at the inputs'
precision, not the answer's), ``no-<name>-parameter`` (right, but it cannot take an optional argument such as
``mask``), and (where the problem asks for it) ``used-attn-lib``; those promising leading axes also ``no-batch``
(right on 2-D inputs only). A function that changes an input array in place is not failed
for it, but gets a note.

========================= ================================================================================
checker                   mistakes recognised
========================= ================================================================================
check_attention(fn)       global-max, no-scaling, divide-by-dk (or 1/sqrt(d_k) on Q and on the scores),
                          split-scale (d_k ** -0.25 on one side only), power-precedence (d_k ** 1/2),
                          multiply-by-sqrt-dk, d-model-scaling (512 or
                          sqrt 512), hardcoded-dk (divided by 8 = sqrt 64), dk-from-rows (another axis's
                          length), scaled-by-dv, scaled-after-softmax, transpose-batch (K.T on a batch),
                          axis-1-on-batch, softmax-wrong-axis (columns sum to one), softmax-whole-matrix,
                          softmax-no-keepdims, max-wrong-axis, no-division, no-transpose, scores-transposed
                          (K Q^T), mixed-queries, mixed-keys, returned-weights, returned-scores,
                          output-transposed, max-before-mask, zero-then-renormalise (exp(scores - max) * mask:
                          max-before-mask's numbers, and no -inf in the code), mask-after-softmax, mask-on-values,
                          mask-zero (0 instead of -inf, or scores * mask), small-fill (-10 ... -10000),
                          inverted-mask, ignored-mask,
                          inf-times-zero (scores * mask + ~mask * -inf: NaN), mask-added (scores + a 0/1
                          mask), boolean-index-broadcast, dropped-key, uniform-weights,
                          naive-softmax-overflow, no-mask-parameter, wrong-shape, non-finite-output,
                          not-an-average, wrong-values; a note (not a failure) when a fully masked row
                          gives NaN
check_softmax(fn)         global-max (rows far below the largest score become 0/0), subtract-abs-max
                          (np.max(np.abs(x)): NaN on a row with -inf), subtract-min (or mean),
                          axis-1-on-batch, softmax-wrong-axis, softmax-whole-matrix, no-keepdims,
                          max-wrong-axis, no-division, uniform-weights, naive-overflow (right on small
                          scores, NaN/inf on large ones), wrong-shape, negative-weights, non-finite-output,
                          rows-not-one, neg-inf-not-zero, not-shift-invariant, wrong-values
check_masked_softmax(fn)  max-before-mask (the row maximum taken before masking), zero-then-renormalise
                          (NaN when a blocked score dominates; also exp(scores - max) * mask, which gives
                          max-before-mask's numbers: the code decides, a fill value in it, -inf or -1e9,
                          meaning max-before-mask), mask-after-softmax
                          (= not renormalising), inf-times-zero, mask-zero (fill 0 = scores * mask),
                          small-fill,
                          inverted-mask, ignored-mask, mask-added, boolean-index-broadcast, global-max,
                          subtract-min (the row's minimum or mean), axis-1-on-batch, softmax-wrong-axis,
                          softmax-whole-matrix, max-wrong-axis, no-division, uniform-weights,
                          naive-overflow, wrong-shape, negative-weights,
                          non-finite-output, rows-not-one, blocked-not-zero, wrong-values; a note (not a
                          failure) when a fully masked row gives NaN, or (a finite fill)
                          weights on keys it must not see
check_causal_mask(fn)     inverted-mask (True = blocked), diagonal-blocked, upper-triangle,
                          bottom-right-aligned, shape-transposed, ignores-m, additive-mask, not-boolean,
                          wrong-shape, wrong-pattern
check_split_heads(fn)     returned-list (the problem asks for an array), no-transpose, heads-last,
                          heads-dk-swapped ((d_k, n, heads)), full-width
                          (d_model per head), interleaved-columns, positions-last, split-positions (np.split
                          along axis 0), integer-heads (the fractions of X cut off: an int array or
                          rounding), wrong-shape, wrong-values
check_chunked_attention   global-max (one running maximum for all queries), max-not-running (each chunk's own
(fn)                      maximum), max-never-updated, max-starts-at-zero (NaN when every score is below about
                          -745), no-rescale, rescale-sum-only, rescale-output-only,
                          no-final-division, chunk-average (each
                          chunk normalised separately), drops-last-chunk, loop-stops-short (range(0, m - 1,
                          chunk_size): the last key), dropped-key, no-scaling, divide-by-dk, power-precedence,
                          split-scale, d-model-scaling, rescale-inverted (exp(new_max - old_max)),
                          scaled-by-dv, uniform-weights, no-running-max (overflow on large scores), wrong-combination
                          (right with one chunk, wrong with several), full-score-matrix (peak memory as
                          large as the whole (n, m) scores), keys-not-chunked (peak memory of a whole row
                          of m scores, e.g. one query against all keys, whatever copies of the inputs),
                          wrong-shape, non-finite-output, not-an-average, wrong-values
check_shapes(...)         q-transposed, q-rows-m, q-width-dv, k-transposed, k-rows-n, k-width-dv,
                          v-transposed, v-rows-n, v-width-dk, scores-/weights-transposed,
                          scores-/weights-square (n x n or m x m when n != m), scores-/weights-width-dk,
                          scores-/weights-width-dv, output-width-dk, output-is-weights, output-rows-m,
                          output-transposed, wrong-shape, not-a-shape, unknown-name
check_count(...)          the author's own ids (``mistakes=``, as in check_number), forgot-heads,
                          forgot-layers, forgot-heads-and-layers, counted-macs, forgot-dk, forgot-dv,
                          forgot-m, used-dk, used-dv, used-d-model, counted-flops, square-when-cross,
                          causal-half, counted-bytes, counted-scores, float64-bytes, float16-bytes, bits,
                          not-bytes (MB or MiB), all-heads, three-projections, dk-squared,
                          added-not-multiplied, with-bias, wrong-count, not-a-number
check_variance(...)       std-not-variance, one-when-unscaled, dk-when-scaled, inverse-dk,
                          sqrt-when-scaled, inverse-sqrt-dk, dk-squared, mean-not-variance, wrong-variance,
                          not-a-number (answers within 10 % pass)
check_number(...)         the author's own ids (each a value and a reason), too-few-decimals (with
                          ``decimals=``), wrong-number (says how far off, never the expected value), not-a-number
check_choice(...)         chose-<label> (each option's own reason), not-an-option
check_scores(fn)          transpose-on-batch, dot-on-batch, no-transpose, queries-transposed (Q^T K),
                          elementwise-product (Q * K), summed-over-keys, keys-times-queries,
                          scaled-too-early, no-batch
check_scaled_scores(fn)   transpose-on-batch, dk-from-wrong-axis, no-transpose, keys-times-queries,
                          no-scaling, divide-by-dk, sqrt-of-shape (np.sqrt(Q.shape)), split-scale,
                          power-precedence (d_k ** 1/2 = d_k / 2),
                          multiply-by-sqrt-dk, d-model-scaling, hardcoded-dk,
                          rounded-sqrt (math.isqrt, int or round of sqrt(d_k)), dk-from-rows, no-batch
check_temperature_softmax global-max, multiplied-by-temperature, temperature-after-softmax,
                          power-after-softmax (weights ** (1 / T), not renormalised), temperature-ignored,
                          temperature-squared, temperature-square-root, no-keepdims, softmax-wrong-axis,
                          softmax-whole-array, no-division, naive-overflow, no-batch
check_weighted_average    returned-weights, unweighted-mean, output-transposed, v-transposed, weights-transposed,
(fn)                      elementwise-product (weights * V), values-first (V @ weights), mean-not-sum,
                          tensordot-on-batch (axes=1 pairs the keys with the batch), np-dot-on-batch,
                          dot-T-on-batch, einsum-2d-only, fixed-axis-on-batch,
                          sum-wrong-axis, no-batch
check_padding_mask(fn)    inverted-mask, off-by-one, same-length-for-all, missing-query-axis, masks-queries,
                          additive-mask, not-boolean, wrong-pattern
check_multihead(fn)       forgot-w-o, returned-heads, concat-wrong-axis, concat-axis-0 (heads down the rows),
                          shared-projection, last-head-only, heads-summed, w-o-transposed,
                          self-attention-on-kv (queries from X_kv too), queries-from-kv, kv-from-queries,
                          values-from-queries, keys-from-queries (keys and values from different sequences),
                          returned-weights, divide-by-dk, power-precedence, split-scale, scaled-by-dv,
                          d-model-scaling,
                          dk-from-d-model
                          (sqrt(d_model / heads) where d_k differs), no-scaling, softmax-wrong-axis
check_cross_attention     values-from-decoder, keys-from-decoder (only one of them from X_dec),
(fn)                      kv-from-decoder, queries-from-encoder, shared-projection, causal-mask (top-left or
                          bottom-right), transpose-on-batch, divide-by-dk, power-precedence, split-scale,
                          scaled-by-dv,
                          d-model-scaling,
                          no-scaling, returned-weights, softmax-wrong-axis, no-batch
check_softmax_backward    missing-row-sum, diagonal-only, missing-outer-weights, row-sum-without-weights,
(fn)                      sum-wrong-axis, fixed-axis-on-batch, no-keepdims, used-scores, sign-flipped,
                          row-sum-added,
                          returned-d-weights, mean-not-sum, sum-whole-array
check_dW_q(fn)            no-scale, scaled-twice (1/d_k), multiply-by-sqrt-dk, d-model-scaling, split-scale,
                          sign-flipped,
                          x-not-transposed,
                          result-transposed, d-scores-transposed, batch-not-summed, batch-averaged,
                          einsum-ellipsis-dropped ('...' in the inputs, not the output), batch-axes (right
                          for one sequence only: X.T or a 2-D einsum on a batch), wrong-shape, wrong-values
check_decode_step(fn)     forgot-append (attends to the cache alone), forgot-cache (the new token's own value),
                          new-token-twice, cache-order-mismatch (the key prepended, its value appended),
                          masked-cache (np.tril laid as for a square matrix), scaled-by-dv, no-scaling,
                          divide-by-dk, power-precedence, split-scale, d-model-scaling, queries-from-keys,
                          softmax-wrong-axis,
                          returned-weights, no-batch
check_learned(q, answer)  chose-<letter> (each option has its own reason), not-an-option (the questions
                          q of notebook 09: duplicate-key, adam-at-512, one-head)
check_footnote4_variance  unit-variance (means 0), ignored-means, mean-square-not-variance, means-not-squared,
(...)                     only-means-product (means given), forgot-dk, sqrt-dk, added-variances,
                          standard-deviations, wrong-number, not-a-number (answers within ``rel`` pass, 5 %
                          by default)
check_why_scores_grow     chose-a, chose-b, chose-d (each option's own reason), not-an-option
check_weights_beyond_     rounded-down, not-the-first, one-layer, one-head-per-layer, one-head, linear-in-n,
parameters(...)           token-limit, wrong-number, not-a-number (exact)
check_weight_times_value  returned-output, length-over-keys, squared-length, sum-not-length, l1-length,
(fn)                      lengths-along-queries ([..., :, None]), one-length, renormalised, lengths-only,
                          wrong-shape, wrong-values
check_previous_token(fn)  next-token, self, wrapped-first-row, dropped-last-query, divided-by-n,
                          sum-not-mean, wrong-shape, wrong-values
check_unscaled_row(...)   unchanged, divided-again, times-dk, equal-weights, wrong-number, not-a-number
========================= ================================================================================

Numbers may be given as int, float, numpy scalars, or 0-d / one-element arrays.

Examples
--------
>>> check_variance(8.0, d_k=64, scaled=False)
Not yet: 8 is sqrt(d_k), the standard deviation of one score, a spread in the scores' own units; the
question asks for the variance, the spread that adds up over independent terms.
Hint: Variances of independent terms add. What is the variance of one product q_i k_i, and how many
are there?
>>> bool(check_variance(64, d_k=64, scaled=False))
True
"""

from ._answers import check_choice, check_number
from ._check_attention import check_attention
from ._check_causal_mask import check_causal_mask
from ._check_chunked import check_chunked_attention
from ._check_cross_attention import check_cross_attention
from ._check_count import check_count
from ._check_decode_step import check_decode_step
from ._check_dW_q import check_dW_q
from ._check_learned import check_learned
from ._check_masked_softmax import check_masked_softmax
from ._check_multihead import check_multihead
from ._check_padding_mask import check_padding_mask
from ._check_scaled_scores import check_scaled_scores
from ._check_scores import check_scores
from ._check_shapes import check_shapes
from ._check_softmax import check_softmax
from ._check_softmax_backward import check_softmax_backward
from ._check_split_heads import check_split_heads
from ._check_temperature_softmax import check_temperature_softmax
from ._check_previous_token import check_previous_token
from ._check_trained import (check_footnote4_variance, check_unscaled_row, check_weights_beyond_parameters,
                             check_why_scores_grow)
from ._check_variance import check_variance
from ._check_weight_times_value import check_weight_times_value
from ._check_weighted_average import check_weighted_average
from ._feedback import NOT_ANSWERED, Feedback
from ._grading import CheckFailed, assert_correct
from ._problem_book import another, check, use_student_numbers

__all__ = [
    "check",
    "another",
    "use_student_numbers",
    "Feedback",
    "NOT_ANSWERED",
    "assert_correct",
    "CheckFailed",
    "check_attention",
    "check_softmax",
    "check_shapes",
    "check_count",
    "check_variance",
    "check_masked_softmax",
    "check_causal_mask",
    "check_split_heads",
    "check_chunked_attention",
    "check_number",
    "check_choice",
    "check_scores",
    "check_scaled_scores",
    "check_temperature_softmax",
    "check_weighted_average",
    "check_padding_mask",
    "check_multihead",
    "check_cross_attention",
    "check_softmax_backward",
    "check_dW_q",
    "check_learned",
    "check_footnote4_variance",
    "check_why_scores_grow",
    "check_previous_token",
    "check_unscaled_row",
    "check_weights_beyond_parameters",
    "check_weight_times_value",
    "check_decode_step",
]
