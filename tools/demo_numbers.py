"""Print the numbers the teacher's guide quotes for its live demos, as the explorers show them.

Usage (from the repository's top folder)::

    PYTHONPATH=$PWD python tools/demo_numbers.py

Each explorer is made headless, its controls are set to the values a teacher reaches from the keyboard, and its
readout (the text beside the figure) is printed as it would appear on the projector. Session 1 has no explorer: its
numbers are those of notebook 00's output cell, computed with ``attn_lib.attention``. Notebook 10's explorer loads
all-MiniLM-L6-v2 (``python -m attn_lib.minilm`` fetches it once).
"""

from __future__ import annotations


import numpy as np

from attn_lib import attention
from attn_lib.widgets import (cost_explorer, dk_explorer, mask_explorer, replay_explorer, softmax_explorer,
                              trained_explorer)


def readout(explorer):
    """The readout beside the figure, as plain text on one line."""
    return explorer.readout.replace("\n", " | ")


def show(explorer, label, **values):
    """Set the controls named in ``values`` (in order), then print the readout under ``label``."""
    for name, value in values.items():
        explorer.controls[name].value = value
    print(f"  {label}: {readout(explorer)}")


def session_00_02():
    print("00-02: notebook 00's six words (no explorer); output = attention(Q, K, V)")
    Q = np.array([[2, 0, 0], [0, 2, 0], [2, 0, 0.5], [0, 0, 2], [2, 0, 0], [0, 1, 0]], float)  # (n, d_k)
    K = np.array([[0.5, 0, 0], [3, 0, 0], [0, 3, 0], [0, 0.5, 1], [0.5, 0, 0], [2, 0, 2]], float)  # (m, d_k)
    V = np.array([[0, 0], [1, 0], [0, 0.2], [0, 0.5], [0, 0], [0, 1]], float)  # (m, d_v)
    tokens = ["the", "cat", "sat", "on", "a", "mat"]
    output, weights = attention(Q, K, V, return_weights=True)  # (n, d_v), (n, m)
    for i, token in enumerate(tokens):
        top = int(weights[i].argmax())
        print(f"  {token:>4}: animal {output[i, 0]:.2f}, location {output[i, 1]:.2f}; "
              f"largest weight {weights[i, top]:.2f} on {tokens[top]!r}")


def session_03_04():
    print("03-04: dk_explorer() (starts at d_k = 64, unscaled)")
    explorer = dk_explorer()
    show(explorer, "start", d_k=64, scaled=False)
    for d_k in (8, 512):
        show(explorer, f"d_k = {d_k}, unscaled", d_k=d_k, scaled=False)
        show(explorer, f"d_k = {d_k}, scaled", scaled=True)
    print("04: softmax_explorer() (scores 2, 1, 0.5, -0.5, -1.5; one key press = 0.05 on log10 T)")
    explorer = softmax_explorer()
    for presses in (0, -6, 6, 20):  # T = 10 ** (0.05 * presses): 1, 0.50, 2.00, 10 (End)
        show(explorer, f"{presses:+d} presses", temperature=10 ** (0.05 * presses))


def session_05_06():
    print("05-06: mask_explorer() (six tokens, d_k = 8)")
    explorer = mask_explorer()
    for mask in ("causal", "padding"):
        for placement in ("before", "after", "zero"):
            show(explorer, f"{mask}, {placement}", mask=mask, placement=placement)


def session_07_08():
    print("07-08: cost_explorer() (starts at the base model: n = m = 1000, d_k = 64, 8 heads, 6 layers)")
    explorer = cost_explorer()
    show(explorer, "base model")
    show(explorer, "n = 2000 alone", n=2000)
    show(explorer, "n = m = 2000", m=2000)
    show(explorer, "n = m = 10000", n=10000, m=10000)
    show(explorer, "back to 1000, d_k = 128", n=1000, m=1000, d_k=128)
    show(explorer, "1 head of d_k = 512", d_k=512, heads=1)


def session_09():
    for lr in (0.5, 0.1):
        print(f"09: replay_explorer(lr={lr}) (slider over steps 0, 5, ..., 150)")
        explorer = replay_explorer(lr=lr)
        for step in (0, 15, 30, 35, 50, 150):
            show(explorer, f"step {step}", step=step)


def session_10():
    print("10: trained_explorer() (starts at layer 0, head 2)")
    explorer = trained_explorer()
    show(explorer, "layer 0, head 2", layer=0, head=2)
    show(explorer, "layer 4, head 5", layer=4, head=5)
    explorer.sentence.value = "a dog chased the ball and the dog caught the ball"
    show(explorer, "dog sentence, layer 4, head 5")
    show(explorer, "dog sentence, layer 0, head 2", layer=0, head=2)
    show(explorer, "dog sentence, layer 0, head 8", head=8)


if __name__ == "__main__":
    for session in (session_00_02, session_03_04, session_05_06, session_07_08, session_09, session_10):
        session()
