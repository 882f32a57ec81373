"""What every explorer shares (attn_lib/widgets/_explorer.py), tested on every explorer in ``EXPLORERS``: each
control at its ends, keyboard controls with labels, a deterministic text form, one update per change, blitting.

The browser side (keyboard, pixels, latency) is in tests/browser/.
"""

import contextlib
import html
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest
from PIL import Image

from attn_lib import softmax
from attn_lib.widgets import EXPLORERS, dk_explorer, softmax_explorer
from attn_lib.widgets._explorer import diff_png, largest_jacobian_entry, significant, three_figures

from .explorer_checks import assert_finite_labelled_figure, control_ends

REPO = Path(__file__).resolve().parents[2]
KEYBOARD_CONTROLS = (widgets.SelectionSlider, widgets.FloatSlider, widgets.FloatLogSlider, widgets.IntSlider,
                     widgets.ToggleButtons, widgets.RadioButtons)


@pytest.fixture(scope="module")
def built():
    """One explorer of each kind (building them samples and draws: do it once per module)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return {kind: factory() for kind, factory in EXPLORERS.items()}


@pytest.mark.parametrize("kind", EXPLORERS)
def test_every_control_at_its_ends_gives_a_finite_labelled_figure(built, kind):
    explorer = built[kind]
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


@pytest.mark.parametrize("kind", EXPLORERS)
def test_controls_are_keyboard_widgets_with_labels_and_units(built, kind):
    explorer = built[kind]
    assert explorer.name == kind
    assert explorer.main_control in explorer.controls
    assert "attn-main-control" in explorer.controls[explorer.main_control]._dom_classes
    assert f"attn-explorer-{kind}" in explorer._dom_classes
    for control in explorer.controls.values():
        assert isinstance(control, KEYBOARD_CONTROLS), type(control).__name__
        assert len(control.description) >= 5, f"{type(control).__name__} has no real description"
        assert control.style.description_width == "initial"  # the whole label shows
        if isinstance(control, (widgets.SelectionSlider, widgets.FloatSlider, widgets.FloatLogSlider,
                                widgets.IntSlider)):
            assert control.continuous_update is False  # a drag sends one change, not one per pixel
            assert "(" in control.description  # what it counts, or "no unit"


@pytest.mark.parametrize("kind", EXPLORERS)
def test_text_form_is_the_description_and_is_deterministic(kind):
    first, second = EXPLORERS[kind](), EXPLORERS[kind]()
    text = first._repr_mimebundle_()["text/plain"]
    assert text == second._repr_mimebundle_()["text/plain"]  # strict nbval compares this
    assert text.startswith(f"{kind}_explorer: ") and first.description in text
    assert "0x" not in text and "model_id" not in text
    assert html.escape(first.description, quote=False) in first.caption.value


@pytest.mark.parametrize("kind", EXPLORERS)
def test_while_nbgrader_autogrades_an_explorer_builds_nothing_and_says_so_in_one_line(kind, monkeypatch):
    import matplotlib.pyplot as plt
    from IPython.display import display

    from attn_lib.widgets._explorer import NotBuilt

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    figures = plt.get_fignums()
    stand_in = EXPLORERS[kind]()
    assert isinstance(stand_in, NotBuilt) and plt.get_fignums() == figures
    assert repr(stand_in) == (f"{stand_in.function_name}() is not built while grading: it runs when you open the "
                              "notebook yourself.")
    assert stand_in.function_name.endswith("_explorer")
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        display(stand_in)
    assert shown.getvalue().strip() == repr(stand_in)


@pytest.mark.parametrize("execution", ["validate", None])
def test_outside_autograde_an_explorer_function_is_called_through(execution, monkeypatch):
    """nbgrader validate, like a learner's kernel, runs the notebook as a learner sees it."""
    from attn_lib.widgets._explorer import not_while_grading

    if execution:
        monkeypatch.setenv("NBGRADER_EXECUTION", execution)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)

    @not_while_grading
    def toy_explorer(d_k=64, *, seed=0):
        return ("built", d_k, seed)

    assert toy_explorer(8, seed=3) == ("built", 8, 3) and toy_explorer.__name__ == "toy_explorer"


def test_largest_jacobian_entry_matches_finite_differences():
    scores = np.array([1.0, -0.5, 2.0, 0.3])
    step = 1e-6
    numeric = np.array([(softmax(scores + step * e) - softmax(scores - step * e)) / (2 * step)
                        for e in np.eye(4)])  # (4 scores, 4 weights)
    assert largest_jacobian_entry(softmax(scores)) == pytest.approx(np.abs(numeric).max(), rel=1e-6)


