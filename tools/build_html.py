"""Render the executed notebooks to static HTML in build/html/, for reading without a kernel, then check the result.

Usage::

    python tools/build_html.py            # build build/html/ (index.html is the contents), then check it
    python tools/build_html.py --check    # only check an existing build/html/

The notebooks are rendered as committed (run tools/build_notebooks.py first if they changed), with their figures
embedded in the pages. Links between notebooks (``02-scores.ipynb``) become links between pages (``02-scores.html``);
each figure gets its "Figure:" description as alt text. The check fails (exit 1) if a notebook has no page, if a page
holds fewer embedded images than its notebook has figure outputs, or if a relative link points to no file.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")
RASTER_TYPES = ("image/png", "image/jpeg")
LOCAL_IPYNB_LINK = re.compile(r'href="(?![a-z][a-z0-9+.-]*:|#|/)([^"#?]*?)\.ipynb((?:#[^"]*)?)"', re.IGNORECASE)
HREF = re.compile(r'href="([^"]*)"')
DATA_IMG = re.compile(r'<img\b[^>]*?src="data:image/(?:png|jpeg);base64,')
ALT = re.compile(r'\s*alt="[^"]*"')
FIGURE_LINE = re.compile(r"^[\s>*_]*Figure:", re.MULTILINE)


def notebook_pages(notebooks_dir: Path) -> list[tuple[Path, Path]]:
    """(notebook, page path relative to the output folder) for every notebook of the course, solutions included."""
    paths = sorted(notebooks_dir.glob("*.ipynb")) + sorted((notebooks_dir / "solutions").glob("*.ipynb"))
    return [(p, p.relative_to(notebooks_dir).with_suffix(".html")) for p in paths]


def figure_outputs(nb) -> list[tuple[int, dict]]:
    """(cell index, output) of every output that carries an image, in reading order."""
    return [(i, out) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if any(t in out.get("data", {}) for t in IMAGE_TYPES)]


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


def render(nb_path: Path, exporter: HTMLExporter) -> str:
    """One notebook as a standalone HTML page: figures embedded, .ipynb links turned into .html links."""
    nb = nbformat.read(nb_path, as_version=4)
    hide_collapsed_sources(nb)
    page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": nb_path.stem}})
    page = LOCAL_IPYNB_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2)}"', page)
    raster = [(i, out) for i, out in figure_outputs(nb) if any(t in out.get("data", {}) for t in RASTER_TYPES)]
    return add_alt_text(page, [figure_description(nb, i) for i, _ in raster])


def build(notebooks_dir: Path, out_dir: Path) -> list[Path]:
    """Write one page per notebook into ``out_dir`` (emptied first), and index.html as a copy of the contents."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    exporter = HTMLExporter(template_name="lab")
    written = []
    for nb_path, rel in notebook_pages(notebooks_dir):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(nb_path, exporter), encoding="utf-8")
        written.append(target)
        print(f"wrote {target}")
    contents = out_dir / "contents.html"
    if contents.exists():
        shutil.copyfile(contents, out_dir / "index.html")
    return written


def check(notebooks_dir: Path, out_dir: Path) -> list[str]:
    """Problems with the build in ``out_dir``: missing pages, missing figures, broken relative links."""
    problems = []
    for nb_path, rel in notebook_pages(notebooks_dir):
        page_path = out_dir / rel
        if not page_path.exists():
            problems.append(f"{rel}: no page for {nb_path.name}")
            continue
        page = page_path.read_text(encoding="utf-8")
        nb = nbformat.read(nb_path, as_version=4)
        raster = [o for _, o in figure_outputs(nb) if any(t in o.get("data", {}) for t in RASTER_TYPES)]
        embedded = len(DATA_IMG.findall(page))
        if embedded < len(raster):
            problems.append(
                f"{rel}: {len(raster)} figure(s) in {nb_path.name}, {embedded} embedded image(s) in the page")
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
    print(f"{pages} page(s) in {args.out}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
