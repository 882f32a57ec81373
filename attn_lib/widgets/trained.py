"""The trained-model explorer: choose one of notebook 10's sentences or type your own, choose a layer and a head of
all-MiniLM-L6-v2, and see that head's weights over the sentence's tokens.

Every frame of notebook 10's sentences (each layer and head) is computed when the explorer is made, so they move
without a kernel, in the reading copy too; a sentence typed in the box is run through the model by the kernel when
Enter is pressed.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import InputValueError
from ..minilm import HEADS, LAYERS, load
from ..plotting import WEIGHTS_CMAP
from ._explorer import Explorer, axis, choice, colormap, entropy_nats, not_while_grading, slider, text_field

SENTENCE = "the cat sat on the mat because it was tired"
# Notebook 10's five sentences (its `sentence` and `texts`), on which it measures the heads' patterns; its three
# long sentences (about 30 tokens) are left out, since the explorer cuts a sentence at MAX_TOKENS.
SENTENCES = (SENTENCE,
             "a dog chased the ball and the dog caught the ball",
             "she said that she would call her sister tomorrow",
             "the river was cold and the water was clear",
             "we bought bread and milk at the small shop on the corner")
OWN = None  # the choice's last option: the sentence typed in the box
MAX_TOKENS = 24  # [CLS] + 22 word pieces + [SEP]: beyond that the token labels no longer fit the heatmap


def token_axes(tokens):
    """The heatmap's axes over ``tokens``: keys across (their labels written upwards), queries down from the top."""
    n = len(tokens)
    return {"x": {**axis(-0.5, n - 0.5, range(n), tokens), "vertical": True},
            "y": axis(n - 0.5, -0.5, range(n), tokens)}


def head_patterns(weights, tokens):
    """Shares of a head's weight (n, n) that follow four patterns, each the mean over the queries it applies to.

    previous token: weights[i, i-1] for i >= 1; same word: weight on other positions holding the same token,
    for queries whose token occurs more than once (NaN if none does); [CLS]: weights[:, 0]; [SEP]: weights[:, -1].
    """
    n = weights.shape[-1]
    tokens = np.asarray(tokens)
    same = (tokens[:, None] == tokens[None, :]) & ~np.eye(n, dtype=bool)  # (n, n): another copy of my token
    repeated = same.any(axis=1)
    return {
        "previous token": float(np.diagonal(weights, offset=-1).mean()) if n > 1 else 0.0,
        "same word": float((weights * same).sum(axis=1)[repeated].mean()) if repeated.any() else math.nan,
        "[CLS]": float(weights[:, 0].mean()),
        "[SEP]": float(weights[:, -1].mean()),
    }


