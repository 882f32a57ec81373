"""What every explorer shares (attn_lib/widgets/_explorer.py and explorer.js), tested on every explorer in
``EXPLORERS``: each control at its ends, labelled controls, a deterministic text form, frames computed once and
sent before they are needed, numbers sent as the kernel computed them.

The browser side (drawing, keyboard, the reading copy, latency) is in tests/browser/.
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import softmax
from attn_lib.widgets import EXPLORERS, dk_explorer, softmax_explorer
from attn_lib.widgets._explorer import (MODULE, largest_jacobian_entry, plain, position_key, significant,
                                        three_figures)

from .explorer_checks import assert_finite_labelled_frame, control_ends

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built():
    """One explorer of each kind (building them samples and computes: do it once per module)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return {kind: factory() for kind, factory in EXPLORERS.items()}


@pytest.mark.parametrize("kind", EXPLORERS)
def test_every_control_at_its_ends_gives_a_finite_labelled_frame(built, kind):
    explorer = built[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for control_name, control in explorer.controls.items():
            start = control.value
            for value in control_ends(control):
                control.value = value
                assert control.value == value
                key = position_key(explorer.values.values())
                assert key in explorer.sent, f"the page has no frame where Python moved {control_name}"
                assert_finite_labelled_frame(explorer, explorer.sent[key])
                assert explorer.readout and explorer.description
                assert all(np.isfinite(v) for v in explorer.measured.values()), (control_name, value)
            control.value = start


@pytest.mark.parametrize("kind", EXPLORERS)
def test_controls_have_labels_with_units_and_one_main_control(built, kind):
    explorer = built[kind]
    assert explorer.name == kind and explorer.spec["name"] == kind
    assert [c["name"] for c in explorer.spec["controls"] if c.get("main")] == [explorer.main_control]
    for control in explorer.spec["controls"]:
        assert control["kind"] in ("slider", "choice", "text")
        assert len(control["label"]) >= 5, f"{control['name']} has no real label"
        if control["kind"] == "slider":
            assert "(" in control["label"], f"{control['label']!r}: what it counts, or 'no unit'"
        if control["kind"] != "text":
            assert len(control["options"]) >= 2 and all(control["options"])
            assert len(set(control["options"])) == len(control["options"]), f"{control['name']}: two equal labels"


@pytest.mark.parametrize("kind", EXPLORERS)
def test_text_form_is_the_description_and_is_deterministic(kind):
    first, second = EXPLORERS[kind](), EXPLORERS[kind]()
    text = first._repr_mimebundle_()["text/plain"]
    assert text == second._repr_mimebundle_()["text/plain"]  # strict nbval compares this
    assert text.startswith(f"{kind}_explorer: ") and first.description in text
    assert "0x" not in text and "model_id" not in text
    assert first.frames == second.frames  # the saved widget state is deterministic too


@pytest.mark.parametrize("kind", EXPLORERS)
def test_the_page_shows_what_python_measured(built, kind):
    """The readout and description the page shows at the current position are Python's, and every number an
    artist draws is the kernel's to five significant figures."""
    explorer = built[kind]
    frame = explorer.sent[position_key(explorer.values.values())]
    assert "\n".join(f"{label}: {value}" for label, value in frame["readout"]) == explorer.readout
    assert frame["description"] == explorer.description


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


def test_a_move_among_the_positions_sent_computes_nothing():
    """The d_k explorer has 22 positions: all sent when it is made, so moves, the page's or Python's, need no kernel
    work and send nothing new."""
    explorer = dk_explorer()
    assert explorer.computed == len(explorer.frames) == 22
    frames = explorer.frames
    sent = []
    explorer.observe(sent.append, names="frames_json")
    explorer.send = sent.append
    for d_k in (1, 1024, 128):
        explorer.controls["d_k"].value = d_k
        explorer.values = {**explorer.values, "scaled": 1}  # as the page writes a move: by position
    assert explorer.frames is frames and sent == [] and explorer.computed == 22
    assert explorer.measured["theory"] == 1.0 and explorer.controls["d_k"].value == 128


@settings(max_examples=25, deadline=None)
@given(moves=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 200)), min_size=1, max_size=6))
def test_after_any_moves_every_one_move_position_is_in_the_page(moves):
    """The softmax explorer has 41 x 101**5 positions: the page holds the cross of one-control moves around where the
    controls are, and after each move the cross around the new position, each frame as computed afresh."""
    explorer = _softmax()
    messages = []
    explorer.send = messages.append
    names = list(explorer.controls)
    for which, where in moves:
        control = explorer.controls[names[which]]
        before = len(messages)
        explorer.values = {**explorer.values, control.name: where % len(control.options)}
        current = position_key(explorer.values.values())
        new = [key for message in messages[before:] for key in message["frames"]]
        assert len(new) == len(set(new)) and not set(new) & set(explorer.frames)  # nothing sent twice
        if new and current in new:  # the frame of where the controls are goes first, alone
            assert list(messages[before]["frames"]) == [current]
        for name, other in explorer.controls.items():
            for k in range(len(other.options)):
                assert position_key({**explorer.values, name: k}.values()) in explorer.sent
    assert explorer.sent == {**explorer.frames, **{k: f for message in messages for k, f in message["frames"].items()}}
    shown = explorer.sent[position_key(explorer.values.values())]
    assert shown == explorer._compute(explorer.values)  # not a frame left from an earlier position
    assert f"T = {explorer.controls['temperature'].value:.2f}" in shown["description"] == explorer.description


