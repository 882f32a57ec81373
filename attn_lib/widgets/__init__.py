"""Explorers: live widgets that let a learner move d_k, a temperature, a mask or n and watch the effect.

Each explorer function returns one widget (an :class:`Explorer`) that a notebook shows as the last expression of a
cell::

    from attn_lib.widgets import dk_explorer
    dk_explorer()

Each explorer is drawn in the browser by one ES module (``explorer.js``, through anywidget) from numbers the kernel
computes with attn_lib: the kernel sends arrays, never images, and sends the numbers of every position a control
can reach in one move before it is made (of every position, when there are few), so a move draws from the page
with no round trip to the kernel. Importing this package leaves matplotlib's global backend alone, so the notebook's
figures stay inline PNGs.

Readouts are text beside the figure; :attr:`Explorer.description` is a one-line text account of the figure for a
reader who cannot see it: the canvas's accessible name, the caption under it and the explorer's ``text/plain``
form. Saved with the notebook's widget state, an explorer moves without a kernel: in a notebook opened before it is
run, and in the reading copy (``tools/build_html.py``).

While nbgrader autogrades a notebook, an explorer function builds nothing and shows one line instead
(``_explorer.NotBuilt``): no graded cell reads an explorer, and building one is most of its notebook's grading cost.

Layout: ``_explorer`` holds what every explorer shares and ``explorer.js`` draws them all; each explorer is a module named after its kind
(``dk``, ``softmax``, ``mask``, ``cost``, ``replay``, ``trained``) that defines ``<kind>_explorer``.
``EXPLORERS`` lists them all, by kind: the tests and benchmarks go through it.
"""

from ._explorer import Explorer
from .cost import cost_explorer
from .dk import dk_explorer
from .mask import mask_explorer
from .replay import replay_explorer
from .softmax import softmax_explorer
from .trained import trained_explorer

# kind -> factory; every factory works with no arguments, and its Explorer's name is its kind.
EXPLORERS = {
    "dk": dk_explorer,
    "softmax": softmax_explorer,
    "mask": mask_explorer,
    "cost": cost_explorer,
    "replay": replay_explorer,
    "trained": trained_explorer,
}

__all__ = ["EXPLORERS", "Explorer", "cost_explorer", "dk_explorer", "mask_explorer", "replay_explorer",
           "softmax_explorer", "trained_explorer"]
