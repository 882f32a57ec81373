"""The catalogue of mistakes: every mistake id a checker can give, once, with its reason and hint in the terms of
the idea it belongs to.

A checker names a mistake by its id (``Mistake(id, variants=..., **fields)``, ``_feedback.failure(id,
**fields)``); the words come from here, read through ``_catalogue.py``. A reason that needs the problem's own words
(which output, which sizes) is a ``str.format`` template with named fields, and the checker fills them in; a field
never holds the number a problem asks for. An id not in :data:`CATALOGUE` is refused (a ``ValueError`` naming it),
the way an unknown case tag is.

Ids a prediction problem defines for itself (``mistakes=[(value, id, reason, hint)]`` in ``_predictions_NN.py``,
its reason holding the variant's numbers) stay with their problem, and so do check_choice's ``chose-<label>``:
one id per option, its reason the option's own.

This module is data: it imports only :class:`Entry` (``_entry.py``), and ``_catalogue.py`` alone of the logic
imports it (``_feedback.failure`` makes a Feedback of an entry). The teacher's table of
ids in the package docstring is generated from it and the checkers: ``python tools/mistake_table.py --write``.
"""

from __future__ import annotations

from .._entry import Entry

# Ids merged into another: a slip once named by two ids (one problem's own, one of the catalogue) is now named by
# one, and the old id lives on here, so that a record or a gradebook written before still reads (the class's page
# counts an old id as its new one). Old id -> the id that names the mistake now.
ALIASES = {
    "increase-not-factor": "more-for-times",  # 08-P1's own id until 2026-12-07; 02-P7 and the variants gave the other
}

# Texts several entries share.
SCALED_TWICE = (" The same numbers come from scaling twice: Q multiplied by 1/sqrt(d_k) (a scale applied to q, "
                "as in much published code) and then the scores divided by sqrt(d_k) again.")
OVERFLOW = (
    "Exponentials of scores near 1000 overflow: exp(710) is already above the largest float64 "
    "(about 1.8e308), and inf / inf is NaN."
)
FIX_OVERFLOW = (
    "Subtract each row's maximum before np.exp: x - np.max(x, axis=-1, keepdims=True). Adding a constant to a "
    "row does not change its softmax, and the largest exponent becomes exp(0) = 1."
)
MASK_FIX = "Put -inf in the blocked scores before the softmax (np.where broadcasts the mask): exp(-inf) = 0."
MASK_ADDED = (
    "Your function adds the boolean mask to the scores (True counts as 1), or its inverse (1 where blocked): a "
    "0/1 mask added moves every score by at most 1, so blocked keys keep nearly the weight they had. An "
    "additive mask holds 0 where allowed and -inf where blocked, so that exp(-inf) = 0; the course's masks are "
    "boolean, True = may attend."
)
SMALL_FILL = (
    "Your function fills blocked scores with a small finite number (like -10) instead of -inf. exp(-10) is "
    "about 4.5e-5, not 0, so blocked keys keep some weight; and in a row whose allowed scores are below the "
    "fill, the blocked keys take almost all of it. -inf gives exp(-inf) = 0 exactly (a huge fill such as -1e9 "
    "works too, except on a row whose keys are all blocked)."
)
SPLIT_SCALE = (
    "Your scores are divided by d_k ** 0.25 or d_k ** 0.75, not by d_k ** 0.5: the factor 1/sqrt(d_k) was split "
    "between Q and K (d_k ** -0.25 on each, as some published code does), and the shares do not multiply back "
    "to 1/sqrt(d_k): only one side got its share, or Q got the whole factor and K a share too. Scaling Q alone "
    "by 1/sqrt(d_k) is fine; what counts is that the scores Q K^T end up divided by sqrt(d_k), exactly once."
)
# check_shapes' mistakes: its one hint is for all its lines, so an entry's hint says where the shapes come from.
SHAPES_HINT = ("Write each shape next to the equation, and say for each axis what it counts: queries, keys, or a "
               "width.")
# additive-mask, said of a causal mask whose 0s are not where j <= i either.
NOT_CAUSAL_EITHER = " Its pattern is not the causal one either: 0 must sit where j <= i."
# not-boolean's trouble: what a mask of numbers does where a boolean one is expected, by the kind of its numbers.
_ADDED = ("; and 0s and 1s added to the scores, as if they were an additive mask, move each score by at most 1, so "
          "blocked keys keep their weight (an additive mask holds 0 and -inf)")
NUMBER_MASK_TROUBLE = {
    "float": "~mask on floats raises TypeError (invert is defined for integers and booleans only), and a float "
             "array used as an index raises IndexError" + _ADDED,
    "integer": "~ of an integer 1 is -2, and an array of 0s and 1s used as an index picks rows 0 and 1 instead of "
               "selecting entries" + _ADDED,
}
# The rule behind a variance: the hint of check_variance's mistakes.
VARIANCES_ADD = ("Variances of independent terms add. What is the variance of one product q_i k_i, and how many are "
                 "there?")
# wrong-values when an entry the problem promises is exactly 0 is only close to 0.
EXACT_ZERO = ("entry {at} of your {what} is {value} where it should be exactly 0: the problem promises 0 there, and "
              "exp of a finite number is never 0")
# blocked-not-zero / neg-inf-not-zero when the weight is tiny but not 0.
FINITE_FLOOR = (
    " Yours is tiny but not 0: somewhere a blocked score became a finite number (a floor such as "
    "np.maximum(scores - max, -700), or a fill a fixed distance below the row's maximum), and exp of any finite "
    "number is above 0. The key still takes a share of the row, and a later step that tests weight == 0 (or "
    "divides by it) sees a key that was never blocked."
)


