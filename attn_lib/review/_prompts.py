"""The course's review prompts: a few for each notebook, drawn from its "Lines worth keeping".

Each prompt asks for one idea, answerable from memory in a few seconds, in the notebooks' notation (markdown with
``$...$`` TeX). A learner meets a notebook's prompts at its end (``prompts_of("NN")``), then again in the review
notebook on a spaced schedule, and ``python -m attn_lib.review --anki FILE`` writes them as an Anki deck.

An id ``"NN-RK"`` (notebook NN, prompt K) is stable forever: the learner's record and the Anki notes are keyed by it.
New words for the same idea are welcome (write them into tests/ids_given.toml too); never reuse an id for another
idea (give a new idea the next free K).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prompt:
    id: str        # "NN-RK", e.g. "03-R2": notebook NN, prompt K; stable forever (Anki note guid derives from it)
    question: str  # markdown with $...$ TeX in the course's notation, answerable from memory in seconds
    answer: str    # short markdown answer

    @property
    def notebook(self) -> str:
        return self.id[:2]


PROMPTS: tuple[Prompt, ...] = (
    # 00 Start here
    Prompt("00-R1",
           "Of the two matrix products in the attention line, which one decides *who is listened to*, and what does "
           "it hold?",
           "$QK^\\top$: one score for every pair of a query and a key."),
    Prompt("00-R2",
           "Which part of the attention line decides *what is heard*?",
           "The weights times $V$: each output row is a weighted average of the value rows."),
    Prompt("00-R3",
           "What does the softmax guarantee of every row of weights?",
           "Its weights are non-negative and sum to one."),
    Prompt("00-R4",
           "Besides the two matrix products and the division by $\\sqrt{d_k}$, the attention line has one more step. "
           "Which, and how does it act?",
           "A softmax, applied to each row of the scaled scores on its own."),

    # 01 Shapes
    Prompt("01-R1",
           "With $n$ queries, $m$ keys and values $d_v$ wide, what are the shapes of the attention weights (the "
           "softmax's output) and of the output?",
           "Weights `(n, m)`; output `(n, d_v)`."),
    Prompt("01-R2",
           "In self-attention, where do $Q$, $K$ and $V$ come from?",
           "Three learned projections of one input: $XW_q$, $XW_k$, $XW_v$ ($V$ is not $X$ itself)."),
    Prompt("01-R3",
           "The base model has $d_{\\text{model}} = 512$ and 8 heads. What is one head's $d_k$, and the shape of "
           "its $W_q$?",
           "$d_k = 512 / 8 = 64$; $W_q$ is $512 \\times 64$ (32,768 parameters)."),
    Prompt("01-R4",
           "In encoder-decoder attention, where do the queries come from, and where the keys and values?",
           "Queries from the decoder; keys and values from the encoder's output, so the scores are $n \\times m$ "
           "with $n$ and $m$ free."),
    Prompt("01-R5",
           "$Q$ and $K$ stay, but the values grow wider ($d_v$ from 3 to 8). What happens to the attention weights "
           "(the softmax's output)?",
           "Nothing: same shape, same numbers. They come from $Q$ and $K$ alone; only the output widens."),

    # 02 Scores
    Prompt("02-R1",
           "What is entry $(i, j)$ of $QK^\\top$, and how many products does it add up?",
           "$q_i \\cdot k_j$, the dot product of query $i$ and key $j$: a sum of $d_k$ products."),
    Prompt("02-R2",
           "How many multiply-adds does one head spend making its scores, for $n$ queries and $m$ keys of width "
           "$d_k$?",
           "$n \\cdot m \\cdot d_k$: $d_k$ for each of the $n \\times m$ scores (64,000,000 at $n = m = 1000$, "
           "$d_k = 64$)."),
    Prompt("02-R3",
           "$d_{\\text{model}}$ is split into $h$ heads. Why do the multiply-adds of all the heads' scores not "
           "depend on $h$?",
           "Each head spends $n m d_k$, and $h \\cdot d_k = d_{\\text{model}}$: together $n m \\, d_{\\text{model}}$ "
           "whatever the split."),
    Prompt("02-R4",
           "`K` has shape `(batch, m, d_k)`. What does `K.T` do to its axes, and what must $K^\\top$ do instead?",
           "`.T` reverses every axis, giving `(d_k, m, batch)`; $K^\\top$ swaps only the last two: "
           "`np.swapaxes(K, -1, -2)`, `(batch, d_k, m)`."),
    Prompt("02-R5",
           "A sequence attending to itself doubles in length. By what factor does the number of scores grow?",
           "Four: the scores grow with $n \\times m$, and both double."),

    # 03 Scaling
    Prompt("03-R1",
           "The components of $q$ and $k$ are independent with mean 0 and variance 1. What is the variance of a "
           "score $q \\cdot k$, and why?",
           "$d_k$: it adds $d_k$ products, each of variance 1."),
    Prompt("03-R2",
           "Why divide the scores by $\\sqrt{d_k}$ in particular (under footnote 4's assumption)?",
           "$\\sqrt{d_k}$ is one score's standard deviation: dividing by it gives scores of unit variance at every "
           "$d_k$."),
    Prompt("03-R3",
           "The components of $q$ have variance $a$ and those of $k$ variance $b$, independent with mean 0. What is "
           "the variance of $q \\cdot k$?",
           "$d_k \\, a b$."),
    Prompt("03-R4",
           "In multi-head attention, which width goes under the square root, and from which axis is it read?",
           "The per-head $d_k$, from the last axis of $Q$ or of $K$ (both $d_k$ wide): not $d_{\\text{model}}$, and "
           "not $d_k$ without the root."),
    Prompt("03-R5",
           "Without the division, what happens to the rows of weights as $d_k$ grows, and to the gradient at the "
           "scores?",
           "The rows go nearly one-hot, and the softmax's Jacobian (the gradient at the scores) shrinks."),

    # 04 Softmax
    Prompt("04-R1",
           "Scores have shape `(batch, heads, n, m)`. Along which axis must the softmax act, and why?",
           "`axis=-1`, the keys: each query shares its attention among the keys (`axis=1` agrees with it only in 2-D)."),
    Prompt("04-R2",
           "Why does adding a constant $c$ to a row of scores leave its softmax unchanged?",
           "Every exponential gains the factor $\\exp(c)$, which cancels between the numerator and the row's sum."),
    Prompt("04-R3",
           "How does a stable softmax survive scores far too large for $\\exp$?",
           "It subtracts each row's own maximum first: the largest exponential is then $e^0 = 1$, and the weights "
           "are unchanged."),
    Prompt("04-R4",
           "The scores are divided by a temperature $T$ before the softmax. What does $T < 1$ do to the weights, "
           "and $T > 1$?",
           "$T < 1$ sharpens them (towards one-hot); $T > 1$ flattens them (towards even)."),
    Prompt("04-R5",
           "Which softmax temperature does scaled dot-product attention apply, to what, and which way does it move the "
           "weights?",
           "$T = \\sqrt{d_k}$, on the raw dot products $QK^\\top$; $T > 1$ (for $d_k > 1$), so it flattens them."),

    # 05 Weighted average
    Prompt("05-R1",
           "How is output row $i$ made from the weights $w_{ij}$ and the value rows $v_j$?",
           "$\\text{output}_i = \\sum_j w_{ij} \\, v_j$: a weighted average of the value rows."),
    Prompt("05-R2",
           "Why does one head's output row lie inside the convex hull of its value rows?",
           "Its weights are non-negative and sum to one: the output is a convex combination of the value rows."),
    Prompt("05-R3",
           "A query's weights are all equal. What does one head output for it?",
           "The mean of the value rows."),
    Prompt("05-R4",
           "Within the attention sublayer and its residual, which two steps can take an output row out of its value "
           "rows' hull?",
           "Concatenating heads whose weights differ, and adding the residual $x_i$ ($W^O$ is linear: it keeps one "
           "head's output inside the hull of $VW^O$)."),
    Prompt("05-R5",
           "$d_k$ is the width of comparison. What is $d_v$, and how many rows must $V$ have?",
           "The width of what is handed over (it need not equal $d_k$); $V$ has $m$ rows, one per key."),

    # 06 Masking
    Prompt("06-R1",
           "Where does the mask go in the attention line, and what do blocked scores become?",
           "Before the softmax (the paper masks after the scaling; $-\\infty / \\sqrt{d_k} = -\\infty$, so either "
           "side works); blocked scores become $-\\infty$, so their weights are exactly 0."),
    Prompt("06-R2",
           "Blocked weights are set to 0 after the softmax, with no renormalising. What two things break?",
           "The rows sum to less than one, and the blocked keys still changed the other weights (through the "
           "row's sum)."),
    Prompt("06-R3",
           "Every key of a row is blocked. What does a hand-written stable softmax (the row's maximum subtracted, "
           "then exponentials over their sum) return with $-\\infty$ fills, and with `-1e9` fills (in float32 or "
           "float64)?",
           "NaN with $-\\infty$ ($-\\infty - (-\\infty)$); with `-1e9`, the weight silently spread evenly over the "
           "blocked keys."),
    Prompt("06-R4",
           "Which keys does the causal mask block for query $i$?",
           "Every key $j > i$: the positions after it."),
    Prompt("06-R5",
           "With $n \\neq m$, what must a causal mask say that it need not say when $n = m$?",
           "Where the queries sit: top-left (`causal_mask`, PyTorch's `is_causal`) or bottom-right."),
    Prompt("06-R6",
           "Scores have shape `(batch, n, m)`. What shape does attn_lib's `padding_mask` return, and how does it "
           "broadcast against the scores?",
           "`(batch, 1, m)`: its axis of length 1 repeats over the $n$ queries, so one row of $m$ keys blocks a "
           "sentence's padding for every query."),

    # 07 Heads and cross-attention
    Prompt("07-R1",
           "How does multi-head attention put its $h$ heads' outputs together?",
           "It concatenates them to width $h \\cdot d_v$ and maps them back with $W^O$."),
    Prompt("07-R2",
           "A wide projection `(n, d_model)` is reshaped straight to `(heads, n, d_k)`. Why are its heads wrong, and "
           "which step is missing?",
           "It cuts row after row, so each \"head\" mixes pieces of several positions (right shape, wrong numbers); "
           "missing: the transpose, after a reshape to `(n, heads, d_k)`."),
    Prompt("07-R3",
           "$h$ heads of width $d_{\\text{model}}/h$ against one head of width $d_{\\text{model}}$: which counts "
           "are equal, and what do the $h$ heads hold more of?",
           "The parameter counts and the multiply-adds (projections, scores, mixing); the $h$ heads hold $h$ score "
           "matrices, $h$ times the scores."),
    Prompt("07-R4",
           "In a decoder's cross-attention sublayer, which sequence does each projection read, and why is it under no "
           "causal mask?",
           "Its own $W_q$ reads the decoder, its $W_k$ and $W_v$ the encoder's output; every input position is known, "
           "so no key lies in the future."),
    Prompt("07-R5",
           "Self-attention with no mask and no position information: the rows of the input $X$ are permuted. What "
           "happens to the output?",
           "Its rows are permuted the same way: attention is permutation-equivariant."),
    Prompt("07-R6",
           "Attention without positions is permutation-equivariant. A head that prefers \"the previous token\" needs "
           "position information: which three ways can it get in?",
           "Position vectors added to the input, distances put into the scores, or a causal mask (alone, a head needs "
           "an earlier masked layer to turn it into position)."),

    # 08 Cost, memory, backward
    Prompt("08-R1",
           "What complexity per layer does the paper's Table 1 give self-attention, and a recurrent layer, for "
           "length $n$ and width $d$?",
           "Self-attention $O(n^2 \\cdot d)$; a recurrent layer $O(n \\cdot d^2)$: leading terms only (self-attention's "
           "projections add $4 n d^2$)."),
    Prompt("08-R2",
           "Sequential steps and longest path between two positions: what are they for self-attention, and for a "
           "recurrent layer?",
           "$O(1)$ and $O(1)$ for self-attention; $O(n)$ and $O(n)$ for a recurrent layer."),
    Prompt("08-R3",
           "Why does training keep every head's $n \\times m$ weights $P$, or recompute them?",
           "The backward pass needs them: $dV = P^\\top dO$, and $dS$ is built from $P$."),
    Prompt("08-R4",
           "What does the online softmax carry from one chunk of keys to the next, and what does it buy?",
           "Per query, a running maximum, sum of exponentials and weighted sum of value rows (rescaled when the "
           "maximum rises): the same output, memory linear in $n$."),
    Prompt("08-R5",
           "A fused attention kernel (FlashAttention) does the forward pass's multiply-adds all the same. What does "
           "it save, and how?",
           "Memory traffic and memory held: it never writes the $n \\times m$ scores to main memory (the backward pass "
           "recomputes the weights block by block)."),
    Prompt("08-R6",
           "A decoder's self-attention caches keys and values, each head its own ($d_v = d_k$). How many numbers does "
           "the cache hold for one sequence of $n$ positions?",
           "$2 \\times \\text{layers} \\times \\text{heads} \\times n \\times d_k$: a key and a value per position, in "
           "every layer and head."),

    # 09 Attention that learns
    Prompt("09-R1",
           "$Q = X_q W_q$ and the gradient $dQ$ is known. What is $dW_q$?",
           "$dW_q = X_q^\\top dQ$: a transpose, and a sum over the batch."),
    Prompt("09-R2",
           "Without the division by $\\sqrt{d_k}$, how much further does a plain gradient step move the scores for "
           "the same $dS$?",
           "$d_k$ times as far ($\\sqrt{d_k}$ through $dQ$, $\\sqrt{d_k}$ again through the forward product): like a "
           "learning rate that grows with $d_k$ (Adam's first step: about $\\sqrt{d_k}$ times)."),
    Prompt("09-R3",
           "Fold the division by $\\sqrt{d_k}$ into $W_q$ alone. Which two things about $W_q$ change, and by how much, "
           "under plain gradient descent?",
           "Its initial scale, $\\sqrt{d_k}$ times smaller, and its learning rate, $d_k$ times smaller."),
    Prompt("09-R4",
           "Why did two heads of width 16 learn two patterns at once, where one head of width 32 rarely did?",
           "A row of weights returns one average: two heads give each query two rows of weights."),

    # 10 A trained model
    Prompt("10-R1",
           "numpy reproduces all-MiniLM-L6-v2. What does each of its 72 heads compute, and on what?",
           "This course's line, `attn_lib.attention`, on 32-wide slices of three projections ($d_k = 32$)."),
    Prompt("10-R2",
           "The trained model's $q$ and $k$ have variances near 1, yet rows of scores spread far wider. Through what "
           "in layer 0, and in layers 2 to 5 of a short sentence?",
           "Shared directions in layer 0; in layers 2 to 5, a head's mean query, which prefers the same keys in every "
           "row (in longer sentences it takes over later)."),
    Prompt("10-R3",
           "Remove the $1/\\sqrt{d_k}$ from the trained model. What do its rows of weights do?",
           "They sharpen in every layer: on the 12-token sentence the mean largest weight goes from 0.38-0.68 to "
           "0.82-0.96, and 37-73 % of rows pass 0.99."),
    Prompt("10-R4",
           "A head puts a large weight on [CLS]. Why may [CLS] still add little to the output?",
           "Its value row is short: the output adds weight times value row, so a weight is not an importance."),
    Prompt("10-R5",
           "What does the trained model's previous-token head need, that the words alone do not give it?",
           "The position embeddings."),
)
