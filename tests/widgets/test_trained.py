"""The trained-model explorer (attn_lib/widgets/trained.py): notebook 10's sentences, the sentence box at its
limits, the weights it shows, and which frames it computes and sends.

The controls' ends are tested for every explorer in test_explorer.py; the sentence box is this explorer's own.
"""

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from attn_lib import minilm
from attn_lib.widgets import trained_explorer
from attn_lib.widgets._explorer import MODULE, plain
from attn_lib.widgets.trained import MAX_TOKENS, OWN, SENTENCES, head_patterns

from .explorer_checks import assert_every_sent_frame_finite_and_labelled, assert_finite_labelled_frame

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "10-a-trained-model.ipynb"
FRAMES_PER_SENTENCE = minilm.LAYERS * minilm.HEADS  # 72


@pytest.fixture(scope="module")
def explorer():
    return trained_explorer()


def shown(explorer):
    """The frame the page draws where the controls are: it must be among the frames the page was given."""
    key = explorer._key(explorer.values)
    assert key in explorer.sent, f"the page has no frame at {key}"
    return explorer.sent[key]


def shown_weights(explorer):
    return np.asarray(shown(explorer)["artists"]["weights"]["values"], float)


def shown_tokens(explorer):
    panels = shown(explorer)["panels"]  # by index in Python, by its text in the page's JSON
    return [label for _, label in panels.get(0, panels.get("0"))["x"]["ticks"]]


def test_the_sentences_to_choose_are_notebook_10s():
    """The explorer's sentences are the ones notebook 10 measures its heads on: its `sentence` and `texts`."""
    cells = ["".join(cell["source"]) for cell in json.loads(NOTEBOOK.read_text())["cells"]]
    assert any(source.startswith(f"sentence = {SENTENCES[0]!r}".replace("'", '"')) for source in cells)
    defining = [source for source in cells if "texts = [sentence," in source]
    assert len(defining) == 1
    listed = defining[0].split("texts = [sentence,", 1)[1].split("]", 1)[0]
    assert [line.strip().rstrip(",").strip('"') for line in listed.strip().splitlines()] == list(SENTENCES[1:])


def test_it_opens_on_the_first_of_them_with_every_frame_of_every_one_saved(explorer):
    start = trained_explorer()
    assert start.values == {"example": 0, "sentence": "", "layer": 0, "head": 2}
    assert start.computed == len(start.frames) == (len(SENTENCES) + 1) * FRAMES_PER_SENTENCE  # and the empty box
    for k, sentence in enumerate(SENTENCES):
        for layer in range(minilm.LAYERS):
            for head in range(minilm.HEADS):
                frame = start.frames[json.dumps([k, "", layer, head], separators=(",", ":"))]
                assert frame["readout"][0] == ["layer, head", f"{layer}, {head}"]
                assert repr(sentence) in frame["description"]


@pytest.mark.parametrize("sentence, n", [
    ("", 2),  # [CLS] [SEP] only
    ("hello", 3),
    ("word " * 200, MAX_TOKENS),  # cut, so that every token keeps a readable label
    ("naïve café, 😀 — déjà vu!", None),
    ("   \t  ", 2),
])
def test_the_sentence_box_at_its_limits(explorer, sentence, n):
    explorer.sentence.value = sentence
    assert explorer.controls["example"].value is OWN  # a text given to the box is shown
    weights = shown_weights(explorer)
    tokens = shown_tokens(explorer)
    assert weights.shape == (len(tokens), len(tokens)) and tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    if n is not None:
        assert len(tokens) == n
    assert explorer.measured["row_sum_error"] <= 1e-5  # the kernel's weights; the page's, to five figures:
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5 + 5e-6 * len(tokens))
    assert explorer.measured["tokens"] == len(tokens)
    assert all(math.isfinite(v) for v in explorer.measured.values())
    assert repr(sentence) in explorer.description
    assert_finite_labelled_frame(explorer, shown(explorer))


