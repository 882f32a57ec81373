"""What every explorer shares: the :class:`Explorer` widget, drawn in the browser from numbers the kernel computes.

An explorer is an anywidget: its front end is one ES module, ``explorer.js`` beside this file (no imports, nothing
fetched), which draws on a canvas in the page. The kernel computes with attn_lib in numpy and sends numbers, never
images:

- ``spec`` (once): the controls (name, label, the text of each position), the figure's size, its panels (where,
  titles, axis labels, limits, ticks, legend) and its artists (stairs, bars, lines, markers, cells) with what does
  not move;
- ``frames_json`` (once): for each position of the controls computed when the explorer is made, what moves (the
  artists' numbers, axes that change), the readout and the one-line description, by the position's key
  (:func:`position_key`), as one line of JSON (:attr:`Explorer.frames` in Python); frames computed later go to the
  page as messages (``{"frames": {key: frame}}``), and :attr:`Explorer.sent` holds every frame the page has been
  given;
- ``values``: where the controls are, by position (an index into a control's options, or the text of a text
  field), written by the page when a learner moves a control and by Python when code sets one.

Every control moves over a finite set of positions, except a text field. When there are at most
:data:`ALL_POSITIONS` positions in all, every frame is sent when the explorer is made, and a move never needs the
kernel. Otherwise the kernel sends the frames of every position one control's move away from where the controls are
(the cross through the current position), and after each move the frames of the cross through the new one that the
page lacks: a single move is drawn from the page, and a move of a second control waits for the kernel only if it
comes before those frames (the kernel then sends the frame of where the controls are first, alone).

A text field's positions are the texts it is given: when the other controls have at most :data:`ALL_POSITIONS`
positions, all of them are sent for the starting text, and for each text given since. A text field made with
``when`` counts only while another control is at one value (a choice's "your own sentence"), and a text given to it
moves that control there; elsewhere a frame's key holds "" for the field, so that the frames of the other values are
computed once and drawn whatever it holds.

A notebook saved with its widgets' state keeps ``spec`` and ``frames_json``: opened before it is run, and in the
reading copy (``tools/build_html.py`` inlines the module and the state), the explorer moves without a kernel.

Readouts are text beside the figure; the description, a one-line text account of the figure, is the canvas's
accessible name, the caption under it and the explorer's ``text/plain`` form.

While nbgrader autogrades a notebook, an explorer function builds nothing and shows one line instead
(:class:`NotBuilt`): no graded cell reads an explorer, and building one is most of its notebook's grading cost.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import anywidget
import numpy as np
import traitlets

from .._checks import InputValueError
from .._platform import autograding

# Lines, bars and markers reach WCAG 2's 3:1 for graphics against the white figure (1.4.11), BROKEN also against the
# grey of a blocked cell it outlines; tests/widgets/test_explorer_colours.py measures every artist's colour.
BAR = "#3b528b"  # viridis, a third of the way up: the colour of measured quantities (7.6:1; 4.1:1 at alpha 0.75)
THEORY = "#cf7000"  # orange, distinct from viridis blues in both themes: the colour of theory (3.5:1)
BROKEN = "#a93226"  # red: the line a row sum must reach, the outline of a blocked cell that took weight (3.3:1 on grey)

ALL_POSITIONS = 600  # at most this many positions in all: every frame is sent when the explorer is made
MODULE = Path(__file__).with_name("explorer.js")  # the front end, shared by every explorer


@dataclass
class Control:
    """One control of an explorer: a slider or a choice over ``options`` (shown as ``labels``), or a text field.

    ``value`` reads and sets the control in Python (the page follows); the page's moves set it too.
    """

    name: str
    label: str
    options: tuple = ()
    labels: tuple = ()
    kind: str = "slider"  # "slider", "choice" or "text"
    tooltips: tuple = ()
    when: tuple = ()  # (name, value): the control counts only while control `name` is at `value` (Explorer._key)
    explorer: Explorer | None = None

    def position(self, value):
        """The position of ``value`` (an index into ``options``; a text field's position is its text)."""
        if self.kind == "text":
            if not isinstance(value, str):
                raise InputValueError(f"{self.name} must be a str; got {value!r}")
            return value
        for k, option in enumerate(self.options):
            if option == value and type(option) is type(value):
                return k
        if isinstance(value, (int, float)) and not isinstance(value, bool) and all(
                isinstance(option, float) for option in self.options):
            # A slider over real numbers: the nearest position, as a slider snaps to its steps.
            k = int(np.argmin([abs(option - value) for option in self.options]))
            gaps = np.diff(self.options)
            if abs(self.options[k] - value) <= 0.5 * float(np.abs(gaps).max()) * (1 + 1e-9):
                return k
        raise InputValueError(f"{self.name} must be one of {list(self.labels)}; got {value!r}")

    def value_at(self, position):
        return position if self.kind == "text" else self.options[position]

    @property
    def value(self):
        return self.value_at(self.explorer.values[self.name])

    @value.setter
    def value(self, value):
        # A control with ``when`` also brings the control it counts with to that value, as the page does.
        brought = {self.when[0]: self.explorer.controls[self.when[0]].position(self.when[1])} if self.when else {}
        self.explorer.values = {**self.explorer.values, **brought, self.name: self.position(value)}

    @property
    def description(self):
        return self.label

    def applies(self, positions):
        """Whether the control counts at ``positions`` (by name): always, unless ``when`` names another control's
        value and that control is elsewhere."""
        return not self.when or positions[self.when[0]] == self.explorer.controls[self.when[0]].position(self.when[1])

    def spec(self, main):
        entry = {"name": self.name, "kind": self.kind, "label": self.label, "options": list(self.labels)}
        if self.tooltips:
            entry["tooltips"] = list(self.tooltips)
        if main:
            entry["main"] = True
        if self.when:
            entry["when"] = [self.when[0], self.explorer.controls[self.when[0]].position(self.when[1])]
        return entry


def slider(name, label, options, labels=None):
    """A slider over ``options``; ``labels`` (default: each option as text) is what the page shows at each."""
    options = tuple(options)
    return Control(name, label, options, tuple(labels) if labels else tuple(f"{o:g}" if isinstance(o, float)
                                                                             else str(o) for o in options))


def choice(name, label, options, labels, tooltips=()):
    """Radio buttons, one per option, labelled ``labels``."""
    return Control(name, label, tuple(options), tuple(labels), kind="choice", tooltips=tuple(tooltips))


def text_field(name, label, when=()):
    """A text field; the kernel computes the frames of each text it is given. ``when`` (control name, value): the
    text counts only while that control is at that value (e.g. a choice's "your own" option), and giving a text
    moves that control there; elsewhere a frame's key holds "" for the field, so that the frames of the other
    positions serve whatever it holds."""
    return Control(name, label, kind="text", when=tuple(when))


def position_key(positions):
    """The key of a position in ``frames``: the controls' positions in order, as the page's JSON.stringify writes it."""
    return json.dumps(list(positions), separators=(",", ":"), ensure_ascii=False)


def plain(value):
    """``value`` in JSON's terms: numpy arrays and numbers as (nested) lists of numbers, each rounded to five
    significant figures (a pixel needs four), NaN as null (a masked cell). Infinities are refused."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    numbers = isinstance(value, (np.ndarray, np.number)) or (
        isinstance(value, (list, tuple)) and value
        and all(isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)) for v in value))
    if numbers:
        array = np.asarray(value, float)
        if np.isinf(array).any():
            raise ValueError("an explorer sent an infinite number to the page")
        return _rounded(array.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def _rounded(numbers):
    if isinstance(numbers, list):
        return [_rounded(item) for item in numbers]
    if numbers != numbers:
        return None
    rounded = float(f"{numbers:.5g}")
    return rounded if math.isfinite(rounded) else numbers  # near the largest float, rounding up would overflow


def axis(low, high, ticks=None, labels=None, log=False):
    """One axis of a panel: its limits and its ticks as (value, label) pairs (default: at most 6 round values)."""
    if ticks is None:
        from matplotlib.ticker import LogLocator, MaxNLocator

        locator = LogLocator(base=10) if log else MaxNLocator(nbins=6)
        scale = np.log10 if log else (lambda v: v)  # a tick within the axis, compared where the axis is linear
        lo, hi = sorted((float(scale(low)), float(scale(high))))
        slack = 1e-9 * (hi - lo)
        ticks = [float(t) for t in locator.tick_values(min(low, high), max(low, high))
                 if t > 0 or not log if lo - slack <= scale(t) <= hi + slack]
    if labels is None:
        labels = [tick_label(t, log) for t in ticks]
    return {"min": float(low), "max": float(high), "log": bool(log),
            "ticks": [[float(t), str(label)] for t, label in zip(ticks, labels)]}


def tick_label(value, log=False):
    if log and value > 0:
        exponent = round(math.log10(value))
        if math.isclose(value, 10.0**exponent):
            return "1" if exponent == 0 else "10" if exponent == 1 else f"10{str(exponent).translate(SUPERSCRIPT_DIGITS)}"
    return f"{value:g}".replace("-", "−")


def panels(size, ncols=1, width_ratios=None, left=62, right=14, top=26, bottom=46, gap=70):
    """The rectangles ``[left, top, width, height]`` in pixels of ``ncols`` panels side by side in a figure of
    ``size`` (width, height) pixels, leaving room for titles, tick labels and axis labels."""
    width, height = size
    ratios = np.asarray(width_ratios if width_ratios is not None else [1] * ncols, float)
    usable = width - left - right - gap * (ncols - 1)
    widths = usable * ratios / ratios.sum()
    rects, x = [], left
    for w in widths:
        rects.append([round(x, 1), top, round(float(w), 1), height - top - bottom])
        x += float(w) + gap
    return rects


def colormap(name, entries=256):
    """A matplotlib colour map as ``entries`` hex colours, for the page's cells."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps[name]
    return [to_hex(cmap(k / (entries - 1))) for k in range(entries)]


class NotBuilt:
    """What an explorer function gives while nbgrader autogrades (``attn_lib._platform.autograding``): nothing is
    computed or drawn, since no graded cell reads an explorer and no one moves it; shown as one line of text."""

    def __init__(self, function_name):
        self.function_name = function_name

    def __repr__(self):
        return f"{self.function_name}() is not built while grading: it runs when you open the notebook yourself."

    def _ipython_display_(self):
        from IPython.display import display

        display({"text/plain": repr(self)}, raw=True)


def not_while_grading(explorer_function):
    """Decorate an explorer function: while nbgrader autogrades, it returns :class:`NotBuilt` and builds nothing."""

    @functools.wraps(explorer_function)
    def explorer(*args, **kwargs):
        if autograding():
            return NotBuilt(explorer_function.__name__)
        return explorer_function(*args, **kwargs)

    return explorer


class Explorer(anywidget.AnyWidget):
    """One explorer: controls above, the figure with its readout beside it, a text description below.

    Parameters
    ----------
    name : str
        The explorer's kind (``"dk"``, ...): its CSS class is ``attn-explorer-<name>``.
    controls : list of Control
        In the order the page shows them.
    main_control : str
        The control a learner moves first.
    values : dict of str -> object
        Where each control starts (a value of its options, or a text).
    figure : dict
        ``{"width": px, "height": px}``.
    panels, artists : list of dict
        What the page draws (see ``explorer.js``): each artist has a ``name``, a ``panel`` index and a ``type``.
    frame : callable
        ``frame(**values)`` -> dict with ``"artists"`` (name -> what moves), optionally ``"panels"`` (index -> what
        changes of a panel), ``"readout"`` (a list of (label, value) text pairs), ``"description"`` (str) and
        ``"measured"`` (the readout's numbers, unrounded: Python's, not sent).
    colormaps : dict of str -> list of str, optional
        Colour maps the cells use, as hex colours.

    Attributes
    ----------
    controls : dict of str -> Control
    measured : dict of str -> float
        The numbers the readout shows, unrounded, where the controls are.
    readout : str
        The readout as text, one "label: value" per line.
    description : str
        The figure's one-line text account (also the explorer's ``text/plain`` form).
    computed : int
        How many frames the kernel has computed since the explorer was made.
    frames : dict of str -> dict
        The frames computed when the explorer was made, by position key (sent as ``frames_json``).
    sent : dict of str -> dict
        Every frame the page has been given, by position key: ``frames``, then those sent as messages.
    """

    _esm = MODULE
    spec = traitlets.Dict().tag(sync=True)
    frames_json = traitlets.Unicode().tag(sync=True)  # ``frames`` as compact JSON: one line in a saved notebook
    values = traitlets.Dict().tag(sync=True)

    def __init__(self, name, controls, main_control, values, figure, panels, artists, frame, colormaps=None):
        self.name = name
        self.main_control = main_control
        self.controls = {control.name: control for control in controls}
        for control in controls:
            control.explorer = self
        self._frame = frame
        self._measured = {}  # position key -> measured
        self.computed = 0
        spec = {"name": name, "controls": [c.spec(c.name == main_control) for c in controls],
                "figure": dict(figure), "panels": plain(panels), "artists": plain(artists),
                "colormaps": dict(colormaps or {})}
        start = {c.name: c.position(values[c.name]) for c in controls}
        self.frames = self._frames_around(start, {})
        super().__init__(spec=spec, frames_json=json.dumps(self.frames, separators=(",", ":"), ensure_ascii=False,
                                                           allow_nan=False), values=start)
        self.sent = dict(self.frames)  # every frame the page has: the saved ones, then those sent as messages
        self._show(start)
        self.observe(self._on_values, names="values")

    def _positions_around(self, values):
        """The positions whose frames the page should have while the controls are at ``values``."""
        controls = list(self.controls.values())
        finite = [c for c in controls if c.kind != "text"]
        counts = [len(c.options) for c in finite]
        if math.prod(counts) <= ALL_POSITIONS:
            ranges = [range(len(c.options)) if c.kind != "text" else [values[c.name]] for c in controls]
            return [dict(zip(self.controls, combo)) for combo in itertools.product(*ranges)]
        positions = [dict(values)]
        for c in finite:
            positions += [{**values, c.name: k} for k in range(len(c.options)) if k != values[c.name]]
        return positions

    def _frames_around(self, values, frames):
        """``frames`` with the frames around ``values`` added (only those not there yet are computed)."""
        frames = dict(frames)
        for position in self._positions_around(values):
            key = self._key(position)
            if key not in frames:
                frames[key] = self._compute(position)
        return frames

    def _compute(self, position):
        values = {name: self.controls[name].value_at(pos) for name, pos in position.items()}
        frame = dict(self._frame(**values))
        measured = frame.pop("measured", {})
        self.computed += 1
        key = self._key(position)
        self._measured[key] = (measured, frame["readout"], frame["description"])
        frame["readout"] = [[str(label), str(value)] for label, value in frame["readout"]]
        return plain(frame)

    def _on_values(self, change):
        values = change["new"]
        for name, control in self.controls.items():
            if name not in values:
                raise InputValueError(f"values must give every control's position; {name!r} is missing")
            position = values[name]
            if control.kind == "text" and not isinstance(position, str) or control.kind != "text" and not (
                    isinstance(position, int) and 0 <= position < len(control.options)):
                raise InputValueError(f"values[{name!r}] must be a position of {name}; got {position!r}")
        self._send_around(values)  # computes the frame of ``values`` first, if the page lacks it
        self._show(values)

    def _key(self, position):
        """The key of ``position`` (:func:`position_key`), where a control that does not count (its ``when``) is at
        "" (a text field) or 0: a frame that does not depend on it is computed and sent once (explorer.js's
        ``positionKey`` writes the same)."""
        return position_key(position[name] if c.applies(position) else "" if c.kind == "text" else 0
                            for name, c in self.controls.items())

    def _send_around(self, values):
        """Send the page, as messages, the frames around ``values`` it does not have: the frame of ``values`` itself
        first and alone (the page may be waiting for it), then the rest of the cross."""
        current = self._key(values)
        if current not in self.sent:
            self._send_frames({current: self._compute(values)})
        rest = {}
        for position in self._positions_around(values):
            key = self._key(position)
            if key not in self.sent and key not in rest:
                rest[key] = self._compute(position)
        if rest:
            self._send_frames(rest)

    def _send_frames(self, frames):
        self.sent.update(frames)
        self.send({"frames": frames})

    def _show(self, values):
        key = self._key(values)
        if key not in self._measured:
            self._compute(values)
        self.measured, readout, self.description = self._measured[key]
        self.readout = "\n".join(f"{label}: {value}" for label, value in readout)

    def frame_at(self, **values):
        """The frame the page draws with the controls at ``values`` (every control's value, by name)."""
        position = {name: self.controls[name].position(values[name]) for name in self.controls}
        key = self._key(position)
        return self.sent[key] if key in self.sent else self._compute(position)

    def __repr__(self):
        return f"{self.name}_explorer: {self.description}"

    def _ipython_display_(self):
        # Two outputs: a still of the figure, for a notebook JupyterLab does not trust yet (it draws no widget
        # there), then the explorer itself; the still hides itself wherever the explorer is drawn (_still.py).
        from IPython.display import display

        from ._still import still_bundle

        display(still_bundle(self), raw=True)
        display(self._repr_mimebundle_(), raw=True)

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if isinstance(data, tuple):
            data = data[0]
        data["text/plain"] = repr(self)  # the description, in full and deterministic (no model id)
        return data


def entropy_nats(weights):
    """Entropy in nats of each row of weights (0 log 0 = 0)."""
    weights = np.asarray(weights, float)
    logs = np.log(np.where(weights > 0, weights, 1.0))
    return -np.sum(weights * logs, axis=-1)


def largest_jacobian_entry(weights):
    """Largest |d weight_i / d score_j| of the softmax of one row: J = diag(w) - w w^T."""
    jacobian = np.diag(weights) - np.outer(weights, weights)  # (m,) outer (m,) -> (m, m)
    return float(np.abs(jacobian).max())


SUPERSCRIPT_DIGITS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def three_figures(x):
    """Three significant figures, without an exponent: 63.8, 0.948, 1021."""
    rounded = float(f"{x:.3g}")  # decide after rounding: 999.7 rounds to 1000, which .3g would write 1e+03
    return f"{x:.0f}" if abs(rounded) >= 1000 else f"{x:.3g}"


def significant(x, digits=3):
    """A number with ``digits`` significant figures, in plain notation while that stays short."""
    x = float(x)
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits}g}")  # decide after rounding: 99,970 rounds to 1e5
    if 1e-3 <= abs(rounded) < 1e5:  # plain: 0.00123, 63.8, 1020 (the "g" format would write 1.02e+03)
        return f"{rounded:.0f}" if abs(rounded) >= 10**digits else f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPT_DIGITS)}"
