"""The static reading copy (tools/build_html.py) in headless Chromium: every page passes axe's WCAG 2 A and AA
rules, every figure carries its description as alt text, every formula of the notebook's markdown is drawn as MathML
(and no TeX shows), no page asks for anything from outside the site, and both handouts hold every notebook's lines
worth keeping: the one-page handout prints on one page (A4 and Letter) at no less than ONE_PAGE_MIN_PT, the
large-print one at no less than 12 pt.

Run: python -m pytest tests/browser/test_reading_copy.py -q
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest
from axe_audit import axe_violations, describe

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "tools"))
import build_html  # noqa: E402

PAGES = ([rel.as_posix() for _, rel in build_html.notebook_pages(NOTEBOOKS)]
         + ["index.html", *build_html.HANDOUTS])
HANDOUTS = list(build_html.HANDOUTS)
# The one-page handout's print size may not shrink below this (it prints at 7.25 pt): a new line that does not fit
# must be shortened or go to the large-print copy, not make everyone's print smaller.
ONE_PAGE_MIN_PT = 7.0
LARGE_PRINT_MIN_PT = 12.0
LEARNER = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if re.match(r"\d\d-", p.name))


@pytest.fixture(scope="module")
def reading_copy(reading_copy_of_the_course):
    """The reading copy of the committed notebooks, built once per run (conftest.py)."""
    return reading_copy_of_the_course[0]


@pytest.fixture
def static_page(chromium):
    """A page that refuses every request outside the site (anything but a file: URL) and lists it in
    ``page.outside``: the reading copy is read offline, so nothing it needs may come from elsewhere."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.outside = []

    def refuse_outside(route):
        if route.request.url.startswith(("file:", "data:", "about:")):
            route.continue_()
        else:
            page.outside.append(route.request.url)
            route.abort()

    page.route("**/*", refuse_outside)
    yield page
    context.close()


def words(text):
    return " ".join(text.split())


def figure_descriptions(nb):
    """Every "Figure: ..." paragraph of a notebook, from its markdown cells, its printed outputs and the plain-text
    form of its displays (an explorer's still image carries its description there)."""
    texts = [cell.source for cell in nb.cells if cell.cell_type == "markdown"]
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    texts += [out.get("text", "") for out in outputs] + [out.get("data", {}).get("text/plain", "") for out in outputs]
    return {words(re.split(r"\n\s*\n", text[m.start():])[0]).strip(" >*_")
            for text in texts for m in re.finditer(r"^[\s>*_]*Figure:", text, re.MULTILINE)}


FORMULA_MARK = "\u2063"  # INVISIBLE SEPARATOR: stands for one formula in texts compared with the page


def without_formulas(text):
    """``text`` (markdown) with each formula replaced by FORMULA_MARK, as mark_formulas leaves the page's text."""
    return build_html.FORMULA.sub(FORMULA_MARK, text)


MARK_FORMULAS = """root => { for (const m of Array.from(root.querySelectorAll('math')))
    m.replaceWith(document.createTextNode('\u2063')); }"""


def notebook_lines(nb):
    """The bullets of the notebook's "## Lines worth keeping" section, as plain text (backticks dropped, each
    formula one FORMULA_MARK)."""
    for cell in nb.cells:
        match = re.search(r"^## Lines worth keeping\s*$(.*?)(?=^#|\Z)", cell.source, re.MULTILINE | re.DOTALL)
        if cell.cell_type == "markdown" and match:
            bullets = re.split(r"^- ", match.group(1).strip(), flags=re.MULTILINE)
            return [words(without_formulas(b).replace("`", "")) for b in bullets if b.strip()]
    raise AssertionError(f"{nb.metadata.get('name', 'a notebook')} has no '## Lines worth keeping' section")


@pytest.mark.parametrize("rel", PAGES)
def test_page_passes_wcag_2_a_and_aa(reading_copy, static_page, rel):
    static_page.goto((reading_copy / rel).as_uri())
    violations = axe_violations(static_page)
    assert not violations, f"{rel}: axe finds WCAG 2 A/AA violations:\n{describe(violations)}"
    assert static_page.evaluate("() => document.documentElement.lang") == "en"
    assert static_page.title().strip()


