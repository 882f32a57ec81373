"""Notebook 07's measured claims, re-run on held-out seeds.

Each seed draws the tokens, the position vectors and, where the sentence is not about the notebook's base-model
sublayer alone, the projections of a ``MultiHeadAttention`` of a width and head count drawn with it.
"""

from __future__ import annotations

import numpy as np

from attn_lib import MultiHeadAttention, attention_cost, causal_mask

from .ledger import Claim, register

NOTEBOOK = "07-heads-and-cross-attention"
SHAPES = [(512, 8), (256, 4), (64, 2), (128, 16)]  # (d_model, heads)


def _sublayer(seed):
    d_model, heads = SHAPES[seed % len(SHAPES)]
    return MultiHeadAttention(d_model=d_model, heads=heads, rng=seed), d_model


def sinusoidal_positions(n, d_model):
    """Section 3.5's encoding, written independently of the notebook's cell."""
    angles = np.arange(n)[:, None] / 10000.0 ** (np.arange(0, d_model, 2)[None, :] / d_model)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n, d_model)


def check_cross_own_projections(seeds):
    """Borrowing the self-attention's projections moves some weight by more than half its range, every draw."""
    self_attn = MultiHeadAttention(d_model=512, heads=8, rng=0)  # the notebook's mha
    for seed in seeds:
        draw = np.random.default_rng(seed)
        n, m = draw.integers(2, 9, size=2)
        X_dec, X_enc = draw.normal(size=(n, 512)), draw.normal(size=(m, 512))
        own = MultiHeadAttention(512, 8, rng=seed)(X_dec, X_enc, return_weights=True)[1]
        borrowed = self_attn(X_dec, X_enc, return_weights=True)[1]
        assert np.abs(own - borrowed).max() > 0.5, (seed, n, m, np.abs(own - borrowed).max())


def _equivariance_gaps(mha, X, P, order):
    plain = np.abs(mha(X[order]) - mha(X)[order]).max()
    positions = np.abs(mha(X[order] + P) - mha(X + P)[order]).max()
    return plain, positions, np.abs(mha(X + P)).max()


def check_positions_break_equivariance(seeds):
    """Without positions the shuffled rows' outputs are the shuffled outputs; with random position vectors they
    differ by at least half the largest output entry."""
    for seed in seeds:
        mha, d_model = _sublayer(seed)
        draw = np.random.default_rng(seed)
        n = int(draw.integers(4, 12))
        order = draw.permutation(n)
        while (order == np.arange(n)).all():
            order = draw.permutation(n)
        X, P = draw.normal(size=(2, n, d_model))
        plain, positions, largest = _equivariance_gaps(mha, X, P, order)
        assert plain < 1e-9, (seed, plain)
        assert positions > 0.5 * largest, (seed, n, positions, largest)


def check_sinusoid_breaks_equivariance(seeds):
    """Section 3.5's sinusoids break equivariance as random vectors do, and their dot products depend on i - j."""
    for seed in seeds:
        mha, d_model = _sublayer(seed)
        draw = np.random.default_rng(seed)
        n = int(draw.integers(4, 12))
        order = np.roll(np.arange(n), 1)
        X = draw.normal(size=(n, d_model))
        plain, positions, largest = _equivariance_gaps(mha, X, sinusoidal_positions(n, d_model), order)
        assert plain < 1e-9 and positions > 0.1 * largest, (seed, n, plain, positions, largest)
    PE = sinusoidal_positions(60, 512)
    gram = PE @ PE.T
    for k in range(1, 20):
        assert np.ptp(np.diagonal(gram, offset=k)) < 1e-9, k


def check_positions_separate_copies(seeds):
    """In "a b a b a b", with position vectors added, query 2's weights on the two copies of "b" differ."""
    mha = MultiHeadAttention(d_model=512, heads=8, rng=0)
    for seed in seeds:
        draw = np.random.default_rng(seed)
        a, b = draw.normal(size=(2, 512))
        X = np.stack([a, b, a, b, a, b])
        P = draw.normal(size=(6, 512))
        w_plain = mha(X, return_weights=True)[1]
        w_positions = mha(X + P, return_weights=True)[1]
        assert np.abs(w_plain[:, 2, 1] - w_plain[:, 2, 3]).max() < 1e-12, seed
        assert np.abs(w_positions[:, 2, 1] - w_positions[:, 2, 3]).max() > 0.1, seed


