"""What every explorer's tests share: the ends of a control, the numbers an artist draws, a finite labelled figure."""

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle, StepPatch


def control_ends(control):
    """The smallest and largest value a control can take."""
    if isinstance(control, (widgets.SelectionSlider, widgets.ToggleButtons, widgets.RadioButtons)):
        values = [option[1] if isinstance(option, tuple) else option for option in control.options]
        return values[0], values[-1]
    if isinstance(control, widgets.FloatLogSlider):
        return control.base ** control.min, control.base ** control.max
    return control.min, control.max


def artist_data(artist):
    """The numbers an artist draws."""
    if isinstance(artist, Line2D):
        return np.asarray(artist.get_xydata(), float)
    if isinstance(artist, StepPatch):
        values, edges, _ = artist.get_data()
        return np.concatenate([np.ravel(values), np.ravel(edges)])
    if isinstance(artist, Rectangle):
        return np.array([artist.get_x(), artist.get_y(), artist.get_width(), artist.get_height()], float)
    if isinstance(artist, (AxesImage, QuadMesh)):
        array = artist.get_array()
        return np.ma.compressed(array) if np.ma.isMaskedArray(array) else np.asarray(array, float)
    if isinstance(artist, PathCollection):
        return np.asarray(artist.get_offsets(), float)
    return np.zeros(0)


def assert_finite_labelled_figure(explorer):
    """Every axes titled and labelled, every artist's numbers finite, and the figure renders."""
    fig = explorer.figure
    assert fig.axes, "the figure has no axes"
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            assert ax.get_ylabel(), "the colorbar has no label"
            continue
        assert ax.get_title() and ax.get_xlabel(), f"axes {ax.get_title()!r} lacks a title or an x label"
        assert ax.get_ylabel() or not ax.get_yticks().size, f"axes {ax.get_title()!r} has y ticks but no y label"
        for artist in [*ax.lines, *ax.patches, *ax.images, *ax.collections]:
            data = artist_data(artist)
            assert np.all(np.isfinite(data)), f"{type(artist).__name__} in {ax.get_title()!r} is not finite"
    fig.canvas.draw()  # renders without warnings (they are errors in the tests) or exceptions
