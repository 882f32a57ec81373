"""Notebook 02's prediction problems as data: the notebook's numbers judge each answer as written here by hand, and
every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id. A
mistake added to a problem after its variants were drawn is named where it is a number of its own; where it meets
the answer or an earlier mistake it is left out, and the variant keeps its numbers."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import first_is_notebooks, judged_as_old, rows, same_numbers_twice, verdict

SEEDS = range(1, 51)
WITH_VARIANTS = ["02-P2", "02-P3", "02-P4", "02-P5", "02-P6", "02-P7"]


# The notebook's numbers, by hand: each answer and the id it gets (None: passed).
NOTEBOOKS = {
    # n = m = 1000, d_k = 64
    "02-P2": [(64_000_000, None), (6.4e7, None), (1_000_000, "forgot-dk"), (128_000_000, "counted-flops"),
              (32_032_000, "causal-half"), (4_096_000, "dk-squared"), (64_000, "one-query-row"),
              (63_000_000, "counted-additions"), (32_000_000, "symmetric-half"),
              (512_000_000, "counted-base-heads"), (64_000_001, "wrong-count"), (None, "not-answered")],
    # 4 pairs, n = 10, m = 1000, d_k = 64
    "02-P3": [(2_560_000, None), (640_000, "forgot-batch"), (256_000_000, "square-encoder"),
              (25_600, "square-decoder"), (40_000, "forgot-dk"), (10_240_000, "batch-members-meet"),
              (5_120_000, "counted-flops"), (258_560, "added-n-and-m"), (2_560_001, "wrong-number"),
              (None, "not-answered")],
    # 16 heads of 32 for 8 heads of 64
    "02-P4": [(1, None), (1.005, None), (2, "counted-heads-only"), (0.5, "counted-width-only"), (4, "heads-squared"),
              (0.25, "width-squared"), (0, "more-for-times"), (1.414, "cost-as-sqrt-dk"), (16, "gave-heads"),
              (3, "wrong-number"), (None, "not-answered")],
    # 8 heads of 64 against one head of 512, n = 1000: 8 x 8 = 64 is d_k too, and counted-width, listed first, names it
    "02-P5": [(8, None), (1, "same-as-multiply-adds"), (0.125, "inverted"), (64, "counted-width"),
              (800, "percentage"), (8_000_000, "count-not-ratio"), (1_000_000, "count-not-ratio"),
              (7, "wrong-number"), (None, "not-answered")],
    # 6 layers of 8 heads, n = 1000: 48,000,000 weights; 192,000 is the bytes of n (not n x n) weights per head, and
    # also the size in kilobytes: linear-in-n, listed first, names it
    "02-P6": [(192_000_000, None), (384_000_000, "scores-and-weights"), (48_000_000, "counted-numbers"),
              (32_000_000, "forgot-layers"), (24_000_000, "forgot-heads"), (4_000_000, "one-head-one-layer"),
              (96_000_000, "float16"), (192, "megabytes"), (1_536_000_000, "bits"), (192_000, "linear-in-n"),
              (192e6 / 2**20, "not-bytes"), (183.1, "not-bytes"), (0.192, "not-bytes"), (0.179, "not-bytes"),
              (183, "not-bytes"), (187_500, "not-bytes"), (180, "wrong-number"), (None, "not-answered")],
    # 6 layers of 8 heads, n = 1000 grown 2 times: doubling the factor gives the answer itself here, and the bytes
    # per number (4 x 4) meet squared-twice, listed first
    "02-P7": [(4, None), (2, "linear-growth"), (8, "cubic-growth"), (16, "squared-twice"),
              (192, "counted-layers-and-heads"), (4_000_000, "count-not-ratio"), (192_000_000, "count-not-ratio"),
              (3, "wrong-number"), (None, "not-answered")],
}


@pytest.mark.parametrize("problem_id, answer, mistake", rows(NOTEBOOKS))
def test_the_notebooks_numbers_judge_each_answer(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


def close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def named_as_listed(problem_id, seed, right, earlier, later, rel, seen):
    """Each row (value, id) of ``earlier`` gets its id. Each of ``later`` (mistakes added to the problem) gets its
    own id where it is a number of its own (counted in ``seen``); one that meets the answer passes, one that meets
    an earlier row gets that row's id."""
    kept = list(earlier)
    for value, mistake in earlier:
        assert verdict(problem_id, value, seed) == (False, mistake), (value, mistake)
    for value, mistake in later:
        passed, named = verdict(problem_id, value, seed)
        if close(value, right, rel):
            assert passed, (value, mistake)
        elif any(close(value, v, rel) for v, m in kept if m != mistake):
            assert named in {m for _, m in kept}, (value, mistake, named)
        else:
            assert (passed, named) == (False, mistake), (value, mistake)
            kept.append((value, mistake))
            seen[mistake] += 1
    assert verdict(problem_id, right, seed) == (True, None)
    if right >= 1000:  # a count: never in the reason of an added mistake
        feedback = check(problem_id, later[0][0], seed=seed)
        assert f"{right:,}" not in feedback.reason + feedback.hint and str(right) not in feedback.reason