def check_causal_carries_position(seeds):
    """A start token, then one token repeated: without a mask the copies' rows are identical; with the causal mask
    alone they all differ, and each head's weight on the start token falls with position."""
    for seed in seeds:
        mha, d_model = _sublayer(seed)
        draw = np.random.default_rng(seed)
        copies = int(draw.integers(3, 11))
        start, token = draw.normal(size=(2, d_model))
        X = np.stack([start] + [token] * copies)
        plain = mha(X)[1:]
        causal, weights = mha(X, mask=causal_mask(copies + 1), return_weights=True)
        assert np.abs(plain - plain[0]).max() < 1e-9, seed
        rows = causal[1:]
        closest = min(np.abs(rows[i] - rows[j]).max() for i in range(copies) for j in range(i + 1, copies))
        assert closest > 1e-4, (seed, copies, closest)
        assert (np.diff(weights[:, 1:, 0], axis=1) < 0).all(), seed


def check_bare_reshape(seeds):
    """A bare reshape of (n, d_model) to (heads, n, d_k) has the right shape and the wrong heads."""
    for seed in seeds:
        mha, d_model = _sublayer(seed)
        heads = mha.W_q.shape[0]
        d_k = d_model // heads
        n = int(np.random.default_rng(seed).integers(2, 20))
        X = np.random.default_rng(seed).normal(size=(n, d_model))
        Q_wide = X @ np.concatenate(list(mha.W_q), axis=1)  # (n, heads * d_k)
        right = Q_wide.reshape(n, heads, d_k).transpose(1, 0, 2)
        wrong = Q_wide.reshape(heads, n, d_k)
        assert wrong.shape == right.shape
        assert not np.allclose(wrong, right), (seed, n, heads)
        assert all(np.abs(right[h] - X @ mha.W_q[h]).max() < 1e-9 for h in range(heads)), seed


def check_heads_same_work(seeds):
    """h heads of width d_model / h: the multiply-adds and projection parameters of one head of width d_model, and
    h times its scores; counted from the arrays a MultiHeadAttention makes."""
    for seed in seeds:
        draw = np.random.default_rng(seed)
        heads = int(2 ** draw.integers(1, 5))
        d_model = heads * int(draw.integers(1, 9)) * 4
        n, m = (int(x) for x in draw.integers(1, 40, size=2))
        d_k = d_model // heads
        split, wide = attention_cost(n, m, d_k=d_k, heads=heads), attention_cost(n, m, d_k=d_model, heads=1)
        assert split.score_macs == wide.score_macs == n * m * d_model, (seed, heads, d_model)
        assert split.mix_macs == wide.mix_macs, (seed, heads, d_model)
        mha = MultiHeadAttention(d_model=d_model, heads=heads, rng=seed)
        weights = mha(draw.normal(size=(n, d_model)), draw.normal(size=(m, d_model)), return_weights=True)[1]
        assert weights.size == split.scores == heads * wide.scores, (seed, heads, weights.shape)
        assert mha.W_q.size + mha.W_k.size + mha.W_v.size == 3 * d_model * d_model, (seed, heads)


def _rope_turns(base, d_k):
    """RoPE's radians per position for each pair of components, base^(-2i / d_k), written apart from the cell."""
    return base ** (-np.arange(0, d_k, 2) / d_k)


def check_rope_rescalings(seeds):
    """Past the trained length: base 10,000 takes the pairs that never complete a turn in training past their trained
    angles by L'/L; positions x L/L' stay inside [0, L); the NTK-aware base b (L'/L)^(d_k / (d_k - 2)) keeps the
    fastest pair's turn, slows the slowest by exactly L'/L, and the other such pairs still overshoot, by less."""
    for seed in seeds:
        draw = np.random.default_rng(seed)
        d_k = int(draw.choice([32, 64, 128, 256]))
        trained = int(2 ** draw.integers(9, 14))  # 512 to 8,192
        stretch = int(2 ** draw.integers(1, 6))  # 2 to 32
        longer = trained * stretch
        plain = _rope_turns(10_000.0, d_k)
        seen = plain * (trained - 1)
        never_round = seen < 2 * np.pi
        assert never_round.sum() >= 2, (seed, d_k, trained)
        over_plain = (plain * (longer - 1) / seen)[never_round]
        assert np.allclose(over_plain, (longer - 1) / (trained - 1)), seed
        assert (longer - 1) * trained / longer < trained, seed  # interpolated positions stay below L
        ntk = _rope_turns(10_000.0 * stretch ** (d_k / (d_k - 2)), d_k)
        assert ntk[0] == 1.0 and np.isclose(ntk[-1] * stretch, plain[-1], rtol=1e-12), (seed, d_k, stretch)
        over_ntk = (ntk * (longer - 1) / seen)[never_round]
        assert 1.0 < over_ntk.max() < over_plain.max(), (seed, d_k, trained, stretch, over_ntk.max())


