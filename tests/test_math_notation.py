"""The mathematics of the course (issue 20): the notebooks' markdown writes it as TeX in one notation, and
tools/build_html.py renders every formula to MathML with nothing loaded from outside the site.

The browser half (each page as Chromium draws it) is tests/browser/test_reading_copy.py and test_lab_math.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_html  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
COURSE = [p for p, _ in build_html.notebook_pages(NOTEBOOKS) if p.name != "contents.ipynb"]
LEARNER = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))

# Unicode mathematics that the prose writes in TeX instead; the "Figure:" descriptions (alt text) keep words.
UNICODE_MATH = re.compile(r"[ΣδΔ∂≠×√≈≤≥−ᵀ²⊙∞ε←₁₂]|\bsqrt\(|\^T\b|\bn x m\b|\bQ K\^T")
FIGURE = re.compile(r"^[\s>*_]*Figure:")
NAVIGATION = re.compile(r"^\**\[?(?:←|Teacher's solutions)|\(contents\.ipynb\)\s*$")


def prose_paragraphs(nb):
    """(cell index, paragraph) of every markdown paragraph that is prose: not a navigation line."""
    return [(i, par) for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for par in re.split(r"\n\s*\n", cell.source) if par.strip() and not NAVIGATION.search(par.strip())]


def outside_math_and_code(text):
    text = build_html.FORMULA.sub(" ", text)
    return build_html.CODE_SPAN.sub(" ", text)


def page_of(markdown, exporter=None):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(markdown)])
    page, _ = (exporter or build_html.ReadingCopyExporter()).from_notebook_node(nb)
    return page


# --- the notebooks -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_prose_writes_its_mathematics_in_tex_not_unicode_or_code(path):
    nb = nbformat.read(path, as_version=4)
    found = [(i, m.group(0), par[max(0, m.start() - 30):m.end() + 30])
             for i, par in prose_paragraphs(nb) if not FIGURE.match(par)
             for m in UNICODE_MATH.finditer(outside_math_and_code(par))]
    assert not found, f"{path.name}: mathematics outside $...$ (cell, text, context): {found}"


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_figure_descriptions_stay_in_words(path):
    nb = nbformat.read(path, as_version=4)
    tex = [par[:80] for _, par in prose_paragraphs(nb) if FIGURE.match(par) and ("$" in par or "\\" in par)]
    assert not tex, f"{path.name}: a Figure: description (the alt text of its image) holds TeX: {tex}"


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_every_formula_renders_to_mathml(path):
    formulas = build_html.notebook_formulas(nbformat.read(path, as_version=4))
    for tex in formulas:
        assert build_html.mathml(tex).startswith("<math "), tex


def test_the_course_has_formulas_in_every_numbered_notebook():
    counts = {p.name: len(build_html.notebook_formulas(nbformat.read(p, as_version=4))) for p in LEARNER}
    assert all(counts.values()), f"a notebook without a single formula: {counts}"


def test_00_displays_equation_1_and_sets_down_the_notation():
    nb = nbformat.read(NOTEBOOKS / "00-start-here.ipynb", as_version=4)
    first = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("# "))
    displayed = re.findall(r"\$\$(.+?)\$\$", first, re.DOTALL)
    assert displayed and r"\operatorname{softmax}" in displayed[0] and r"\sqrt{d_k}" in displayed[0]
    assert r"QK^\top" in displayed[0] and "Equation 1" in first
    assert "note on notation" in first and "`(n, d_k)`" in first and r"$n \times d_k$" in first


@pytest.mark.parametrize("path", LEARNER, ids=lambda p: p.name)
def test_one_notation_for_the_paper_symbols(path):
    """The paper's symbols are written one way: QK^T as $QK^\\top$ (not K^T, K^{T} or K'), the key width as d_k."""
    formulas = build_html.notebook_formulas(nbformat.read(path, as_version=4))
    other = r"\^T\b|\^\{T\}|\^\{\\top\}|\\mathrm\{softmax\}|d_\{k\}|\\text\{softmax\}"
    off = [f for f in formulas if re.search(other, f)]
    assert not off, f"{path.name}: formulas outside the course's notation: {off}"


def test_printed_outputs_carry_no_tex():
    """Checkers' verdicts and printed sentences stay plain text (they print in a terminal too)."""
    found = []
    for path in COURSE:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
                text = out.get("text", "") or out.get("data", {}).get("text/plain", "")
                if re.search(r"\\(?:sqrt|frac|top|operatorname)\b|\$[^$\n]+\$", text):
                    found.append((path.name, i, text[:80]))
    assert not found, found


# --- the parser of formulas ---------------------------------------------------------------------------------------


