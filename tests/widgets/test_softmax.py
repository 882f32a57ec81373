"""The softmax explorer (attn_lib/widgets/softmax.py): a temperature that sharpens and flattens one row."""

import json
import math

import pytest

from attn_lib.widgets import softmax_explorer
from attn_lib.widgets._explorer import position_key
from attn_lib.widgets.softmax import SCORE_VALUES, TEMPERATURES

from .explorer_checks import assert_every_sent_frame_finite_and_labelled


def test_softmax_explorer_temperature_sharpens_and_flattens():
    explorer = softmax_explorer()
    explorer.controls["temperature"].value = 0.1
    cold = dict(explorer.measured)
    explorer.controls["temperature"].value = 10.0
    hot = dict(explorer.measured)
    assert cold["largest_weight"] > 0.99
    assert hot["entropy"] == pytest.approx(math.log(5), abs=0.05)
    for state in (cold, hot):
        assert state["weight_sum"] == pytest.approx(1.0)
    explorer.controls["s3"].value = 5.0  # a score moved to the top takes the largest weight
    assert explorer.measured["w3"] == max(explorer.measured[f"w{j}"] for j in range(5))


def test_softmax_explorer_sliders_keep_the_old_grids_and_readouts():
    """The temperature: 10**e for e from -1 to 1 in steps of 0.05, shown with two decimals; a score: -5 to 5 in
    steps of 0.1, shown with one (the old FloatLogSlider's and FloatSliders' steps and readout formats)."""
    explorer = softmax_explorer()
    temperature, score = explorer.controls["temperature"], explorer.controls["s0"]
    assert len(temperature.options) == 41 and len(score.options) == 101
    assert temperature.options == pytest.approx([10 ** (-1 + 0.05 * k) for k in range(41)], rel=1e-9)
    for exact in (0.1, 1.0, 10.0):
        assert exact in temperature.options
    assert list(score.options) == [round(-5 + 0.1 * k, 1) for k in range(101)]
    assert temperature.labels[0] == "0.10" and temperature.labels[20] == "1.00" and temperature.labels[-1] == "10.00"
    assert score.labels[0] == "-5.0" and score.labels[50] == "0.0" and score.labels[-1] == "5.0"
    assert TEMPERATURES == temperature.options and SCORE_VALUES == score.options
    assert "temperature T: 1.00" in explorer.readout


def test_softmax_explorer_start_between_positions_snaps_to_the_nearest():
    explorer = softmax_explorer(scores=[1.23, -4.96, 0.04], temperature=0.5)
    assert explorer.controls["temperature"].value == pytest.approx(10 ** -0.3)  # the position nearest 0.5
    assert [explorer.controls[f"s{j}"].value for j in range(3)] == [1.2, -5.0, 0.0]
    assert "T = 0.50" in explorer.description


def one_move_away(explorer, keys):
    """Whether every key is at most one control's move away from where the controls are."""
    current = [explorer.values[name] for name in explorer.controls]
    return all(sum(a != b for a, b in zip(json.loads(key), current)) <= 1 for key in keys)


@pytest.mark.parametrize("m", [2, 5, 8])
def test_softmax_explorer_sends_the_cross_around_where_the_controls_are(m):
    """41 * 101**m positions in all: the page gets the frames one control's move away (1 + 40 + 100 m), their JSON
    small; after a move, the frames of the new cross it lacks (40 temperatures, 100 for each other score)."""
    explorer = softmax_explorer(scores=[0.5 * (-1) ** j for j in range(m)])
    assert len(explorer.frames) == 41 + 100 * m and one_move_away(explorer, explorer.frames)
    size = len(json.dumps(explorer.frames))
    assert size < 1_500_000, size
    messages = []
    explorer.send = messages.append
    explorer.controls["s1"].value = 5.0
    new = [key for message in messages for key in message["frames"]]
    assert len(new) == len(set(new)) == 40 + 100 * (m - 1) and one_move_away(explorer, new)
    assert not set(new) & set(explorer.frames)
    assert len(explorer.sent) == len(explorer.frames) + len(new)
    current = [explorer.values[name] for name in explorer.controls]
    for name, control in explorer.controls.items():
        for k in range(len(control.options)):
            assert position_key({**explorer.values, name: k}.values()) in explorer.sent
    assert explorer.sent[position_key(current)]["description"] == explorer.description


def test_every_frame_the_softmax_explorer_sends_is_finite_and_labelled():
    assert_every_sent_frame_finite_and_labelled(softmax_explorer())



@pytest.mark.parametrize("kwargs, argument", [({"scores": [1.0]}, "scores"), ({"temperature": 0.0}, "temperature")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        softmax_explorer(**kwargs)
