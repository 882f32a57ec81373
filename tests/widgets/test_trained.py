"""The trained-model explorer (attn_lib/widgets/trained.py): the sentence box at its limits, and what it shows.

The sliders' ends are tested for every explorer in test_explorer.py; the sentence box is this explorer's own.
"""

import math

import numpy as np
import pytest

from attn_lib import minilm
from attn_lib.widgets import trained_explorer
from attn_lib.widgets.trained import MAX_TOKENS, head_patterns


@pytest.fixture(scope="module")
def explorer():
    return trained_explorer()


def shown_weights(explorer):
    return np.asarray(explorer.figure.axes[0].images[0].get_array(), float)


@pytest.mark.parametrize("sentence, n", [
    ("", 2),  # [CLS] [SEP] only
    ("hello", 3),
    ("word " * 200, MAX_TOKENS),  # cut, so that every token keeps a readable label
    ("naïve café, 😀 — déjà vu!", None),
    ("   \t  ", 2),
])
def test_the_sentence_box_at_its_limits(explorer, sentence, n):
    explorer.sentence.value = sentence
    weights = shown_weights(explorer)
    tokens = [t.get_text() for t in explorer.figure.axes[0].get_xticklabels()]
    assert weights.shape == (len(tokens), len(tokens)) and tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    if n is not None:
        assert len(tokens) == n
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5)
    assert explorer.measured["tokens"] == len(tokens)
    assert all(math.isfinite(v) for v in explorer.measured.values())
    assert repr(sentence) in explorer.description
    explorer.figure.canvas.draw()


def test_the_weights_shown_are_the_models(explorer):
    sentence = "a dog chased the ball and the dog caught the ball"
    explorer.sentence.value = sentence
    explorer.controls["layer"].value, explorer.controls["head"].value = 3, 7
    run = minilm.load().run([sentence])
    np.testing.assert_allclose(shown_weights(explorer), run.layers[3].weights[0, 7], atol=1e-6)
    assert "layer, head: <b>3, 7</b>" in explorer.readout.value


def test_layer_0_head_2_attends_to_the_previous_token():
    # Found by measuring in notebook 10; the explorer opens on it.
    explorer = trained_explorer()
    assert explorer.measured["previous token"] > 0.9 and explorer.measured["entropy"] < 0.1
    assert "largest share: previous token" in explorer.description


def test_a_change_of_head_is_blitted_and_a_new_sentence_redrawn(explorer):
    explorer.figure.canvas.draw()
    blits = explorer.blits
    explorer.controls["head"].value = (explorer.controls["head"].value + 1) % 12
    assert explorer.blits == blits + 1
    explorer.sentence.value = "a brand new sentence"
    assert explorer.blits == blits + 1  # new tokens: a full redraw instead


def test_head_patterns_on_made_up_weights():
    tokens = ["[CLS]", "a", "b", "a", "[SEP]"]
    previous = np.eye(5, k=-1)
    previous[0, 0] = 1.0
    shares = head_patterns(previous, tokens)
    assert shares["previous token"] == 1.0 and shares["same word"] == 0.0
    assert shares["[CLS]"] == pytest.approx(2 / 5) and shares["[SEP]"] == 0.0
    uniform = np.full((3, 3), 1 / 3)
    assert math.isnan(head_patterns(uniform, ["[CLS]", "x", "[SEP]"])["same word"])


@pytest.mark.parametrize("kwargs, argument", [
    ({"layer": 6}, "layer"), ({"layer": -1}, "layer"), ({"layer": True}, "layer"), ({"head": 12}, "head"),
    ({"head": 1.5}, "head"), ({"sentence": None}, "sentence"), ({"sentence": ["a", "b"]}, "sentence"),
])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        trained_explorer(**kwargs)


def test_the_readout_says_cut_only_when_the_sentence_was_cut(explorer):
    exactly = " ".join(["word"] * (MAX_TOKENS - 2))  # [CLS] + 22 words + [SEP]: fits, nothing cut
    explorer.sentence.value = exactly
    assert explorer.measured["tokens"] == MAX_TOKENS and "cut at" not in explorer.readout.value
    explorer.sentence.value = exactly + " word"
    assert explorer.measured["tokens"] == MAX_TOKENS and f"cut at {MAX_TOKENS}" in explorer.readout.value