def check_alibi_far_keys(seeds):
    """With equal content scores, an ALiBi head of slope 1/16 or steeper gives keys farther back than the trained
    length under 1e-12 of its weight, whatever the run's length; the gentlest head gives them the most."""
    for seed in seeds:
        draw = np.random.default_rng(seed)
        heads = int(draw.choice([8, 16]))
        trained = int(2 ** draw.integers(9, 13))  # 512 to 4,096
        longer = trained * int(draw.integers(2, 9))
        slopes = 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)  # Press et al.'s slopes for a power of two heads
        distance = np.arange(longer)
        scores = -slopes[:, None] * distance
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        far = weights[:, trained:].sum(axis=1)
        assert (far[slopes >= 1 / 16] < 1e-12).all(), (seed, heads, trained, longer)
        assert far.argmax() == heads - 1, (seed, heads, far)


for claim_id, sentence, condition, check, over in [
    ("bare-reshape", "Shapes do not catch it;\ncomparing numbers does.",
     "a reshape of (n, heads * d_k) to (heads, n, d_k) without the transpose: the right shape, other numbers",
     check_bare_reshape, "n 2-19, d_model 64-512 with 2-16 heads"),
    ("heads-same-work", "Every parameter count and every multiply-add is the same",
     "h heads of d_k = d_model / h against one head of width d_model: equal multiply-adds and projection parameters, "
     "h times the scores", check_heads_same_work, "2-16 heads, d_model 8-512, n and m 1-39"),
    ("cross-own-projections", "Borrowing the self-attention's projections would give another layer",
     "the base model's sublayer (d_model 512, 8 heads): some weight moves by more than 0.5 with another sublayer's "
     "projections", check_cross_own_projections, "n, m from 2 to 8; projections drawn from the held-out seeds"),
    ("positions-break-equivariance", "With position vectors added, equivariance is gone",
     "random position vectors, unit variance: the shuffled rows' outputs differ from the shuffled outputs by at "
     "least half the largest output entry; without them by under 1e-9", check_positions_break_equivariance,
     "n 4-11, d_model 64-512 with 2-16 heads, any shuffle"),
    ("sinusoid-breaks-equivariance", "the sinusoids break equivariance as the random vectors did",
     "section 3.5's sinusoids: shuffled outputs differ by over a tenth of the largest entry; dot products of two "
     "positions depend only on their distance (to 1e-9)", check_sinusoid_breaks_equivariance,
     "n 4-11, d_model 64-512 with 2-16 heads; distances 1-19"),
    ("positions-separate-copies", "With position vectors added, the two copies of \"b\" get different weights",
     "the base model's sublayer, \"a b a b a b\": without positions the weights differ by under 1e-12, with random "
     "position vectors by over 0.1 in some head", check_positions_separate_copies,
     "token embeddings and position vectors drawn from the held-out seeds"),
    ("causal-carries-position", "Without the mask the copies are indistinguishable",
     "a start token then one token repeated: identical rows without a mask; with the causal mask every two copies' "
     "rows differ by over 1e-4 and each head's weight on the start token falls with position",
     check_causal_carries_position, "3-10 copies, d_model 64-512 with 2-16 heads"),
    ("rope-rescalings", "the pairs between\nstill overshoot, by less",
     "RoPE base 10,000 run at L' = s L: the pairs that never complete a turn in L positions overshoot their trained "
     "angles by (L' - 1) / (L - 1); positions x L / L' stay below L; the NTK-aware base keeps the fastest pair's "
     "turn, slows the slowest by exactly s, and the others overshoot by more than 1 and less than base 10,000's",
     check_rope_rescalings, "d_k 32-256, L 512-8,192, s 2-32"),
    ("alibi-far-keys",
     "with equal content scores its steep heads give\nkeys farther back than training reached almost no weight",
     "ALiBi's slopes, every content score equal, the last query of a run longer than L: heads of slope 1/16 or "
     "steeper give keys L or more back under 1e-12 of their weight; the gentlest head gives them the most",
     check_alibi_far_keys, "8 or 16 heads, L 512-4,096, runs 2-8 times L"),
]:
    register(Claim(id=f"07-{claim_id}", notebook=NOTEBOOK, sentence=sentence, condition=condition, check=check,
                   over=over))
