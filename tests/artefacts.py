"""What the tests make once per run and share: the expensive artefacts (the reading copy, the browser edition's
site, a released nbgrader course), each in a folder named by a hash of everything it is made from.

A run's workers (pytest-xdist) share one folder, the parent of each worker's base temporary folder; a lock file
beside each artefact makes the first worker that needs it build it while the others wait, then every worker reads
the same files. Two artefacts made from different inputs (another version stamp, changed notebooks) get different
keys. Nothing is written outside pytest's temporary folders: a developer's own build/ stays as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock

REPO = Path(__file__).resolve().parent.parent
SKIPPED = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}


def run_folder(tmp_path_factory) -> Path:
    """The folder every worker of this run shares (the run's own base temporary folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "shared"
    folder.mkdir(exist_ok=True)
    return folder


def files_under(paths: Iterable[Path]) -> list[Path]:
    found = []
    for path in paths:
        path = Path(path)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [p for p in path.rglob("*") if p.is_file() and not SKIPPED & set(p.parts)
                      and p.suffix != ".pyc"]
    return sorted(set(found))


def content_key(inputs: Iterable[Path], *extra: str) -> str:
    """A hash of every file under ``inputs`` (its path relative to the repository and its bytes) and of ``extra``."""
    digest = hashlib.sha256()
    for path in files_under(inputs):
        name = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    for word in extra:
        digest.update(word.encode() + b"\0")
    return digest.hexdigest()[:16]


def made_once(tmp_path_factory, name: str, inputs: Iterable[Path], make: Callable[[Path], object],
              *extra: str) -> tuple[Path, object]:
    """The folder ``make(folder)`` fills, made at most once per run for these inputs, and what ``make`` returned
    (stored as JSON beside it, so a worker that did not make it reads the same value)."""
    folder = run_folder(tmp_path_factory) / f"{name}-{content_key(inputs, *extra)}"
    done = folder.with_name(folder.name + ".json")
    with FileLock(str(folder) + ".lock"):
        if not done.exists():
            if folder.exists():  # a worker that failed half-way
                shutil.rmtree(folder)
            folder.mkdir()
            made = make(folder)
            done.write_text(json.dumps({"made": made}, default=str), encoding="utf-8")
    return folder, json.loads(done.read_text(encoding="utf-8"))["made"]


def copy_of(folder: Path, dest: Path) -> Path:
    """A private copy of a shared artefact, for a test that changes what it is given."""
    shutil.copytree(folder, dest, symlinks=True)
    return dest


# The course version the browser edition's site is stamped with in the tests: build 1 of tests/browser/
# test_lite_copies.py, the site every other browser-edition test serves.
SITE_VERSION = "2026-12-01 aaaa111"


def reading_copy(tmp_path_factory) -> tuple[Path, list[str]]:
    """The static reading copy of the committed notebooks (tools/build_html.py): its folder and the files build()
    said it wrote, relative to it."""
    sys.path.insert(0, str(REPO / "tools"))
    import build_html

    def make(out):
        return [Path(p).relative_to(out).as_posix() for p in build_html.build(REPO / "notebooks", out)]

    return made_once(tmp_path_factory, "reading-copy", [REPO / "notebooks", REPO / "tools"], make)


# The inputs of the browser edition's site: the course, the package, the site's pins and plugins, the tools.
LITE_INPUTS = [REPO / "notebooks", REPO / "attn_lib", REPO / "lite", REPO / "tools", REPO / "pyproject.toml"]


def lite_site(tmp_path_factory, version: str, notebooks: Path = REPO / "notebooks") -> Path:
    """The browser edition built by tools/build_lite.py from ``notebooks``, stamped ``version``: once per run for
    the same inputs, outside the developer's build/ (only its download cache, build/lite-cache, is shared)."""
    sys.path.insert(0, str(REPO / "tools"))
    import build_lite

    def make(out):
        summary = build_lite.build(out=out / "site", notebooks=notebooks, version=version, stage=out / "stage",
                                   working_tree=True)
        shutil.rmtree(out / "stage")
        return summary

    inputs = LITE_INPUTS if notebooks == REPO / "notebooks" else [*LITE_INPUTS[1:], notebooks]
    folder, _ = made_once(tmp_path_factory, "lite-site", inputs, make, version)
    return folder / "site"


def released_course(tmp_path_factory) -> Path:
    """The whole course written by tools/nbgrader_course.py and released by nbgrader's generate_assignment (no
    notebook is executed). Tests hand in to a copy of it (:func:`copy_of`)."""
    sys.path.insert(0, str(REPO / "tools"))
    import nbgrader_course
    from nbgrader_run import run_nbgrader

    def make(out):
        nbgrader_course.write_course(out)
        run_nbgrader(out, "generate_assignment", "*", "--force")

    folder, _ = made_once(tmp_path_factory, "nbgrader-course", [REPO / "notebooks", REPO / "attn_lib",
                                                                 REPO / "tools"], make)
    return folder
