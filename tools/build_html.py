"""Render the executed notebooks to static HTML in build/html/, for reading without a kernel, then check the result.

Usage::

    python tools/build_html.py            # build build/html/ (index.html is the contents), then check it
    python tools/build_html.py --check    # only check an existing build/html/

The notebooks are rendered as committed (run tools/build_notebooks.py first if they changed), with their figures
embedded in the pages. Links between notebooks (``02-scores.ipynb``) become links between pages (``02-scores.html``);
each figure gets its "Figure:" description as alt text; each page is titled by its notebook's first heading.
Each explorer is drawn live in its page from the state saved with the notebook, by the explorers' own module
inlined once per page (:func:`static_explorers`): its controls move it with no kernel and nothing from outside.
nbconvert's lab template is made to meet WCAG 2.1 AA (tests/browser/test_reading_copy.py audits every page with
axe): prompts at full opacity, code and traceback colours darkened to 4.5:1 on their backgrounds, links underlined.

``handout.html`` is one printable page: the "Lines worth keeping" section of every numbered notebook, in reading
order, under its title and linked to its page. ``handout-large-print.html`` holds the same lines at 12 pt on paper,
on as many pages as they need. The contents page links to both, and each to the other. A numbered notebook without
that section stops the build.

Mathematics is written in the markdown as TeX (``$...$``, ``$$...$$``) and rendered to MathML when the page is built
(latex2mathml), so the pages need no MathJax and load nothing from outside the site; browsers draw MathML natively and
screen readers read it as mathematics.

The check fails (exit 1) if a notebook has no page, if a page holds fewer embedded images than its notebook has
figures (an ``image/png`` output, or an ``<img src="data:...">`` inside a ``text/html`` output), if a page draws
another number of live explorers than its notebook shows (each with its saved state and the module inline), if a
page holds
another number of MathML formulas than its notebook's markdown has formulas, if a page loads anything from outside
the site, if a relative link points to no file, or if a handout is missing, lacks a notebook or is not linked from
the contents.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import sys
from pathlib import Path

import jinja2
import nbformat
from latex2mathml.converter import convert as latex_to_mathml
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
import nav  # noqa: E402  (tools/nav.py, beside this file)
from contrast import darken_to  # noqa: E402  (tools/contrast.py)

HANDOUT = "handout.html"
HANDOUT_LARGE = "handout-large-print.html"
KEEP_HEADING = re.compile(r"^##\s+Lines worth keeping\s*$", re.MULTILINE)
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")
RASTER_TYPES = ("image/png", "image/jpeg")
LOCAL_IPYNB_LINK = re.compile(r'href="(?![a-z][a-z0-9+.-]*:|#|/)([^"#?]*?)\.ipynb((?:#[^"]*)?)"', re.IGNORECASE)
HREF = re.compile(r'href="([^"]*)"')
DATA_IMG = re.compile(r'<img\b[^>]*?src="data:image/(?:png|jpeg);base64,')
ALT = re.compile(r'\s*alt="[^"]*"')
FIGURE_LINE = re.compile(r"^[\s>*_]*Figure:", re.MULTILINE)
MATH_ELEMENT = re.compile(r"<math\b")


def notebook_pages(notebooks_dir: Path) -> list[tuple[Path, Path]]:
    """(notebook, page path relative to the output folder) for every notebook of the course, solutions included."""
    paths = sorted(notebooks_dir.glob("*.ipynb")) + sorted((notebooks_dir / "solutions").glob("*.ipynb"))
    return [(p, p.relative_to(notebooks_dir).with_suffix(".html")) for p in paths]


def figure_outputs(nb) -> list[tuple[int, dict]]:
    """(cell index, output) of every output that carries an image, in reading order: an ``image/*`` output, or a
    ``text/html`` output holding an embedded image (how attn_lib.plotting.show_figure sends a figure with alt text).
    An explorer's still is left out: the page shows the explorer itself (:func:`static_explorers`)."""
    return [(i, out) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if not is_still(out)
            and (any(t in out.get("data", {}) for t in IMAGE_TYPES)
                 or DATA_IMG.search(out.get("data", {}).get("text/html", "")))]


def is_still(out) -> bool:
    """Is ``out`` an explorer's still (attn_lib/widgets/_still.py), the image shown where its widget is not drawn?"""
    return '<figure class="attn-still' in out.get("data", {}).get("text/html", "")


def raster_images(out) -> int:
    """How many embedded raster images the page shows for ``out``: nbconvert shows an output's ``text/html`` before
    its ``image/*``, so the images inside that HTML, else one for an ``image/png`` or ``image/jpeg``."""
    data = out.get("data", {})
    if "text/html" in data:
        return len(DATA_IMG.findall(data["text/html"]))
    return int(any(t in data for t in RASTER_TYPES))


def _output_text(out) -> str:
    if out.get("output_type") == "stream":
        return out.get("text", "")
    data = out.get("data", {})
    return data.get("text/markdown", "") or data.get("text/plain", "")


def _paragraph(text: str, start: int) -> str:
    """The paragraph of ``text`` that begins at ``start`` (up to a blank line), on one line."""
    paragraph = re.split(r"\n\s*\n", text[start:], maxsplit=1)[0]
    return " ".join(paragraph.split()).strip(" >*_")


def figure_description(nb, cell_index: int) -> str | None:
    """The "Figure: ..." paragraph that describes the figure of code cell ``cell_index``, or None if there is none.

    It may be printed by the same cell (a stream or text output), or open the next cell when that cell is markdown.
    """
    cell = nb.cells[cell_index]
    for out in cell.get("outputs", []):
        text = _output_text(out)
        match = FIGURE_LINE.search(text)
        if match:
            return _paragraph(text, match.start())
    if cell_index + 1 < len(nb.cells):
        following = nb.cells[cell_index + 1]
        if following.cell_type == "markdown":
            text = following.source.lstrip()
            if FIGURE_LINE.match(text):
                return _paragraph(text, 0)
    return None


def add_alt_text(page: str, descriptions: list[str | None]) -> str:
    """Give the i-th embedded raster image of ``page`` the i-th description as alt text (when the counts match)."""
    images = list(DATA_IMG.finditer(page))
    if len(images) != len(descriptions):
        return page
    parts, last = [], 0
    for match, text in zip(images, descriptions, strict=True):
        parts.append(page[last:match.start()])
        alt = html.escape(text or "a figure; its description is in the text beside it", quote=True)
        parts.append(f'<img alt="{alt}"' + ALT.sub("", match.group(0)[len("<img"):]))
        last = match.end()
    parts.append(page[last:])
    return "".join(parts)


def hide_collapsed_sources(nb) -> None:
    """Show a cell that JupyterLab opens collapsed as its call alone: a checker's arguments hold the answer."""
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("jupyter", {}).get("source_hidden"):
            call = re.match(r"\s*([A-Za-z_][\w.]*)\(", cell.source)
            name = call.group(1) if call else "this cell"
            cell.source = f"{name}(answer, ...)  # the other arguments hold the answer: run the cell to check yours"


# --- mathematics: TeX in the markdown, MathML in the page ----------------------------------------------------------
#
# The markdown writes mathematics as TeX between dollars ($QK^\top$ inline, $$...$$ displayed). nbconvert's parser
# (mistune, with its math plugin) hands each formula to the renderer untouched by the markdown rules, so ``_`` and
# ``*`` inside it stay TeX; the renderer below turns it into MathML with latex2mathml when the page is built. Chromium
# (since 109), Firefox and Safari draw MathML natively and screen readers read it as mathematics, so the pages load
# no script: no MathJax, no require.js, nothing from outside the site.

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
FENCED = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
INDENTED = re.compile(r"(?:^(?: {4}|\t).*\n?)+", re.MULTILINE)
SIGN = re.compile(r"(<mrow>|<mo[^>]*>(?:&#x00028;|&#x0005B;|&#x0003D;|&#x0002C;|&#x02212;)</mo>)<mo>&#x02212;</mo>")
THOUSANDS = re.compile(r"<mn>([\d,]+)</mn><mrow><mo>&#x0002C;</mo></mrow><mn>(\d{3}(?:\.\d+)?)</mn>")
FORMULA = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$(?!\d)", re.DOTALL)


def formulas(markdown: str) -> list[str]:
    """The TeX of every formula in ``markdown`` (``$...$`` and ``$$...$$``), in order, code left out: a parser of
    its own, independent of the one that renders the page, so that the check can compare the two."""
    text = FENCED.sub("", markdown)
    text = INDENTED.sub("", text)
    text = CODE_SPAN.sub("", text)
    return [(m.group(1) or m.group(2)).strip() for m in FORMULA.finditer(text)]


def notebook_formulas(nb) -> list[str]:
    """Every formula of the notebook's markdown, in reading order: its markdown cells and the markdown its code cells
    show (a problem's statement cell)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found += formulas(cell.source)
        elif cell.cell_type == "code":
            found += [f for out in cell.get("outputs", []) if "text/markdown" in out.get("data", {})
                      for f in formulas(str(out["data"]["text/markdown"]))]
    return found


def mathml(tex: str, display: str = "inline") -> str:
    """``tex`` as a MathML ``<math>`` element; its TeX kept as ``alttext`` for assistive technology that wants it.

    Raises
    ------
    ValueError
        If latex2mathml cannot read ``tex`` (the formula is named in the message).
    """
    try:
        element = latex_to_mathml(tex.strip(), display=display)
    except Exception as error:  # latex2mathml raises its own exception types, and IndexError on a bad brace
        raise ValueError(f"cannot render the formula ${tex}$ as MathML: {error}") from error
    alt = html.escape(" ".join(tex.split()), quote=True)
    # HTML puts <math> in the MathML namespace by itself; without the attribute, nbconvert's heading anchors (which
    # parse a heading as XML and write it back) keep the element as <math>, not <ns0:math>.
    element = element.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "", 1)
    # A minus that opens a term is a sign (prefix, no space after it), and infinity is a quantity, not an operator
    # (latex2mathml writes <mo>∞</mo>, so that "−∞" came out spaced as a subtraction)
    element = element.replace("<mo>&#x0221E;</mo>", "<mi>&#x0221E;</mi>")
    element = SIGN.sub(r'\1<mo form="prefix">&#x02212;</mo>', element)
    # TeX's 1{,}000 (a thousands separator, no space after it) is one number, not 1, a comma and 000
    while THOUSANDS.search(element):
        element = THOUSANDS.sub(r"<mn>\1,\2</mn>", element)
    return element.replace("<math ", f'<math alttext="{alt}" ', 1)


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, with every formula rendered to MathML instead of left for MathJax."""

    def inline_math(self, body: str) -> str:
        return mathml(body, "inline")

    def block_math(self, body: str) -> str:
        return mathml(body, "block")

    def latex_environment(self, name: str, body: str) -> str:
        return mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")


def markdown_to_html(source: str) -> str:
    """Markdown to HTML with the formulas in MathML (for the handouts)."""
    return MarkdownWithMath(renderer=MathMLRenderer(escape=False)).render(source)


def plain_text(markdown: str) -> str:
    """A line of markdown as plain text, for a page's <title>: code marks dropped, each formula written out in
    Unicode (``$\\sqrt{d_k}$`` becomes ``√d_k``)."""
    def words(match):
        tex = (match.group(1) or match.group(2)).strip()
        for command, text in (("\\sqrt", "√"), ("\\times", "×"), ("\\neq", "≠"), ("^\\top", "ᵀ"), ("\\cdot", "·"),
                              ("\\text", ""), ("\\operatorname", "")):
            tex = tex.replace(command, text)
        return re.sub(r"\s+", " ", tex.replace("{", "").replace("}", ""))
    return FORMULA.sub(words, markdown).replace("`", "")


# The reading copy's template: nbconvert's lab template without its scripts from outside the site (require.js,
# MathJax 2.7.7, mermaid, the widget manager): the formulas are MathML already, and a widget needs a kernel.
READING_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


class ReadingCopyExporter(HTMLExporter):
    """nbconvert's HTMLExporter (lab template) that renders formulas to MathML and loads no outside script."""

    def __init__(self, **kwargs):
        kwargs.setdefault("template_name", "lab")
        kwargs.setdefault("template_file", "reading-copy.html.j2")
        kwargs.setdefault("extra_loaders", [jinja2.DictLoader({"reading-copy.html.j2": READING_TEMPLATE})])
        super().__init__(**kwargs)

    @jinja2.pass_context
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        path = context.get("resources", {}).get("metadata", {}).get("path", "")
        renderer = MathMLRenderer(escape=False, attachments=cell.get("attachments", {}),
                                  embed_images=self.embed_images, path=path, anchor_link_text=self.anchor_link_text,
                                  exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)


# --- WCAG 2.1 AA over nbconvert's lab template (light theme) -------------------------------------------------------

CODE_BACKGROUND = "#f5f5f5"  # --jp-cell-editor-background (md-grey-100): behind highlighted code
ERROR_BACKGROUND = "#ffdddd"  # --jp-rendermime-error-background: behind tracebacks and stderr
HEX = r"(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})"
EDITOR_COLOUR = re.compile(r"(--jp-mirror-editor-[a-z-]+-color):\s*" + HEX + r"\s*;")
ANSI_COLOUR = re.compile(r"(\.jp-RenderedText pre \.ansi-[a-z-]+-fg)\s*\{\s*color:\s*" + HEX + r"\s*;")
INLINE_RGB = re.compile(r'style="color: rgb\((\d+),\s*(\d+),\s*(\d+)\)"')
ACCESSIBLE_CSS = """
/* Added by tools/build_html.py: WCAG 2.1 AA contrast and links that are more than a colour. */
:root { --jp-cell-prompt-not-active-opacity: 1; }
.jp-RenderedHTMLCommon a:link, .jp-RenderedHTMLCommon a:visited, .jp-RenderedText pre a:link,
.jp-RenderedText pre a:visited { text-decoration: underline; }
"""

# MathML in a font that carries an OpenType MATH table (stretchy brackets, radicals, fraction bars), where there is
# one; "math" is the browser's own choice otherwise.
MATH_CSS = """
math { font-family: "DejaVu Math TeX Gyre", "STIX Two Math", "Latin Modern Math", "Cambria Math", math;
       font-size: 1.05em; }