def _softmax():
    return softmax_explorer()


@pytest.mark.parametrize("bad, message", [({"d_k": 11, "scaled": 0}, "values\\['d_k'\\] must be a position"),
                                          ({"d_k": "64", "scaled": 0}, "values\\['d_k'\\] must be a position"),
                                          ({"d_k": 3}, "'scaled' is missing")])
def test_a_bad_position_from_the_page_names_itself(bad, message):
    explorer = dk_explorer()
    with pytest.raises(ValueError, match=message):
        explorer.values = bad


@pytest.mark.parametrize("value", [100, 64.0, "64", True])
def test_a_value_not_on_a_slider_names_the_control_and_its_positions(value):
    explorer = dk_explorer()
    with pytest.raises(ValueError, match=r"^d_k must be one of \['1', '2', "):
        explorer.controls["d_k"].value = value


def test_a_real_valued_slider_snaps_to_its_nearest_position():
    explorer = softmax_explorer()
    explorer.controls["s0"].value = 1.04
    assert explorer.controls["s0"].value == 1.0
    with pytest.raises(ValueError, match="^s0 must be one of"):
        explorer.controls["s0"].value = 7.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=False, width=64), min_size=1, max_size=20))
def test_numbers_are_sent_to_five_significant_figures_and_nan_as_null(numbers):
    sent = plain(np.asarray(numbers))
    assert len(sent) == len(numbers)
    for number, shown in zip(numbers, sent):
        if np.isnan(number):
            assert shown is None
        else:
            assert shown == pytest.approx(number, rel=5e-5, abs=1e-300)
    json.dumps(sent, allow_nan=False)  # the page's JSON has no NaN


def test_an_infinite_number_is_refused_before_it_reaches_the_page():
    with pytest.raises(ValueError, match="infinite"):
        plain({"values": np.array([1.0, np.inf])})


@pytest.mark.parametrize("positions", [[0, 1], [10, 0, 3], ["a sentence, with \"quotes\" and é", 2], ["", 0],
                                       ["line\nbreak \u2028 and \\ slash", 5]])
def test_python_and_the_page_write_the_same_position_key(positions):
    """The page finds a frame by the key it writes with JSON.stringify: node runs explorer.js's own function."""
    script = (f"import('{MODULE.as_uri()}').then(m => process.stdout.write(m.positionKey("
              f"{{controls: {json.dumps([{'name': f'c{k}'} for k in range(len(positions))])}}}, "
              f"{json.dumps({f'c{k}': p for k, p in enumerate(positions)})})))")
    result = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout == position_key(positions)


def test_the_frames_of_an_explorer_are_small_enough_to_save_in_a_notebook(built):
    sizes = {kind: len(json.dumps(explorer.frames)) for kind, explorer in built.items()}
    assert max(sizes.values()) < 3_000_000, sizes


def test_static_figures_stay_inline_pngs_in_a_notebook_that_imports_the_widgets():
    """The course's setup cell imports pyplot and the explorers together; its other figures must stay PNGs. The
    explorer is a still then the widget; the reading copy (tools/build_html.py) draws the explorer itself from the
    saved state, with the module inline, in place of both."""
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
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    before, explorer, after = (notebook.cells[i].outputs for i in (1, 2, 3))
    assert [sorted(o["data"]) for o in before] == [["image/png", "text/plain"]]
    assert [sorted(o["data"]) for o in after] == [["image/png", "text/plain"]]
    still, live = explorer  # a still of the first frame (tests/widgets/test_still.py), then the widget
    assert '<figure class="attn-still' in still["data"]["text/html"]
    assert live["data"]["text/plain"].startswith("dk_explorer: histogram of 5000 scores")
    assert "application/vnd.jupyter.widget-view+json" in live["data"]
    sys.path.insert(0, str(REPO / "tools"))
    import build_html

    assert [i for i, _ in build_html.figure_outputs(notebook)] == [1, 3]  # the still is not one of its figures
    assert build_html.static_explorers(notebook) == 1
    (shown,) = notebook.cells[2].outputs  # the still left out: the page draws the explorer itself
    page = shown["data"]["text/html"]
    assert page.count('<script type="module">') == 1 and "import " not in page.split("<script", 2)[2]
    saved = json.loads(page.split('<script type="application/json">')[1].split("</script>")[0])
    assert len(json.loads(saved["frames_json"])) == 22 and saved["values"] == {"d_k": 6, "scaled": 0}


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


@pytest.mark.parametrize("x, three, sig", [
    (999.7, "1000", "1000"), (999.4, "999", "999"), (63.84, "63.8", "63.8"), (1021.3, "1021", "1020"),
    (12345.0, "12345", "12300"), (99970.0, "99970", "1.00×10⁵"), (0.0005, "0.0005", "5.00×10⁻⁴")])
def test_readout_numbers_never_switch_to_e_notation_near_a_power_of_ten(x, three, sig):
    # Readouts are read aloud by screen readers and scanned by eye: "1e+03" is neither.
    assert three_figures(x) == three
    assert significant(x) == sig
