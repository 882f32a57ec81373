"""Every registered claim holds on held-out seeds; every claim is anchored in its notebook (its sentence in the
learner notebook's markdown, its code cell tagged ``claim-<id>``), and every cell tagged ``claim-*`` is registered.

The claims run under the ``claims`` marker (in the default run, as in CI); ``python -m pytest -q -m claims`` runs
only them, ``-m "not claims"`` leaves them out.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

from .ledger import CLAIMS, HELD_OUT_SEEDS

HERE = Path(__file__).resolve().parent
NOTEBOOKS = HERE.parent.parent / "notebooks"
MODULES = sorted(p.stem for p in HERE.glob("claims_*.py"))
for _stem in MODULES:
    importlib.import_module(f"{__package__}.{_stem}")


def _cells(stem):
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def _ids(claim):
    return claim.id


@pytest.mark.claims
@pytest.mark.parametrize("claim", CLAIMS, ids=_ids)
def test_claim_holds_on_held_out_seeds(claim):
    claim.check(HELD_OUT_SEEDS)


def test_held_out_seeds_are_at_least_ten_and_distinct():
    assert len(set(HELD_OUT_SEEDS)) == len(HELD_OUT_SEEDS) >= 10, HELD_OUT_SEEDS


def test_every_claims_module_registers_a_claim():
    registered = {getattr(c.check, "__module__", "").rsplit(".", 1)[-1] for c in CLAIMS}
    assert set(MODULES) <= registered, f"claims modules that register nothing: {sorted(set(MODULES) - registered)}"


def test_claim_ids_are_unique():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)), f"ids registered twice: {sorted({i for i in ids if ids.count(i) > 1})}"


@pytest.mark.parametrize("claim", CLAIMS, ids=_ids)
def test_claim_is_anchored_in_its_notebook(claim):
    assert claim.id.startswith(claim.notebook[:3]), f"{claim.id}: the id should start with the notebook's number"
    assert claim.condition.strip(), f"{claim.id}: state the sentence's conditions"
    cells = _cells(claim.notebook)  # the learner's notebook: the solutions notebooks hold only the problems
    prose = [_source(c) for c in cells if c["cell_type"] == "markdown"]
    assert any(claim.sentence in text for text in prose), (
        f"{claim.id}: its sentence is not in the markdown of {claim.notebook}: {claim.sentence!r}")
    tagged = [c for c in cells if f"claim-{claim.id}" in _tags(c)]
    assert len(tagged) == 1 and tagged[0]["cell_type"] == "code", (
        f"{claim.id}: {claim.notebook} should have one code cell tagged claim-{claim.id}; found {len(tagged)}")


@pytest.mark.parametrize("stem", sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")))
def test_every_tagged_cell_is_registered(stem):
    registered = {f"claim-{c.id}" for c in CLAIMS}
    for where in (stem, f"solutions/{stem}-solutions"):
        if not (NOTEBOOKS / f"{where}.ipynb").exists():
            continue
        tags = {t for c in _cells(where) for t in _tags(c) if t.startswith("claim-")}
        assert tags <= registered, f"{where}: cells tagged {sorted(tags - registered)} have no registered claim"


def test_the_jacobian_size_of_03_is_the_size_of_the_table():
    from .claims_03 import jacobian_size

    rng = np.random.default_rng(0)
    for spread in (1.0, 30.0):  # soft rows, and rows saturated to a few digits
        weights = np.exp(spread * rng.standard_normal((50, 7)))
        weights /= weights.sum(axis=1, keepdims=True)
        table = weights[:, :, None] * np.eye(7) - weights[:, :, None] * weights[:, None, :]  # (n, m, m)
        exact = np.sqrt(np.sum(table**2, axis=(1, 2)))
        assert np.allclose(jacobian_size(weights), exact, rtol=1e-6, atol=1e-7)
