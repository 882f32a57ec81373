"""A still image of an explorer's figure, drawn with matplotlib from the numbers the page draws (a spec and a frame).

JupyterLab draws a widget only in a trusted notebook: a notebook opened from a fresh copy (a clone, Binder, a
download) is untrusted until it is run, and shows each output's safe form. An explorer therefore stores, before the
widget, a still of its first frame as HTML (an ``<img>`` with the description as alt text and caption, and a prompt
to run the cell); a style rule that travels with it hides the still wherever the explorer itself is drawn
(:data:`STILL_STYLE`). The reading copy draws the explorer itself and leaves the still out (``tools/build_html.py``).
"""

from __future__ import annotations

import base64
import html
import io

import numpy as np

# Which of an explorer's two outputs shows, in JupyterLab and Notebook 7 (an output area child holds one output):
# while the cell's outputs hold a drawn explorer, the still is hidden; otherwise the output after the still is
# hidden (the widget's text form, or "Loading widget...") and the still shows. Browsers without :has() (before
# 2023) show both.
STILL_STYLE = (
    "<style>"
    ".jp-OutputArea:has(.attn-explorer) > .jp-OutputArea-child:has(.attn-still) { display: none; } "
    ".jp-OutputArea-child:has(.attn-still) + .jp-OutputArea-child:not(:has(.attn-explorer)) { display: none; }"
    "</style>"
)
MARKERS = {"circle": "o", "star": "*", "x": "x", "square": "s"}
INK, SPINE = "#222222", "#444444"  # explorer.js's


