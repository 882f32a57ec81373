"""The explorers in Python: every control at its ends, what each figure shows, how it redraws.

The browser side (keyboard, pixels, latency) is in tests/browser/.
"""

import contextlib
import html
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle, StepPatch

from attn_lib import widgets as explorers

REPO = Path(__file__).resolve().parents[1]
FACTORIES = {
    "dk": explorers.dk_explorer,
    "softmax": explorers.softmax_explorer,
    "mask": explorers.mask_explorer,
    "cost": explorers.cost_explorer,
}
KEYBOARD_CONTROLS = (widgets.SelectionSlider, widgets.FloatSlider, widgets.FloatLogSlider, widgets.IntSlider,
                     widgets.ToggleButtons, widgets.RadioButtons)


@pytest.fixture(scope="module")
def built():
    """One explorer of each kind (building them samples and draws: do it once per module)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return {name: factory() for name, factory in FACTORIES.items()}


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
    if isinstance(artist, AxesImage):
        array = artist.get_array()
        return np.ma.compressed(array) if np.ma.isMaskedArray(array) else np.asarray(array, float)
    if isinstance(artist, PathCollection):
        return np.asarray(artist.get_offsets(), float)
    return np.zeros(0)


def assert_finite_labelled_figure(explorer):
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
    fig.canvas.draw()  # renders without warnings (they are errors here) or exceptions


@pytest.mark.parametrize("name", FACTORIES)
def test_every_control_at_its_ends_gives_a_finite_labelled_figure(built, name):
    explorer = built[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for control_name, control in explorer.controls.items():
            start = control.value
            for value in control_ends(control):
                control.value = value
                assert control.value == pytest.approx(value)
                assert_finite_labelled_figure(explorer)
                assert explorer.readout.value and explorer.description
                assert all(np.isfinite(v) for v in explorer.measured.values()), (control_name, value)
            control.value = start


@pytest.mark.parametrize("name", FACTORIES)
def test_controls_are_keyboard_widgets_with_labels_and_units(built, name):
    explorer = built[name]
    assert explorer.main_control in explorer.controls
    assert "attn-main-control" in explorer.controls[explorer.main_control]._dom_classes
    assert f"attn-explorer-{name}" in explorer._dom_classes
    for control in explorer.controls.values():
        assert isinstance(control, KEYBOARD_CONTROLS), type(control).__name__
        assert len(control.description) >= 5, f"{type(control).__name__} has no real description"
        assert control.style.description_width == "initial"  # the whole label shows
        if isinstance(control, (widgets.SelectionSlider, widgets.FloatSlider, widgets.FloatLogSlider,
                                widgets.IntSlider)):
            assert control.continuous_update is False  # a drag sends one change, not one per pixel
            assert "(" in control.description  # what it counts, or "no unit"


def test_descriptions_name_their_units():
    dk = explorers.dk_explorer()
    assert "components" in dk.controls["d_k"].description
    assert "nats" in dk.readout.value and "components" in dk.readout.value
    cost = explorers.cost_explorer()
    assert "tokens" in cost.controls["n"].description
    assert "MB" in cost.readout.value


@pytest.mark.parametrize("name", FACTORIES)
def test_text_form_is_the_description_and_is_deterministic(name):
    first, second = FACTORIES[name](), FACTORIES[name]()
    text = first._repr_mimebundle_()["text/plain"]
    assert text == second._repr_mimebundle_()["text/plain"]  # strict nbval compares this
    assert text.startswith(f"{name}_explorer: ") and first.description in text
    assert "0x" not in text and "model_id" not in text
    assert html.escape(first.description, quote=False) in first.caption.value


def test_dk_explorer_measures_variance_d_k_unscaled_and_1_scaled():
    explorer = explorers.dk_explorer()
    for d_k in explorers.DK_VALUES:
        explorer.controls["d_k"].value = d_k
        for scaled, theory in ((False, d_k), (True, 1.0)):
            explorer.controls["scaled"].value = scaled
            assert explorer.measured["theory"] == theory
            assert explorer.measured["variance"] / theory == pytest.approx(1.0, abs=0.12), (d_k, scaled)


def test_dk_explorer_unscaled_large_d_k_saturates_the_softmax_and_shrinks_its_gradient():
    explorer = explorers.dk_explorer(d_k=1024)
    unscaled = dict(explorer.measured)
    explorer.controls["scaled"].value = True
    scaled = dict(explorer.measured)
    assert unscaled["largest_weight"] > 0.99 and unscaled["largest_jacobian_entry"] < 1e-2
    assert scaled["largest_weight"] < 0.9 and scaled["largest_jacobian_entry"] > 0.05
    assert unscaled["entropy"] < scaled["entropy"] <= math.log(16)


def test_largest_jacobian_entry_matches_finite_differences():
    weights_of = explorers.softmax
    scores = np.array([1.0, -0.5, 2.0, 0.3])
    step = 1e-6
    numeric = np.array([(weights_of(scores + step * e) - weights_of(scores - step * e)) / (2 * step)
                        for e in np.eye(4)])  # (4 scores, 4 weights)
    assert explorers._largest_jacobian_entry(weights_of(scores)) == pytest.approx(np.abs(numeric).max(), rel=1e-6)


def test_softmax_explorer_temperature_sharpens_and_flattens():
    explorer = explorers.softmax_explorer()
    explorer.controls["temperature"].value = 0.1
    cold = dict(explorer.measured)
    explorer.controls["temperature"].value = 10.0
    hot = dict(explorer.measured)
    assert cold["largest_weight"] > 0.99
    assert hot["entropy"] == pytest.approx(math.log(5), abs=0.05)
    for state in (cold, hot):
        assert state["weight_sum"] == pytest.approx(1.0)
    explorer.controls["s3"].value = 5.0  # a score moved to the top takes the largest weight
    assert explorer.measured["w3"] == max(explorer.measured[f"w{j}"] for j in range(5))


@pytest.mark.parametrize("mask", ["none", "causal", "padding"])
def test_mask_explorer_right_placement_keeps_sums_and_blocks_exactly(mask):
    explorer = explorers.mask_explorer(mask=mask, placement="before")
    state = explorer.measured
    assert state["broken_rows"] == 0 and state["leaked_weight"] == 0.0 and state["leak_cells"] == 0
    assert all(state[f"row_sum{i}"] == pytest.approx(1.0) for i in range(6))


def test_mask_explorer_wrong_placements_break_sums_or_leak():
    explorer = explorers.mask_explorer(mask="causal", placement="after")
    after = dict(explorer.measured)
    assert after["broken_rows"] == 5  # every row but the last, which sees every key
    assert all(after[f"row_sum{i}"] < 1 for i in range(5)) and after["leaked_weight"] == 0.0
    explorer.controls["placement"].value = "zero"
    zero = dict(explorer.measured)
    assert zero["broken_rows"] == 0 and zero["leak_cells"] == 15 and zero["leaked_weight"] > 0.1
    explorer.controls["mask"].value = "padding"
    assert explorer.measured["leak_cells"] == 12  # 6 queries x 2 padded keys


def test_cost_explorer_base_model_and_quadratic_growth():
    explorer = explorers.cost_explorer()
    base = explorer.measured
    assert base["scores"] == 48_000_000  # F5: 6 layers x 8 heads x 1000 x 1000
    assert base["score_bytes_float32"] == 192_000_000
    assert "192 MB" in explorer.readout.value
    controls = explorer.controls
    controls["n"].value, controls["m"].value = 500, 500
    half = explorer.measured["scores"]
    controls["n"].value, controls["m"].value = 1000, 1000
    assert explorer.measured["scores"] == 4 * half
    curve, point = (line for line in explorer.figure.axes[0].lines if line.get_animated())
    x, y = curve.get_data()
    slope = np.polyfit(np.log(x), np.log(y), 1)[0]
    assert slope == pytest.approx(2.0)  # quadratic: a line of slope 2 on log-log axes
    assert point.get_ydata()[0] == base["score_bytes_float32"]


def test_one_update_per_change_and_blitting_after_the_first_draw():
    explorer = explorers.dk_explorer()
    canvas = explorer.figure.canvas
    canvas.draw()  # what the browser's first draw request does
    before = np.asarray(canvas.get_renderer().buffer_rgba()).copy()
    slider = explorer.controls["d_k"]
    for d_k in explorers.DK_VALUES[::-1]:  # from 64 to 1024, then down one step at a time
        slider.value = d_k
    slider.value = 1  # already there: no change, no update
    assert explorer.updates == len(explorers.DK_VALUES)
    assert explorer.blits == explorer.updates  # only the bars and curves moved: no full redraw
    assert not np.array_equal(before, np.asarray(canvas.get_renderer().buffer_rgba()))
    explorer.controls["scaled"].value = True  # new x-axis: a full redraw, not a blit
    assert explorer.blits == explorer.updates - 1


def test_blit_draws_the_same_pixels_as_a_full_redraw():
    explorer = explorers.softmax_explorer()
    canvas = explorer.figure.canvas
    canvas.draw()
    explorer.controls["temperature"].value = 0.5  # blitted
    blitted = np.asarray(canvas.get_renderer().buffer_rgba()).copy()
    canvas.draw()
    assert np.array_equal(blitted, np.asarray(canvas.get_renderer().buffer_rgba()))


def test_static_figures_stay_inline_pngs_in_a_notebook_that_imports_the_widgets():
    """The course's setup cell imports pyplot and the explorers together; its other figures must stay PNGs."""
    nbclient = pytest.importorskip("nbclient")
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[
        new_code_cell("import matplotlib.pyplot as plt\nfrom attn_lib.widgets import dk_explorer"),
        new_code_cell("fig, ax = plt.subplots(figsize=(2, 2))\nax.plot([0, 1]);"),
        new_code_cell("dk_explorer()"),
        new_code_cell("fig, ax = plt.subplots(figsize=(2, 2))\nax.plot([0, 1]);"),
    ])
    env = {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    with _environ(env):
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    before, explorer, after = (notebook.cells[i].outputs for i in (1, 2, 3))
    assert [sorted(o["data"]) for o in before] == [["image/png", "text/plain"]]
    assert [sorted(o["data"]) for o in after] == [["image/png", "text/plain"]]
    assert explorer[0]["data"]["text/plain"].startswith("dk_explorer: histogram of 5000 scores")
    assert "application/vnd.jupyter.widget-view+json" in explorer[0]["data"]


@contextlib.contextmanager
def _environ(values):
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_importing_the_widgets_leaves_the_matplotlib_backend_alone():
    code = ("import matplotlib; matplotlib.use('svg'); import matplotlib.pyplot as plt; "
            "import attn_lib.widgets; print(matplotlib.get_backend())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert result.stdout.strip() == "svg"


@pytest.mark.parametrize("factory, kwargs, argument", [
    (explorers.dk_explorer, {"d_k": 100}, "d_k"),
    (explorers.dk_explorer, {"keys": 1}, "keys"),
    (explorers.dk_explorer, {"pairs": 10.5}, "pairs"),
    (explorers.softmax_explorer, {"scores": [1.0]}, "scores"),
    (explorers.softmax_explorer, {"temperature": 0.0}, "temperature"),
    (explorers.mask_explorer, {"mask": "future"}, "mask"),
    (explorers.mask_explorer, {"placement": "middle"}, "placement"),
    (explorers.cost_explorer, {"n": 1001}, "n"),
    (explorers.cost_explorer, {"heads": 0}, "heads"),
])
def test_bad_arguments_name_themselves(factory, kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        factory(**kwargs)