def _score_macs(p):
    n, d_k = p["n"], p["d_k"]
    return n * n * d_k, [(n * n, "forgot-dk"), (2 * n * n * d_k, "counted-flops")], [
        (n * d_k * d_k, "dk-squared"), (n * d_k, "one-query-row"), (n * n * (d_k - 1), "counted-additions"),
        (n * n * d_k // 2, "symmetric-half"), (8 * n * n * d_k, "counted-base-heads")], 0


def _cross_batch(p):
    b, n, m, d_k = p["batch"], p["n"], p["m"], p["d_k"]
    return b * n * m * d_k, [
        (n * m * d_k, "forgot-batch"), (b * m * m * d_k, "square-encoder"), (b * n * n * d_k, "square-decoder"),
        (b * n * m, "forgot-dk"), (b * b * n * m * d_k, "batch-members-meet"), (2 * b * n * m * d_k, "counted-flops"),
    ], [(b * (n + m) * d_k, "added-n-and-m")], 0


def _narrower(p):
    more, narrower = p["heads"] / p["base_heads"], p["d_k"] / p["base_d_k"]
    return 1, [(more, "counted-heads-only"), (narrower, "counted-width-only"), (more ** 2, "heads-squared"),
               (narrower ** 2, "width-squared")], [
        (0, "more-for-times"), (math.sqrt(more), "cost-as-sqrt-dk"), (p["heads"], "gave-heads")], 0.01


def _held(p):
    heads, n = p["heads"], p["n"]
    return heads, [(1, "same-as-multiply-adds"), (1 / heads, "inverted"), (p["d_k"], "counted-width")], [
        (heads ** 2, "heads-squared"), (100 * heads, "percentage"), (heads * n * n, "count-not-ratio"),
        (n * n, "count-not-ratio")], 0.01


def _memory(p):
    weights = p["layers"] * p["heads"] * p["n"] ** 2
    right = 4 * weights
    layers, heads, n = p["layers"], p["heads"], p["n"]
    return right, [
        (8 * weights, "scores-and-weights"), (weights, "counted-numbers"), (4 * heads * n * n, "forgot-layers"),
        (4 * layers * n * n, "forgot-heads"), (4 * n * n, "one-head-one-layer"), (2 * weights, "float16"),
        (right / 1e6, "megabytes"), (32 * weights, "bits"),
    ], [(4 * layers * heads * n, "linear-in-n"), (right / 2**20, "not-bytes"), (right / 1e9, "not-bytes"),
        (right / 2**30, "not-bytes"), (right / 1e3, "not-bytes"), (right / 2**10, "not-bytes")], 0


def _longer(p):
    f, stack, n = p["factor"], p["layers"] * p["heads"], p["n"]
    return f * f, [(f, "linear-growth"), (f ** 3, "cubic-growth"), (f ** 4, "squared-twice")], [
        (f * f * stack, "counted-layers-and-heads"), (2 * f, "doubled-factor"), (4 * f * f, "counted-bytes-in-ratio"),
        ((f * n) ** 2, "count-not-ratio"), (stack * (f * n) ** 2, "count-not-ratio")], 0.01


TABLES = {"02-P2": _score_macs, "02-P3": _cross_batch, "02-P4": _narrower, "02-P5": _held, "02-P6": _memory,
          "02-P7": _longer}


@pytest.mark.parametrize("problem_id", WITH_VARIANTS)
def test_every_variant_names_each_mistake_with_its_own_numbers(problem_id):
    seen = Counter()
    for seed in SEEDS:
        right, earlier, later, rel = TABLES[problem_id](PREDICTIONS[problem_id].numbers(seed))
        named_as_listed(problem_id, seed, right, earlier, later, rel, seen)
    # each added mistake is a number of its own in most variants, and named there
    _, _, later, _ = TABLES[problem_id](PREDICTIONS[problem_id].numbers(1))
    assert all(seen[mistake] >= 25 for _, mistake in later), seen


@pytest.mark.parametrize("seed", SEEDS)
def test_a_size_in_a_larger_unit_is_named_when_rounded(seed):
    p = PREDICTIONS["02-P6"].numbers(seed)
    right = 4 * p["layers"] * p["heads"] * p["n"] ** 2
    for unit in (2**10, 1e3, 2**20, 1e9, 2**30):
        exact = right / unit
        rounded = float(f"{exact:.4g}")
        assert verdict("02-P6", rounded, seed) == (False, "not-bytes"), (exact, rounded)
        assert verdict("02-P6", exact * 1.1, seed)[1] == "wrong-number"


@pytest.mark.parametrize("problem_id", WITH_VARIANTS)
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=5)


@pytest.mark.parametrize("problem_id", WITH_VARIANTS)
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id, tex=("{\\text{model}}",))
