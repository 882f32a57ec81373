"""The mask explorer (attn_lib/widgets/mask.py): the right placement keeps sums, the wrong ones break or leak."""

import pytest

from attn_lib.widgets import mask_explorer


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


@pytest.mark.parametrize("kwargs, argument", [({"mask": "future"}, "mask"), ({"placement": "middle"}, "placement")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        mask_explorer(**kwargs)