@not_while_grading
def trained_explorer(sentence=SENTENCE, layer=0, head=2, model=None):
    """Choose a sentence (one of notebook 10's, or your own), a layer and a head of all-MiniLM-L6-v2, and watch that
    head's attention weights.

    Parameters
    ----------
    sentence : str
        The starting sentence: one of ``SENTENCES`` (notebook 10's), or any other text, which starts in the box of
        your own sentence; cut to 24 tokens (with [CLS] and [SEP]) so that every token can be labelled.
    layer : int
        Starting layer, 0 to 5.
    head : int
        Starting head, 0 to 11.
    model : attn_lib.minilm.MiniLM, optional
        Default: ``attn_lib.minilm.load()``, loaded once per kernel.

    Returns
    -------
    Explorer
        Controls ``"example"`` (notebook 10's sentences, and last ``None``: the sentence in the box), ``"sentence"``
        (the box; also ``explorer.sentence``: giving it a text chooses it), ``"layer"`` and ``"head"`` (main).
        Every frame of notebook 10's sentences is sent when the explorer is made; those of a text given to the box,
        when it is given.
    """
    if not isinstance(sentence, str):
        raise InputValueError(f"sentence must be a string; got {type(sentence).__name__} {sentence!r}")
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < LAYERS:
        raise InputValueError(f"layer must be an integer from 0 to {LAYERS - 1}; got {layer!r}")
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < HEADS:
        raise InputValueError(f"head must be an integer from 0 to {HEADS - 1}; got {head!r}")
    model = load() if model is None else model  # verified by sha256, fetched if absent, loaded once per kernel

    runs = {}  # text -> its tokens, whether it was cut, and its weights (layers, heads, n, n)

    def read(text):
        if text not in runs:
            run = model.run([text], max_tokens=MAX_TOKENS)
            whole = model.tokenize([text], max_tokens=MAX_TOKENS + 1)[2][0]  # one token more: was it cut?
            runs[text] = (run.tokens[0], len(whole) > MAX_TOKENS,
                          np.stack([record.weights[0] for record in run.layers]).astype(float))  # (6, 12, n, n)
        return runs[text]

    size = (480, 430)
    # The heatmap, square, with room for the tokens on both axes (written upwards below it); the colour bar beside it,
    # nine tenths of its height, as matplotlib's colorbar(shrink=0.9) drew it.
    heat_rect = [98, 26, 304, 304]
    colorbar = {"rect": [414, 26 + 0.05 * 304, 14, 0.9 * 304], "cmap": WEIGHTS_CMAP, "vmin": 0, "vmax": 1,
                "ticks": [[t, f"{t:.1f}"] for t in np.linspace(0, 1, 6)], "label": "weight"}
    figure_panels = [
        {"rect": heat_rect, "title": "weights of the chosen head (row = query)", **token_axes(["[CLS]", "[SEP]"]),
         "xlabel": "key j (attended to)", "ylabel": "query i (attending)", "xlabelOffset": 92, "ylabelOffset": 86,
         "colorbar": colorbar},
    ]
    artists = [{"name": "weights", "panel": 0, "type": "cells", "cmap": WEIGHTS_CMAP, "vmin": 0, "vmax": 1}]

    def frame(example, sentence, layer, head):
        text = sentence if example is OWN else example
        tokens, cut, all_weights = read(text)
        n = len(tokens)
        weights = all_weights[layer, head]  # (n, n)
        largest = float(weights.max(axis=1).mean())
        entropy = float(entropy_nats(weights).mean())
        patterns = head_patterns(weights, tokens)
        known = {name: share for name, share in patterns.items() if not math.isnan(share)}
        strongest = max(known, key=known.get)
        readout = [
            ("layer, head", f"{layer}, {head}"),
            ("tokens n", f"{n}" + (f" (cut at {MAX_TOKENS})" if cut else "")),
            ("mean largest weight of a row", f"{largest:.2f}"),
            ("mean entropy of a row", f"{entropy:.2f} nats (uniform: ln {n} = {math.log(n):.2f})"),
            *((f"share on {name}", "no repeated token" if math.isnan(share) else f"{share:.2f}")
              for name, share in patterns.items()),
        ]
        description = (
            f"heatmap of the attention weights of layer {layer}, head {head} over the {n} tokens of "
            f"{text!r} (queries down, keys across): mean largest weight {largest:.2f}, mean entropy "
            f"{entropy:.2f} nats of a uniform {math.log(n):.2f}; largest share: {strongest} "
            f"({known[strongest]:.2f})."
        )
        measured = {"tokens": float(n), "largest_weight": largest, "entropy": entropy,
                    "row_sum_error": float(np.abs(weights.sum(axis=1) - 1).max()),
                    **{name: share for name, share in known.items()}}
        edges = np.arange(n + 1) - 0.5
        return {"artists": {"weights": {"values": weights, "xedges": edges, "yedges": edges}},
                "panels": {0: token_axes(tokens)},
                "readout": readout, "description": description, "measured": measured}

    controls = [
        choice("example", "sentence", (*SENTENCES, OWN), (*(f"“{text}”" for text in SENTENCES), "your own (below)"),
               tooltips=(*("one of notebook 10's sentences",) * len(SENTENCES), "the sentence typed in the box")),
        text_field("sentence", "your own sentence (type, then Enter)", when=("example", OWN)),
        slider("layer", f"layer (0 to {LAYERS - 1})", range(LAYERS)),
        slider("head", f"head (0 to {HEADS - 1})", range(HEADS)),
    ]
    listed = sentence in SENTENCES
    start = {"example": sentence if listed else OWN, "sentence": "" if listed else sentence, "layer": int(layer),
             "head": int(head)}
    explorer = Explorer("trained", controls, "head", start, {"width": size[0], "height": size[1]}, figure_panels,
                        artists, frame, colormaps={WEIGHTS_CMAP: colormap(WEIGHTS_CMAP)})
    explorer.sentence = explorer.controls["sentence"]  # giving it a text chooses "your own", as Enter does
    return explorer
