"""Explorers: live widgets that let a learner move d_k, a temperature, a mask or n and watch the effect.

Each explorer returns one ipywidgets container (an :class:`Explorer`) that a notebook shows as the last expression
of a cell::

    from attn_lib.widgets import dk_explorer
    dk_explorer()

No ``%matplotlib widget`` is needed: the figure is an ipympl canvas made for this figure only, and importing this
package leaves matplotlib's global backend alone, so the notebook's other figures stay inline PNGs.

The figure is built once. A change of a control updates the artists that move (bars, curves, the heatmap) in
place and blits them: they are drawn over the background kept from the last full redraw, and only the changed
pixels go to the browser, a few milliseconds of work instead of a full redraw (ticks and text are what cost).
When axes or labels change (the d_k explorer's scaled/unscaled switch, the mask explorer's tokens), the browser is
asked for a full redraw (``draw_idle``), which ipympl coalesces while an image is in flight. Sliders send their
value when released (``continuous_update=False``), and ipywidgets sends only the latest value while a change is in
flight, so a burst of key presses does not queue a backlog. Everything that does not depend on a control (the
sampled queries and keys, the example scores, the weights of every mask and placement) is computed once, when the
explorer is made, from a fixed seed.

Readouts are text beside the figure; :attr:`Explorer.description` is a one-line text account of the figure for a
reader who cannot see it, shown under the figure and as the explorer's ``text/plain`` form.

Shown in a notebook, an explorer stores a still image of its figure before the live widget (its alt text and
caption are the description, with a one-line prompt to run the cell): a notebook opened before its cells are run,
with no kernel, or read as the static copy shows the still, and a running explorer shows only the live widget.

While nbgrader autogrades a notebook, an explorer function builds nothing and shows one line instead
(``_explorer.NotBuilt``): no graded cell reads an explorer, and building one is most of its notebook's grading cost.

Layout: ``_explorer`` holds what every explorer shares; each explorer is a module named after its kind
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