@pytest.mark.parametrize("rel", PAGES)
def test_every_image_carries_a_figure_description_of_its_notebook_as_alt(reading_copy, static_page, rel):
    static_page.goto((reading_copy / rel).as_uri())
    images = static_page.evaluate("() => Array.from(document.images).map(i => i.getAttribute('alt'))")
    svgs = static_page.evaluate("""() => Array.from(document.querySelectorAll('.jp-OutputArea-output svg'))
        .filter(s => !s.parentElement.closest('.jp-OutputArea-output svg'))
        .map(s => [s.getAttribute('role'), s.getAttribute('aria-label')])""")
    notebook = {rel: nb for nb, rel in build_html.notebook_pages(NOTEBOOKS)}.get(Path(rel))
    if notebook is None:  # the contents' copy and the handout hold no figure
        assert images == [] and svgs == []
        return
    nb = nbformat.read(notebook, as_version=4)
    descriptions = figure_descriptions(nb)
    assert len(images) == len([o for _, o in build_html.figure_outputs(nb) if "image/svg+xml" not in o.data])
    for alt in images:
        assert alt and words(alt) in descriptions, f"{rel}: an image's alt is no Figure: line of the notebook: {alt!r}"
    for role, label in svgs:
        assert role == "img" and label and words(label) in descriptions


@pytest.mark.parametrize("name", HANDOUTS)
def test_handout_holds_every_notebooks_lines_under_its_linked_title(reading_copy, static_page, name):
    static_page.goto((reading_copy / name).as_uri())
    assert static_page.locator("main math").count() > 0, "the handout's formulas are not drawn as MathML"
    static_page.evaluate(f"() => ({MARK_FORMULAS})(document.querySelector('main'))")
    sections = static_page.evaluate("""() => Array.from(document.querySelectorAll('main section')).map(s => ({
        id: s.id, title: s.querySelector('h2').innerText, href: s.querySelector('h2 a').href,
        lines: Array.from(s.querySelectorAll('li')).map(li => li.innerText)}))""")
    assert [s["id"] for s in sections] == [p.stem for p in LEARNER]
    for section, path in zip(sections, LEARNER):
        nb = nbformat.read(path, as_version=4)
        assert [words(line) for line in section["lines"]] == notebook_lines(nb), path.name
        heading = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("# "))
        title = without_formulas(f"{path.name[:2]} {heading.splitlines()[0][2:]}").replace("`", "")
        assert words(section["title"]) == words(title)
        assert Path(unquote(urlparse(section["href"]).path)) == reading_copy / f"{path.stem}.html"
    links = static_page.evaluate("() => Array.from(document.links).map(a => a.href)")
    assert links and all(Path(unquote(urlparse(href).path)).is_file() for href in links), links


def print_font_sizes_pt(page, path):
    """The computed print size (pt) of every line of the handout at ``path`` and of its notebook titles."""
    page.goto(path.as_uri())
    page.emulate_media(media="print")
    return page.evaluate("""() => Array.from(document.querySelectorAll('main li, main h2, main p'))
        .map(e => parseFloat(getComputedStyle(e).fontSize) * 0.75)""")


def pages_printed(page, paper):
    pdf = page.pdf(format=paper, prefer_css_page_size=True)
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_handout_prints_on_one_page_no_smaller_than_its_floor(reading_copy, static_page, paper):
    sizes = print_font_sizes_pt(static_page, reading_copy / build_html.HANDOUT)
    assert sizes and min(sizes) >= ONE_PAGE_MIN_PT, f"the one-page handout prints at {min(sizes):.2f} pt"
    assert pages_printed(static_page, paper) == 1


def test_large_print_handout_prints_at_12_pt_or_more(reading_copy, static_page):
    sizes = print_font_sizes_pt(static_page, reading_copy / build_html.HANDOUT_LARGE)
    assert sizes and min(sizes) >= LARGE_PRINT_MIN_PT, f"the large-print handout prints at {min(sizes):.2f} pt"
    assert pages_printed(static_page, "A4") > 1  # larger than the one page, so it really is a different size


def test_contents_links_to_both_handouts_and_each_handout_to_the_other(reading_copy, static_page):
    static_page.goto((reading_copy / "index.html").as_uri())
    for name in HANDOUTS:
        assert static_page.locator(f'a[href="{name}"]').count() == 1, name
    for name in HANDOUTS:
        static_page.goto((reading_copy / name).as_uri())
        for other in set(HANDOUTS) - {name}:
            assert static_page.locator(f'a[href="{other}"]').count() == 1, (name, other)


