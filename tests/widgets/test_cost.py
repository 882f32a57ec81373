"""The cost explorer (attn_lib/widgets/cost.py): the base model's numbers and quadratic growth."""

import numpy as np
import pytest

from attn_lib.widgets import cost_explorer


def test_cost_explorer_base_model_and_quadratic_growth():
    explorer = cost_explorer()
    base = explorer.measured
    assert base["scores"] == 6 * 8 * 1000 * 1000  # layers x heads x n x m
    assert base["score_bytes_float32"] == 4 * base["scores"]
    assert "192 MB" in explorer.readout.value
    controls = explorer.controls
    controls["n"].value, controls["m"].value = 500, 500
    half = explorer.measured["scores"]
    controls["n"].value, controls["m"].value = 1000, 1000
    assert explorer.measured["scores"] == 4 * half
    curve, point = (line for line in explorer.figure.axes[0].lines if line.get_animated())
    x, y = curve.get_data()
    slope = np.polyfit(np.log(x), np.log(y), 1)[0]
    assert slope == pytest.approx(2.0)  # quadratic: a line of slope 2 on log-log axes
    assert point.get_ydata()[0] == base["score_bytes_float32"]


def test_cost_explorer_names_its_units():
    explorer = cost_explorer()
    assert "tokens" in explorer.controls["n"].description
    assert "MB" in explorer.readout.value


@pytest.mark.parametrize("kwargs, argument", [({"n": 1001}, "n"), ({"heads": 0}, "heads")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        cost_explorer(**kwargs)



def test_cost_explorer_works_where_numpys_default_int_is_32_bits(monkeypatch):
    """In the browser (wasm32) numpy's default int, what ``.astype(int)`` gives, is 32 bits: the explorer's lengths
    as int32 times the base model's 10**11 multiply-adds overflowed there (OverflowError in the browser edition's
    notebook 08). Simulated here by making ``int`` in the module mean int32, as ``.astype(int)`` does in wasm32."""
    import attn_lib.widgets.cost as module

    monkeypatch.setattr(module, "int", np.int32, raising=False)
    explorer = cost_explorer()
    explorer.controls["n"].value, explorer.controls["m"].value = 100000, 100000
    explorer.controls["layers"].value = explorer.controls["layers"].max
    curve = next(line for line in explorer.figure.axes[1].lines if line.get_animated())
    x, y = curve.get_data()
    assert np.asarray(x).dtype == np.int64 and np.asarray(y).dtype == np.float64
    assert explorer.measured["score_bytes_float32"] > 2**31  # counts past 32 bits, shown exactly