def test_formulas_finds_inline_and_displayed_math_and_skips_code():
    text = ("Scores $QK^\\top$ over `$not math$` and\n\n$$\\frac{a}{b}$$\n\n    indented $code$\n\n"
            "```\n$fenced$\n```\nprices of \\$5 and \\$6, then $n \\times m$.")
    assert build_html.formulas(text) == ["QK^\\top", "\\frac{a}{b}", "n \\times m"]


@given(st.lists(st.from_regex(r"[a-zA-Z](_[a-z0-9]|\^\\top| \\times [a-z])?", fullmatch=True), min_size=1,
                max_size=6))
def test_formulas_counts_what_the_page_renders(parts):
    markdown = "Text " + ", then ".join(f"${p}$" for p in parts) + "."
    assert build_html.formulas(markdown) == parts
    assert len(build_html.MATH_ELEMENT.findall(build_html.markdown_to_html(markdown))) == len(parts)


# --- the rendering ------------------------------------------------------------------------------------------------


def test_underscores_and_stars_inside_a_formula_stay_tex():
    """mistune's emphasis rules would eat ``_`` and ``*`` between two formulas; the math plugin protects them."""
    page = page_of("The sum $a_i * b_j$ and the product $c_k * d_l$ are *two* things.")
    assert page.count("<math ") == 2 and "<em>two</em>" in page
    assert "<msub><mi>a</mi><mi>i</mi></msub>" in page and "<em>i" not in page


def test_a_formula_in_a_heading_stays_mathml():
    """nbconvert's heading anchors parse the heading as XML and write it back: a <math> carrying its namespace
    attribute came out as <ns0:math>, which no browser draws."""
    page = page_of("## Why divide by $\\sqrt{d_k}$?")
    heading = re.search(r"<h2.*?</h2>", page, re.DOTALL).group(0)
    assert "<math " in heading and "ns0:" not in heading and "<msqrt>" in heading


def test_a_displayed_formula_is_a_block_and_keeps_its_tex_as_alttext():
    page = page_of("$$\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$$")
    assert re.search(r'<math alttext="\\operatorname\{softmax\}\(QK\^\\top/\\sqrt\{d_k\}\)\\,V" display="block"',
                     page)


def test_a_formula_latex2mathml_cannot_read_names_itself():
    with pytest.raises(ValueError, match=r"\$\\left\( x\$"):
        build_html.mathml("\\left( x")


def test_the_reading_copy_loads_nothing_from_outside_where_nbconverts_lab_template_does():
    default = page_of("$x$", HTMLExporter(template_name="lab"))
    assert any("mathjax" in url.lower() for url in re.findall(r'src="([^"]+)"', default))
    assert build_html.outside_resources(default, Path("x.html"))
    ours = page_of("$x$")
    assert build_html.outside_resources(ours, Path("x.html")) == [] and "<script src=" not in ours


def test_the_check_counts_formulas_per_page(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "# 00: $a$\n\n## Lines worth keeping\n\n- $b_1$ and $c$.")])
    nbformat.write(nb, notebooks / "00-start-here.ipynb")
    out = tmp_path / "html"
    build_html.build(notebooks, out)
    assert build_html.check(notebooks, out) == []
    page = out / "00-start-here.html"
    page.write_text(page.read_text().replace("<math ", "<span ", 1))
    assert build_html.check(notebooks, out) == [
        "00-start-here.html: 3 formula(s) in 00-start-here.ipynb, 2 rendered as MathML"]


def test_plain_text_titles():
    assert build_html.plain_text("Scaling: why divide by $\\sqrt{d_k}$?") == "Scaling: why divide by √d_k?"
    assert build_html.plain_text("what does the $n \\times m$ matrix cost?") == "what does the n × m matrix cost?"


def test_a_number_with_thousands_separators_is_one_number():
    """TeX's ``1{,}000`` reads as one number; latex2mathml writes 1, a comma operator and 000, which a browser
    spaces as a list ("1, 000") and a screen reader reads as three items."""
    element = build_html.mathml("1000 \\times 1000 = 1{,}000{,}000")
    assert "<mn>1,000,000</mn>" in element and "&#x0002C;" not in element
    assert "<mn>315,461.3</mn>" in build_html.mathml("315{,}461.3")


def test_a_leading_minus_is_a_sign_and_infinity_a_quantity():
    """latex2mathml writes -\\infty as two operators, which a browser spaces as a subtraction ("− ∞")."""
    assert build_html.mathml("-\\infty").endswith(
        '<mrow><mo form="prefix">&#x02212;</mo><mi>&#x0221E;</mi></mrow></math>')
    assert '<mo form="prefix">&#x02212;</mo><mn>0.1</mn>' in build_html.mathml("(-0.1, 0.5)")
    assert "form=" not in build_html.mathml("a - b")
