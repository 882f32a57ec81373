"""What the stored outputs of every notebook show a reader: no path of the machine that built it, attn_lib's input
errors without attn_lib's own frames (attn_lib/_checks.py; the frames are where a built notebook's paths came from),
no bare verdict ("...: True") where a sentence with the measured numbers belongs, and each cell's prints as one block.

The committed notebooks are read as they are (no kernel starts for the path checks): every output of every code
cell of every learner and solutions notebook, its text, every text form of its data and an error's traceback.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))

# An absolute path of a machine: a POSIX home, root's home, a temporary or work folder, a macOS home or temporary
# folder, a Windows drive, or an installed package's folder. The path must start the text or follow a character that
# cannot end a word or a URL's host (so ".../home/..." inside https://example.org/home/ is not one).
ABSOLUTE_PATH = re.compile(
    r"(?<![\w/.:~-])(?:/(?:home|root|tmp|work|Users|private/var|var/folders)/[^\s'\"`<>)]*"
    r"|[A-Za-z]:\\[^\s'\"`<>)]*)"
    r"|[^\s'\"`<>(]*(?:site|dist)-packages[^\s'\"`<>)]*"
)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")  # an embedded image's bytes: base64 holds "/"
IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def output_texts(output) -> list[tuple[str, str]]:
    """(where, text) for every piece of text an output stores: a stream, each text form of its data, an error's
    name, value and traceback. Images and embedded image bytes are left out (base64 is no path)."""
    texts = []
    if output.get("output_type") == "stream":
        texts.append((f"stream {output.get('name', '')}".strip(), output.get("text", "")))
    for mime, value in output.get("data", {}).items():
        if mime in IMAGES:
            continue
        text = value if isinstance(value, str) else repr(value)
        texts.append((mime, DATA_URI.sub("data:...;base64,IMAGE", text)))
    if output.get("output_type") == "error":
        texts.append(("error", f"{output.get('ename', '')}: {output.get('evalue', '')}"))
        texts.append(("traceback", "\n".join(output.get("traceback", []))))
    return [(where, ANSI.sub("", text)) for where, text in texts]


def machine_paths(nb) -> list[str]:
    """One line per absolute path in a stored output of ``nb``: the cell, where in the output, and the text."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for number, output in enumerate(cell.get("outputs", [])):
            for where, text in output_texts(output):
                for match in ABSOLUTE_PATH.finditer(text):
                    start, end = max(0, match.start() - 40), min(len(text), match.end() + 20)
                    context = " ".join(text[start:end].split())
                    found.append(f"cell {index} (id {cell.get('id', '?')}), output {number} ({where}): "
                                 f"{match.group(0)!r} in ...{context}...")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_holds_a_path_of_the_machine_that_built_it(path):
    found = machine_paths(nbformat.read(path, as_version=4))
    assert not found, f"{path.relative_to(ROOT)} stores machine paths:\n" + "\n".join(found)


def test_every_notebook_is_checked():
    names = {p.name for p in NOTEBOOKS}
    assert "contents.ipynb" in names and len([n for n in names if n.endswith("-solutions.ipynb")]) >= 11


@pytest.mark.parametrize("text, path", [
    ("File /work/wt/fig-fix/attn_lib/attention.py:160, in attention(Q, K, V, mask)",
     "/work/wt/fig-fix/attn_lib/attention.py:160,"),
    ("open /home/ana/course/notebooks/06-masking.ipynb", "/home/ana/course/notebooks/06-masking.ipynb"),
    ("saved to /tmp/ipykernel_1234/3456.py", "/tmp/ipykernel_1234/3456.py"),
    ("in /root/.cache/matplotlib", "/root/.cache/matplotlib"),
    (r"at C:\Users\ana\course\attn_lib\_checks.py", r"C:\Users\ana\course\attn_lib\_checks.py"),
    ("from lib/python3.11/site-packages/attn_lib/_checks.py", "lib/python3.11/site-packages/attn_lib/_checks.py"),
    ("under /Users/ana/course", "/Users/ana/course"),
])
def test_a_machine_path_is_found_and_named_with_its_cell(text, path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# a title"), nbformat.v4.new_code_cell(
        "x", outputs=[nbformat.v4.new_output("stream", name="stdout", text=f"{text} and more")])])
    [line] = machine_paths(nb)
    assert line.startswith(f"cell 1 (id {nb.cells[1].id}), output 0 (stream stdout): {path!r} in ...")


@pytest.mark.parametrize("text", [
    "https://example.org/home/page and http://localhost:8888/lab/tree/work/x.ipynb",
    "queries (n, d_k) / sqrt(d_k) = 8.0 and/or 1/8",
    "scores/weights, 0.25 / 0.5, the ratio d_k/tmp",
    "notebooks/06-masking.ipynb, tools/build_html.py, ../shared/COURSE.md",
])
def test_prose_urls_and_relative_paths_are_not_machine_paths(text):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("display_data", data={"text/plain": text})])])
    assert machine_paths(nb) == []