math[display="block"] { font-size: 1.15em; margin: 0.5em 0; }
"""


def accessible_colours(page: str) -> str:
    """``page`` with a style sheet that darkens every code and terminal colour of the template to 4.5:1 on its
    background, prompts at full opacity and underlined links; inline terminal colours (a traceback's) darkened too."""
    editor = {name: darken_to(colour, [CODE_BACKGROUND]) for name, colour in EDITOR_COLOUR.findall(page)}
    ansi = {rule: darken_to(colour, ["#ffffff", ERROR_BACKGROUND]) for rule, colour in ANSI_COLOUR.findall(page)}
    css = (ACCESSIBLE_CSS + MATH_CSS + ":root { " + " ".join(f"{name}: {colour};" for name, colour in editor.items())
           + " }\n")
    css += "".join(f"{rule} {{ color: {colour}; }}\n" for rule, colour in ansi.items())
    page = INLINE_RGB.sub(
        lambda m: f'style="color: {darken_to(tuple(map(int, m.groups())), ["#ffffff", ERROR_BACKGROUND])}"', page)
    return page.replace("</head>", f"<style>{css}</style>\n</head>", 1)


def notebook_title(nb, fallback: str) -> str:
    """The text of the notebook's first level-1 heading, or ``fallback``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+?)\s*#*\s*$", cell.source, re.MULTILINE)
            if match:
                return match.group(1)
    return fallback


# --- explorers, alive without a kernel -----------------------------------------------------------------------------

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
EXPORT = re.compile(r"^export (default |(?=function |const |let ))", re.MULTILINE)

# In the page, each explorer's saved state drives its module through a model with the calls the module makes of
# anywidget's (get, set, save_changes, on, off): a move draws the saved frame of its position.
STATIC_RUNNER = """
for (const holder of document.querySelectorAll(".attn-static-explorer")) {
  const state = JSON.parse(holder.querySelector("script[type='application/json']").textContent);
  const listeners = {};
  const model = {
    get: (name) => state[name],
    set: (name, value) => { state[name] = value; (listeners["change:" + name] || []).forEach((f) => f()); },
    save_changes: () => {},
    on: (event, f) => { (listeners[event] = listeners[event] || []).push(f); },
    off: (event, f) => { listeners[event] = (listeners[event] || []).filter((g) => g !== f); },
    send: () => {},
  };
  attnExplorer.render({ model, el: holder.querySelector(".attn-static-explorer-view") });
}
"""


def explorer_module(esm: str) -> str:
    """The explorer's ES module as a classic block inside a module script: its exports made local, its default
    export named ``attnExplorer``."""
    return EXPORT.sub(lambda m: "const attnExplorer = " if m.group(1) == "default " else "", esm)


def static_explorers(nb) -> int:
    """Replace, in place, each explorer's widget output by the explorer itself: its saved state in the page and one
    module script per page that draws it, nothing loaded from outside; its still is left out. Returns how many were
    replaced.

    An explorer is a widget whose saved state holds the module (``_esm``) and a ``spec``; its text form stays in
    the output for a reader without scripts (it is the figure's description)."""
    states = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    replaced, module, drawn = 0, None, set()
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [out for out in cell.outputs if not is_still(out)]
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            state = states.get(view["model_id"], {}).get("state", {}) if view else {}
            if "_esm" not in state or "spec" not in state:
                continue
            saved = {key: state[key] for key in ("spec", "frames_json", "values")}
            data = json.dumps(saved, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
            text = html.escape(out["data"].get("text/plain", ""), quote=False)
            block = (f'<div class="attn-static-explorer"><script type="application/json">{data}</script>'
                     f'<div class="attn-static-explorer-view"></div>'
                     f'<noscript><p>{text}</p></noscript></div>')
            if module is None:  # the first explorer of the page carries the module: it runs once the page is parsed
                module = state["_esm"]
                block += f'<script type="module">{explorer_module(module)}\n{STATIC_RUNNER}</script>'
            elif state["_esm"] != module:
                raise ValueError("two explorers in one notebook were saved with different modules: rebuild it")
            out["data"] = {"text/html": block}
            replaced += 1
            drawn.add(view["model_id"])
    for model_id in drawn:  # the page holds each explorer's state once, in its own block
        del states[model_id]
    return replaced


def render(nb_path: Path, exporter: HTMLExporter) -> str:
    """One notebook as a standalone HTML page: figures embedded, .ipynb links turned into .html links."""
    nb = nbformat.read(nb_path, as_version=4)
    hide_collapsed_sources(nb)
    static_explorers(nb)
    nb.metadata["title"] = plain_text(notebook_title(nb, nb_path.stem))
    page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": nb_path.stem}})
    page = LOCAL_IPYNB_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2)}"', page)
    descriptions = [figure_description(nb, i) for i, out in figure_outputs(nb) for _ in range(raster_images(out))]
    return accessible_colours(add_alt_text(page, descriptions))


# --- the handout --------------------------------------------------------------------------------------------------


def lines_worth_keeping(nb, name: str) -> str:
    """The markdown of the notebook's "## Lines worth keeping" section, without its heading, up to the next heading.

    Raises
    ------
    ValueError
        If no markdown cell holds that heading (``name`` is the notebook named in the message).
    """
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        match = KEEP_HEADING.search(cell.source)
        if match:
            rest = cell.source[match.end():]
            following = re.search(r"^#", rest, re.MULTILINE)
            return (rest[:following.start()] if following else rest).strip()
    raise ValueError(f"{name} has no '## Lines worth keeping' section: the handout is built from it")


def learner_notebooks(notebooks_dir: Path) -> list[Path]:
    """The numbered notebooks (00-..., 01-...), in reading order."""
    return sorted(p for p in notebooks_dir.glob("*.ipynb") if nav.NUMBERED.match(p.name))


HANDOUT_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #1a1a1a; background: #ffffff; line-height: 1.4; margin: 1.5rem auto; max-width: 75rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.3rem; }
.equation { font-family: Georgia, "Times New Roman", serif; font-size: 1.3rem; margin: 0.2rem 0; }
.shapes, .about { color: #444444; margin: 0.2rem 0; }
.blocks { columns: 22rem; column-gap: 2rem; margin-top: 1rem; }
section { break-inside: avoid; page-break-inside: avoid; margin: 0 0 0.9rem; }
h2 { font-size: 1.05rem; margin: 0 0 0.2rem; }
ul { margin: 0; padding-left: 1.1rem; }
li { margin: 0 0 0.15rem; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
a:link, a:visited { color: #0b57a4; text-decoration: underline; }
"""

# One page, A4 or Letter: three columns, tight spacing; the print size is as large as fits (a test keeps it above a
# floor, tests/browser/test_reading_copy.py).
ONE_PAGE_PRINT_CSS = """
@page { margin: 8mm; }
@media print {
  body { font-size: 7.25pt; line-height: 1.15; margin: 0; max-width: none; padding: 0; }
  h1 { font-size: 10pt; margin: 0; }
  .equation { font-size: 9.5pt; margin: 0.3mm 0; }
  .shapes, .about { margin: 0.3mm 0; }
  .blocks { columns: 3; column-gap: 3mm; margin-top: 1mm; }
  section { margin: 0 0 1.2mm; }
  h2 { font-size: 1.08em; margin: 0 0 0.3mm; }
  ul { padding-left: 3mm; }
  li { margin: 0; }
  a:link, a:visited { color: inherit; text-decoration: none; }
}
"""

# Large print: 14 pt on screen and 12 pt on paper, one column, as many pages as it needs.
LARGE_PRINT_CSS = """
body { font-size: 14pt; max-width: 48rem; line-height: 1.5; }
.blocks { columns: auto; }
h2 { font-size: 1.15em; }
li { margin: 0 0 0.4rem; }
@page { margin: 15mm; }
@media print {
  body { font-size: 12pt; margin: 0; max-width: none; padding: 0; }
  h1 { font-size: 18pt; }
  .equation { font-size: 16pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  section { break-inside: auto; page-break-inside: auto; }
  li { break-inside: avoid; page-break-inside: avoid; }
  a:link, a:visited { color: inherit; }
}
"""

EQUATION_1 = mathml(r"\operatorname{Attention}(Q, K, V) = \operatorname{softmax}(QK^\top / \sqrt{d_k})\, V")

HANDOUTS = {  # file -> (title, print style sheet, the sentence that links to the other one)
    HANDOUT: ("Lines worth keeping: the attention course on one page", ONE_PAGE_PRINT_CSS,
              f'<a href="{HANDOUT_LARGE}">Large print</a> (12 pt on paper, several pages).'),
    HANDOUT_LARGE: ("Lines worth keeping, large print: the attention course", LARGE_PRINT_CSS,
                    f'<a href="{HANDOUT}">On one page</a> (small print).'),
}


def inline_markdown(line: str) -> str:
    """One line of markdown (a title) as inline HTML: its code and formulas rendered, no paragraph around it."""
    return re.sub(r"^<p>|</p>\s*$", "", markdown_to_html(line).strip())


def handout(notebooks_dir: Path, name: str = HANDOUT) -> str:
    """The printable page ``name`` (HANDOUT, on one page, or HANDOUT_LARGE, in large print) of every numbered
    notebook's "Lines worth keeping", with links to the notebooks' pages."""
    title, print_css, other = HANDOUTS[name]
    sections = []
    for path in learner_notebooks(notebooks_dir):
        nb = nbformat.read(path, as_version=4)
        lines = markdown_to_html(lines_worth_keeping(nb, path.name))
        heading = inline_markdown(f"{path.name[:2]} {notebook_title(nb, path.stem)}")
        sections.append(
            f'<section id="{path.stem}" aria-labelledby="{path.stem}-title">\n'
            f'<h2 id="{path.stem}-title"><a href="{path.stem}.html">{heading}</a></h2>\n{lines}\n</section>')
    contents = f'<a href="index.html">contents</a>' if (notebooks_dir / nav.CONTENTS).exists() else "contents"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{HANDOUT_CSS}{MATH_CSS}{print_css}</style>
</head>
<body>
<main>
<header>
<h1>Lines worth keeping</h1>
<p class="equation">{EQUATION_1}</p>
<p class="shapes"><code>Q (n, d_k)</code> &middot; <code>K (m, d_k)</code> &middot; <code>V (m, d_v)</code> &middot;
<code>scores</code> and <code>weights</code> <code>(n, m)</code> &middot; <code>output (n, d_v)</code></p>
<p class="about">From the end of each notebook; the titles link to the notebooks. The {contents} list them all.
{other}</p>
</header>
<div class="blocks">
{chr(10).join(sections)}
</div>
</main>
</body>
</html>
"""


HANDOUT_LINK = (f'<p class="attn-handout-link"><a href="{HANDOUT}">The lines worth keeping of every notebook, on one '
                f'printable page</a> (or in <a href="{HANDOUT_LARGE}">large print</a>)</p>')


def link_handout(contents_page: str) -> str:
    """The contents page with a link to both handouts after its first level-1 heading."""
    return re.sub(r"(</h1>)", lambda m: m.group(1) + "\n" + HANDOUT_LINK, contents_page, count=1)


def build(notebooks_dir: Path, out_dir: Path) -> list[Path]:
    """Write one page per notebook into ``out_dir`` (emptied first), and index.html as a copy of the contents."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    exporter = ReadingCopyExporter()
    written = []
    for nb_path, rel in notebook_pages(notebooks_dir):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        page = render(nb_path, exporter)
        if nb_path.name == nav.CONTENTS:
            page = link_handout(page)
        target.write_text(page, encoding="utf-8")
        written.append(target)
        print(f"wrote {target}")
    contents = out_dir / "contents.html"
    if contents.exists():
        shutil.copyfile(contents, out_dir / "index.html")
    for name in HANDOUTS:
        handout_path = out_dir / name
        handout_path.write_text(handout(notebooks_dir, name), encoding="utf-8")
        written.append(handout_path)
        print(f"wrote {handout_path}")
    return written


def check(notebooks_dir: Path, out_dir: Path) -> list[str]:
    """Problems with the build in ``out_dir``: missing pages, missing figures, broken relative links, a handout (one
    page or large print) that is missing, lacks a notebook or is not linked from the contents and the other one."""
    problems = []
    for nb_path, rel in notebook_pages(notebooks_dir):
        page_path = out_dir / rel
        if not page_path.exists():
            problems.append(f"{rel}: no page for {nb_path.name}")
            continue
        page = page_path.read_text(encoding="utf-8")
        nb = nbformat.read(nb_path, as_version=4)
        figures = sum(raster_images(out) for _, out in figure_outputs(nb))
        embedded = len(DATA_IMG.findall(page))
        if embedded < figures:
            problems.append(
                f"{rel}: {figures} figure(s) in {nb_path.name}, {embedded} embedded image(s) in the page")
        explorers, live = static_explorers(nb), page.count('<div class="attn-static-explorer">')
        if live != explorers or (explorers and page.count('<script type="module">') != 1):
            problems.append(f"{rel}: {explorers} explorer(s) in {nb_path.name}, {live} drawn live in the page")
        problems += broken_links(page, page_path, rel) + outside_resources(page, rel)
        expected, rendered = len(notebook_formulas(nb)), len(MATH_ELEMENT.findall(page))
        if rendered != expected:
            problems.append(f"{rel}: {expected} formula(s) in {nb_path.name}, {rendered} rendered as MathML")
        if nb_path.name == nav.CONTENTS:
            problems += [f"{rel}: no link to {name}" for name in HANDOUTS if f'href="{name}"' not in page]
    for name in HANDOUTS:
        handout_path = out_dir / name
        if not handout_path.exists():
            problems.append(f"{name}: missing")
            continue
        page = handout_path.read_text(encoding="utf-8")
        problems += broken_links(page, handout_path, Path(name)) + outside_resources(page, Path(name))
        problems += [f"{name}: no link to {other}" for other in HANDOUTS if other != name
                     and f'href="{other}"' not in page]
        for path in learner_notebooks(notebooks_dir):
            if f'<section id="{path.stem}"' not in page or f'href="{path.stem}.html"' not in page:
                problems.append(f"{name}: no lines of {path.name}, or no link to its page")
    return problems


OUTSIDE = re.compile(r'<(?:script|link|img|iframe|source|video|audio)\b[^>]*?\b(?:src|href)="((?:https?:)?//[^"]*)"',
                     re.IGNORECASE)


def outside_resources(page: str, rel: Path) -> list[str]:
    """What ``page`` would load from outside the site (a script, style sheet, image or frame at an absolute URL)."""
    return [f"{rel}: loads {url} from outside the site" for url in OUTSIDE.findall(page)]


def broken_links(page: str, page_path: Path, rel: Path) -> list[str]:
    """Relative links of ``page`` (at ``page_path``) to no file, or to a notebook instead of its page."""
    problems = []
    for href in HREF.findall(page):
        href = html.unescape(href)
        if re.match(r"[a-z][a-z0-9+.-]*:", href, re.IGNORECASE) or href.startswith(("#", "/")) or not href:
            continue
        target = href.split("#")[0].split("?")[0]
        if target.endswith(".ipynb"):
            problems.append(f"{rel}: link to a notebook left unconverted: {href}")
        elif not (page_path.parent / target).exists():
            problems.append(f"{rel}: broken link {href}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks", help="the notebooks folder")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "html", help="the output folder")
    parser.add_argument("--check", action="store_true", help="only check an existing build")
    args = parser.parse_args(argv)
    if not any(args.notebooks.glob("*.ipynb")):
        print(f"no notebooks in {args.notebooks}", file=sys.stderr)
        return 1
    if not args.check:
        build(args.notebooks, args.out)
    problems = check(args.notebooks, args.out)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    pages = len(notebook_pages(args.notebooks))
    verdict = "OK" if not problems else f"{len(problems)} problem(s)"
    print(f"{pages} page(s), {HANDOUT} and {HANDOUT_LARGE} in {args.out}: {verdict}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
