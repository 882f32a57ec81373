"""What every explorer shares: a figure on its own ipympl canvas, the :class:`Explorer` container that updates
it by blitting, and the formatting of readouts.

An explorer module (one per explorer, beside this one) computes what does not depend on a control once, builds
its figure with :func:`live_figure`, and hands :class:`Explorer` its controls and an ``update`` function that moves
the artists and returns the readout, the description and the measured numbers.

Shown in a notebook, an explorer is two outputs: a still image of its figure as first shown (an HTML ``<img>`` with
the description as alt text and under it, and a one-line prompt to run the cell), then the live widget. A style
rule that travels with the still shows one of the two: the live widget while its kernel is connected, the still
wherever the widget cannot run (the notebook opened before its cells are run, no kernel, a widget whose model is
gone, the static reading copy). See :data:`STILL_STYLE`.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import struct
import warnings
import zlib

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from PIL import Image

from .._platform import autograding
from ..plotting import STYLE


def _import_ipympl_keeping_backend():
    """Import ipympl's canvas without letting it switch matplotlib's global backend.

    ``import ipympl`` calls ``matplotlib.use("module://ipympl.backend_nbagg")`` when matplotlib is already
    imported. In a notebook that switch also makes IPython drop the inline backend's PNG display of figures, so
    the notebook's other figures would show as text. That one call is turned into nothing while ipympl loads.
    """
    real_use = mpl.use
    mpl.use = lambda *args, **kwargs: None
    try:
        from ipympl.backend_nbagg import Canvas, FigureManager
    finally:
        mpl.use = real_use
    return Canvas, FigureManager


Canvas, FigureManager = _import_ipympl_keeping_backend()


class DiffCanvas(Canvas):
    """ipympl's canvas, sending the changed pixels of an update as a PNG made for speed.

    After an update the browser receives an image the size of the figure in which only the changed pixels are
    opaque, and lays it over what it shows. ipympl compresses every row of that image with PIL's default
    settings; here only the rows that changed are compressed, at zlib's fastest level, and the rows that did not
    change (all zeros) are copied from data compressed once. At a device pixel ratio of 2 this was most of the
    time the kernel spent on a key press.
    """

    def get_diff_image(self):
        if not self._png_is_old:
            return None
        pixels = np.asarray(self.get_renderer().buffer_rgba())  # (height, width, 4)
        buff = pixels.view(np.uint32).squeeze(2)  # one number per pixel, compared in one step
        if self._force_full or buff.shape != self._last_buff.shape or (pixels[:, :, 3] != 255).any():
            return super().get_diff_image()  # a whole image: the first, after a resize, or with transparency
        self.set_image_mode("diff")
        changed = buff != self._last_buff  # (height, width)
        self._last_buff = buff.copy()
        self._png_is_old = False
        return diff_png(buff, changed)


def diff_png(buff, changed):
    """An RGBA PNG of ``buff`` (height, width) of uint32 pixels, transparent wherever ``changed`` is False.

    The image data of a PNG is zlib-compressed rows, each a filter byte then the pixels. Raw deflate data made
    apart can be joined when each part ends on a byte boundary (a sync flush), so a run of unchanged rows is
    joined in from cached parts, and only the runs of changed rows are compressed.
    """
    height, width = buff.shape
    row_bytes = 1 + 4 * width
    rows = changed.any(axis=1)  # (height,): does the row hold a changed pixel?
    starts = np.flatnonzero(np.diff(rows, prepend=~rows[:1]))  # the first row of each run of equal rows
    stops = np.append(starts[1:], height)
    parts, a, b = [b"\x78\x01"], 1, 0  # zlib header (fastest level); a, b: the Adler-32 checksum's two sums
    for start, stop in zip(starts.tolist(), stops.tolist()):
        count = stop - start
        if rows[start]:
            scanlines = np.zeros((count, row_bytes), np.uint8)  # filter byte 0: the pixels as they are
            pixels = np.where(changed[start:stop], buff[start:stop], 0)  # (count, width)
            scanlines[:, 1:] = pixels.view(np.uint8).reshape(count, 4 * width)
            data = scanlines.tobytes()
            compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
            parts.append(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH))
            checksum = zlib.adler32(data, (b << 16) | a)
            a, b = checksum & 0xFFFF, checksum >> 16
        else:
            parts.append(_zero_rows(row_bytes, count))
            b = (b + count * row_bytes * a) % 65521  # zeros leave the first sum alone and add it to the second
    parts.append(zlib.compressobj(1, zlib.DEFLATED, -15).flush())  # an empty last block ends the stream
    parts.append(struct.pack(">I", (b << 16) | a))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits per channel, RGBA, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


_ZERO_ROWS = {}  # (bytes per row, 2**k) -> raw deflate data of 2**k rows of zeros, ending on a byte boundary


def _zero_rows(row_bytes, count):
    """Raw deflate data of ``count`` rows of zeros, joined from cached runs of 1, 2, 4, ... rows."""
    parts, power = [], 0
    while count:
        if count & 1:
            key = (row_bytes, 1 << power)
            if key not in _ZERO_ROWS:
                compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
                _ZERO_ROWS[key] = compressor.compress(bytes(row_bytes << power)) + compressor.flush(zlib.Z_SYNC_FLUSH)
            parts.append(_ZERO_ROWS[key])
        count >>= 1
        power += 1
    return b"".join(parts)


WIDE = {"description_width": "initial"}  # show each control's full label
# Lines, bars and markers reach WCAG 2's 3:1 for graphics against the white figure (1.4.11), BROKEN also against the
# grey of a blocked cell it outlines; tests/widgets/test_still.py measures every artist of every explorer.
BAR = "#3b528b"  # viridis, a third of the way up: the colour of measured quantities (7.6:1; 4.1:1 at alpha 0.75)
THEORY = "#cf7000"  # orange, distinct from viridis blues in both themes: the colour of theory (3.5:1)
BROKEN = "#a93226"  # red: the line a row sum must reach, the outline of a blocked cell that took weight (3.3:1 on grey)


# Which of an explorer's two outputs shows, in JupyterLab and Notebook 7 (and nbconvert's lab template, which uses
# the same classes): an output area child holds one output. A live view of a widget model has no
# "jupyter-widgets-disconnected" class (ipywidgets adds it while the model has no connection to a kernel, as a
# model restored from a notebook's saved state has none). While the cell's outputs hold a connected explorer, the
# still is hidden; otherwise the output after the still is hidden ("Loading widget...", "Error displaying widget:
# model not found", an explorer restored without a kernel whose controls would do nothing, or its text form) and
# the still shows. Browsers without :has() (before 2023) show both.
_LIVE = ".attn-explorer:not(.jupyter-widgets-disconnected)"
STILL_STYLE = (
    "<style>"
    f".jp-OutputArea:has({_LIVE}) > .jp-OutputArea-child:has(.attn-still) {{ display: none; }} "
    f".jp-OutputArea-child:has(.attn-still) + .jp-OutputArea-child:not(:has({_LIVE})) {{ display: none; }}"
    "</style>"
)


def live_figure(figsize, ncols=1, width_ratios=None):
    """A matplotlib figure on its own ipympl canvas (no pyplot, no global backend switch).

    Returns
    -------
    fig : matplotlib.figure.Figure
        ``fig.canvas`` is an ipympl ``Canvas`` widget, without toolbar, header or footer.
    axes : numpy.ndarray of Axes, shape (ncols,)
    """
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=figsize, dpi=100, layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, ncols, width_ratios=width_ratios, squeeze=False)[0])
    canvas = DiffCanvas(fig)
    with warnings.catch_warnings():
        # ipympl 0.10's own Toolbar passes its canvas on to traitlets, which warns; nothing here can fix that.
        warnings.filterwarnings("ignore", "Passing unrecognized arguments", DeprecationWarning)
        FigureManager(canvas, num=id(fig))  # the manager answers the browser's draw requests; Gcf never sees it
    canvas.header_visible = False
    canvas.footer_visible = False
    canvas.toolbar_visible = False
    canvas.resizable = False
    canvas.capture_scroll = False
    return fig, axes


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


class Explorer(widgets.VBox):
    """One explorer: controls above, the figure with its readout beside it, a text description below.

    Attributes
    ----------
    controls : dict of str -> ipywidgets.Widget
        Every control, by name; ``main_control`` names the one a learner moves first.
    figure : matplotlib.figure.Figure
        The live figure; ``figure.canvas`` is its ipympl widget.
    readout : ipywidgets.HTML
        The measured numbers, with their units.
    caption : ipywidgets.HTML
        The one-line description of the figure, as shown under it.
    description : str
        That description as plain text (also the explorer's ``text/plain`` form).
    measured : dict of str -> float
        The numbers the readout shows, unrounded, for the current values of the controls.
    updates : int
        How many times the figure has been updated since the explorer was made (one per change of a control).
    blits : int
        How many of those updates were drawn by blitting (the rest asked the browser for a full redraw).
    blit : bool
        Draw updates by blitting when the axes did not change (default); False forces a full redraw every time,
        for comparison.
    """

    def __init__(self, name, controls, main_control, fig, update, animated=(), **kwargs):
        self.name = name
        self.controls = dict(controls)
        self.main_control = main_control
        self.figure = fig
        self.updates = 0
        self.blits = 0
        self.blit = True
        self._update = update
        self._animated = list(animated)
        self._background = None
        for artist in self._animated:
            artist.set_animated(True)  # left out of full redraws' background, drawn on top of it
        fig.canvas.mpl_connect("draw_event", self._on_draw)
        self.readout = widgets.HTML(layout=widgets.Layout(flex="1 1 12em", min_width="12em", max_width="24em",
                                                          margin="0 0 0 1em"))
        self.readout.add_class("attn-readout")
        self.caption = widgets.HTML(layout=widgets.Layout(max_width="60em"))
        self.caption.add_class("attn-description")
        self.description = ""
        for widget in self.controls.values():
            widget.observe(self._on_change, names="value")
        self.controls[main_control].add_class("attn-main-control")
        fig.canvas.add_class("attn-figure")
        body = widgets.HBox([fig.canvas, self.readout], layout=widgets.Layout(flex_flow="row wrap",
                                                                            align_items="flex-start"))
        super().__init__([widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                          body, self.caption], **kwargs)
        self.add_class("attn-explorer")
        self.add_class(f"attn-explorer-{name}")
        self._drawing_still = False
        self.update(draw=False)
        self.updates = 0

    def _on_draw(self, event):
        # After every full redraw (the first display, a resize, a change of axes): keep the background, then draw
        # the changing artists on top, so that the image the browser receives is complete.
        if self._drawing_still:  # the still's own renderer: the live canvas did not redraw
            return
        canvas = self.figure.canvas
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        for artist in self._animated:
            self.figure.draw_artist(artist)

    def _on_change(self, change):
        self.update()

    def update(self, draw=True):
        """Recompute from the controls' values, update the artists, readout and description in place.

        When only the changing artists moved, they are drawn over the kept background and sent as a diff at once
        (blitting: a few milliseconds); when axes, ticks or labels changed, the browser is asked for a full
        redraw (``canvas.draw_idle()``), which ipympl coalesces while an image is in flight.

        Parameters
        ----------
        draw : bool
            Redraw the figure (otherwise only the artists' data, the readout and the description change).
        """
        values = {name: widget.value for name, widget in self.controls.items()}
        readout, description, full_redraw, self.measured = self._update(**values)
        self.updates += 1
        if draw:  # the figure first: its pixels then reach the browser ahead of the text
            canvas = self.figure.canvas
            if full_redraw or self._background is None or not self.blit:
                canvas.draw_idle()
            else:
                canvas.restore_region(self._background)
                for artist in self._animated:
                    self.figure.draw_artist(artist)
                canvas.blit(self.figure.bbox)
                self.blits += 1
        self.readout.value = f'<div style="line-height: 1.35">{readout}</div>'
        self.description = description
        self.caption.value = (f'<div style="line-height: 1.3; font-size: 0.9em"><b>Figure:</b> '
                              f'{html.escape(description, quote=False)}</div>')

    def __repr__(self):
        return f"{self.name}_explorer: {self.description}"

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)  # the description, in full and deterministic (no model id)
        return data

    def _ipython_display_(self):
        # Two outputs: the still (what a notebook opened before running shows), then the live widget.
        from IPython.display import display

        display(self.still_bundle(), raw=True)
        display(self._repr_mimebundle_(), raw=True)

    def still_png(self):
        """The figure as it stands, as PNG bytes: drawn on a renderer of its own, the live canvas left alone.

        A plain ``savefig`` would leave out the artists that move (they are animated, drawn by blitting). The pixels
        are the live canvas's at a device pixel ratio of 1.
        """
        fig = self.figure
        width, height = (int(round(size)) for size in fig.bbox.size)  # pixels at the figure's dpi
        renderer = RendererAgg(width, height, fig.dpi)
        self._drawing_still = True
        try:
            fig.draw(renderer)  # constrained layout settles on its second pass: the one the live canvas shows
            renderer.clear()
            fig.draw(renderer)
            for artist in self._animated:
                artist.draw(renderer)
        finally:
            self._drawing_still = False
        buffer = io.BytesIO()
        Image.fromarray(np.asarray(renderer.buffer_rgba())[..., :3]).save(buffer, format="png", optimize=True)
        return buffer.getvalue()

    def still_bundle(self):
        """The still's outputs: ``text/html`` (the image, its alt text and caption, and :data:`STILL_STYLE`) and
        ``text/plain`` (the prompt and the "Figure:" description, for a reader without HTML)."""
        width, height = (int(round(size)) for size in self.figure.bbox.size)
        png = base64.b64encode(self.still_png()).decode("ascii")
        names = [self.controls[self.main_control].description]
        names += [widget.description for name, widget in self.controls.items() if name != self.main_control]
        prompt = f"A still image of the explorer as first shown. Run this cell to use its controls: {'; '.join(names)}."
        description = html.escape(self.description, quote=False)
        image = (f'<img alt="{html.escape(self.description, quote=True)}" src="data:image/png;base64,{png}" '
                 f'width="{width}" height="{height}" style="max-width: 100%; height: auto">')
        caption = (f'<figcaption style="max-width: 60em; line-height: 1.3; font-size: 0.9em"><b>Figure:</b> '
                   f'{description}<br><i>{html.escape(prompt, quote=False)}</i></figcaption>')
        return {
            "text/html": f'<figure class="attn-still attn-still-{self.name}" style="margin: 0">{image}{caption}'
                         f'</figure>{STILL_STYLE}',
            "text/plain": f"{prompt}\nFigure: {self.description}",
        }


def readout_rows(pairs):
    """Readout HTML: one line per (label, value) pair."""
    return "<br>".join(f"{html.escape(label, quote=False)}: <b>{html.escape(value, quote=False)}</b>"
                       for label, value in pairs)


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
