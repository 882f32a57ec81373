"""The cost explorer (attn_lib/widgets/cost.py): the base model's numbers and quadratic growth."""

import json

import numpy as np
import pytest

from attn_lib.cost import attention_cost
from attn_lib.widgets import cost_explorer
from attn_lib.widgets._explorer import SUPERSCRIPT_DIGITS

from .explorer_checks import assert_every_sent_frame_finite_and_labelled


def shown(explorer):
    """The frame the page draws where the controls are."""
    return explorer.frame_at(**{name: control.value for name, control in explorer.controls.items()})


def artist(explorer, name):
    """An artist as drawn where the controls are: the spec's props, then the frame's."""
    base = next(a for a in explorer.spec["artists"] if a["name"] == name)
    return {**base, **shown(explorer)["artists"].get(name, {})}


def test_cost_explorer_base_model_and_quadratic_growth():
    explorer = cost_explorer()
    base = explorer.measured
    assert base["scores"] == 6 * 8 * 1000 * 1000  # layers x heads x n x m
    assert base["score_bytes_float32"] == 4 * base["scores"]
    assert "192 MB" in explorer.readout
    controls = explorer.controls
    controls["n"].value, controls["m"].value = 500, 500
    half = explorer.measured["scores"]
    controls["n"].value, controls["m"].value = 1000, 1000
    assert explorer.measured["scores"] == 4 * half
    curve, point = artist(explorer, "bytes_curve"), artist(explorer, "bytes_point")
    x, y = np.array(curve["x"]), np.array(curve["y"])
    slope = np.polyfit(np.log(x), np.log(y), 1)[0]
    assert slope == pytest.approx(2.0)  # quadratic: a line of slope 2 on log-log axes
    assert point["x"] == [1000] and point["y"][0] == base["score_bytes_float32"]


def test_cost_explorer_names_its_units():
    explorer = cost_explorer()
    assert "tokens" in explorer.controls["n"].description
    assert "MB" in explorer.readout


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
    explorer.controls["layers"].value = explorer.controls["layers"].options[-1]
    curve = artist(explorer, "macs_curve")
    x, y = np.array(curve["x"]), np.array(curve["y"])
    assert np.array_equal(x, np.round(x)) and x[-1] == 100000  # whole numbers of tokens, up to 10**5
    exact = np.array([attention_cost(int(length), heads=8, layers=24).macs for length in x], dtype=np.int64)
    assert exact[-1] > 2**31 and y == pytest.approx(exact, rel=1e-4)  # past 32 bits, without overflow
    assert explorer.measured["score_bytes_float32"] > 2**31  # counts past 32 bits, shown exactly
    assert explorer.measured["score_bytes_float32"] == 4 * 100000 * 100000 * 8 * 24


def test_cost_explorer_axes_are_log_log_with_labelled_decades():
    """As the old matplotlib axes: every decade of n labelled, every second decade of memory and multiply-adds."""
    explorer = cost_explorer()
    memory, macs = explorer.spec["panels"]
    for panel, y_exponents in ((memory, range(2, 15, 2)), (macs, range(3, 18, 2))):
        for name, exponents in (("x", range(1, 6)), ("y", y_exponents)):
            axis = panel[name]
            assert axis["log"] and (axis["min"], axis["max"]) == (10.0 ** exponents[0], 10.0 ** exponents[-1])
            assert axis["ticks"] == [[10.0**e, "10" + str(e).translate(SUPERSCRIPT_DIGITS)] for e in exponents]
        assert panel["grid"]
    assert [entry["label"] for entry in memory["legend"]] == [
        "self-attention, m = n", "linear (slope 1)", "base model (n = m = 1000, 8 heads, 6 layers)",
        "your choice (n, m)"]
    assert memory["x"]["ticks"][0][1] == "10¹" and macs["y"]["ticks"][-1][1] == "10¹⁷"


def test_cost_explorer_sends_the_cross_of_its_five_sliders():
    """13 x 13 x 7 x 16 x 24 positions: the page gets the frames one slider's move away (1 + 12 + 12 + 6 + 15 +
    23 = 69), whose JSON stays small."""
    explorer = cost_explorer()
    assert len(explorer.frames) == 69
    start = [explorer.values[name] for name in explorer.controls]
    assert all(sum(a != b for a, b in zip(json.loads(key), start)) <= 1 for key in explorer.frames)
    assert len(json.dumps(explorer.frames)) < 1_500_000


def test_every_frame_the_cost_explorer_sends_is_finite_and_labelled():
    assert_every_sent_frame_finite_and_labelled(cost_explorer())