TEX_LEFT = re.compile(r"\$|\\(?:frac|sqrt|top|times|operatorname|text|sum|partial|delta|neq|le|infty|cdot)\b")


@pytest.mark.parametrize("rel", PAGES)
def test_every_formula_is_drawn_as_mathml_no_tex_shows_and_nothing_comes_from_outside(reading_copy, static_page, rel):
    static_page.goto((reading_copy / rel).as_uri())
    static_page.wait_for_load_state("load")
    drawn = static_page.evaluate("""() => Array.from(document.querySelectorAll('math')).map(m => {
        const box = m.getBoundingClientRect();
        return {mathml: m.namespaceURI === 'http://www.w3.org/1998/Math/MathML', width: box.width,
                height: box.height, tex: m.getAttribute('alttext')}; })""")
    notebook = {rel: nb for nb, rel in build_html.notebook_pages(NOTEBOOKS)}.get(Path(rel))
    if notebook is not None:
        expected = build_html.notebook_formulas(nbformat.read(notebook, as_version=4))
        assert len(drawn) == len(expected), f"{rel}: {len(expected)} formulas in the notebook, {len(drawn)} drawn"
        assert [d["tex"] for d in drawn] == [" ".join(f.split()) for f in expected]
    assert all(d["mathml"] and d["width"] > 0 and d["height"] > 0 for d in drawn), f"{rel}: a formula is not drawn"
    static_page.evaluate(f"() => ({MARK_FORMULAS})(document.body)")
    prose = static_page.evaluate("""() => Array.from(document.querySelectorAll(
        '.jp-RenderedMarkdown, main > header, main section')).map(e => e.innerText).join('\\n')""")
    left = sorted({m.group(0) for m in TEX_LEFT.finditer(prose)})
    assert not left, f"{rel}: TeX shows as text in the prose: {left}"
    assert static_page.outside == [], f"{rel} asks for files outside the site: {static_page.outside}"


EXPLORER_PAGES = {kind: Path(name).with_suffix(".html").as_posix()
                  for kind, name in __import__("lab_driver").EXPLORER_NOTEBOOKS.items()}


@pytest.mark.parametrize("kind", EXPLORER_PAGES)
def test_every_explorer_moves_in_the_reading_copy_with_no_kernel_and_nothing_from_outside(reading_copy, static_page,
                                                                                          kind):
    """Opened from file://, every outside request refused: the explorer is drawn from the state saved with the
    notebook, its main control moves with the keyboard, and figure, readout, caption and accessible name follow;
    no text of the figure runs off it, at the first position or the last."""
    import lab_driver

    rel = EXPLORER_PAGES[kind]
    static_page.errors = []
    static_page.on("pageerror", lambda error: static_page.errors.append(str(error)))
    static_page.goto((reading_copy / rel).as_uri())
    selector = lab_driver.explorer_selector(kind)
    lab_driver.wait_for_figure(static_page, kind, timeout_ms=10_000)
    assert static_page.locator(selector).count() == 1, f"{rel}: not one live {kind} explorer"
    assert static_page.locator(f"{selector} .attn-status").inner_text() == ""

    def shown():
        return static_page.evaluate("""sel => {
            const e = document.querySelector(sel), canvas = e.querySelector('.attn-figure canvas');
            return [window.attnFigureSum(sel), window.attnReadout(sel), canvas.getAttribute('aria-label'),
                    e.querySelector('.attn-description').textContent, canvas.attnTexts,
                    [canvas.clientWidth, canvas.clientHeight]];
        }""", selector)

    how = lab_driver.focus_main_control(static_page, kind)
    first = shown()
    for key in lab_driver.END_KEYS[how]:
        static_page.keyboard.press(key)
    moved = shown()
    assert moved[0] != first[0] and moved[1] != first[1], f"{rel}: the {kind} explorer did not move"
    for figure in (first, moved):
        sum_, readout, label, caption, texts, (width, height) = figure
        assert label and caption == f"Figure: {label}"
        outside = [t["text"] for t in texts if t["x0"] < -0.5 or t["y0"] < -0.5 or t["x1"] > width + 0.5
                   or t["y1"] > height + 0.5]
        assert not outside, f"{rel}: text runs off the {width}x{height} figure: {outside}"
    assert static_page.outside == [] and static_page.errors == []