CATALOGUE: dict[str, Entry] = {
    "not-answered": Entry(
        "This cell checks {what}.",
        "Write your answer in the cell above in place of the placeholder, run that cell, then run this one again.",
        "generic"),
    "added-not-multiplied": Entry(
        "a matrix of d_model rows and d_k columns holds d_model x d_k numbers (the sizes multiply).",
        "{hint}",
        "counting"),
    "added-variances": Entry(
        "You added the two variances; for independent factors the variance of a product comes from the product "
        "of their mean squares.",
        "E[(q k)^2] = E[q^2] E[k^2] when q and k are independent.",
        "scaling"),
    "additive-mask": Entry(
        "Your mask is additive (0 where allowed, -inf where blocked): a mask to add to the scores. The course's "
        "masks are boolean, True = may attend, and the -inf goes in with np.where.",
        "Return the boolean pattern instead (True = may attend), not 0 and -inf.",
        "mask"),
    "all-heads": Entry(
        "that counts every head's W_q (side by side, or one full-width d_model x d_model projection); the question "
        "asks for one head's W_q, which maps a d_model-wide row to d_k: d_model x d_k.",
        "{hint}",
        "counting"),
    "axis-1-on-batch": Entry(
        "Your function uses axis=1, which is the last axis only for a 2-D array: on a batch (b, n, m) axis 1 "
        "runs over the queries, so the weights sum to one down the columns of each matrix. Count axes from the "
        "end: axis=-1 is each row of keys, whatever the number of leading axes.",
        "Use axis=-1 (with keepdims=True) in both the max and the sum of your softmax.",
        "softmax"),
    "batch-averaged": Entry(
        "Your gradient averages the sequences' gradients instead of adding them. W_q is shared by "
        "every sequence of the batch and the loss adds their terms, so its gradient is the sum of "
        "theirs.",
        "Sum over the leading (batch) axes rather than taking their mean.",
        "backward"),
    "batch-axes": Entry(
        "Right for a single sequence, but not with a batch axis: your code assumes X, K and "
        "d_scores are 2-D. On a 3-D array X.T reverses all three axes (it does not swap the last "
        "two), and an einsum whose subscripts name two axes per array refuses a third. W_q's "
        "gradient is X^T dQ for each sequence, summed over the batch.",
        "Swap only the last two axes of X (not .T), and sum over the batch; or fold the batch into "
        "the rows first; or let einsum carry the leading axes with '...' in each operand.",
        "backward"),
    "batch-not-summed": Entry(
        "Your result keeps the batch axis: one gradient per sequence. W_q is shared by every "
        "sequence of the batch, so its gradient is the sum of theirs, a single (d_model, d_k) "
        "matrix.",
        "Sum the per-sequence gradients over the leading (batch) axes, or fold the batch into the "
        "rows first.",
        "backward"),
    "beyond-float": Entry(
        "{what} has {digits} digits before the point, beyond the largest float (about 1.8e308): no number this "
        "problem asks for comes near it.",
        "Check the power: 10 ** k has k + 1 digits.",
        "generic"),
    "bits": Entry(
        "that is bits; a float32 is 32 bits = 4 bytes.",
        "{hint}",
        "counting"),
    "blocked-not-zero": Entry(
        "For {label}, weight {at} belongs to a blocked key but is {value}: exp(-inf) = 0, so it must be exactly "
        "0.{tiny}",
        "Put -inf in the blocked scores before np.exp, and do not replace it afterwards{no_floor}",
        "mask"),
    "boolean-index-broadcast": Entry(
        "Your function sets blocked scores with boolean indexing (scores[~mask] = -np.inf). That "
        "needs the mask to have exactly the scores' shape, so it fails on a mask that only "
        "broadcasts to it, such as a padding mask of shape (..., 1, m) or a causal mask (n, m) "
        "shared by a batch; the problem allows those.",
        "Use np.where instead of boolean indexing: it broadcasts the mask to the scores' shape.",
        "mask"),
    "bottom-right-aligned": Entry(
        "Your mask is aligned to the bottom-right corner (query i sees keys up to i + m - n). The "
        "course aligns it top-left, like PyTorch's is_causal and attn_lib.causal_mask: query i sees"
        " keys 0..i whatever m is. Both conventions exist (bottom-right suits a decoder whose first"
        " m - n keys are cached), so when n != m you must know which one your library uses: they "
        "let different keys through.",
        "Compare each key index j with the query's own index i, counted from the first query: j <= "
        "i.",
        "mask"),
    "cache-order-mismatch": Entry(
        "You put the new key at one end of the cache and its value at the other (np.concatenate([k,"
        " K_cache]) but [V_cache, v], or the reverse): row j of the keys and row j of the values no"
        " longer belong to the same position, so the weight each key earns mixes another position's"
        " value. The order itself does not matter to attention; keys and values must share it.",
        "Append both the same way: np.concatenate([K_cache, k], axis=-2) and "
        "np.concatenate([V_cache, v], axis=-2).",
        "decoding"),
    "causal-half": Entry(
        "a causal mask blocks about half the pairs, but their scores are still computed (and set to -inf), and "
        "the n x m array is stored whole.",
        "{hint}",
        "counting"),
    "causal-mask": Entry(
        "Your cross-attention applies a causal mask, so decoder position i reads only the source "
        "positions up to its own (0 to i, or with the mask aligned to the bottom-right corner 0 to "
        "i + m - n). The causal mask belongs to the decoder's self-attention (it must not see words"
        " it has not written yet); the source sentence is read whole before decoding starts, so "
        "every query may attend to all m encoder positions.",
        "Drop the mask: every decoder query sees every encoder position.",
        "mask"),
    "chunk-average": Entry(
        "Your function normalises each chunk separately (a softmax over the chunk's keys) and then "
        "averages (or adds) the chunk outputs. A chunk whose scores are all small then counts as "
        "much as one with the best key; the weights must be normalised over all m keys together. "
        "With one chunk it is right.",
        "Keep unnormalised sums across chunks (with a running maximum) and divide once, at the end.",
        "cost"),
    "commas-made-a-tuple": Entry(
        "{what} is not one number: {written} in Python, where a comma between digits separates numbers.",
        "Write one number, without commas: {way}.",
        "generic"),
    "concat-axis-0": Entry(
        "You concatenated the heads along axis 0, down the rows: (heads * n, d_v), one block of n "
        "rows per head, which W_o (heads * d_v, d_model) cannot multiply. The concatenation runs "
        "along the other axis: each position keeps one row holding every head's output side by "
        "side, (n, heads * d_v).",
        "np.concatenate(heads, axis=-1): along the last axis, the width.",
        "heads"),
    "concat-wrong-axis": Entry(
        "Your heads are put together in the wrong order. Position i's row of the concatenation must"
        " be [head 0's output row i, head 1's output row i, ...]: the heads side by side along the "
        "last axis. Stacking them to (heads, n, d_v) and reshaping straight to (n, heads * d_v), or"
        " interleaving their columns, gives the right shape but mixes positions or columns, and W^O"
        " then reads the wrong numbers.",
        "Join the heads side by side along the last axis: each position keeps its row, (n, heads * "
        "d_v).",
        "heads"),
    "counted-bytes": Entry(
        "that is bytes in {dtype} ({per} per score); the question asks how many scores, whatever each takes in "
        "memory.",
        "{hint}",
        "counting"),
    "counted-flops": Entry(
        "that counts a multiplication and an addition as two; a multiply-add counts once.",
        "{hint}",
        "counting"),
    "counted-macs": Entry(
        "that counts multiply-adds; a score is one number, however long the dot product that makes it.",
        "{hint}",
        "counting"),
    "counted-scores": Entry(
        "that is the number of scores; each takes 4 bytes in float32.",
        "{hint}",
        "counting"),
    "d-model-scaling": Entry(
        "Your {what} matches a scale of sqrt(d_model) (or d_model), the model's full width (d_model = 512 in the "
        "base model), instead of the per-head sqrt(d_k). Inside one head a score is a dot product of d_k = {d_k} "
        "terms, so its standard deviation is sqrt(d_k), the per-head width; d_model plays no part in one head's "
        "scores.",
        "Read d_k from the problem's own arrays, d_k = {d_k}, and divide the scores by np.sqrt(d_k).",
        "scaling"),
    "d-scores-transposed": Entry(
        "You used d_scores^T: its rows are keys and its columns queries. dQ[i] gathers the keys "
        "that query i met, weighted by the gradient of its own row of scores: dQ = d_scores K / "
        "sqrt(d_k).",
        "Use d_scores @ K, not np.swapaxes(d_scores, -1, -2) @ K.",
        "backward"),
    "diagonal-blocked": Entry(
        "Your mask blocks the diagonal: query i may not see key i. Causal means no looking ahead, j"
        " <= i; a position may attend to itself (and query 0 would have nothing left to attend to).",
        "Use j <= i (np.tri with k=0), not j < i.",
        "mask"),
    "diagonal-only": Entry(
        "Your dS is dP * P * (1 - P): it uses only the diagonal of the softmax's Jacobian, "
        "dp_k/ds_k = p_k (1 - p_k). Raising score k also lowers every other weight of the row, by "
        "p_j p_k each; those off-diagonal entries add -p_k * sum_{{j != k}} dP_j p_j, which your "
        "answer leaves out.",
        "Apply the whole Jacobian: dS_k = sum_j dP_j p_j (delta_jk - p_k) = p_k (dP_k - sum_j dP_j "
        "p_j).",
        "backward"),
    "divide-by-dk": Entry(
        "Your {what} matches scores divided by d_k instead of sqrt(d_k). A score is a sum of d_k products, so "
        "its variance is d_k and its standard deviation is sqrt(d_k), the unit that makes scores comparable; "
        "dividing by d_k leaves scores of variance 1/d_k, which flattens every row of weights towards uniform "
        "as d_k grows." + SCALED_TWICE,
        "Divide the scores by np.sqrt(d_k), with d_k = {d_k}, not by d_k.",
        "scaling"),
    "divided-again": Entry(
        "You divided the gap by sqrt(d_k) once more; removing the division does the opposite: the unscaled gap is "
        "{gap} x sqrt(d_k).",
        "Scaled score = unscaled / sqrt(d_k), so unscaled = scaled x sqrt(d_k).",
        "scaling"),
    "divided-by-n": Entry(
        "You added the n - 1 weights on previous tokens but divided by n; only n - 1 queries have a"
        " previous token, so a head that always attends to the previous token would score (n - 1) /"
        " n, not 1.",
        "Take the mean of the n - 1 entries.",
        "positions"),
    "dk-from-d-model": Entry(
        "Your heads divide their scores by the square root of d_model / heads. d_k is the width of "
        "one head's queries, W_q's last axis, not d_model / heads; in this case they differ. (The "
        "paper chooses d_k = d_model / heads, 64 = 512 / 8, but the equation needs the width the "
        "dot products actually have.)",
        "Read d_k from W_q.shape[-1].",
        "heads"),
    "dk-from-rows": Entry(
        "Your {what} matches dividing by the square root of another axis's length (the number of queries n or "
        "keys m, or on a batch the batch size): d_k was read from the wrong axis. A score's spread depends on "
        "how many products it adds up, d_k, the width of a query (the last axis), not on how many positions "
        "there are.",
        "Use d_k = Q.shape[-1] (not Q.shape[0], Q.shape[1] or len(Q)).",
        "scaling"),
    "dk-from-wrong-axis": Entry(
        "Right on 2-D inputs, but on a batch your d_k is not the width of a query: Q.shape[1] is n "
        "there (Q is (batch, n, d_k)). d_k is the last axis, Q.shape[-1].",
        "Divide Q K^T by np.sqrt(d_k), with d_k = Q.shape[-1] (the last axis, whatever the batch "
        "axes).",
        "scaling"),
    "dk-squared": Entry(
        "{value} = d_k^2 squares d_k where it enters once. Variances of independent terms add; they do not "
        "multiply, and the sum of d_k terms is not squared. W_q maps a d_model-wide row to a d_k-wide query, so "
        "it has d_model rows and d_k columns.",
        "{hint}",
        "counting"),
    "dk-when-scaled": Entry(
        "{d_k} = d_k is the variance before the division; dividing a score by a number divides its variance by "
        "that number squared.",
        "Var(a X) = a^2 Var(X).",
        "scaling"),
    "dot-T-on-batch": Entry(
        "Your function is right on 2-D inputs but not with a batch axis in front. `.T` reverses every axis of an "
        "array: on weights (b, n, m) it gives (m, n, b), not a batch of transposed matrices. Shapes are (..., n, "
        "m) and (..., m, d_v): write the code for the last two axes only.",
        "Use np.swapaxes(x, -1, -2) instead of x.T, or a product that treats leading axes as a batch.",
        "average"),
    "dot-on-batch": Entry(
        "Right on 2-D inputs, but on a batch np.dot (or np.tensordot) pairs every batch of Q with "
        "every batch of K: the result has the batch axes twice. Within a batch, query i meets key "
        "j; batches do not meet.",
        "Use the @ operator (np.matmul), which treats the leading axes as a batch.",
        "scores"),
    "dropped-key": Entry(
        "Your output matches attention that leaves out one key (the last or the first): a range or slice stops "
        "one short, e.g. K[:-1], K[1:], range(m - 1) or K[start:start + chunk_size - 1]. Every one of the m "
        "keys must take part.",
        "Use all m keys: range(m) or range(0, m, chunk_size), and slices such as K[start:start + chunk_size].",
        "attention"),
    "dropped-last-query": Entry(
        "You stopped one query short: range(1, n - 1) ends at query n - 2, so the last query's "
        "weight on its previous token is left out, and at n = 2 no query is left at all (the mean "
        "of nothing is NaN).",
        "range(1, n) runs over queries 1 .. n-1; np.diagonal with offset=-1 takes all of them.",
        "positions"),
    "drops-last-chunk": Entry(
        "Your loop drops the last, shorter chunk when chunk_size does not divide m (and does "
        "nothing when chunk_size > m): some keys are never seen.",
        "Loop over for start in range(0, m, chunk_size) and slice K[start:start + chunk_size]; "
        "numpy shortens the last slice by itself.",
        "cost"),
    "einsum-2d-only": Entry(
        "Your function is right on 2-D inputs but not with a batch axis in front: its einsum subscripts name "
        "exactly two axes per array.",
        "Let einsum carry the leading axes: np.einsum('...nm,...md->...nd', weights, V).",
        "average"),
    "einsum-ellipsis-dropped": Entry(
        "Right for a single sequence, but numpy refuses your einsum on a batch: its inputs carry "
        "'...' for the leading axes and its output does not, and numpy sums an axis away only when "
        'the subscripts name it (it raises "output has more dimensions than subscripts given"). '
        "W_q's gradient sums over the batch, so those axes must be named to be summed.",
        "Fold the batch into the rows first (X.reshape(-1, d_model), dQ.reshape(-1, d_k)), or sum "
        "the per-sequence gradients, or name the batch axes with letters in the inputs and leave "
        "them out of the output.",
        "backward"),
    "elementwise-product": Entry(
        "You multiplied {a} and {b} entry by entry ({a} * {b}), which needs the two to have the same shape and "
        "adds nothing up. Each entry of the {result} is a sum of products over {over}: a matrix product, "
        "{product}.",
        "Use a matrix product (the @ operator, np.matmul), not *: it adds up the products, {product}.",
        "shapes"),
    "equal-weights": Entry(
        "Two different scores never get equal weights.",
        "Softmax of two scores depends only on their gap.",
        "softmax"),
    "exception": Entry(
        "Your function raised {raised} when called on {label}.",
        "{hint}",
        "generic"),
    "exit": Entry(
        "Your function called exit (SystemExit{code}), which would stop the whole program. A function hands "
        "back its answer with `return`.",
        "Remove the exit() / sys.exit() call and return the array instead.",
        "generic"),
    "fixed-axis-on-batch": Entry(
        "Your function is right on 2-D inputs but not with a batch axis in front: an axis counted from the "
        "front (axis=0 or axis=1) moves when a batch axis is added. On a (b, n, m) array axis=1 is the query "
        "axis, not the key axis. Count axes from the end so the same code works with any number of leading "
        "axes.",
        "Count axes from the end: axis=-1 is the key axis of any (..., n, m) array, whatever the number of "
        "leading axes; np.matmul treats leading axes as a batch.",
        "shapes"),
    "float16-bytes": Entry(
        "2 bytes per number is float16; float32 takes 4.",
        "{hint}",
        "counting"),
    "float64-bytes": Entry(
        "that is 8 bytes per score: float64 (float32 takes 4), or two arrays of float32 (the scores and the "
        "weights, say); the question asks for the scores alone, in float32.",
        "{hint}",
        "counting"),
    "forgot-append": Entry(
        "Your output attends to the cached keys and values alone: the new token's own k and v are "
        "missing (not appended to the cache, or blocked by a mask). Under the causal mask position "
        "t may see every position up to and including itself, so the step attends over the cache "
        "with k and v appended as its last row; at the first step the cache is empty and the new "
        "key is all there is.",
        "Append first: K_all = np.concatenate([K_cache, k], axis=-2), and the same for the values.",
        "decoding"),
    "forgot-cache": Entry(
        "Your output is the new token's own value v: it attends to its own key alone and never "
        "reads the cache. The point of the cache is that the new query meets the keys and values of"
        " every earlier position, kept from their own steps.",
        "Attend over the cache with the new key and value appended: (..., t + 1, d_k) keys.",
        "decoding"),
    "forgot-dk": Entry(
        "that leaves out the factor d_k: q . k is a sum of d_k products q_t k_t. Counting, that counts scores, "
        "not multiply-adds (each score is a dot product of d_k multiply-adds); as a variance, it is one "
        "product's (or a scaled score's), and variances of independent terms add.",
        "{hint}",
        "counting"),
    "forgot-dv": Entry(
        "that counts weights, not multiply-adds: each output entry sums m products of a weight and a value "
        "entry, and there are n x d_v of them.",
        "{hint}",
        "counting"),
    "forgot-heads": Entry(
        "that is one head's count; every head keeps scores of its own.",
        "{hint}",
        "counting"),
    "forgot-heads-and-layers": Entry(
        "that is one head of one layer; every head keeps scores of its own and every layer has attention of its "
        "own.",
        "{hint}",
        "counting"),
    "forgot-layers": Entry(
        "that is one layer's count; every layer has attention of its own, its scores all kept for the backward "
        "pass.",
        "{hint}",
        "counting"),
    "forgot-m": Entry(
        "that counts output entries, not multiply-adds: each output entry sums m products of a weight and a "
        "value entry, and there are n x d_v of them.",
        "{hint}",
        "counting"),
    "forgot-w-o": Entry(
        "Your function returns the concatenated heads, (n, heads * d_v), without the output "
        "projection. Concatenating only puts the heads side by side; W^O, (heads * d_v, d_model), "
        "mixes what the heads found and brings the width back to d_model, so the next layer gets "
        "vectors of the width it expects.",
        "After joining the heads side by side, multiply by W_o (heads * d_v, d_model).",
        "heads"),
    "full-score-matrix": Entry(
        "Your function {right}needs memory for the whole score matrix at once: on Q ({n}, 1), K ({m}, 1) with "
        "chunk_size={c}, its memory peaked at about as much as all n x m = {nm:,} scores ({nm_kb:.0f} kB in "
        "float64), where one chunk of scores is n x chunk_size = {nc:,} ({nc_kb:.0f} kB): it holds them all (or "
        "Python lists of all the keys, K.tolist(), which weigh about as much). Chunking exists to avoid that: "
        "memory must grow with n x chunk_size, not n x m.",
        "Compute the scores of one chunk at a time, Q @ K[start:start + chunk_size].T, inside the loop; never Q @ "
        "K.T for all keys.",
        "cost"),
    "full-width": Entry(
        "Each of your heads is d_model wide: every head got the whole row. A head works on its own "
        "slice of d_k = d_model / heads columns (64 = 512 / 8 in the paper); head h takes columns "
        "h*d_k to (h+1)*d_k.",
        "Each head gets d_k = d_model // heads columns, not all d_model of them.",
        "heads"),
    "global-max": Entry(
        "Your function subtracts one maximum shared by all queries (the largest score of the whole {array}) "
        "instead of each query's own maximum. That is exact in theory, but a query whose scores are all far "
        "below the overall maximum then has every exponential underflow to 0, and 0/0 gives NaN (here: "
        "{example}).",
        "Subtract each row's own maximum (one per query): np.max(scores, axis=-1, keepdims=True), shape (..., n, "
        "1).",
        "softmax"),
    "hardcoded-dk": Entry(
        "Your {what} matches dividing by 8 = sqrt(64) as a fixed number: that is right only for the paper's "
        "d_k = 64, and other heads have other widths ({sizes}).",
        "Read d_k from the queries, d_k = Q.shape[-1], rather than writing a number.",
        "scaling"),
    "heads-dk-swapped": Entry(
        "Your result is (d_k, n, heads): the number of heads and the width of a head have swapped "
        "places (X.reshape(n, d_model // heads, heads) puts d_k where the heads go). The reshape's "
        "middle axis counts the heads and its last axis the d_k columns of one head, so each row is"
        " cut into heads pieces of d_k columns: (n, heads, d_k), then the heads axis goes first.",
        "Reshape to (n, heads, d_model // heads), not (n, d_model // heads, heads), then move the "
        "heads axis to the front.",
        "heads"),
    "heads-last": Entry(
        "Your result is (n, heads, d_k): the right pieces, but the heads axis is not first. Each "
        "head must be a complete (n, d_k) attention problem, so heads comes first: (heads, n, d_k).",
        "After the reshape, move the heads axis to the front.",
        "heads"),
    "heads-summed": Entry(
        "You added the heads' outputs instead of concatenating them. A sum of (n, d_v) outputs "
        "throws away which head found what; the concatenation keeps each head in its own columns, "
        "(n, heads * d_v), and W^O learns how to combine them.",
        "Put the heads side by side along the last axis instead of adding them, then apply W_o.",
        "heads"),
    "ignored-mask": Entry(
        "In your {what} the mask changes nothing, as if there were no mask: blocked keys still get weight.",
        MASK_FIX,
        "mask"),
    "ignored-means": Entry(
        "That is footnote 4's answer for mean-0 components. Here the components have means: a product q_t k_t "
        "then has mean square E[q_t^2] E[k_t^2], and E[x^2] is the variance plus the square of the mean.",
        "var(q_t k_t) = E[q_t^2] E[k_t^2] - (E[q_t] E[k_t])^2, with E[x^2] = var(x) + mean(x)^2.",
        "scaling"),
    "ignores-m": Entry(
        "Your mask has shape (n, n): it ignores m. In cross-attention there are m keys, so the mask"
        " is n x m.",
        "Build it with both sizes: n rows (queries) and m columns (keys).",
        "mask"),
    "inf-times-zero": Entry(
        "Your function builds the masked scores with a product, scores * mask + (~mask) * -inf (or "
        "the like): on an allowed key that is score + 0 x (-inf), and 0 x inf is NaN in floating "
        "point, so every row with an allowed key turns to NaN. -inf can only be put in place, never"
        " multiplied in.",
        "Put -inf in place with np.where and the mask: it picks the score or -inf, and multiplies nothing.",
        "mask"),
    "integer-heads": Entry(
        "Your heads hold whole numbers: X[0, 0] is {value}, and your head 0 has {yours} there. The pieces are in "
        "the right places, but the fractions were cut off, by an integer array (np.zeros(..., dtype=int), "
        ".astype(int)) or by rounding: the projections are real numbers.",
        "Keep X's dtype: slice or reshape X itself, or make the result with np.zeros(..., dtype=X.dtype).",
        "heads"),
    "interleaved-columns": Entry(
        "Your heads take every heads-th column (head h gets columns h, h + heads, ...), as "
        "X.reshape(n, d_k, heads) does. Head h owns the contiguous block of columns h*d_k to "
        "(h+1)*d_k, which is what W_q of that head produces.",
        "Reshape so that each head's d_k columns stay together: (n, heads, d_k), not (n, d_k, "
        "heads).",
        "heads"),
    "inverse-dk": Entry(
        "1/d_k = {value} divides by d_k one time too many: a sum of more terms spreads more, not less, "
        "and the division by sqrt(d_k) applies to the unscaled score, whose variance is d_k, not 1.",
        VARIANCES_ADD,
        "scaling"),
    "inverse-sqrt-dk": Entry(
        "{value} = 1/sqrt(d_k) mixes up the score and its variance: a variance is in squared units, and it starts "
        "from the unscaled score's.",
        "Var(a X) = a^2 Var(X).",
        "scaling"),
    "inverted-mask": Entry(
        "Your mask is inverted, the wrong way round: True where attending is forbidden and False where it is "
        "allowed, so the blocked keys are the ones attended to. In this course (as in PyTorch's "
        "scaled_dot_product_attention) True means 'may attend'.",
        "Turn the mask around: True where the key may be attended to ({allowed}), False where it is blocked.",
        "mask"),
    "k-rows-n": Entry(
        "K has one row per key: m rows. n counts the queries; in cross-attention the keys come from the encoder "
        "and m != n.",
        SHAPES_HINT,
        "shapes"),
    "k-transposed": Entry(
        "K stores one key per row: (m, d_k). K^T, of shape (d_k, m), is what multiplies Q, but K itself is (m, "
        "d_k).",
        SHAPES_HINT,
        "shapes"),
    "k-width-dv": Entry(
        "Keys are compared with queries, so they are d_k wide; d_v is the width of the values.",
        SHAPES_HINT,
        "shapes"),
    "keys-from-decoder": Entry(
        "Your values come from X_enc, but your keys from X_dec, the decoder's own states. The "
        "scores then compare each decoder position with the decoder's positions (n x n), while the "
        "values have one row per source position (m): the keys must come from the same sequence as "
        "the values, X_enc through W_k, so the scores are n x m.",
        "Compute K = X_enc @ W_k, like V = X_enc @ W_v.",
        "heads"),
    "keys-from-queries": Entry(
        "Your values come from X_kv but your keys from X_q. The scores then compare each query with"
        " the queries' own sequence, (n, n), while the values have one row per position of X_kv "
        "(m): keys and values come from the same sequence read, X_kv, so the scores are (n, m). (On"
        " the self-attention case, where X_q is X_kv, your answer is right.)",
        "Project the keys from X_kv, like the values: K_h = X_kv @ W_k[h].",
        "heads"),
    "keys-not-chunked": Entry(
        "Your function gives the right output, but it does not take the keys chunk_size at a time: on Q ({n}, "
        "{width}), K ({m:,}, {width}) with chunk_size={c}, its memory peaked at more than a whole row of m = {m:,} "
        "scores ({m_kb:.0f} kB in float64) at once, as when one query meets all m keys in one product (Python "
        "lists of all the keys, K.tolist(), weigh as much). The problem asks for chunks of chunk_size keys, with "
        "a running maximum, sum and weighted sum for each query, so that memory grows with chunk_size, not with "
        "m.",
        "Inside your loop over chunks, use only the keys and values of the current chunk, sliced: K[start:start + "
        "chunk_size].",
        "cost"),
    "keys-times-queries": Entry(
        "You computed K Q^T: shape (m, n), one row per key. The scores have one row per query and one column "
        "per key, Q K^T (n, m), so that row i is query i's score for every key.",
        "Put Q first: one row per query.",
        "scores"),
    "kv-from-decoder": Entry(
        "Your keys and values come from X_dec, the decoder's own states: that is self-attention, "
        "and the encoder's output never reaches the decoder. In the cross-attention sublayer only "
        "the queries come from the decoder; the keys and values are the encoder's output X_enc "
        "projected by this sublayer's W_k and W_v, so the scores are n x m, one column per source "
        "position.",
        "Compute K = X_enc @ W_k and V = X_enc @ W_v; only Q = X_dec @ W_q comes from the decoder.",
        "heads"),
    "kv-from-queries": Entry(
        "Your keys and values come from X_q instead of X_kv: every head attends to the queries' own"
        " sequence. In cross-attention the queries ask (X_q), and the keys and values come from the"
        " sequence read (X_kv, m positions).",
        "Keys and values come from X_kv.",
        "heads"),
    "l1-length": Entry(
        "You multiplied by the sum of the absolute values of each value row; the length of a vector"
        " is the square root of the sum of squares.",
        "np.linalg.norm(V, axis=-1).",
        "average"),
    "last-head-only": Entry(
        "Every one of your heads uses the last head's projections W_q[-1], W_k[-1], W_v[-1]: a loop"
        " variable read after its loop ended (or one set of weights kept from the last pass) gives "
        "h copies of one head. Each head has its own projections.",
        "Inside the loop over h, use W_q[h], W_k[h] and W_v[h] of that same pass.",
        "heads"),
    "length-over-keys": Entry(
        "You took the norm over axis -2, down the keys, which gives one length per component of the"
        " value rows; each key's value row is a row of V, so its length runs along axis -1.",
        "np.linalg.norm(V, axis=-1) gives one length per key, (..., m).",
        "average"),
    "lengths-along-queries": Entry(
        "You took each value row's length (axis -1, right), but laid the lengths down a column, "
        "[..., :, None], one per row of the weights: the rows of the weights are the queries, and a"
        " key's length belongs to its column, so it multiplies weights[..., i, j] for every query "
        "i. (numpy refuses the product whenever n != m; where n = m it would multiply by the wrong "
        "key's length.)",
        "Put the new axis in front of the keys: np.linalg.norm(V, axis=-1)[..., None, :], shape "
        "(..., 1, m).",
        "average"),
    "lengths-only": Entry(
        "You returned each key's value length for every query, without the weights; a key adds its "
        "value row in proportion to its weight.",
        "Multiply the lengths by the weights.",
        "average"),
    "linear-in-n": Entry(
        "You counted one weight per token and head; a head computes one weight per (query, key) pair, so its "
        "weights grow as n x n, not n.",
        "Each head's weights form an n x n matrix.",
        "counting"),
    "loop-stops-short": Entry(
        "Your loop stops one key short, range(0, m - 1, chunk_size): whenever chunk_size does not "
        "reach the last key in its final chunk, key m - 1 is never seen (on K (7, 5) with "
        "chunk_size 1, 2 or 3, key 6; with one chunk of all 7 keys it is right). Every one of the m"
        " keys must take part.",
        "Loop over range(0, m, chunk_size): range stops before m by itself.",
        "cost"),
    "low-precision": Entry(
        "Your {what} on {label} is {dtype}: it is the right answer up to the rounding of {dtype}, which keeps "
        "about {digits} significant digits. The inputs are {inputs}, and the problem is judged at their "
        "precision (to float32 rounding at the coarsest), so a result cast to half precision is not the "
        "formula's answer: it could hide a mistake of 1 %.",
        "Leave out the cast (.astype(np.float16), np.half, or float16 arrays): compute and return in float32 or "
        "float64.",
        "generic"),
    "mask-added": Entry(MASK_ADDED, MASK_FIX, "mask"),
    "mask-after-softmax": Entry(
        "Your function applies the mask after the softmax (and does not renormalise): blocked weights are 0, "
        "but each row now sums to less than one, and the blocked keys' scores are still in the softmax's "
        "denominator, so what should be hidden (the future, the padding) still changes every weight.",
        MASK_FIX,
        "mask"),
    "mask-on-values": Entry(
        "Your function applies the mask to V (zeroing the value rows of blocked keys) instead of to"
        " the scores. The blocked keys still take their share of the weights, which now multiply "
        "zeros, so each output is pulled towards 0 rather than averaged over the allowed keys.",
        "Mask the scores before the softmax: np.where(mask, scores, -np.inf); leave V as it is.",
        "mask"),
    "mask-zero": Entry(
        "Your function sets blocked scores to 0 (filling 0, or multiplying the scores by the mask) instead of "
        "-inf. exp(0) = 1, so blocked keys still get weight; only -inf gives exp(-inf) = 0 exactly.",
        MASK_FIX,
        "mask"),
    "masked-array": Entry(
        "You returned a numpy masked array; its blocked entries print as -- but hold other numbers, which any "
        "plain numpy code that uses your {what} gets: return a plain array {blocked}, e.g. by filling.",
        "Fill the masked entries and return a plain array: np.ma.filled(result, 0.0).",
        "generic"),
    "masked-cache": Entry(
        "Your step masks the cache with a causal mask laid out as for a square score matrix: row 0 "
        "of np.tril lets the new query see only the first position. The new token is the latest "
        "position, so every cached key is earlier than it: the causal mask blocks nothing in this "
        "row, and the step needs no mask at all.",
        "Drop the mask: the new query's row of the causal mask is all True.",
        "decoding"),
    "masks-queries": Entry(
        "Your pattern is right, but the mask is (batch, m, 1): it runs along the query axis. "
        "Against scores (batch, n, m) it would block query rows, not key columns, and a padding "
        "position would still be attended to.",
        "Put the axis of length 1 in the middle, where the queries go: shape (batch, 1, m).",
        "mask"),
    "max-before-mask": Entry(
        "Your function puts -inf in the blocked scores but takes each row's maximum from the scores"
        " before the mask. The maximum must come from the masked scores: here a blocked key scores "
        "1000 more than the allowed ones, so it becomes the maximum, every allowed exponential "
        "underflows to 0, and the row is 0/0 (NaN).",
        "Take the maximum of the masked scores, after -inf is in place.",
        "mask"),
    "max-never-updated": Entry(
        "Your running maximum is never updated after the first chunk. That is still exact while no "
        "later score is far above it, but here keys 4 to 7 score about 900 more than the first "
        "chunk's, exp(900) overflows to inf, and inf / inf is NaN.",
        "After each chunk: new_max = np.maximum(running_max, chunk_max); rescale the sums by "
        "np.exp(running_max - new_max); then running_max = new_max.",
        "cost"),
    "max-not-running": Entry(
        "Your new maximum is each chunk's own maximum, not np.maximum(running_max, chunk_max). "
        "Rescaling by exp(old_max - new_max) keeps that exact in theory, but the reference can then"
        " fall: after a chunk far below an earlier one, exp(old_max - new_max) overflows (exp(710) "
        "is inf) and the sums become inf or NaN.",
        "The running maximum is the largest score seen so far: it may rise, never fall.",
        "cost"),
    "max-starts-at-zero": Entry(
        "Your running maximum starts at 0 instead of -inf. While some score is above 0 that changes"
        " nothing, but here every score is near -1000: the maximum stays 0, exp(score - 0) "
        "underflows to 0 for every key (below about -745 in float64), and 0 / 0 gives NaN.",
        "Start with running_max = np.full((n, 1), -np.inf): the first chunk's maximum then replaces"
        " it.",
        "cost"),
    "max-wrong-axis": Entry(
        "Your softmax subtracts each column's maximum instead of each row's. Adding one constant to a whole row "
        "changes nothing, but a different constant for each entry of a row (one per column) changes the weights "
        "(and with a mask, a column whose keys are all blocked gives NaN).",
        "Subtract each row's maximum: np.max(x, axis=-1, keepdims=True).",
        "softmax"),
    "mean-not-sum": Entry(
        "Your {term} is a mean over the keys where the equation has a sum: divided by m once too often. The "
        "weights of a row already sum to one, so their weighted sum is already an average; dividing by m as "
        "well makes it m times too small.",
        "Add up over the keys (np.sum, or a matrix product); do not divide by the number of keys.",
        "average"),
    "mean-not-variance": Entry(
        "0 is the mean of a score; the question asks for its variance (the spread).",
        "The mean is 0, but the spread is not: each product q_i k_i has variance 1.",
        "scaling"),
    "means-not-squared": Entry(
        "You added the product of the means to var_q var_k. A mean enters a product's variance through the mean "
        "squares E[x^2] = var(x) + mean(x)^2, so the means come in squared, and in cross terms with the other "
        "factor's variance.",
        "Expand (var_q + mean_q^2)(var_k + mean_k^2), then subtract (mean_q mean_k)^2.",
        "scaling"),
    "mean-square-not-variance": Entry(
        "That is the mean square of q . k's products, E[q_t^2] E[k_t^2] added d_k times; a variance subtracts the "
        "square of each product's mean, E[q_t] E[k_t].",
        "var(x) = E[x^2] - (E[x])^2, for each product.",
        "scaling"),
    "missing-outer-weights": Entry(
        "Your dS is dP - rowsum(dP * P), without the factor P in front. Every entry of the "
        "softmax's Jacobian carries the weight it differentiates, dp_j/ds_k = p_j (delta_jk - p_k),"
        " so dS_k = p_k (dP_k - sum_j dP_j p_j): a key with almost no weight passes almost no "
        "gradient back to its score.",
        "Multiply the whole bracket by the weights P, entry by entry.",
        "backward"),
    "missing-query-axis": Entry(
        "Your pattern is right, but the mask is (batch, m), with no axis for the queries. Against "
        "scores (batch, n, m), numpy lines up the last axes: your batch axis meets the n queries, "
        "so sequence b's mask would be used for query b (or the shapes fail to broadcast).",
        "Add an axis of length 1 for the queries, between the batch and the keys: shape (batch, 1, "
        "m).",
        "mask"),
    "missing-row-sum": Entry(
        "Your dS is P * dP: the row-sum term is missing. Every weight of a row depends on every "
        "score of that row (they share one denominator), so the Jacobian dp_j/ds_k = p_j (delta_jk "
        "- p_k) has off-diagonal entries -p_j p_k. Summed over j they give the term -p_k * sum_j "
        "dP_j p_j: you kept only the delta_jk part.",
        "Subtract each row's sum of dP * P from dP before multiplying by P.",
        "backward"),
    "mixed-keys": Entry(
        "Your output mixes the rows of K, not of V. Keys are what queries are compared with; V "
        "holds what is heard, so the output is weights @ V, a weighted average of value rows, of "
        "width d_v.",
        "Multiply the weights by V: output = weights @ V.",
        "attention"),
    "mixed-queries": Entry(
        "Your output mixes the rows of Q, not of V. The weights decide who is listened to; V holds "
        "what is heard, so the output is weights @ V, a weighted average of value rows, of width "
        "d_v.",
        "Multiply the weights by V: output = weights @ V.",
        "attention"),
    "more-for-times": Entry(
        "That counts how many more there are, not how many times as many: a factor divides the new amount by the "
        "old one.",
        "Twice as many is a factor of 2, though it is only 1 more of the old amount.",
        "generic"),
    "multiplied-by-temperature": Entry(
        "You multiplied the scores by the temperature instead of dividing. Then T < 1 flattens the "
        "weights and T > 1 sharpens them, the opposite of a temperature: dividing by a small T "
        "widens the gaps between scores, and the largest takes more weight.",
        "Divide the scores by the temperature first, then take the stable softmax of each row.",
        "softmax"),
    "multiply-by-sqrt-dk": Entry(
        "Your {what} matches the scores multiplied by sqrt(d_k) instead of divided by it: the scores grow to "
        "variance d_k^2 instead of shrinking to variance 1, and the softmax gets sharper. A factor on the scores "
        "carries into everything computed from them, their gradient with respect to Q included.",
        "Divide by np.sqrt(d_k), with d_k = {d_k}, as the forward pass does.",
        "scaling"),
    "naive-overflow": Entry(
        "Your {what} is right on small scores, but on {label} it gives NaN or inf: it does not subtract each "
        "row's maximum before np.exp{when}. " + OVERFLOW,
        FIX_OVERFLOW,
        "softmax"),
    "naive-softmax-overflow": Entry(
        "Your attention is right on small scores but gives NaN or inf on {label}. Exponentials of "
        "scores near 1000 overflow: exp(710) is already above the largest float64 (about 1.8e308), "
        "and inf / inf is NaN.",
        "Subtract each row's maximum before np.exp: x - np.max(x, axis=-1, keepdims=True). Adding a"
        " constant to a row does not change its softmax, and the largest exponent becomes exp(0) = "
        "1.",
        "softmax"),
    "neg-inf-not-zero": Entry(
        "For {label}, weight {at} belongs to an entry of -inf but is {value}: exp(-inf) = 0, so it must be "
        "exactly 0.{tiny}",
        "Put -inf in the blocked scores before np.exp, and do not replace it afterwards{no_floor}",
        "softmax"),
    "negative-weights": Entry(
        "For {label}, weight {at} is {value}: weights are exponentials divided by a positive sum, so none can "
        "be negative.",
        "Apply np.exp before dividing by the row sum.",
        "softmax"),
    "new-token-twice": Entry(
        "Your step attends over the new key and value twice: they were appended to the cache, and "
        "then appended again (a cache updated in place and concatenated once more, say). The new "
        "position then counts double in the softmax, as two keys with the same score.",
        "Append k and v once: K_all = np.concatenate([K_cache, k], axis=-2), the same for V; use "
        "K_all and V_all from there on.",
        "decoding"),
    "next-token": Entry(
        "You took the key just after each query (weights[i, i+1]). In weights[..., i, j] the row i "
        "is the query and the column j the key; the previous token of query i is key i - 1.",
        "np.diagonal(weights, offset=-1, axis1=-2, axis2=-1) holds weights[i, i-1] for i = 1 .. "
        "n-1.",
        "positions"),
    "no-<name>-parameter": Entry(
        "Without {name} your function is right on all {count} cases, but it cannot take {name}: it is defined "
        "as {defined}, and {checker} also calls fn({params}, {name}=...).",
        "Add a parameter {name}=None, and use it when it is given.",
        "generic"),
    "no-batch": Entry(
        "Your function is right on every 2-D input, but not on {label}: it {what}. The problem asks for any "
        "number of leading (batch) axes: anything that assumes exactly two axes (.T, axis=0 or axis=1, "
        "x.shape[0], a loop over rows) goes wrong on other shapes.",
        "Count axes from the end: axis=-1 for the keys, np.swapaxes({x}, -1, -2) instead of {x}.T{d_k}; @ "
        "(np.matmul) multiplies the last two axes and broadcasts the rest.",
        "shapes"),
    "no-division": Entry(
        "In your {what}, the exponentials are used without dividing each row by its sum (never divided): the rows "
        "do not sum to one, so they are not weights yet (each row is the right weights times a constant), and an "
        "output mixed with them is not an average of value rows.",
        "Divide each row of exponentials by its sum: e / np.sum(e, axis=-1, keepdims=True).",
        "softmax"),
    "no-final-division": Entry(
        "Your output is the running sum of exp(score - max) times value rows, never divided by the "
        "running sum of exponentials: the weights do not sum to one.",
        "Return running_out / running_sum at the end.",
        "cost"),
    "no-keepdims": Entry(
        "A row statistic (a sum or a maximum) lost its axis (no keepdims=True): np.sum(e, axis=-1) has shape "
        "(..., n), and numpy lines it up with the key axis of an (..., n, m) array, so key j gets row j's "
        "statistic instead of its own row's. It fails when n != m and is silently wrong when n == m.",
        "Add keepdims=True, so the statistic has shape (..., n, 1) and broadcasts along each row.",
        "softmax"),
    "no-rescale": Entry(
        "When a chunk raises the running maximum, your old running sums are not multiplied by "
        "exp(old_max - new_max). They stay measured against the old maximum while the new terms use"
        " the new one, so the early chunks count too much. With one chunk (chunk_size >= m) nothing"
        " needs rescaling, which is why that case is right.",
        "Before adding a chunk: correction = np.exp(running_max - new_max); running_sum = "
        "running_sum * correction + ...; running_out = running_out * correction + ....",
        "cost"),
    "no-running-max": Entry(
        "Your chunked attention is right on small scores but gives NaN or inf on {label}: the "
        "exponentials are taken without subtracting a running maximum. Exponentials of scores near "
        "1000 overflow: exp(710) is already above the largest float64 (about 1.8e308), and inf / "
        "inf is NaN.",
        "Keep running_max, the largest score seen so far for each query; take exp(scores - "
        "new_max), and rescale the old sums by exp(old_max - new_max) when it grows.",
        "cost"),
    "no-scale": Entry(
        "Your gradient is sqrt(d_k) times too large: the scale was forgotten. The scores are Q K^T "
        "/ sqrt(d_k), so the chain rule carries that factor into dQ = d_scores K / sqrt(d_k), and "
        "from there into dW_q = X^T dQ.",
        "Divide d_scores @ K by np.sqrt(d_k), with d_k = K.shape[-1].",
        "backward"),
    "no-scaling": Entry(
        "Your {what} matches scores never divided by sqrt(d_k). A score is a sum of d_k products, so its spread "
        "grows like sqrt(d_k) (with unit-variance components, a standard deviation of 8 at d_k = 64); "
        "unscaled, the softmax gets sharper as d_k grows, its rows turn nearly one-hot and its gradients "
        "vanish. Every head, chunk and decoding step is the same equation, softmax(Q K^T / sqrt(d_k)) V, and "
        "scales its scores the same way.",
        "Divide the scores by np.sqrt(d_k), with d_k = {d_k}, before the softmax.",
        "scaling"),
    "no-transpose": Entry(
        "You left out a transpose, so the wrong numbers meet. Your scores multiply Q by K, not by K transposed: Q "
        "(n, d_k) times K (m, d_k) only runs when m = d_k, and then entry (i, j) dots query i with column j of "
        "K, not with key j; the scores need K^T, (n, d_k) x (d_k, m) -> (n, m). Heads are cut the same way: "
        "(n, d_model) reshaped straight to (heads, n, d_k) is filled in reading order, so head 0 takes whole "
        "rows of several positions and mixes them.",
        "Swap only the axes that must swap: K^T is np.swapaxes(K, -1, -2); heads are cut as (n, heads, d_k) "
        "first, and then the heads axis moves to the front.",
        "shapes"),
    "non-finite-output": Entry(
        "For {label}, your {what} has NaN or inf ({where}); the right {what} is finite.{extra}",
        "Look for 0/0: a mean or a division over nothing (an empty range or slice, at the smallest size the "
        "problem allows), or a row whose exponentials all underflow to 0; then for exp of large numbers, or -inf "
        "reaching a product.",
        "generic"),
    "not-a-number": Entry(
        "{what} should be a number, like {examples}; got {got}.",
        "Write the number itself: not in quotes, not inside a list or a tuple.",
        "generic"),
    "not-a-shape": Entry(
        "{got} is not a shape check_shapes can read: it expects a dict of shapes such as {{'Q': (n, d_k), "
        "'scores': (n, m)}}, each a tuple of sizes, in numbers or in the names n, m, d_k, d_v.",
        "",
        "shapes"),
    "not-an-array": Entry(
        "Your function returned {returned}, not an array of {numbers}.",
        "Return a numpy array of the {what}{kind}, built with numpy operations on the inputs.",
        "generic"),
    "not-an-average": Entry(
        "For {label}, entry {at} of your output is {value}, outside the range of column {column} of V ({low} to "
        "{high}). Each output row is a weighted average of value rows (weights >= 0 summing to one), so it must "
        "lie inside them.",
        "Check that each row of your weights is non-negative and sums to one.",
        "average"),
    "not-an-option": Entry(
        "{answer} is not one of the options; answer with one of: {options}.",
        'Write the option\'s label as a string, e.g. answer = "{first}".',
        "generic"),
    "not-boolean": Entry(
        "Your mask has the right pattern but dtype {dtype}, not bool. A number mask misbehaves: {trouble}.",
        "Make it boolean: build it from a comparison and keep its result (no cast to int or float), or give "
        "dtype=bool.",
        "mask"),
    "not-bytes": Entry(
        "that is {unit} ({size} bytes); the question asks for bytes.",
        "{hint}",
        "counting"),
    "not-callable": Entry(
        "{checker} needs your function itself, but it got {got}. Pass the name without calling it: "
        "{checker}(my_function), not {checker}(my_function(...)).",
        "",
        "generic"),
    "not-shift-invariant": Entry(
        "Adding 3 to every score changed your weights. A softmax must not change when a constant is added to a "
        "row: exp(x + c) = exp(c) exp(x), and exp(c) cancels in the division.",
        "Compute exp of the (shifted) scores, and divide by the sum of those same exponentials.",
        "softmax"),
    "not-the-first": Entry(
        "The question asks for the first length at which the weights outnumber the parameters, and that takes the "
        "count at your n and at the lengths next to it: one length alone cannot show it is the first.",
        "Put your n into the count of weights, compare it with the parameters, and do the same for its neighbours.",
        "counting"),
    "notebooks-answer": Entry(
        "That is the answer for the notebook's own numbers, not for this variant's, whose numbers are different. "
        "The idea is the same: work it through again with the numbers above.",
        "{hint}",
        "generic"),
    "np-dot-on-batch": Entry(
        "Your function is right on 2-D inputs but not with a batch axis in front: np.dot (like "
        "np.tensordot) does not treat leading axes as a batch. On weights (b, n, m) and V (b, m, "
        "d_v) it pairs every sentence's weights with every sentence's values, giving (b, n, b, "
        "d_v).",
        "Use np.matmul (the @ operator), which multiplies the last two axes and treats the others "
        "as a batch.",
        "average"),
    "off-by-one": Entry(
        "Your mask is off by one key: sequence b owns keys 0 to lengths[b] - 1 (keys are counted "
        "from 0), so key lengths[b] is the first padding position. A sequence of length 3 owns keys"
        " 0, 1 and 2.",
        "Keep key j exactly when j < lengths[b] (a strict comparison).",
        "mask"),
    "one-head": Entry(
        "That is where a single head's n x n weights would get there; the model has {layers} x {heads} heads.",
        "Count every layer and every head: n x n weights each.",
        "counting"),
    "one-head-per-layer": Entry(
        "That counts one head per layer; each layer has {heads} heads, each with its own n x n weights.",
        "Count every layer and every head: n x n weights each.",
        "counting"),
    "one-layer": Entry(
        "That is where one layer's {heads} heads alone would get there; each of the {layers} layers computes its "
        "own weights for the same sentence.",
        "Count every layer and every head: n x n weights each.",
        "counting"),
    "one-length": Entry(
        "You multiplied every weight by one number, the norm of the whole of V; each key has its "
        "own value row, and its own length.",
        "np.linalg.norm(V, axis=-1) gives one length per key (per batch entry).",
        "average"),
    "one-when-unscaled": Entry(
        "1 is the variance of one product q_i k_i, or of the score after the division by sqrt(d_k); the unscaled "
        "score is a sum of products, and variances of independent terms add.",
        VARIANCES_ADD,
        "scaling"),
    "only-means-product": Entry(
        "You added the product of the squared means to var_q var_k; expanding E[q_t^2] E[k_t^2] also gives the "
        "cross terms var_q mean_k^2 and var_k mean_q^2, and the squared means cancel.",
        "Expand (var_q + mean_q^2)(var_k + mean_k^2), then subtract (mean_q mean_k)^2.",
        "scaling"),
    "output-is-weights": Entry(
        "(n, m) is the shape of the weights; the output multiplies them by V: (n, m) x (m, d_v) -> (n, d_v).",
        SHAPES_HINT,
        "shapes"),
    "output-rows-m": Entry(
        "There is one output row per query: n rows, not m.",
        SHAPES_HINT,
        "shapes"),
    "output-transposed": Entry(
        "The output is transposed, (..., d_v, n): one row per value component and one column per query (V^T "
        "weights^T, say). Output row i belongs to query i: (..., n, m) x (..., m, d_v) -> (..., n, d_v), not "
        "(d_v, n).",
        "Put the weights first and V second, without transposing either.",
        "average"),
    "output-width-dk": Entry(
        "An output row is a mix of value rows, so it has width d_v, not d_k.",
        SHAPES_HINT,
        "shapes"),
    "percent-for-share": Entry(
        "Your answer reads as a percentage; the problem asks for a share, a plain number between 0 and 1, the way "
        "the course writes weights.",
        "A share of one half is 0.5, not 50.",
        "generic"),
    "positions-last": Entry(
        "Your result is (heads, d_k, n): each head is transposed, one column per position. Rows are"
        " positions, so a head is (n, d_k).",
        "Choose the axis order that keeps positions before widths: (heads, n, d_k).",
        "heads"),
    "power-after-softmax": Entry(
        "You raised the weights to the power 1 / temperature after the softmax. That does change "
        "their ratios as dividing the scores would (w^(1/T) is proportional to exp(scores / T)), "
        "but the rows no longer sum to one: the normalisation happened before the power.",
        "Divide the scores by the temperature before the softmax, so that its division normalises "
        "the rows last.",
        "softmax"),
    "power-precedence": Entry(
        "Your scores are divided by 2 d_k (or by d_k / 2): `d_k ** 1/2` reads as (d_k ** 1) / 2, "
        "because ** binds tighter than /. Inline, `scores / d_k ** 1/2` divides by d_k and then by "
        "2; computed first, `scale = d_k ** 1/2` is d_k / 2. The square root is d_k ** 0.5, or d_k "
        "** (1/2) with the exponent in brackets.",
        "Write np.sqrt(d_k), or d_k ** 0.5.",
        "scaling"),
    "q-rows-m": Entry(
        "Q has one row per query: n rows. m counts the keys (in cross-attention, the encoder's positions).",
        SHAPES_HINT,
        "shapes"),
    "q-transposed": Entry(
        "Q stores one query per row: (n, d_k), not (d_k, n).",
        SHAPES_HINT,
        "shapes"),
    "q-width-dv": Entry(
        "Queries are compared with keys, so they share the keys' width d_k; d_v is the width of the values.",
        SHAPES_HINT,
        "shapes"),
    "queries-from-encoder": Entry(
        "Your queries come from X_enc and the keys and values from X_dec: the roles are swapped. "
        "The decoder asks (its n positions give the queries, and the output has one row per query, "
        "n rows); the encoder's output is what is read, so it gives the keys and values.",
        "Q = X_dec @ W_q; K and V from X_enc.",
        "heads"),
    "queries-from-keys": Entry(
        "Your scores use the new token's key k where its query q belongs: the step asks with q and "
        "is answered by the keys, the cached ones and k.",
        "Score q against the keys: q @ K_all^T.",
        "decoding"),
    "queries-from-kv": Entry(
        "Your queries come from X_kv and the keys and values from X_q: the roles are swapped. The "
        "queries ask, so they come from the sequence being written (X_q, n positions); keys and "
        "values come from the sequence read (X_kv, m positions). The output has one row per query: "
        "(n, d_model).",
        "Queries come from X_q; keys and values come from X_kv.",
        "heads"),
    "queries-transposed": Entry(
        "You transposed Q instead of K: Q^T K pairs the columns of Q (its d_k features) with the "
        "rows of K, and only runs when n = m. Each score dots one query row with one key row, so "
        "the rows of Q stay rows and K is the one turned on its side: (n, d_k) x (d_k, m) -> (n, "
        "m).",
        "Transpose K, not Q: swap the last two axes of K, and keep Q as it is.",
        "scores"),
    "renormalised": Entry(
        "You divided each row by its sum, which gives each key's share of the row; the problem asks"
        " for the weight times the length itself, whose row sums say how much the head adds.",
        "Leave out the division by the row sum.",
        "average"),
    "rescale-inverted": Entry(
        "Your correction is exp(new_max - old_max), the wrong way round: a running maximum only "
        "grows, so the old sums must shrink by exp(old_max - new_max) <= 1 to be measured against "
        "the new maximum. Yours grows them instead, and at the first chunk, where the old maximum "
        "is -inf, it is exp(+inf) = inf (times a sum of 0: NaN).",
        "correction = np.exp(running_max - new_max): the old maximum minus the new one.",
        "cost"),
    "rescale-output-only": Entry(
        "You rescale the running sum of value rows when the maximum changes, but not the running "
        "sum of exponentials (the denominator). Both need the factor exp(old_max - new_max).",
        "Multiply running_sum by the same correction as running_out.",
        "cost"),
    "rescale-sum-only": Entry(
        "You rescale the running sum of exponentials when the maximum changes, but not the running "
        "sum of value rows. Both are sums of exp(score - running_max) terms, so both need the "
        "factor exp(old_max - new_max).",
        "Multiply running_out by the same correction as running_sum.",
        "cost"),
    "result-transposed": Entry(
        "Your result is (d_k, d_model): dQ^T X, the transpose of dW_q. W_q maps an input row of "
        "width d_model to a query of width d_k, so W_q and its gradient are (d_model, d_k).",
        "Put X first: X^T dQ.",
        "backward"),
    "returned-d-weights": Entry(
        "Your function returns dP unchanged: it does not go back through the softmax at all. dS is "
        "what the loss's change looks like one step earlier, after the softmax's Jacobian.",
        "dP is what you receive; dS, the gradient with respect to the scores, goes through the "
        "softmax's Jacobian.",
        "backward"),
    "returned-heads": Entry(
        "Your function returns the heads' outputs stacked, (heads, n, d_v): one output per head, "
        "not yet one per position. Multi-head attention puts the heads side by side for each "
        "position, (n, heads * d_v), and maps that with W^O to (n, d_model).",
        "Concatenate along the last axis, then multiply by W_o.",
        "heads"),
    "returned-list": Entry(
        "Your function returned a Python list of {count} items; the problem asks for an array of the {what}. A "
        "list has no .shape, no dtype and no batch axes to broadcast over: np.stack(...) or np.array(...) turns "
        "it into one.",
        "Return np.stack(pieces) (or np.array(...)) instead of the list of pieces, and check its shape.",
        "generic"),
    "returned-none": Entry(
        "Your function returned None instead of the {what}: is a `return` missing?",
        "End the function with `return` and the {what}; a function without one returns None.",
        "generic"),
    "returned-output": Entry(
        "You returned weights @ V, the head's output (n, d_v). The problem asks for one number per "
        "(query, key) pair: each weight times the length of that key's value row, (..., n, m).",
        "Take the length of each value row, np.linalg.norm(V, axis=-1), and multiply each column of"
        " the weights by its key's length.",
        "average"),
    "returned-scores": Entry(
        "Your function returns the scaled scores Q K^T / sqrt(d_k), before the softmax and before "
        "V.",
        "Take the softmax of each row of the scores, then multiply by V.",
        "attention"),
    "returned-tuple": Entry(
        "Your function returned a tuple of {count} items; return the {what} alone, as one array.",
        "Return only the {what}: `return a, b` makes a tuple, so keep anything else you computed (the weights, "
        "say) out of the return statement.",
        "generic"),
    "returned-weights": Entry(
        "Your function returns the weights {shape}, not the output. The weights say how much each "
        "query listens to each key, who is listened to; the output is what is heard: the weights times the "
        "values, {product}.",
        "Multiply the weights by the values ({values}) and return that.",
        "average"),
    "rounded-down": Entry(
        "A square root of parameters / (layers x heads), rounded either way, is a guess at the edge: the question "
        "asks for the first length whose weights outnumber the parameters, which only the count itself can settle.",
        "Put your n into the count of weights, compare it with the parameters, and do the same for its neighbours.",
        "counting"),
    "rounded-sqrt": Entry(
        "You rounded sqrt(d_k) to a whole number (math.isqrt, int(np.sqrt(d_k)), round(d_k ** 0.5) "
        "or an integer division): that is right only when d_k is a perfect square such as 64. At "
        "d_k = 8 the standard deviation of a raw score is sqrt(8) = 2.83, and dividing by 2 or 3 "
        "leaves the scores too wide or too narrow.",
        "Keep the square root a float: np.sqrt(d_k) or d_k ** 0.5, with no int() or round() around "
        "it.",
        "scaling"),
    "rounded-too-coarsely": Entry(
        "Your answer is the right number rounded to {places}, coarser than the problem judges it ({precision}): "
        "the digits you dropped are part of the answer.",
        "Keep more digits and round only at the end, no coarser than the precision the problem states.",
        "generic"),
    "row-sum-added": Entry(
        "Your dS adds the row-sum term where it subtracts it: P * (dP + rowsum(dP * P)). Raising "
        "one score takes weight from every other key of its row (dp_j/ds_k = -p_j p_k for j != k), "
        "so the row's weighted average of dP comes off: dS = P * (dP - rowsum(dP * P)).",
        "Subtract the row's weighted average of dP: dP - np.sum(dP * P, axis=-1, keepdims=True).",
        "backward"),
    "row-sum-without-weights": Entry(
        "Your row-sum term sums dP alone, without weighting it by P. The term comes from sum_j dP_j"
        " dp_j/ds_k with dp_j/ds_k = -p_j p_k for j != k: each dP_j is weighted by its own p_j.",
        "The row term is the weighted average of dP: weigh each entry by its P before summing the "
        "row.",
        "backward"),
    "rows-not-one": Entry(
        "For {label}, row {row} of your weights sums to {total}, not 1. Each row is one query's distribution "
        "over the keys.",
        "Divide each row by its own sum: e / np.sum(e, axis=-1, keepdims=True).",
        "softmax"),
    "same-length-for-all": Entry(
        "Your mask uses one length for every sequence of the batch (the first, or the longest). "
        "Each sequence b was padded by its own amount, so row b of the mask must keep its own "
        "lengths[b] keys.",
        "Compare the key positions with every sequence's own length at once: one row per sequence, "
        "(batch, m).",
        "mask"),
    "scaled-after-softmax": Entry(
        "Your output matches softmax(Q K^T) V / sqrt(d_k): the division came after the softmax. It "
        "must change the scores, before the softmax; divided weights no longer sum to one, so each "
        "output is no longer an average of value rows.",
        "Divide the scores, then take the softmax, then multiply by V.",
        "scaling"),
    "scaled-by-dv": Entry(
        "Your {what} matches scores divided by sqrt(d_v), the width of the values: the scale was read from V. "
        "It belongs to the dot products of queries with keys, which have d_k = {d_k} terms; d_v never enters "
        "them, and here d_k and d_v differ.",
        "Take the scale from the queries' width: d_k = {d_k}.",
        "scaling"),
    "scaled-too-early": Entry(
        "You divided the scores (by sqrt(d_k), or by d_k). Scaling is the next step (notebook 03); "
        "this function returns the raw dot products Q K^T, entry (i, j) = query i . key j.",
        "This problem asks for the raw dot products: leave out the division.",
        "scores"),
    "scaled-twice": Entry(
        "Your gradient carries 1/sqrt(d_k) twice (1/d_k in all): dQ = d_scores @ K / sqrt(d_k) "
        "already carries the forward pass's factor, so dW_q = X^T dQ must not divide again (or dQ "
        "was divided by d_k instead of sqrt(d_k), or Q was scaled by 1/sqrt(d_k) in the forward "
        "pass and the scores divided again). The chain rule carries exactly the forward pass's "
        "factor, once.",
        "Divide by np.sqrt(d_k) once, where dQ is formed.",
        "backward"),
    "scores-square": Entry(
        "{a} x {a} would be self-attention, queries and keys from one sequence; here they come from two sequences"
        " of different lengths, and there is one of the scores for every (query, key) pair.",
        SHAPES_HINT,
        "shapes"),
    "scores-transposed": Entry(
        "The scores are transposed, (m, n): one row per key instead of one per query (K Q^T, say). The scores are "
        "Q K^T, one row per query and one column per key: (n, m), not (m, n); a softmax of K Q^T spreads each "
        "key over the queries.",
        "scores = Q @ K^T, so row i belongs to query i.",
        "scores"),
    "scores-width-dk": Entry(
        "Each score is a single number, a dot product: its d_k terms are summed away. There is one per (query, "
        "key) pair: (n, m).",
        SHAPES_HINT,
        "shapes"),
    "scores-width-dv": Entry(
        "A row of scores has one entry per key: length m; it knows nothing about d_v.",
        SHAPES_HINT,
        "shapes"),
    "self": Entry(
        "You took each query's weight on itself (the main diagonal), not on the token before it.",
        "Use offset=-1: the diagonal just below the main one.",
        "positions"),
    "self-attention-on-kv": Entry(
        "Your queries come from X_kv too, so every head is self-attention on the sequence read: one"
        " output row per key position, (m, d_model). In cross-attention only the keys and values "
        "come from X_kv; the queries ask from the sequence being written, X_q, so the output has "
        "one row per query, (n, d_model). (On the self-attention case, where X_q is X_kv, your "
        "answer is right.)",
        "Each head's queries are projected from X_q; only its keys and values come from X_kv.",
        "heads"),
    "shape-transposed": Entry(
        "Your mask has shape (m, n); it should be (n, m): one row per query, one column per key.",
        "Rows are queries: shape (n, m).",
        "mask"),
    "shared-projection": Entry(
        "One projection matrix does two jobs: {which}. Each head, and each attention sublayer, has its own W_q for "
        "what is asked, W_k for what each position offers and W_v for what it passes on; with a shared matrix the "
        "heads compute the same thing, or a query scores highest the position that looks most like itself, whatever"
        " the model has learned to ask.",
        "Use W_q for the queries, W_k for the keys, W_v for the values, each head (h) its own W_q[h], W_k[h], "
        "W_v[h].",
        "heads"),
    "sign-flipped": Entry(
        "Your {what} has the right size and the wrong sign. The chain rule carries no extra minus sign: raising "
        "score k raises its own weight (dp_k/ds_k = p_k (1 - p_k) > 0), and the minus of gradient descent "
        "belongs to the update, W -= lr * dW, not to the gradient. With the sign in both places, gradient "
        "descent climbs the loss.",
        "Check the order of each subtraction, and leave the minus to the update step.",
        "backward"),
    "small-fill": Entry(SMALL_FILL, MASK_FIX, "mask"),
    "softmax-no-keepdims": Entry(
        "A row statistic of your softmax (the sum or the max) lost its axis: np.sum(e, axis=-1) has"
        " shape (n,), and dividing an (n, m) array by it divides column j by the sum of row j. It "
        "fails when n != m and is silently wrong when n == m.",
        "Add keepdims=True, so the sums have shape (n, 1) and each row is divided by its own sum.",
        "softmax"),
    "softmax-whole-array": Entry(
        "Your weights sum to one over the whole array, not along each row: each query shares its "
        "own attention among the keys, so every row must sum to one.",
        "Give the maximum and the sum axis=-1 and keepdims=True.",
        "softmax"),
    "softmax-whole-matrix": Entry(
        "Your function normalises the whole array at once (the whole score matrix: a sum with no axis): all n*m "
        "weights together sum to one, so each row sums to far less than one. Softmax acts on each row separately.",
        "Sum each row separately: np.sum(e, axis=-1, keepdims=True).",
        "softmax"),
    "softmax-wrong-axis": Entry(
        "Your weights sum to one down each column (a softmax over the queries, axis 0 or -2) instead of along "
        "each row. Each query shares its attention among the keys: its row of weights is its distribution over "
        "them, and the softmax runs along the last axis.",
        "Use axis=-1, with keepdims=True, in the maximum and the sum of the softmax.",
        "softmax"),
    "split-positions": Entry(
        "You split X along axis 0, the positions: np.split(X, heads, axis=0) gives each head a "
        "block of positions with all d_model columns (and fails when n is not a multiple of heads)."
        " Each head takes its own block of d_k columns, from every position.",
        "Split the last axis, the d_model columns, not the positions.",
        "heads"),
    "split-scale": Entry(
        SPLIT_SCALE,
        "Scale in one place: divide Q K^T by np.sqrt(d_k), or Q alone by np.sqrt(d_k), or both Q and K by d_k "
        "** 0.25; a gradient carries exactly the factor the forward pass put on the scores.",
        "scaling"),
    "sqrt-dk": Entry(
        "You multiplied by sqrt(d_k): that is how the standard deviation grows. Variances of independent terms "
        "add, so the variance grows with d_k itself.",
        "Variances add; standard deviations do not.",
        "scaling"),
    "sqrt-of-shape": Entry(
        "You divided by np.sqrt(Q.shape), the square root of the whole shape tuple: an array of one"
        " number per axis, which numpy then tries to broadcast against the scores. d_k is one "
        "number, the last axis of Q: Q.shape[-1].",
        "Divide Q K^T by np.sqrt(d_k), with d_k = Q.shape[-1] (the last axis, whatever the batch "
        "axes).",
        "scaling"),
    "sqrt-when-scaled": Entry(
        "{value} = sqrt(d_k) would be the variance if dividing a score by a number divided its variance by the "
        "same number; a variance is in squared units, so it is divided by the square.",
        "Var(a X) = a^2 Var(X).",
        "scaling"),
    "square-when-cross": Entry(
        "that counts {a} x {a} pairs, as if queries and keys were one sequence; in cross-attention they come "
        "from two sequences of different lengths, and every query meets every key.",
        "{hint}",
        "counting"),
    "squared-length": Entry(
        "You multiplied by the squared length of each value row; the length is its square root.",
        "np.linalg.norm(V, axis=-1) is the length sqrt(sum of squares).",
        "average"),
    "standard-deviations": Entry(
        "You used standard deviations where variances belong.",
        "var(q_t k_t) = var(q_t) var(k_t) at mean 0.",
        "scaling"),
    "std-not-variance": Entry(
        "{value} is sqrt(d_k), the standard deviation of one score, a spread in the scores' own units; the "
        "question asks for the variance, the spread that adds up over independent terms.",
        VARIANCES_ADD,
        "scaling"),
    "subtract-abs-max": Entry(
        "Your softmax subtracts each row's largest absolute value, np.max(np.abs(x)), instead of "
        "its largest value. Where the two agree the weights are right, but a -inf entry (a masked "
        "score) makes |x| infinite: the whole row becomes x - inf = -inf, exp gives 0 everywhere, "
        "and 0/0 is NaN. (A row of large negative scores, all below about -709 after the shift, "
        "would underflow to 0/0 the same way.)",
        "Subtract the maximum itself, np.max(x, axis=-1, keepdims=True): the largest exponent is "
        "then exp(0) = 1, whatever the signs.",
        "softmax"),
    "subtract-min": Entry(
        "Your softmax subtracts each row's minimum (or its mean) instead of its maximum. The result is the same "
        "in exact arithmetic, but the largest exponent is then exp(max - min) (or exp(max - mean)): it "
        "overflows when a row spans more than about 709, and a -inf entry (a blocked key) makes the minimum "
        "and the mean -inf (NaN everywhere in its row).",
        "Subtract the maximum, so the largest exponent is exp(0) = 1; -inf entries do not change a maximum as "
        "long as one key is allowed.",
        "softmax"),
    "sum-not-length": Entry(
        "You multiplied by the sum of each value row's components; positive and negative components"
        " cancel there, and a length does not.",
        "np.linalg.norm(V, axis=-1) is the length of each row.",
        "average"),
    "sum-not-mean": Entry(
        "You returned the sum of the weights on previous tokens; the share is their mean, between 0"
        " and 1.",
        "Divide by the number of queries that have a previous token, n - 1.",
        "positions"),
    "sum-whole-array": Entry(
        "Your row term sums dP * P over the whole array, not over each row. Score s_ik only moves "
        "the weights of its own row i, so each row gets its own sum over its m keys.",
        "Give the sum the key axis (the last one), with keepdims=True.",
        "backward"),
    "sum-wrong-axis": Entry(
        "Your sum runs over the wrong axis (the queries, or the value components) instead of over the keys of "
        "one row. Score s_ik only moves the weights of row i, and output row i is sum_j weights[i, j] * V[j]: "
        "each sum of attention runs over the m keys of one row, the weights' last axis.",
        "Sum over the keys: the last axis of the weights, the one they share with V's rows.",
        "average"),
    "summed-over-keys": Entry(
        "You formed every product Q[i, c] K[j, c] (a broadcast of shape (n, m, d_k)) but summed "
        "over the keys (axis -2) instead of over the d_k features. A score adds up the d_k products"
        " of one query with one key, so the sum runs over the last axis and leaves (n, m).",
        "Sum the broadcast products over axis=-1, the d_k axis.",
        "scores"),
    "temperature-after-softmax": Entry(
        "You applied the temperature to the weights after the softmax. The temperature divides the "
        "scores before the softmax: weights scaled afterwards no longer sum to one, and their "
        "ratios do not change.",
        "Divide the scores by the temperature first, then take the stable softmax of each row.",
        "softmax"),
    "temperature-ignored": Entry(
        "Your weights are the softmax of the scores at temperature 1 whatever the temperature: the "
        "temperature never reaches the scores (dividing a copy, or subtracting it, changes "
        "nothing).",
        "Divide the scores by the temperature first, then take the stable softmax of each row.",
        "softmax"),
    "temperature-square-root": Entry(
        "You divided the scores by the square root of the temperature. Softmax at temperature T "
        "divides each score by T itself (the square root of d_k is a different division, inside "
        "attention's scores).",
        "Divide the scores by the temperature first, then take the stable softmax of each row.",
        "softmax"),
    "temperature-squared": Entry(
        "You divided the scores by the temperature squared. Softmax at temperature T divides each "
        "score by T once.",
        "Divide the scores by the temperature first, then take the stable softmax of each row.",
        "softmax"),
    "tensordot-on-batch": Entry(
        "Your function is right on 2-D inputs but not with a batch axis in front: "
        "np.tensordot(weights, V, axes=1) (or axes=(-1, 0)) pairs the weights' last axis, the keys,"
        " with V's first axis. On 2-D inputs that is V's key axis; on a batch V is (b, m, d_v) and "
        "its first axis is the batch b, so the keys meet the batch (and tensordot keeps no batch of"
        " its own: with the right axes it pairs every sentence with every other).",
        "Use np.matmul (the @ operator), which multiplies the last two axes and treats the others "
        "as a batch.",
        "average"),
    "three-projections": Entry(
        "that counts W_q, W_k and W_v together; the question asks for W_q alone.",
        "{hint}",
        "counting"),
    "times-dk": Entry(
        "You multiplied the gap by d_k = {d_k}; the division was by sqrt(d_k), a smaller factor. (An answer of "
        "exactly 1 would also mean a one-hot row, which two finite scores never give.)",
        "The division being removed was by sqrt(d_k), not by d_k.",
        "scaling"),
    "token-limit": Entry(
        "256 is the longest sentence this model reads (it cuts longer ones), not where its weights overtake its "
        "parameters: at 256 tokens they are still well short of them.",
        "Write the number of weights as a function of n, then solve for the n where it passes the parameters.",
        "counting"),
    "too-few-decimals": Entry(
        "{value} agrees with the answer to {k} decimal{s}, but the problem asks for {decimals}: work out {more}.",
        "{hint}",
        "generic"),
    "too-slow": Entry(
        "Your function was still running after {seconds} s, {where}: a loop that never ends, or one that runs "
        "far more often than you meant.",
        "Call your function by hand on a small input; print the loop variable to see where it gets stuck "
        "(Kernel > Interrupt stops a cell that runs forever).",
        "generic"),
    "transpose-batch": Entry(
        "Your function transposes K with .T (or np.transpose(K)), which reverses every axis: on a "
        "batch K (b, m, d_k) it gives (d_k, m, b), not (b, d_k, m), so Q @ K.T fails (or pairs the "
        "wrong numbers). It is right only for 2-D inputs, and the problem promises leading batch "
        "axes.",
        "Swap only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)), or "
        "np.einsum('...nd,...md->...nm', Q, K).",
        "shapes"),
    "transpose-on-batch": Entry(
        "Right on 2-D inputs, but on a batch `K.T` reverses every axis: K (b, m, d_k) becomes (d_k, m, b), not "
        "(b, d_k, m), so the batch axis ends up last and the product fails or mixes batches. Each key must meet "
        "each query within its own batch: only the last two axes (m, d_k) swap.",
        "Transpose only the last two axes of K (np.swapaxes(K, -1, -2)), not all of them; or write the sum over "
        "d_k with np.einsum and '...' for the batch axes.",
        "shapes"),
    "truncated-not-rounded": Entry(
        "Your answer is the right number cut off after {places}: round it instead, since the next digit is 5 or more.",
        "Rounding looks at the first digit you drop; cutting off ignores it.",
        "generic"),
    "unchanged": Entry(
        "{weight} is the weight with the division. Removing it multiplies every score, so the gap between the two "
        "scores, by sqrt(d_k).",
        "Softmax of two scores depends only on their gap: the larger weight is 1 / (1 + exp(-gap)).",
        "scaling"),
    "uniform-weights": Entry(
        "Your weights are uniform: every allowed key gets the same weight 1/m, whatever its score, so each "
        "output is a plain average. The weights must follow the scores: exp(score) / sum of exp(scores) along "
        "the row.",
        "Take np.exp of the (shifted) scores, then divide by their row sum.",
        "softmax"),
    "unit-variance": Entry(
        "{d_k} is d_k: footnote 4's answer for components of variance exactly 1. Here they have variances {var_q} "
        "and {var_k}; each product q_t k_t then has variance {var_q} x {var_k}.",
        "Variance of a product of independent, mean-0 numbers: the product of their variances.",
        "scaling"),
    "unknown-name": Entry(
        "Unknown name {name} in your answers; the names are {names}.",
        "",
        "shapes"),
    "unweighted-mean": Entry(
        "Your output is the plain mean of the value rows, the same for every query: the weights are"
        " never used. That is what attention gives only when every weight in a row is 1/m (a query "
        "that scores every key alike); in general each query listens to the keys in its own "
        "proportions.",
        "Weight each value row j by weights[..., i, j] and add them: output[i] = sum_j weights[i, "
        "j] * V[j].",
        "average"),
    "upper-triangle": Entry(
        "Your mask keeps the upper triangle (j >= i): query i sees itself and the future, which is "
        "what the causal mask must block. Rows are queries, columns keys.",
        "Keep the lower triangle, diagonal included: True where j <= i.",
        "mask"),
    "used-attn-lib": Entry(
        "{reason} {rule}",
        "Replace the call to {name} with numpy code of your own ({tools}).",
        "generic"),
    "used-d-model": Entry(
        "each head's vectors are {width} wide, not d_model wide: the model's width is split between the heads.",
        "{hint}",
        "counting"),
    "used-dk": Entry(
        "mixing the values multiplies the weights (n, m) by V (m, d_v): the width is d_v, not d_k.",
        "{hint}",
        "counting"),
    "used-dv": Entry(
        "the scores are dot products of queries and keys, d_k long; d_v is the width of the values.",
        "{hint}",
        "counting"),
    "used-scores": Entry(
        "Your formula uses the scores S where it needs the weights P = softmax(S). The softmax's "
        "Jacobian is written in its outputs, dp_j/ds_k = p_j (delta_jk - p_k): that is why the "
        "forward pass keeps the n x m weights for the backward pass.",
        "The softmax's Jacobian is written with the weights P, not the scores.",
        "backward"),
    "v-rows-n": Entry(
        "V has one row per key: m rows, one value for each key.",
        SHAPES_HINT,
        "shapes"),
    "v-transposed": Entry(
        "V stores one value per row, one row per key, (m, d_v), not (d_v, m): the weights have one column per key "
        "and meet V as it is, (n, m) x (m, d_v). Transposed, V's columns mix the wrong numbers, and a product with "
        "it only runs when d_v = m.",
        "V keeps its shape (m, d_v): one value row per key; do not transpose it.",
        "average"),
    "v-width-dk": Entry(
        "V has width d_v: the values are what is heard, and need not be as wide as the queries and keys (d_k).",
        SHAPES_HINT,
        "shapes"),
    "values-first": Entry(
        "You multiplied V by the weights, V @ weights: (m, d_v) x (n, m) only runs when d_v = n, "
        "and then it mixes value components with queries. The weights come first, one row per "
        "query, and V second, one row per key: (n, m) x (m, d_v).",
        "Put the weights first (one row per query) and V second (one row per key).",
        "average"),
    "values-from-decoder": Entry(
        "Your keys come from X_enc, but your values from X_dec, the decoder's own states. The "
        "weights (..., n, m) have one column per source position, so they average m value rows, and"
        " those must come from the same sequence as the keys: the encoder's output X_enc through "
        "W_v. With values from X_dec there are n value rows, which do not fit the m columns of the "
        "weights.",
        "Compute V = X_enc @ W_v, like K = X_enc @ W_k.",
        "heads"),
    "values-from-queries": Entry(
        "Your keys come from X_kv but your values from X_q. The weights (n, m) have one column per "
        "key, so they average m value rows, and those come from the same sequence as the keys: V_h "
        "= X_kv @ W_v[h], (m, d_v). With values from X_q there are n value rows, which fit the "
        "weights only when n = m (the self-attention case), where your answer is right.",
        "Project the values from X_kv, like the keys: V_h = X_kv @ W_v[h].",
        "heads"),
    "w-o-transposed": Entry(
        "You multiplied by W_o transposed. W_o is (heads * d_v, d_model): its rows meet the "
        "concatenated heads, so it goes on the right as it is, (n, heads * d_v) x (heads * d_v, "
        "d_model).",
        "Use concat @ W_o, without .T.",
        "heads"),
    "weights-square": Entry(
        "{a} x {a} would be self-attention, queries and keys from one sequence; here they come from two sequences"
        " of different lengths, and there is one of the weights for every (query, key) pair.",
        SHAPES_HINT,
        "shapes"),
    "weights-transposed": Entry(
        "The weights are transposed, (m, n): one row per key. The weights have one row per query and one column "
        "per key, (n, m), not (m, n): row i of the output must use row i of the weights, query i's own weights "
        "over the m keys, and a transposed row i mixes the values with how much every query listens to key i.",
        "The weights keep their shape (n, m): one row per query; do not transpose them.",
        "average"),
    "weights-width-dk": Entry(
        "Each weight is a single number, one per (query, key) pair: the d_k terms of the dot product are summed "
        "away before the softmax. The weights are (n, m).",
        SHAPES_HINT,
        "shapes"),
    "weights-width-dv": Entry(
        "A row of weights has one entry per key: length m; it knows nothing about d_v.",
        SHAPES_HINT,
        "shapes"),
    "with-bias": Entry(
        "that includes a bias; the paper's projections are plain matrices with no bias.",
        "{hint}",
        "counting"),
    "wrapped-first-row": Entry(
        "You included query 0, whose 'previous token' weights[0, -1] wraps round to the last key. "
        "The first token has no previous token: average over queries 1 .. n-1 only.",
        "Start at i = 1; np.diagonal with offset=-1 does that for you.",
        "positions"),
    "wrong-combination": Entry(
        "Your output is right when one chunk holds every key, but wrong for chunk_size {sizes}: the mistake is in "
        "how chunks are combined. For {label}, {difference}.",
        "After each chunk, running_sum and running_out must equal the sums over all keys so far, measured against "
        "the current running maximum.",
        "cost"),
    "wrong-count": Entry(
        "{how_far}",
        "{hint}",
        "counting"),
    "wrong-number": Entry(
        "{how_far}",
        "{hint}",
        "generic"),
    "wrong-pattern": Entry(
        "For {label} your mask {says} {pair}, which should be {should}: {rule}.",
        "Build the mask from a comparison of indices: {compare}.",
        "mask"),
    "wrong-shape": Entry(
        "For {label}, the {what} should have shape {expected}; yours has shape {got}.{extra}",
        "{hint}",
        "shapes"),
    "wrong-signature": Entry(
        "{checker} calls your function as fn({params}), but it is defined as {defined}.",
        "Define it to take these arguments: def my_function({signature}).",
        "generic"),
    "wrong-values": Entry(
        "For {label}, {difference}.",
        "{hint}",
        "generic"),
    "wrong-variance": Entry(
        "{how_far}",
        VARIANCES_ADD,
        "scaling"),
    "x-not-transposed": Entry(
        "You multiplied X by dQ without transposing X. dW_q has one row per input feature and one "
        "column per query feature, (d_model, d_k): each entry sums, over the positions, X[i, a] "
        "times dQ[i, c], which is X^T dQ. (X @ dQ only runs at all because this X is square.)",
        "Use np.swapaxes(X, -1, -2) @ dQ (or X.T @ dQ for a single sequence), then sum over the "
        "batch.",
        "backward"),
    "zero-then-renormalise": Entry(
        "Your function removes the blocked keys after the softmax (or after taking exponentials) of all the "
        "scores, zeroing their weights, and then divides by the new row sum. That is right only while no blocked "
        "score is far above the allowed ones: here the blocked keys score 1000 more, so the allowed "
        "exponentials underflow to 0 and the division is 0/0 (NaN) or by a tiny number, or the blocked ones "
        "overflow and inf x 0 is NaN.",
        MASK_FIX,
        "mask"),
}