def test_traceback_paths_are_found_through_terminal_colours_and_image_bytes_are_not_read():
    coloured = "File \x1b[0;32m/work/wt/fig-fix/attn_lib/attention.py:160\x1b[0m, in \x1b[0;36mattention\x1b[0m"
    looks_like_a_path = "AAAA/tmp/BBBB/home/CCCC+/work/DDDD="  # base64 can hold these letters
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=["---", coloured]),
        nbformat.v4.new_output("display_data", data={
            "image/png": looks_like_a_path, "text/plain": "<Figure size 640x480 with 1 Axes>",
            "text/html": f'<img alt="a figure" src="data:image/png;base64,{looks_like_a_path}">'})])])
    [line] = machine_paths(nb)
    assert "output 0 (traceback)" in line and "'/work/wt/fig-fix/attn_lib/attention.py:160," in line


def test_attn_lib_input_errors_show_in_a_kernel_as_the_learners_frames_and_the_message(monkeypatch):
    """A bad argument raised deep inside attn_lib shows the learner's cells and the message, no frame of attn_lib
    (whose paths are the machine's), and stays an ordinary ValueError or TypeError for code that catches it."""
    nbclient = pytest.importorskip("nbclient")
    cells = [
        "import numpy as np\nfrom attn_lib import attention\nQ = K = V = np.ones((2, 3))",
        "attention(Q, K, V, mask=np.zeros((2, 2), bool))",
        "def mine(mask):\n    return attention(Q, K, V, mask=mask)\nmine(np.ones((2, 2)))",
        "try:\n    attention(Q, K, V, mask=np.zeros((2, 2), bool))\nexcept ValueError as err:\n"
        "    print(isinstance(err, ValueError), type(err).__name__)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))  # the kernel's
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    direct, nested = (ANSI.sub("", "\n".join(nb.cells[i].outputs[0].traceback)) for i in (1, 2))
    assert "Cell In[2], line 1\n----> 1 attention(Q, K, V, mask=np.zeros((2, 2), bool))" in direct
    assert direct.endswith("ValueError: mask blocks every key for query row 0: a row whose scores are all -inf has "
                           "no softmax (each query must be allowed to attend to at least one key)")
    assert "Cell In[3], line 3" in nested and "Cell In[3], line 2, in mine(mask)" in nested  # the learner's frames
    assert nested.endswith("TypeError: mask must be boolean, True where the query may attend to the key (an additive "
                           "mask of 0 and -inf is not accepted); got dtype float64")
    for text in (direct, nested):
        assert "attn_lib" not in text and "File " not in text and machine_paths(nb) == []
    assert nb.cells[3].outputs[0].text == "True InputValueError\n"


# --- verdicts and blocks ---------------------------------------------------------------------------------------------

# A check printed as a bare boolean: "...: True", "(between 2.5 and 6: False)", "[True, True]", a line of booleans.
BARE_VERDICT = re.compile(r"(:\s*|\()(True|False)\)?\s*$"  # "...: True", "(... : False)"
                          r"|\[(True|False)(, (True|False))*\]"  # "[True, True]"
                          r"|^\s*(True|False)(\s+(True|False))*\s*$")  # a line of booleans


def bare_verdicts(nb) -> list[str]:
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            for where, text in output_texts(output):
                found += [f"cell {index} ({where}): {line.strip()}" for line in text.splitlines()
                          if BARE_VERDICT.search(line)]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_is_a_bare_verdict(path):
    """A cell says what it measured in a sentence, with the bound inside it, not True or False alone (issue 17)."""
    found = bare_verdicts(nbformat.read(path, as_version=4))
    assert not found, f"{path.name} prints verdicts without their numbers:\n" + "\n".join(found)


@pytest.mark.parametrize("line, bare", [
    ("n  128 ->  256: time 0.3 ms -> 0.7 ms, x2.7  (between 2.5 and 6: False)", True),
    ("max abs difference below 1e-12: True", True),
    ("same as attention_backward: [True, True, True]", True),
    ("True", True),
    ("at n = 1024 the chunked peak is 18 % of the full one, below a quarter", False),
    ("largest difference 3e-16, below the bound of 1e-12", False),
    ("the weights of the True/False mask", False),
])
def test_the_bare_verdict_pattern(line, bare):
    assert bool(BARE_VERDICT.search(line)) is bare


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_cells_prints_are_stored_as_one_block(path):
    """The reading copy shows each stored stream output as its own block: a table printed line by line must be one
    (tools/build_notebooks.py joins them, as JupyterLab does on screen)."""
    nb = nbformat.read(path, as_version=4)
    split = [index for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
             and any(a.get("output_type") == b.get("output_type") == "stream" and a.get("name") == b.get("name")
                     for a, b in zip(cell.get("outputs", []), cell.get("outputs", [])[1:]))]
    assert not split, f"{path.name}: cells {split} store their prints in pieces; rebuild with tools/build_notebooks.py"