def test_one_update_per_change_and_blitting_after_the_first_draw():
    explorer = dk_explorer()
    canvas = explorer.figure.canvas
    canvas.draw()  # what the browser's first draw request does
    before = np.asarray(canvas.get_renderer().buffer_rgba()).copy()
    slider = explorer.controls["d_k"]
    values = [value for _, value in slider.options] if isinstance(slider.options[0], tuple) else slider.options
    for d_k in values[::-1]:  # from 64 to the largest, then down one step at a time
        slider.value = d_k
    slider.value = values[0]  # already there: no change, no update
    assert explorer.updates == len(values)
    assert explorer.blits == explorer.updates  # only the bars and curves moved: no full redraw
    assert not np.array_equal(before, np.asarray(canvas.get_renderer().buffer_rgba()))
    explorer.controls["scaled"].value = True  # new x-axis: a full redraw, not a blit
    assert explorer.blits == explorer.updates - 1


def test_blit_draws_the_same_pixels_as_a_full_redraw():
    explorer = softmax_explorer()
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
    still, live = explorer  # a still image of the first state, then the live widget (tests/widgets/test_still.py)
    assert sorted(still["data"]) == ["text/html", "text/plain"] and '<figure class="attn-still' in still["data"][
        "text/html"]
    assert live["data"]["text/plain"].startswith("dk_explorer: histogram of 5000 scores")
    assert "application/vnd.jupyter.widget-view+json" in live["data"]
    # The reading copy (tools/build_html.py) gives the still the cell's "Figure:" line as its alt text.
    sys.path.insert(0, str(REPO / "tools"))
    import build_html

    assert (2, still) in build_html.figure_outputs(notebook)
    assert build_html.figure_description(notebook, 2) == "Figure: " + live["data"]["text/plain"].split(": ", 1)[1]


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


def test_the_images_sent_to_the_browser_add_up_to_the_figure(monkeypatch):
    explorer = dk_explorer()
    canvas = explorer.figure.canvas
    sent = []
    monkeypatch.setattr(canvas, "send_binary", sent.append)  # what ipympl would send to the browser
    canvas._set_device_pixel_ratio(2)  # a laptop's screen: the figure at twice the pixels
    canvas.draw()  # the first image: the whole figure
    shown = np.asarray(Image.open(io.BytesIO(sent.pop())).convert("RGBA")).copy()
    for d_k in (128, 1024, 1):
        explorer.controls["d_k"].value = d_k  # blitted: a diff image goes out
        diff = np.asarray(Image.open(io.BytesIO(sent.pop())).convert("RGBA"))
        opaque = diff[..., 3] == 255
        assert ((diff[..., 3] == 0) | opaque).all()  # each pixel either replaces what is shown or leaves it
        shown[opaque] = diff[opaque]  # what the browser does: lay the diff over what it shows
        np.testing.assert_array_equal(shown, np.asarray(canvas.get_renderer().buffer_rgba()))
    assert sent == []


@pytest.mark.parametrize("height, width, share", [(1, 1, 1.0), (7, 5, 0.0), (40, 33, 0.02), (40, 33, 0.5)])
def test_diff_png_is_transparent_exactly_where_nothing_changed(height, width, share):
    rng = np.random.default_rng(height * width)
    opaque = np.uint32(0xFF000000)
    before = rng.integers(0, 2**24, (height, width), dtype=np.uint32) | opaque
    after = before.copy()
    changed = rng.random((height, width)) < share
    after[changed] = rng.integers(0, 2**24, int(changed.sum()), dtype=np.uint32) | opaque
    decoded = np.asarray(Image.open(io.BytesIO(diff_png(after, after != before))).convert("RGBA"))
    np.testing.assert_array_equal(decoded.view(np.uint32).squeeze(2), np.where(after != before, after, 0))


@pytest.mark.parametrize("x, three, sig", [
    (999.7, "1000", "1000"), (999.4, "999", "999"), (63.84, "63.8", "63.8"), (1021.3, "1021", "1020"),
    (12345.0, "12345", "12300"), (99970.0, "99970", "1.00×10⁵"), (0.0005, "0.0005", "5.00×10⁻⁴")])
def test_readout_numbers_never_switch_to_e_notation_near_a_power_of_ten(x, three, sig):
    # Readouts are read aloud by screen readers and scanned by eye: "1e+03" is neither.
    assert three_figures(x) == three
    assert significant(x) == sig