def still_png(spec, frame):
    """The figure of ``frame`` (a frame of ``spec``, as the page draws it), as PNG bytes at a pixel ratio of 1."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    width, height = spec["figure"]["width"], spec["figure"]["height"]
    fig = Figure(figsize=(width / 100, height / 100), dpi=100, facecolor="white")

    def box(rect):
        left, top, w, h = rect
        return [left / width, 1 - (top + h) / height, w / width, h / height]

    for index, base in enumerate(spec["panels"]):
        changes = frame.get("panels", {})
        panel = {**base, **changes.get(index, changes.get(str(index), {}))}
        ax = fig.add_axes(box(panel["rect"]))
        for name, set_scale, set_lim, set_ticks in (("x", ax.set_xscale, ax.set_xlim, ax.set_xticks),
                                                    ("y", ax.set_yscale, ax.set_ylim, ax.set_yticks)):
            axis = panel[name]
            set_scale("log" if axis["log"] else "linear")
            set_lim(axis["min"], axis["max"])
            ticks = axis["ticks"]
            set_ticks([t for t, _ in ticks], [label for _, label in ticks], fontsize=7.5, color=INK,
                      **({"rotation": 90} if name == "x" and axis.get("vertical") else {}))
        ax.minorticks_off()
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        for side in ("left", "bottom"):
            ax.spines[side].set_color(SPINE)
        ax.set_title(panel.get("title", ""), fontsize=9, color=INK)
        ax.set_xlabel(panel.get("xlabel", ""), fontsize=8.5, color=INK)
        ax.set_ylabel(panel.get("ylabel", ""), fontsize=8.5, color=INK)
        if panel.get("grid"):
            ax.grid(True, color=panel["grid"], linewidth=0.6)
            ax.set_axisbelow(True)
        for artist in spec["artists"]:
            if artist["panel"] == index:
                _draw(ax, {**artist, **frame["artists"].get(artist["name"], {})}, spec, ListedColormap)
        if panel.get("legend"):
            _legend(ax, panel["legend"])
        if panel.get("colorbar"):
            bar = panel["colorbar"]
            cax = fig.add_axes(box(bar["rect"]))
            gradient = np.linspace(bar["vmin"], bar["vmax"], 256)[:, None]
            cax.imshow(gradient, aspect="auto", origin="lower", cmap=ListedColormap(spec["colormaps"][bar["cmap"]]),
                       extent=(0, 1, bar["vmin"], bar["vmax"]))
            cax.set_xticks([])
            cax.yaxis.tick_right()
            cax.set_yticks([t for t, _ in bar["ticks"]], [label for _, label in bar["ticks"]], fontsize=7.5)
            cax.yaxis.set_label_position("right")
            cax.set_ylabel(bar.get("label", ""), fontsize=8.5, color=INK)
    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()


def _draw(ax, a, spec, ListedColormap):
    kind = a["type"]
    if kind in ("stairs", "bars"):
        horizontal = a.get("orientation") == "horizontal"
        values = np.array([np.nan if v is None else v for v in a["values"]], float)
        if kind == "stairs":
            edges = np.asarray(a["edges"], float)
            starts, widths = edges[:-1], np.diff(edges)
        else:
            positions = np.asarray(a["positions"], float)
            starts, widths = positions - a["width"] / 2, np.full(len(positions), a["width"])
        baseline = a.get("baseline", 0)
        draw = ax.barh if horizontal else ax.bar
        draw(starts, values - baseline, widths, baseline, align="edge", color=a["color"], alpha=a.get("alpha", 1),
             linewidth=0)
    elif kind == "line":
        x = np.array([np.nan if v is None else v for v in a["x"]], float)
        y = np.array([np.nan if v is None else v for v in a["y"]], float)
        (line,) = ax.plot(x, y, color=a["color"], alpha=a.get("alpha", 1), linewidth=0.75 * a.get("width", 2))
        if a.get("dash"):
            line.set_dashes([0.75 * d for d in a["dash"]])
    elif kind == "markers" and len(a["x"]):
        fill = a.get("fill", a["color"])
        shape = MARKERS.get(a.get("shape"), "o")
        colours = {"c": a["color"]} if shape == "x" else {  # a cross is all edge: matplotlib colours it with c
            "facecolors": "none" if fill == "none" else fill, "edgecolors": a["color"]}
        ax.scatter(a["x"], a["y"], marker=shape, s=(1.5 * a.get("size", 4)) ** 2,
                   linewidths=0.75 * a.get("linewidth", 1.5), zorder=3, **colours)
    elif kind == "cells":
        values = np.ma.masked_invalid(np.array([[np.nan if v is None else v for v in row] for row in a["values"]]))
        cmap = ListedColormap(spec["colormaps"][a["cmap"]]).with_extremes(bad=a.get("masked", "white"))
        ax.pcolormesh(a["xedges"], a["yedges"], values, cmap=cmap, vmin=a["vmin"], vmax=a["vmax"])


def _legend(ax, entries):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = []
    for entry in entries:
        if entry.get("kind") == "line":
            handles.append(Line2D([], [], color=entry["color"], linewidth=1.5, label=entry["label"]))
        elif entry.get("kind") == "marker":
            handles.append(Line2D([], [], color=entry["color"], marker=MARKERS.get(entry.get("shape"), "o"),
                                  linestyle="none", markerfacecolor=entry.get("fill", entry["color"]),
                                  label=entry["label"]))
        else:
            handles.append(Patch(color=entry["color"], alpha=entry.get("alpha", 1), label=entry["label"]))
    ax.legend(handles=handles, loc="upper left", fontsize=7, frameon=False)


def still_bundle(explorer):
    """The still's outputs: ``text/html`` (the image, its alt text and caption, a prompt, :data:`STILL_STYLE`) and
    ``text/plain`` (the prompt and the "Figure:" description)."""
    spec = explorer.spec
    png = base64.b64encode(still_png(spec, explorer.frame_at(**{n: c.value for n, c in explorer.controls.items()})))
    names = [explorer.controls[explorer.main_control].label]
    names += [control.label for name, control in explorer.controls.items() if name != explorer.main_control]
    prompt = f"A still image of the explorer as first shown. Run this cell to use its controls: {'; '.join(names)}."
    description = explorer.description
    image = (f'<img alt="{html.escape(description, quote=True)}" src="data:image/png;base64,{png.decode("ascii")}" '
             f'width="{spec["figure"]["width"]}" height="{spec["figure"]["height"]}" '
             f'style="max-width: 100%; height: auto">')
    caption = (f'<figcaption style="max-width: 60em; line-height: 1.3; font-size: 0.9em"><b>Figure:</b> '
               f'{html.escape(description, quote=False)}<br><i>{html.escape(prompt, quote=False)}</i></figcaption>')
    return {
        "text/html": f'<figure class="attn-still attn-still-{explorer.name}" style="margin: 0">{image}{caption}'
                     f'</figure>{STILL_STYLE}',
        "text/plain": f"{prompt}\nFigure: {description}",
    }