@pytest.mark.parametrize("choose", ["listed", "typed"])
def test_the_weights_shown_are_the_models(explorer, choose):
    sentence = "a dog chased the ball and the dog caught the ball"
    if choose == "listed":
        explorer.sentence.value = "something else in the box"
        explorer.controls["example"].value = sentence
    else:
        explorer.sentence.value = sentence
    explorer.controls["layer"].value, explorer.controls["head"].value = 3, 7
    expected = minilm.load().run([sentence]).layers[3].weights[0, 7].astype(float)  # (n, n)
    assert shown_weights(explorer).tolist() == plain(expected)  # exactly the model's, to five significant figures
    np.testing.assert_allclose(shown_weights(explorer), expected, rtol=5e-5, atol=1e-12)
    assert shown_tokens(explorer) == minilm.load().run([sentence]).tokens[0]
    assert "layer, head: 3, 7" in explorer.readout
    assert shown(explorer)["description"] == explorer.description and repr(sentence) in explorer.description


def test_layer_0_head_2_attends_to_the_previous_token():
    # Found by measuring in notebook 10; the explorer opens on it.
    explorer = trained_explorer()
    assert explorer.measured["previous token"] > 0.9 and explorer.measured["entropy"] < 0.1
    assert "largest share: previous token" in explorer.description


def test_a_move_needs_no_kernel_and_a_typed_sentence_sends_its_72_frames_once():
    explorer = trained_explorer()
    messages = []
    explorer.send = messages.append
    start = explorer.computed
    for name, value in (("head", 11), ("layer", 5), ("example", SENTENCES[3]), ("example", OWN), ("head", 0)):
        explorer.controls[name].value = value
    assert messages == [] and explorer.computed == start  # every position of the listed sentences was saved
    explorer.controls["example"].value = SENTENCES[1]
    explorer.sentence.value = "a brand new sentence"  # typed while a listed sentence is chosen: it is chosen
    assert explorer.controls["example"].value is OWN and "'a brand new sentence'" in explorer.description
    new = [key for message in messages for key in message["frames"]]
    assert len(new) == len(set(new)) == FRAMES_PER_SENTENCE  # the listed sentences' frames are not sent again
    assert all(json.loads(key)[:2] == [len(SENTENCES), "a brand new sentence"] for key in new)
    typed, computed = list(messages), explorer.computed
    explorer.controls["example"].value = SENTENCES[2]  # the box still holds the text: the saved frame serves
    assert shown(explorer) is explorer.frames[explorer._key(explorer.values)]
    explorer.sentence.value = ""  # back to a text given before: nothing to compute or send
    assert messages == typed and explorer.computed == computed
    assert explorer.controls["example"].value is OWN and "the 2 tokens of ''" in explorer.description


def test_the_page_and_python_write_the_same_keys_whatever_the_box_holds(explorer):
    """explorer.js's positionKey, run by node on this explorer's spec: the box counts only with "your own" chosen."""
    positions = [{"example": 1, "sentence": "a typed text, with \"quotes\"", "layer": 2, "head": 5},
                 {"example": len(SENTENCES), "sentence": "a typed text, with \"quotes\"", "layer": 2, "head": 5},
                 {"example": 0, "sentence": "", "layer": 0, "head": 0}]
    script = (f"import('{MODULE.as_uri()}').then(m => process.stdout.write(JSON.stringify("
              f"{json.dumps(positions)}.map(v => m.positionKey({json.dumps(explorer.spec)}, v)))))")
    result = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                            check=True)
    assert json.loads(result.stdout) == [explorer._key(position) for position in positions]
    assert json.loads(json.loads(result.stdout)[0]) == [1, "", 2, 5]


def test_every_frame_sent_is_finite_and_labelled():
    explorer = trained_explorer()
    assert_every_sent_frame_finite_and_labelled(explorer)
    explorer.sentence.value = "the river was cold, and the water was clear"
    for key in explorer.sent.keys() - explorer.frames.keys():
        assert_finite_labelled_frame(explorer, explorer.sent[key])


def test_a_starting_sentence_of_ones_own_starts_in_the_box():
    explorer = trained_explorer(sentence="hello world", layer=3, head=1)
    assert explorer.values == {"example": len(SENTENCES), "sentence": "hello world", "layer": 3, "head": 1}
    assert "the 4 tokens of 'hello world'" in explorer.description
    assert len(explorer.frames) == (len(SENTENCES) + 1) * FRAMES_PER_SENTENCE


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
    assert explorer.measured["tokens"] == MAX_TOKENS and "cut at" not in explorer.readout
    explorer.sentence.value = exactly + " word"
    assert explorer.measured["tokens"] == MAX_TOKENS and f"cut at {MAX_TOKENS}" in explorer.readout
