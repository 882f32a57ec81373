"""The replay explorer (attn_lib/widgets/replay.py): what training did, at the slider's two ends; its arguments."""

import numpy as np
import pytest

from attn_lib.widgets import replay_explorer


def test_the_first_step_is_near_uniform_and_the_last_has_learned_the_keys():
    explorer = replay_explorer()
    options = explorer.controls["step"].options
    explorer.controls["step"].value = options[0]
    start = dict(explorer.measured)
    explorer.controls["step"].value = options[-1]
    end = dict(explorer.measured)
    assert start["step"] == 0 and end["step"] == options[-1] == 150
    assert start["weight_on_match"] < 0.3 and start["largest_weight"] < 0.5
    assert end["weight_on_match"] > 0.8
    assert end["loss"] < 0.1 * start["loss"]
    assert start["accuracy"] < 0.5 < 0.95 < end["accuracy"]


def test_the_readout_and_description_follow_the_slider():
    explorer = replay_explorer()
    first = (explorer.readout.value, explorer.description)
    explorer.controls["step"].value = explorer.controls["step"].options[3]
    assert explorer.readout.value != first[0] and explorer.description != first[1]
    assert "after 15 steps" in explorer.description


def test_it_replays_the_run_it_trained():
    explorer = replay_explorer(steps=40, save_every=10)
    history = explorer.history
    assert list(explorer.controls["step"].options) == [0, 10, 20, 30]
    assert history.saved_weights.shape == (4, 1, 4, 8)
    np.testing.assert_allclose(history.saved_weights.sum(axis=-1), 1.0)
    explorer.controls["step"].value = 30
    assert explorer.measured["loss"] == pytest.approx(history.losses[30])


@pytest.mark.parametrize("kwargs, argument", [({"steps": 5}, "steps"), ({"save_every": 0}, "save_every"),
                                              ({"lr": -1.0}, "lr"), ({"seed": -2}, "seed"),
                                              ({"steps": 20.5}, "steps")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        replay_explorer(**kwargs)
