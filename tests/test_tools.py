"""The course tools on a small synthetic course in a temporary folder: tools/nav.py, tools/build_html.py and
tools/build_notebooks.py (two tests start kernels)."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_html  # noqa: E402
import build_notebooks  # noqa: E402
import nav  # noqa: E402
from contrast import contrast_ratio  # noqa: E402

COURSE = {
    "repository": {"slug": "someone/some-course", "ref": "HEAD"},
    "notebooks": {
        "00-start-here": {"title": "Start here", "teaches": "the line", "facts": []},
        "01-shapes": {"title": "Shapes", "teaches": "the shapes", "facts": ["F1"]},
        "02-scores": {"title": "Scores", "teaches": "the scores", "facts": ["F4", "F5"]},
    },
    "facts": {"F1": "one", "F4": "four", "F5": "five"},
}

# A 1x1 PNG, enough for nbconvert to embed.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def executed_notebook(title: str, with_figure: bool = False):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\nYou will be able to do things."),
        nbformat.v4.new_code_cell("import numpy as np\nrng = np.random.default_rng(0)", execution_count=1),
        nbformat.v4.new_code_cell("print(rng.integers(10))", execution_count=2,
                                  outputs=[nbformat.v4.new_output("stream", name="stdout", text="8\n")]),
    ]
    if with_figure:
        cells.append(nbformat.v4.new_code_cell("plot()", execution_count=3, outputs=[nbformat.v4.new_output(
            "display_data", data={"image/png": PNG, "text/plain": "<Figure size 10x10 with 1 Axes>"})]))
        cells.append(nbformat.v4.new_markdown_cell("Figure: one dark pixel."))
        # as attn_lib.plotting.show_figure sends a figure: the PNG once, inside HTML that carries its alt
        cells.append(nbformat.v4.new_code_cell("show_figure(alt='a pixel')", execution_count=4, outputs=[
            nbformat.v4.new_output("display_data", data={
                "text/html": f'<img alt="a pixel" src="data:image/png;base64,{PNG}">',
                "text/plain": "<Figure size 10x10 with 1 Axes>"})]))
        cells.append(nbformat.v4.new_markdown_cell("Figure: the same pixel, sent as HTML."))
    cells.append(nbformat.v4.new_markdown_cell(
        f"## Lines worth keeping\n\n- {title} holds `one` line.\n- And a second,\n  on two lines.\n\n"
        "## Read alongside\n\nNot kept."))
    nb.cells = cells
    return nb


@pytest.fixture
def course(tmp_path):
    notebooks = tmp_path / "notebooks"
    (notebooks / "solutions").mkdir(parents=True)
    for stem, record in COURSE["notebooks"].items():
        nbformat.write(executed_notebook(record["title"], with_figure=stem == "02-scores"), notebooks / f"{stem}.ipynb")
    nbformat.write(executed_notebook("Shapes: solutions"), notebooks / "solutions" / "01-shapes-solutions.ipynb")
    return notebooks


def non_nav(nb):
    return [c for c in nb.cells if not nav.is_nav(c)]


# --- nav ------------------------------------------------------------------------------------------------------------


def test_nav_inserts_top_and_bottom_links_in_file_name_order(course):
    before = nbformat.read(course / "01-shapes.ipynb", as_version=4)
    written = nav.write(course, COURSE)
    assert course / "01-shapes.ipynb" in written and course / "contents.ipynb" in written
    nb = nbformat.read(course / "01-shapes.ipynb", as_version=4)
    assert nav.is_nav(nb.cells[0]) and nav.is_nav(nb.cells[-1])
    line = nb.cells[0].source
    assert line.index("(00-start-here.ipynb)") < line.index("(contents.ipynb)") < line.index("(02-scores.ipynb)")
    assert nb.cells[-1].source == line
    assert non_nav(nb) == before.cells, "the notebook's own cells, outputs included, must be untouched"


def test_nav_first_and_last_notebooks_have_no_missing_neighbour(course):
    nav.write(course, COURSE)
    first = nbformat.read(course / "00-start-here.ipynb", as_version=4).cells[0].source
    last = nbformat.read(course / "02-scores.ipynb", as_version=4).cells[0].source
    assert "(01-shapes.ipynb)" in first and first.count("](") == 2
    assert "(01-shapes.ipynb)" in last and last.count("](") == 2


def test_nav_is_idempotent_and_check_sees_staleness(course, capsys):
    nav.write(course, COURSE)
    texts = {p: p.read_bytes() for p in course.rglob("*.ipynb")}
    assert nav.write(course, COURSE) == []
    assert {p: p.read_bytes() for p in course.rglob("*.ipynb")} == texts
    assert nav.stale(course, COURSE) == []

    nb = nbformat.read(course / "02-scores.ipynb", as_version=4)
    nb.cells[-1].source = "[somewhere](else.ipynb)"  # a hand edit of the bottom nav cell
    nbformat.write(nb, course / "02-scores.ipynb")
    assert nav.stale(course, COURSE) == [course / "02-scores.ipynb"]


def test_nav_cli_check_exit_codes(course, tmp_path):
    course_file = tmp_path / "course.toml"
    course_file.write_text(
        '[repository]\nslug = "someone/some-course"\n'
        + "".join(f'[notebooks.{s}]\ntitle = "{r["title"]}"\nteaches = "x"\nfacts = []\n'
                  for s, r in COURSE["notebooks"].items()))
    args = ["--notebooks", str(course), "--course", str(course_file)]
    assert nav.main(args + ["--check"]) == 1
    assert nav.main(args) == 0
    assert nav.main(args + ["--check"]) == 0


def test_nav_moves_a_misplaced_nav_cell_back_to_the_edges(course):
    nav.write(course, COURSE)
    path = course / "01-shapes.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(2, nb.cells.pop(0))  # the top nav cell dragged into the middle
    nbformat.write(nb, path)
    assert path in nav.write(course, COURSE)
    nb = nbformat.read(path, as_version=4)
    assert [nav.is_nav(c) for c in nb.cells] == [True] + [False] * (len(nb.cells) - 2) + [True]


def test_contents_keeps_its_progress_output_while_the_cell_stays_and_links_the_review_only_if_there(course):
    nav.write(course, COURSE)
    path = course / nav.CONTENTS
    nb = nbformat.read(path, as_version=4)
    assert f"]({nav.REVIEW})" not in "\n".join(c.source for c in nb.cells), "no review notebook, no link to it"
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    assert cell.source == nav.PROGRESS_CODE and cell.outputs == []
    cell.execution_count = 1  # as tools/build_notebooks.py leaves it
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "Your progress"}, execution_count=1)]
    nb.metadata["language_info"] = {"name": "python", "version": "3.12.0"}
    nbformat.write(nb, path)
    assert nav.stale(course, COURSE) == [], "the progress cell's stored output made contents.ipynb stale"

    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("review()")]), course / nav.REVIEW)
    nav.write(course, COURSE)
    nb = nbformat.read(path, as_version=4)
    assert f"]({nav.REVIEW})" in "\n".join(c.source for c in nb.cells)
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    assert cell.outputs[0]["data"]["text/plain"] == "Your progress" and nb.metadata["language_info"]["version"]
    review = nbformat.read(course / nav.REVIEW, as_version=4)
    assert nav.is_nav(review.cells[0]) and "(contents.ipynb)" in review.cells[0].source

    moved = copy.deepcopy(COURSE)
    moved["repository"]["slug"] = "school/attention"
    nav.write(course, moved)  # another contents text, the same progress cell: its output stays
    assert [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"][0].outputs


def test_solutions_link_back_to_their_learner_notebook(course):
    nav.write(course, COURSE)
    nb = nbformat.read(course / "solutions" / "01-shapes-solutions.ipynb", as_version=4)
    assert "(../01-shapes.ipynb)" in nb.cells[0].source and "(../contents.ipynb)" in nb.cells[0].source


def test_a_solutions_notebook_without_learner_notebook_is_an_error(course):
    nbformat.write(executed_notebook("x"), course / "solutions" / "07-heads-solutions.ipynb")
    with pytest.raises(ValueError, match="07-heads-solutions.ipynb has no learner notebook"):
        nav.planned(course, COURSE)


def test_a_numbered_notebook_missing_from_the_course_map_is_an_error(course):
    nbformat.write(executed_notebook("x"), course / "03-scaling.ipynb")
    with pytest.raises(ValueError, match=r"03-scaling.ipynb has no entry.*\[notebooks.03-scaling\]"):
        nav.planned(course, COURSE)


def test_contents_binder_links_follow_the_slug(course):
    nav.write(course, COURSE)
    text = "\n".join(c.source for c in nbformat.read(course / "contents.ipynb", as_version=4).cells)
    assert ("https://mybinder.org/v2/gh/someone/some-course/HEAD?urlpath=lab/tree/notebooks/02-scores.ipynb"
            in text)
    moved = copy.deepcopy(COURSE)
    moved["repository"]["slug"] = "school/attention"
    assert nav.stale(course, moved) == [course / "contents.ipynb"]
    nav.write(course, moved)
    text = "\n".join(c.source for c in nbformat.read(course / "contents.ipynb", as_version=4).cells)
    assert "someone/some-course" not in text and "/gh/school/attention/HEAD?" in text


def test_the_real_course_map_names_every_notebook_and_fact():
    course = nav.load_course()
    assert course["repository"]["slug"].count("/") == 1
    for stem, record in course["notebooks"].items():
        assert nav.NUMBERED.match(stem + ".ipynb"), stem
        assert set(record["facts"]) <= set(course["facts"]), stem


# --- build_html ---------------------------------------------------------------------------------------------------


def test_html_pages_embed_figures_with_alt_text_and_link_to_pages(course, tmp_path):
    nav.write(course, COURSE)
    out = tmp_path / "html"
    build_html.build(course, out)
    assert build_html.check(course, out) == []
    page = (out / "02-scores.html").read_text()
    assert '<img alt="Figure: one dark pixel."' in page
    assert '<img alt="Figure: the same pixel, sent as HTML." src="data:image/png;base64,' in page
    assert 'alt="a pixel"' not in page, "the full Figure: description replaces show_figure's alt"
    assert 'href="01-shapes.html"' in page and ".ipynb\"" not in page
    assert 'href="../01-shapes.html"' in (out / "solutions" / "01-shapes-solutions.html").read_text()
    assert (out / "index.html").read_text() == (out / "contents.html").read_text()


def test_html_check_reports_missing_pages_figures_and_broken_links(course, tmp_path):
    nav.write(course, COURSE)
    out = tmp_path / "html"
    build_html.build(course, out)
    (out / "00-start-here.html").unlink()
    page = out / "02-scores.html"
    page.write_text(build_html.DATA_IMG.sub("<img src=\"gone.png", page.read_text()))
    problems = build_html.check(course, out)
    assert any("00-start-here.html: no page" in p for p in problems)
    assert any("02-scores.html: 2 figure(s) in 02-scores.ipynb, 0 embedded" in p for p in problems)
    assert any("broken link 00-start-here.html" in p for p in problems)


@pytest.mark.parametrize("name", ["handout.html", "handout-large-print.html"])
def test_handout_holds_every_numbered_notebooks_lines_in_order_with_links(course, tmp_path, name):
    nav.write(course, COURSE)
    out = tmp_path / "html"
    build_html.build(course, out)
    handout = (out / name).read_text()
    starts = [handout.index(f'<section id="{stem}"') for stem in COURSE["notebooks"]]
    assert starts == sorted(starts)
    for stem, record in COURSE["notebooks"].items():
        assert f'<a href="{stem}.html">{stem[:2]} {record["title"]}</a>' in handout
        assert f"<li>{record['title']} holds <code>one</code> line.</li>" in handout  # rendered by nbconvert's mistune
    assert handout.count("<li>And a second,\non two lines.</li>") == 3 and "Not kept" not in handout
    assert "Shapes: solutions" not in handout
    assert f'href="{name}"' in (out / "index.html").read_text()
    (out / name).unlink()
    problems = build_html.check(course, out)
    assert f"{name}: missing" in problems and f"contents.html: broken link {name}" in problems


def test_a_notebook_without_lines_worth_keeping_stops_the_handout_and_is_named(course):
    nb = nbformat.read(course / "01-shapes.ipynb", as_version=4)
    nb.cells[-1].source = nb.cells[-1].source.replace("Lines worth keeping", "Lines to forget")
    nbformat.write(nb, course / "01-shapes.ipynb")
    with pytest.raises(ValueError, match=r"^01-shapes.ipynb has no '## Lines worth keeping' section"):
        build_html.handout(course)


def test_reading_copy_colours_are_darkened_to_aa_and_links_underlined():
    page = ("<html><head><style>:root { --jp-mirror-editor-number-color: #080; --jp-mirror-editor-string-color: "
            "#ba2121; }\n.jp-RenderedText pre .ansi-cyan-fg {\n  color: #60c6c8;\n}</style></head><body>"
            '<span style="color: rgb(95,135,135)">#</span></body></html>')
    fixed = build_html.accessible_colours(page)
    overrides = fixed.split("<style>")[2]
    number = re.search(r"--jp-mirror-editor-number-color: (#\w+);", overrides).group(1)
    cyan = re.search(r"\.ansi-cyan-fg \{ color: (#\w+); \}", overrides).group(1)
    inline = re.search(r'<span style="color: (#\w+)">', fixed).group(1)
    assert contrast_ratio(number, build_html.CODE_BACKGROUND) >= 4.5 > contrast_ratio("#080", "#f5f5f5")
    assert contrast_ratio(cyan, build_html.ERROR_BACKGROUND) >= 4.5
    assert contrast_ratio(inline, build_html.ERROR_BACKGROUND) >= 4.5
    assert "--jp-mirror-editor-string-color: #ba2121;" in overrides  # already 4.5:1: kept
    assert "--jp-cell-prompt-not-active-opacity: 1" in overrides
    declarations = css_declarations(overrides)
    for selector in (".jp-RenderedHTMLCommon a:link", ".jp-RenderedHTMLCommon a:visited",  # links in prose
                     ".jp-RenderedText pre a:link", ".jp-RenderedText pre a:visited"):  # links in printed output
        assert declarations.get(selector, {}).get("text-decoration") == "underline", selector


def css_declarations(css: str) -> dict[str, dict[str, str]]:
    """selector -> {property: value} of a flat style sheet (no @-rules), later rules overriding earlier ones."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    found = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        pairs = dict(tuple(part.strip() for part in d.split(":", 1)) for d in body.split(";") if ":" in d)
        for selector in selectors.split(","):
            found.setdefault(" ".join(selector.split()), {}).update(pairs)
    return found


