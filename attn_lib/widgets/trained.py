"""The trained-model explorer: type a sentence, choose a layer and a head of all-MiniLM-L6-v2, see its weights."""

from __future__ import annotations

import math

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np

from ..minilm import HEADS, LAYERS, load
from ..plotting import WEIGHTS_CMAP
from ._explorer import WIDE, Explorer, entropy_nats, live_figure, not_while_grading, readout_rows
from .._checks import InputValueError

SENTENCE = "the cat sat on the mat because it was tired"
MAX_TOKENS = 24  # [CLS] + 22 word pieces + [SEP]: beyond that the token labels no longer fit the heatmap


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
    """Type a sentence, choose a layer and a head of all-MiniLM-L6-v2, and watch that head's attention weights.

    Parameters
    ----------
    sentence : str
        The starting sentence; cut to 24 tokens (with [CLS] and [SEP]) so that every token can be labelled.
    layer : int
        Starting layer, 0 to 5.
    head : int
        Starting head, 0 to 11.
    model : attn_lib.minilm.MiniLM, optional
        Default: ``attn_lib.minilm.load()``, loaded once per kernel.

    Returns
    -------
    Explorer
        Controls ``"head"`` (main) and ``"layer"``; the sentence box is ``explorer.sentence`` (a Text widget: the
        weights are recomputed when it changes, on Enter or when it loses focus).
    """
    if not isinstance(sentence, str):
        raise InputValueError(f"sentence must be a string; got {type(sentence).__name__} {sentence!r}")
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < LAYERS:
        raise InputValueError(f"layer must be an integer from 0 to {LAYERS - 1}; got {layer!r}")
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < HEADS:
        raise InputValueError(f"head must be an integer from 0 to {HEADS - 1}; got {head!r}")
    model = load() if model is None else model  # verified by sha256, fetched if absent, loaded once per kernel

    text = widgets.Text(value=sentence, description="sentence (type, then Enter)", continuous_update=False,
                        style=WIDE, layout=widgets.Layout(width="44em"))
    text.add_class("attn-sentence")
    layer_control = widgets.IntSlider(value=int(layer), min=0, max=LAYERS - 1, continuous_update=False,
                                      description=f"layer (0 to {LAYERS - 1})", style=WIDE)
    head_control = widgets.IntSlider(value=int(head), min=0, max=HEADS - 1, continuous_update=False,
                                     description=f"head (0 to {HEADS - 1})", style=WIDE)

    fig, (ax,) = live_figure((4.4, 3.6))
    image = ax.imshow(np.zeros((2, 2)), cmap=mpl.colormaps[WEIGHTS_CMAP], vmin=0, vmax=1, aspect="auto",
                      interpolation="nearest")
    fig.colorbar(image, ax=ax, label="weight", shrink=0.9, pad=0.02)
    ax.set_xlabel("key j (attended to)")
    ax.set_ylabel("query i (attending)")
    ax.spines[:].set_visible(False)
    ax.tick_params(labelsize=8)
    ax.set_title("weights of the chosen head (row = query)", fontsize=10)  # fixed: the sliders name the head
    state = {"sentence": None}

    def read_sentence():
        run = model.run([text.value], max_tokens=MAX_TOKENS)
        whole = model.tokenize([text.value], max_tokens=MAX_TOKENS + 1)[2][0]  # one token more: was it cut?
        state.update(sentence=text.value, tokens=run.tokens[0], cut=len(whole) > MAX_TOKENS,
                     weights=np.stack([record.weights[0] for record in run.layers]).astype(float))  # (6, 12, n, n)
        n = len(state["tokens"])
        image.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
        ax.set_xticks(range(n), state["tokens"], rotation=90)
        ax.set_yticks(range(n), state["tokens"])

    def update(head, layer):
        full_redraw = state["sentence"] != text.value
        if full_redraw:  # new tokens: new ticks, so the whole figure is drawn again
            read_sentence()
        tokens = state["tokens"]
        n = len(tokens)
        weights = state["weights"][layer, head]  # (n, n)
        image.set_data(weights)
        largest = float(weights.max(axis=1).mean())
        entropy = float(entropy_nats(weights).mean())
        patterns = head_patterns(weights, tokens)
        known = {name: share for name, share in patterns.items() if not math.isnan(share)}
        strongest = max(known, key=known.get)
        readout = readout_rows([
            ("layer, head", f"{layer}, {head}"),
            ("tokens n", f"{n}" + (f" (cut at {MAX_TOKENS})" if state["cut"] else "")),
            ("mean largest weight of a row", f"{largest:.2f}"),
            ("mean entropy of a row", f"{entropy:.2f} nats (uniform: ln {n} = {math.log(n):.2f})"),
            *((f"share on {name}", "no repeated token" if math.isnan(share) else f"{share:.2f}")
              for name, share in patterns.items()),
        ])
        description = (
            f"heatmap of the attention weights of layer {layer}, head {head} over the {n} tokens of "
            f"{text.value!r} (queries down, keys across): mean largest weight {largest:.2f}, mean entropy "
            f"{entropy:.2f} nats of a uniform {math.log(n):.2f}; largest share: {strongest} "
            f"({known[strongest]:.2f})."
        )
        measured = {"tokens": float(n), "largest_weight": largest, "entropy": entropy,
                    "row_sum_error": float(np.abs(weights.sum(axis=1) - 1).max()),
                    **{name: share for name, share in known.items()}}
        return readout, description, full_redraw, measured

    explorer = Explorer("trained", {"head": head_control, "layer": layer_control}, "head", fig, update,
                        animated=[image])
    explorer.sentence = text
    text.observe(lambda change: explorer.update(), names="value")
    explorer.children = (text, *explorer.children)
    return explorer
