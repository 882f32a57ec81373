"""The replay explorer (attn_lib/widgets/replay.py): what training did, at the slider's two ends; its arguments."""

import numpy as np
import pytest

from attn_lib.widgets import replay_explorer

from .explorer_checks import assert_finite_labelled_frame


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
    first = (explorer.readout, explorer.description)
    explorer.controls["step"].value = explorer.controls["step"].options[3]
    assert explorer.readout != first[0] and explorer.description != first[1]
    assert "after 15 steps" in explorer.description


def test_it_replays_the_run_it_trained():
    explorer = replay_explorer(steps=40, save_every=10)
    history = explorer.history
    assert list(explorer.controls["step"].options) == [0, 10, 20, 30]
    assert history.saved_weights.shape == (4, 1, 4, 8)
    np.testing.assert_allclose(history.saved_weights.sum(axis=-1), 1.0)
    explorer.controls["step"].value = 30
    assert explorer.measured["loss"] == pytest.approx(history.losses[30])


def test_every_frame_is_sent_once_finite_and_labelled():
    explorer = replay_explorer()
    steps = explorer.controls["step"].options
    assert len(explorer.frames) == len(steps) == 31  # one slider: every saved step's frame, sent when it is made
    for frame in explorer.frames.values():
        assert_finite_labelled_frame(explorer, frame)
    computed = explorer.computed
    explorer.controls["step"].value = steps[-1]
    assert explorer.computed == computed  # a move needs no new frame


def test_the_figure_shows_the_saved_weights_and_marks_the_step_on_the_loss_curve():
    explorer = replay_explorer(steps=40, save_every=10)
    history = explorer.history
    frame = explorer.frame_at(step=20)
    np.testing.assert_allclose(frame["artists"]["weights"]["values"], history.saved_weights[2, 0], rtol=1e-4)
    assert frame["artists"]["step_dot"]["x"] == [20]
    assert frame["artists"]["step_dot"]["y"][0] == pytest.approx(history.losses[20], rel=1e-4)
    assert frame["artists"]["step_line"]["x"] == [20, 20]
    loss_panel = explorer.spec["panels"][1]
    assert loss_panel["y"]["log"] and loss_panel["y"]["min"] < history.losses.min()
    assert loss_panel["y"]["max"] > history.losses.max()
    weights_panel = explorer.spec["panels"][0]
    assert weights_panel["y"]["min"] > weights_panel["y"]["max"]  # query 0 at the top, as in a matrix
    queries, pairs = history.example.labels(0)
    assert [label for _, label in weights_panel["x"]["ticks"]] == list(pairs)
    assert [label for _, label in weights_panel["y"]["ticks"]] == list(queries)


@pytest.mark.parametrize("kwargs, argument", [({"steps": 5}, "steps"), ({"save_every": 0}, "save_every"),
                                              ({"lr": -1.0}, "lr"), ({"seed": -2}, "seed"),
                                              ({"steps": 20.5}, "steps")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        replay_explorer(**kwargs)