def test_css_declarations_reads_each_selector_of_a_rule():
    css = "/* c */ a, b c:link { color: red; text-decoration: underline }\nb c:link { color: blue; }"
    assert css_declarations(css) == {"a": {"color": "red", "text-decoration": "underline"},
                                     "b c:link": {"color": "blue", "text-decoration": "underline"}}


def test_figure_description_is_found_in_the_cell_output_or_the_next_cell():
    nb = executed_notebook("x", with_figure=True)
    i = next(k for k, cell in enumerate(nb.cells) if cell.source == "plot()")
    assert build_html.figure_description(nb, i) == "Figure: one dark pixel."
    nb.cells[i + 1].source = "Some other remark."
    assert build_html.figure_description(nb, i) is None
    nb.cells[i].outputs.append(nbformat.v4.new_output("stream", name="stdout", text="Figure: printed.\n"))
    assert build_html.figure_description(nb, i) == "Figure: printed."


# --- build_notebooks (starts a kernel) ----------------------------------------------------------------------------


def test_build_executes_in_a_fresh_kernel_and_keeps_a_failing_notebook_unchanged(tmp_path, capsys):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    good = nbformat.v4.new_notebook()
    good.cells = [
        nbformat.v4.new_code_cell("x = 40 + 2\nx"),
        nbformat.v4.new_code_cell("# NBVAL_RAISES_EXCEPTION\n1 / 0"),
        nbformat.v4.new_code_cell("print(x)"),
    ]
    good.cells[0].metadata["execution"] = {"iopub.status.busy": "2020-01-01T00:00:00Z"}  # an old timestamp
    bad = nbformat.v4.new_notebook()
    bad.cells = [nbformat.v4.new_code_cell("undefined_name")]
    nbformat.write(good, notebooks / "a.ipynb")
    nbformat.write(bad, notebooks / "b.ipynb")
    before = (notebooks / "b.ipynb").read_bytes()

    build_notebooks.execute(notebooks / "a.ipynb", "python3", 60)
    nb = nbformat.read(notebooks / "a.ipynb", as_version=4)
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert nb.cells[0].outputs[0].data["text/plain"] == "42"
    assert nb.cells[1].outputs[0].ename == "ZeroDivisionError"
    assert "tags" not in nb.cells[1].metadata, "the temporary raises-exception tag must not be stored"
    assert nb.cells[2].outputs[0].text == "42\n"
    assert not [c for c in nb.cells if "execution" in c.metadata], "metadata.execution (timestamps) must be stripped"
    with pytest.raises(build_notebooks.CellExecutionError):
        build_notebooks.execute(notebooks / "b.ipynb", "python3", 60)
    assert (notebooks / "b.ipynb").read_bytes() == before


