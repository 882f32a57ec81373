"""The mask explorer (attn_lib/widgets/mask.py): the right placement keeps sums, the wrong ones break or leak."""

import numpy as np
import pytest

from attn_lib.widgets import mask_explorer

from .explorer_checks import assert_finite_labelled_frame


@pytest.mark.parametrize("mask", ["none", "causal", "padding"])
def test_mask_explorer_right_placement_keeps_sums_and_blocks_exactly(mask):
    explorer = mask_explorer(mask=mask, placement="before")
    state = explorer.measured
    assert state["broken_rows"] == 0 and state["leaked_weight"] == 0.0 and state["leak_cells"] == 0
    assert all(state[f"row_sum{i}"] == pytest.approx(1.0) for i in range(6))


def test_mask_explorer_wrong_placements_break_sums_or_leak():
    explorer = mask_explorer(mask="causal", placement="after")
    after = dict(explorer.measured)
    assert after["broken_rows"] == 5  # every row but the last, which sees every key
    assert all(after[f"row_sum{i}"] < 1 for i in range(5)) and after["leaked_weight"] == 0.0
    explorer.controls["placement"].value = "zero"
    zero = dict(explorer.measured)
    assert zero["broken_rows"] == 0 and zero["leak_cells"] == 15 and zero["leaked_weight"] > 0.1
    explorer.controls["mask"].value = "padding"
    assert explorer.measured["leak_cells"] == 12  # 6 queries x 2 padded keys


def test_every_frame_is_sent_finite_and_labelled():
    explorer = mask_explorer()
    assert len(explorer.frames) == 9  # 3 placements x 3 masks: every position, sent once
    for frame in explorer.frames.values():
        assert_finite_labelled_frame(explorer, frame)


def test_the_figure_marks_what_the_readout_counts():
    explorer = mask_explorer(mask="padding", placement="zero")
    frame = explorer.frame_at(placement="zero", mask="padding")
    weights = np.array(frame["artists"]["weights"]["values"], dtype=float)  # a masked cell (None) as NaN
    assert not np.isnan(weights).any()  # every blocked cell took weight: none is grey
    assert len(frame["artists"]["leaks"]["x"]) == explorer.measured["leak_cells"] == 12
    assert len(frame["artists"]["crosses"]["x"]) == 12
    np.testing.assert_allclose(frame["artists"]["sums"]["values"],
                               [explorer.measured[f"row_sum{i}"] for i in range(6)], rtol=1e-4)
    labels = [label for _, label in frame["panels"][0]["x"]["ticks"]]  # the padded tokens name the keys
    assert labels == ["I", "like", "green", "tea", "<pad>", "<pad>"]
    right = explorer.frame_at(placement="before", mask="causal")
    weights = np.array(right["artists"]["weights"]["values"], dtype=float)
    assert np.isnan(weights).sum() == 15  # the blocked cells, grey: weight exactly 0
    panel = explorer.spec["panels"][0]
    assert panel["y"]["min"] > panel["y"]["max"]  # query 0 at the top, as in a matrix


def test_the_readout_names_its_placement():
    explorer = mask_explorer(placement="after")
    assert "placement: after the softmax" in explorer.readout
    assert "(wrong)" in explorer.description and repr(explorer).startswith("mask_explorer: heatmap")


@pytest.mark.parametrize("kwargs, argument", [({"mask": "future"}, "mask"), ({"placement": "middle"}, "placement")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        mask_explorer(**kwargs)