# --- build_notebooks: the widget model ids (a rebuild of an unchanged notebook leaves its file byte-identical) ------

WIDGET_STATE, WIDGET_VIEW = build_notebooks.WIDGET_STATE, build_notebooks.WIDGET_VIEW


def view(model_id: str, text: str):
    return nbformat.v4.new_output("display_data", data={
        WIDGET_VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 0}, "text/plain": text})


def widget_notebook(ids, children, shown, held, stored=None):
    """A notebook with one model per id: model i names ``children[i]`` (IPY_MODEL_ references) and, as an Output
    widget does, holds a view of each of ``held[i]``; one cell shows each of ``shown``; the state is stored in the
    order of the indices ``stored`` (default: 0, 1, ...). Indices, not ids, say the structure, so two lists of ids
    give the same notebook up to the ids' names."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"w{k}", id=f"cell-{n}", outputs=[view(ids[k], f"widget {k}")])
                for n, k in enumerate(shown)]
    nb.metadata["widgets"] = {WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": {
        ids[i]: {"model_name": "BoxModel", "model_module": "@jupyter-widgets/controls", "state": {
            "description": f"widget {i}",
            "children": [f"IPY_MODEL_{ids[j]}" for j in children[i]],
            "outputs": [view(ids[j], f"widget {j}") for j in held[i]]}}
        for i in (range(len(ids)) if stored is None else stored)}}}
    return nbformat.from_dict(nb)


@st.composite
def widget_graphs(draw):
    """(two lists of distinct uuid-like ids, children, shown, held, an order of storing): one widget graph under two
    namings. References may loop back (an Output widget that holds a view of the box it sits in)."""
    n = draw(st.integers(1, 7))
    names = st.lists(st.uuids().map(lambda u: u.hex), min_size=n, max_size=n, unique=True)
    index = st.integers(0, n - 1)
    children = [draw(st.lists(index, max_size=3)) for _ in range(n)]
    held = [draw(st.lists(index, max_size=1)) for _ in range(n)]
    stored = draw(st.permutations(range(n)))
    return draw(names), draw(names), children, draw(st.lists(index, max_size=3)), held, stored


@settings(max_examples=200, deadline=None)
@given(widget_graphs())
def test_widget_ids_are_renamed_by_what_the_notebook_shows_never_by_the_ids_drawn(graph):
    ids, other_ids, children, shown, held, stored = graph
    nb = widget_notebook(ids, children, shown, held)
    renamed = build_notebooks.normalise_widget_ids(nb, "03-x")
    # deterministic: the same widgets under other random ids, stored in another order, give the same file
    same = widget_notebook(other_ids, children, shown, held, stored)
    build_notebooks.normalise_widget_ids(same, "03-x")
    assert nbformat.writes(same) == nbformat.writes(nb)
    # the names: the notebook's name and a counter, one per model, in order of first appearance (outputs first)
    assert sorted(renamed) == sorted(ids)
    assert sorted(renamed.values()) == [f"03-x-{n:04d}" for n in range(1, len(ids) + 1)]
    first_shown = list(dict.fromkeys(ids[k] for k in shown))
    assert [renamed[i] for i in first_shown] == [f"03-x-{n:04d}" for n in range(1, len(first_shown) + 1)]
    # consistent: every reference and every view, in the cells and inside the states, names the same model as before
    state = nb.metadata.widgets[WIDGET_STATE]["state"]
    assert list(state) == sorted(state)  # stored in the order of the names
    for i, old in enumerate(ids):
        model = state[renamed[old]]["state"]
        assert model["description"] == f"widget {i}"
        assert model["children"] == [f"IPY_MODEL_{renamed[ids[j]]}" for j in children[i]]
        assert [o.data[WIDGET_VIEW]["model_id"] for o in model["outputs"]] == [renamed[ids[j]] for j in held[i]]
    assert [c.outputs[0].data[WIDGET_VIEW]["model_id"] for c in nb.cells] == [renamed[ids[k]] for k in shown]
    assert [c.outputs[0].data["text/plain"] for c in nb.cells] == [f"widget {k}" for k in shown]
    # idempotent: a rebuilt notebook's names are already the names
    before = nbformat.writes(nb)
    assert build_notebooks.normalise_widget_ids(nb, "03-x") == {name: name for name in renamed.values()}
    assert nbformat.writes(nb) == before


def test_a_notebook_without_widgets_is_left_alone():
    nb = executed_notebook("No widgets")
    before = nbformat.writes(nb)
    assert build_notebooks.normalise_widget_ids(nb, "01-shapes") == {}
    assert nbformat.writes(nb) == before


def test_rebuilding_an_unchanged_notebook_with_a_slider_leaves_its_file_byte_identical(tmp_path):
    path = tmp_path / "03-tiny.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets as widgets\n"
                                          "slider = widgets.IntSlider(value=3, max=9, description='d_k')\n"
                                          "widgets.VBox([slider, widgets.Label('one label')])"),
                nbformat.v4.new_code_cell("slider.value * 2")]
    nbformat.write(nb, path)

    build_notebooks.execute(path, "python3", 60)
    first = path.read_bytes()
    build_notebooks.execute(path, "python3", 60)
    assert path.read_bytes() == first

    built = nbformat.reads(first.decode(), as_version=4)
    state = built.metadata.widgets[WIDGET_STATE]["state"]
    shown = built.cells[0].outputs[0].data[WIDGET_VIEW]["model_id"]
    assert shown == "03-tiny-0001" and state[shown]["model_name"] == "VBoxModel"
    assert set(state) == {f"03-tiny-{n:04d}" for n in range(1, len(state) + 1)}
    references = [t.removeprefix("IPY_MODEL_") for t in build_notebooks._strings(list(state.values()))
                  if t.startswith("IPY_MODEL_")]
    assert references and set(references) <= set(state), "every IPY_MODEL_ reference names a stored model"
    assert built.cells[1].outputs[0].data["text/plain"] == "6"


# --- the real course ----------------------------------------------------------------------------------------------


def test_the_committed_course_renders_to_html_with_figures_and_working_links(reading_copy_of_the_course):
    # The static reading copy, built from the committed notebooks (once per run, conftest.py): a page per notebook,
    # every figure embedded, every relative link resolving.
    notebooks = ROOT / "notebooks"
    out, written = reading_copy_of_the_course
    assert len(written) == len(build_html.notebook_pages(notebooks)) + 2 >= 12  # and the two handouts
    assert build_html.check(notebooks, out) == []
    assert 'href="00-start-here.html"' in (out / "index.html").read_text()
    assert 'href="handout.html"' in (out / "index.html").read_text()
    assert 'href="handout-large-print.html"' in (out / "index.html").read_text()


def test_a_collapsed_checker_cell_shows_its_call_but_not_the_answer_it_holds():
    nb = nbformat.v4.new_notebook()
    hidden = nbformat.v4.new_code_cell("check_number(answer, 24, mistakes=[(48, 'squared', 'why')])")
    hidden.metadata["jupyter"] = {"source_hidden": True}
    shown = nbformat.v4.new_code_cell("check_count('scores', answer, n=7)")
    nb.cells = [hidden, shown]
    build_html.hide_collapsed_sources(nb)
    assert nb.cells[0].source.startswith("check_number(answer, ...)")
    assert "24" not in nb.cells[0].source and "48" not in nb.cells[0].source
    assert nb.cells[1].source == "check_count('scores', answer, n=7)"


def test_html_draws_each_explorer_live_from_its_saved_state_and_check_counts_them(course, tmp_path):
    """An explorer's output (its still, then its widget, whose state the notebook saved) becomes the live explorer:
    the state in the page, the module inline once; the still is left out. A page that lost it is reported."""
    nav.write(course, COURSE)
    path = course / "02-scores.ipynb"
    nb = nbformat.read(path, as_version=4)
    state = {"_esm": "export default { render({ model, el }) { el.textContent = model.get('values').x; } };",
             "spec": {"name": "toy", "controls": []}, "frames_json": "{}", "values": {"x": "</script> 1"}}
    nb.metadata["widgets"] = {build_html.WIDGET_STATE: {"state": {"toy-1": {"state": state}}}}
    still = nbformat.v4.new_output("display_data", data={
        "text/html": '<figure class="attn-still attn-still-toy"><img alt="a toy" src="data:image/png;base64,AA=="></figure>',
        "text/plain": "A still image."})
    view = nbformat.v4.new_output("display_data", data={
        build_html.WIDGET_VIEW: {"model_id": "toy-1", "version_major": 2, "version_minor": 0},
        "text/plain": "toy_explorer: a toy."})
    nb.cells.append(nbformat.v4.new_code_cell("toy_explorer()", outputs=[still, view], execution_count=9))
    nbformat.write(nb, path)
    out = tmp_path / "html"
    build_html.build(course, out)
    assert build_html.check(course, out) == []
    page = (out / "02-scores.html").read_text()
    assert page.count('<div class="attn-static-explorer">') == 1 and page.count('<script type="module">') == 1
    assert "attn-still" not in page and "<\\/script> 1" in page and "export default" not in page
    assert "const attnExplorer = { render(" in page
    (out / "02-scores.html").write_text(page.replace('<div class="attn-static-explorer">', "<div>"))
    assert build_html.check(course, out) == [
        "02-scores.html: 1 explorer(s) in 02-scores.ipynb, 0 drawn live in the page"]
