"""Write the course's browser edition, a static JupyterLite site with its own Pyodide, to build/lite/.

    python tools/build_lite.py                      # the whole site, in build/lite/
    python -m http.server -d build/lite 8000        # then open http://127.0.0.1:8000/

Nothing on the site is fetched from a CDN or a package index when a learner opens it: Pyodide, its wheels, the
course's wheels (attn_lib built from this tree, ipywidgets, anywidget, ...) and the front end are files of the site.
Every version and sha256 comes from lite/versions.toml. Where each file comes from, and how it is checked:

- Pyodide's core (pyodide.asm.wasm, pyodide.asm.js, pyodide.js, pyodide.mjs, python_stdlib.zip, pyodide-lock.json):
  npm's official ``pyodide`` package, fetched with ``npm pack`` into build/lite-cache/ (npm checks it against the
  registry's integrity; so does this tool), each file against the sha256 recorded in lite/versions.toml.
- Pyodide's package wheels (numpy, matplotlib, ipython and their dependencies): from the PyPI package named in
  lite/versions.toml that carries Pyodide's official wheels (in requirements-dev.txt), or ``--wheels-from DIR`` (an
  unpacked Pyodide release); each against the sha256 of the official pyodide-lock.json above.
- Pure-Python wheels added to the site's lock (ipywidgets, jupyterlab_widgets, comm, anywidget, psygnal, fsrs,
  ...): ``pip download --no-deps --platform any`` (the pure wheel, where the index also has compiled ones) into
  build/lite-cache/, each against its sha256 in lite/versions.toml; attn_lib: a wheel written from this tree by
  :func:`attn_lib_wheel`, the same bytes from the same tree.
- Bytecode: for each of those wheels a kernel or a notebook's first cell imports from, a wheel ``<name>-bytecode``
  of the modules' compiled pyc files, made by the site's own Pyodide under Node (:func:`bytecode_wheels`).
- The front end: jupyterlite-core (installed, version checked), jupyterlite-pyodide-kernel (its wheel fetched with
  ``pip download`` and checked against its sha256, then unpacked into build/lite-cache/ and put on the build's
  path: installed, it would add to the course's JupyterLab an extension that works only inside JupyterLite and
  fails to load on every JupyterLab page), the federated extensions of ipywidgets and anywidget (which draws the
  explorers) taken out of the very wheels the kernel loads (jupyterlab_widgets' and anywidget's, versions checked),
  lite/run-all-past-raises/ (Run All goes on past a cell tagged raises-exception, as in JupyterLab), and
  lite/learner-copies/ (a learner's saved copy of a notebook the course has since changed is flagged when it opens;
  Download All My Work; Reset Notebook), staged with npm's fflate (the zip library: ``npm pack``, npm's integrity,
  then its browser module's sha256, all from lite/versions.toml).
- The notebooks: each records the course version it was built from, ``metadata.attn_course = {"version": the
  commit's date and short id, "fingerprint": of its cells' types and sources}`` (:func:`stamped`); the
  committed notebooks do not carry it (a commit cannot name itself), the site's always do.

A missing file or a wrong hash stops the build with an error that says what to install or fetch.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import nav  # noqa: E402  (tools/nav.py: the course map and the edition's contents page)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

LITE = ROOT / "lite"
VERSIONS = LITE / "versions.toml"
EXTENSION = LITE / "run-all-past-raises"
LEARNER_COPIES = LITE / "learner-copies"
OUT = ROOT / "build" / "lite"
CACHE = ROOT / "build" / "lite-cache"
STAGE = ROOT / "build" / "stage-lite"  # not under a name starting build/lite: jupyterlite skips such inputs
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
# What the kernel installs when it starts, as its worker names them. Without loadPyodideOptions the worker installs
# each through micropip and piplite in turn (a round trip and a resolution in the browser's Python for each); named
# in loadPyodideOptions.packages, Pyodide loads them all at once from the site's lock before the kernel starts, and
# the worker skips its own installs (benchmarks/lite_kernel_start.py, 00 on two idle cores: a kernel ready in 19.5
# to 21 s instead of 22.9 to 23.5 s, and about 8 % less of the browser's CPU).
KERNEL_START = ["micropip", "piplite", "ssl", "sqlite3", "ipykernel", "comm", "pyodide_kernel", "jedi", "ipython"]
# The kernel's own pure-Python wheels (shipped in its extension's static/pypi/, under these names) that the site's
# lock must hold for KERNEL_START to load them.
KERNEL_WHEELS = ["piplite", "ipykernel", "pyodide-kernel"]
# What attn-lib depends on in the site's lock, so that a notebook's first cell loads them with it: every extra wheel
# of lite/versions.toml is one of these or a dependency of one (tests/test_lite_build.py).
ATTN_LIB_DEPENDS = ["numpy", "matplotlib", "ipywidgets", "anywidget", "fsrs"]


class BuildError(RuntimeError):
    """The build cannot go on; the message says what is missing or wrong and what to do."""


def load_versions(path: Path = VERSIONS) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str, what: str, fix: str) -> None:
    """Stop the build unless ``path`` exists and has the sha256 ``expected``."""
    if not path.exists():
        raise BuildError(f"{what}: {path} is missing. {fix}")
    got = sha256(path)
    if got != expected:
        raise BuildError(f"{what}: {path.name} has sha256 {got}, expected {expected}. {fix}")


def check_installed(versions: dict) -> None:
    """The build's own installed Python packages are the pinned ones."""
    wanted = {"jupyterlite-core": versions["jupyterlite"]["core"], "pkginfo": None, "jupyter-server": None}
    for name, version in wanted.items():
        try:
            got = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            raise BuildError(f"{name} is not installed: pip install -r requirements-dev.txt") from None
        if version is not None and got != version:
            raise BuildError(f"{name} {got} is installed, lite/versions.toml pins {version}: "
                             f"pip install {name}=={version}")


# ---------------------------------------------------------------------------------------------------------------
# Pyodide


def npm_package(name: str, version: str, integrity: str, cache: Path) -> Path:
    """npm's package ``name@version``, fetched once with ``npm pack`` into the cache and checked against its
    integrity (``sha512-...``, as the registry gives it)."""
    tarball = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise BuildError(f"the site needs npm's {name}@{version} and npm is not installed: "
                             "apt-get install npm (or install Node.js), then run this again")
        cache.mkdir(parents=True, exist_ok=True)
        print(f"fetching {name}@{version} with npm pack")
        subprocess.run([npm, "pack", f"{name}@{version}", "--pack-destination", str(cache), "--loglevel=error"],
                       check=True,
                       stdout=subprocess.DEVNULL)
    algorithm, _, digest = integrity.partition("-")
    got = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if got != digest:
        raise BuildError(f"{tarball} does not have npm's integrity {integrity}: delete it and run this again")
    return tarball


def npm_tarball(versions: dict, cache: Path) -> Path:
    """npm's pyodide package (checked against its integrity)."""
    spec = versions["pyodide"]
    return npm_package("pyodide", spec["version"], spec["npm-integrity"], cache)


def pyodide_core(versions: dict, cache: Path, dest: Path) -> dict:
    """Unpack and check the core files into ``dest``; return the official lock (parsed)."""
    tarball = npm_tarball(versions, cache)
    dest.mkdir(parents=True, exist_ok=True)
    hashes = versions["pyodide"]["core-sha256"]
    with tarfile.open(tarball) as tar:
        for name, expected in hashes.items():
            try:
                member = tar.getmember(f"package/{name}")
            except KeyError:
                raise BuildError(f"npm's pyodide package has no {name}: delete {tarball} and run this again") from None
            (dest / name).write_bytes(tar.extractfile(member).read())
            check_sha256(dest / name, expected, f"Pyodide core file {name}",
                         f"lite/versions.toml records npm's pyodide@{versions['pyodide']['version']}")
    official = json.loads((dest / "pyodide-lock.json").read_text())
    if official["info"]["version"] != versions["pyodide"]["version"]:
        raise BuildError(f"pyodide-lock.json is of Pyodide {official['info']['version']}")
    return official


def closure(lock: dict, needs) -> list[str]:
    """The lock's package names that ``needs`` depend on, themselves included, sorted."""
    packages = lock["packages"]
    seen, todo = set(), list(needs)
    while todo:
        name = todo.pop().lower().replace("_", "-")  # the lock's depends spell some names with "_"
        if name in seen:
            continue
        if name not in packages:
            raise BuildError(f"Pyodide's lock has no package {name!r} (lite/versions.toml, [pyodide.wheels] needs)")
        seen.add(name)
        todo.extend(packages[name]["depends"])
    return sorted(seen)


def wheels_folder(versions: dict, wheels_from: Path | None) -> Path:
    if wheels_from is not None:
        return wheels_from
    spec = versions["pyodide"]["wheels"]
    carrier, version = spec["carrier"], spec["carrier-version"]
    fix = f"pip install {carrier}=={version} (it is in requirements-dev.txt), or pass --wheels-from DIR"
    try:
        got = importlib.metadata.version(carrier)
    except importlib.metadata.PackageNotFoundError:
        raise BuildError(f"Pyodide's wheels come from the PyPI package {carrier}, not installed: {fix}") from None
    if got != version:
        raise BuildError(f"{carrier} {got} is installed, lite/versions.toml pins {version}: {fix}")
    top = spec["carrier-folder"].split("/")[0]
    found = importlib.util.find_spec(top)
    folder = Path(found.origin).parent.parent / spec["carrier-folder"]
    if not folder.is_dir():
        raise BuildError(f"{carrier} {version} has no folder {spec['carrier-folder']}: {fix}")
    return folder


def pyodide_wheels(versions: dict, official: dict, source: Path, dest: Path) -> dict:
    """Copy the lock's packages the course needs (and their dependencies), each checked; return the trimmed lock."""
    names = closure(official, versions["pyodide"]["wheels"]["needs"])
    packages = {}
    for name in names:
        record = official["packages"][name]
        check_sha256(source / record["file_name"], record["sha256"], f"Pyodide package {name}",
                     f"the official pyodide-lock.json of {official['info']['version']} gives this sha256; "
                     f"reinstall {versions['pyodide']['wheels']['carrier']} or pass --wheels-from DIR")
        shutil.copy2(source / record["file_name"], dest / record["file_name"])
        packages[name] = record
    return {"info": official["info"], "packages": packages}


def extra_wheels(versions: dict, cache: Path) -> dict:
    """name -> path of each pure-Python wheel added to the lock, fetched with pip once, each checked."""
    folder = cache / "wheels"
    found = {}
    for name, spec in versions["extra-wheels"].items():
        file_name = f"{name.replace('-', '_')}-{spec['version']}-py3-none-any.whl"
        path = folder / file_name
        if not path.exists():
            print(f"fetching {name}=={spec['version']} with pip download")
            # --platform any: the pure wheel, which Pyodide can load, where the index also has compiled ones (psygnal)
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "--platform", "any", "-d", str(folder), f"{name}=={spec['version']}"], check=True)
        check_sha256(path, spec["sha256"], f"wheel {name}", f"delete it and run this again (pip download "
                     f"--no-deps --platform any {name}=={spec['version']}), or fix lite/versions.toml")
        found[name] = path
    return found


def kernel_package(versions: dict, cache: Path) -> Path:
    """jupyterlite-pyodide-kernel, the build's kernel addon and the site's kernel extension, unpacked from its
    pinned wheel into the cache: a folder to put on the build's PYTHONPATH (it is not installed, see the module's
    docstring)."""
    version, digest = versions["jupyterlite"]["pyodide-kernel"], versions["jupyterlite"]["pyodide-kernel-sha256"]
    wheel = cache / "wheels" / f"jupyterlite_pyodide_kernel-{version}-py3-none-any.whl"
    if not wheel.exists():
        print(f"fetching jupyterlite-pyodide-kernel=={version} with pip download")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "-d", str(wheel.parent), f"jupyterlite-pyodide-kernel=={version}"], check=True)
    check_sha256(wheel, digest, "wheel jupyterlite-pyodide-kernel", f"delete it and run this again (pip download "
                 f"--no-deps jupyterlite-pyodide-kernel=={version}), or fix lite/versions.toml")
    folder = cache / f"jupyterlite-pyodide-kernel-{version}"
    if not (folder / f"jupyterlite_pyodide_kernel-{version}.dist-info").exists():
        if folder.exists():
            shutil.rmtree(folder)
        with zipfile.ZipFile(wheel) as unpacked:
            unpacked.extractall(folder)
    return folder


def write_wheel(path: Path, name: str, version: str, summary: str, entries) -> Path:
    """A pure-Python wheel at ``path`` holding ``entries`` ((path in the wheel, bytes), ...), with fixed timestamps,
    so the same input gives the same bytes."""
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
    wheel_text = "Wheel-Version: 1.0\nGenerator: tools/build_lite.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries = [*entries, (f"{info}/METADATA", metadata.encode()), (f"{info}/WHEEL", wheel_text.encode())]
    record = "".join(
        f"{arcname},sha256={base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b'=').decode()},"
        f"{len(content)}\n" for arcname, content in entries) + f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, content in entries:
            item = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            item.compress_type = zipfile.ZIP_DEFLATED
            item.external_attr = 0o644 << 16
            wheel.writestr(item, content)
    return path


def attn_lib_wheel(dest: Path) -> Path:
    """attn_lib as a pure-Python wheel built from this tree: its modules and its package data (pyproject.toml).
    Written here rather than by ``pip wheel``, which needs setuptools' wheel support or an isolated build (which
    fetches setuptools)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = pyproject["project"]
    data = pyproject["tool"]["setuptools"]["package-data"]
    extra = {ROOT / package.replace(".", "/") / pattern for package, patterns in data.items() for pattern in patterns}
    files = sorted(p for p in (ROOT / "attn_lib").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts and (p.suffix == ".py" or p in extra))
    name, version = project["name"], project["version"]
    return write_wheel(dest / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", name, version,
                       project["description"], [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in files])


# Python run by Node with the site's own Pyodide (its folder, the packages to load, the code; optionally a host
# folder mounted at /out): prints the code's last expression. Python's string hashes are fixed (PYTHONHASHSEED): the
# font list's order followed them, and the same inputs give the same site.
PYODIDE_RUN_JS = """
const path = require("path");
const [dir, packages, code, out] = process.argv.slice(2);
const { loadPyodide } = require(path.join(dir, "pyodide.js"));
(async () => {
  const py = await loadPyodide({ indexURL: dir + "/", env: { PYTHONHASHSEED: "0" },
                                 stdout: () => {}, stderr: () => {} });
  await py.loadPackage(JSON.parse(packages), { messageCallback: () => {}, errorCallback: () => {} });
  if (out) {
    py.FS.mkdirTree("/out");
    py.FS.mount(py.FS.filesystems.NODEFS, { root: out }, "/out");
  }
  process.stdout.write(py.runPython(code));
})();
"""


def run_in_pyodide(pyodide: Path, packages, code: str, what: str, out: Path | None = None) -> str:
    """What ``code`` (Python whose last expression is a string) gives in the site's Pyodide (folder ``pyodide``)
    under Node, with ``packages`` loaded and ``out`` (a host folder) at /out; ``what`` names the step in errors."""
    node = shutil.which("node")
    if node is None:
        raise BuildError(f"{what} is made with Node.js, not installed: apt-get install nodejs npm")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run.js"
        script.write_text(PYODIDE_RUN_JS)
        done = subprocess.run([node, str(script), str(pyodide), json.dumps(sorted(packages)), code,
                               *([str(out)] if out else [])], capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"{what} failed in Pyodide under Node:\n{done.stderr[-2000:]}")
    return done.stdout


# matplotlib's font list, as the browser's matplotlib writes it on its first import (its paths are relative to
# matplotlib's data folder).
FONT_LIST_PY = """
import matplotlib.font_manager as fm, pathlib
pathlib.Path(fm.__file__).parent.joinpath('fontlist.json').read_text()
"""


def font_list_wheel(dest: Path, lock: dict) -> Path:
    """A wheel holding matplotlib/fontlist.json, the font list Pyodide's matplotlib 3.8.4 reads on import.

    Pyodide's matplotlib wheel ships a fontlist.json of format 390 (a newer matplotlib's), which 3.8.4 (format
    330) rejects: every fresh kernel then rebuilds it and prints "Matplotlib is building the font cache; this may
    take a moment." on stderr. This list is the one 3.8.4 writes, made by running the site's own Pyodide under
    Node (which npm comes with). In the site's lock it depends on matplotlib, so Pyodide installs it after
    matplotlib's wheel (whose bytes are unchanged), and attn-lib depends on it, so a notebook's first cell (which
    imports attn_lib beside matplotlib) loads it before matplotlib is imported.
    """
    text = run_in_pyodide(dest, ["matplotlib"], FONT_LIST_PY, "the font list")
    font_list = json.loads(text)
    if font_list.get("__class__") != "FontManager" or not font_list.get("ttflist"):
        raise BuildError("Pyodide's matplotlib wrote no font list under Node")
    version = lock["packages"]["matplotlib"]["version"]
    name = "matplotlib-font-list"
    return write_wheel(dest / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", name, version,
                       "The font list of Pyodide's matplotlib, made at build time",
                       [("matplotlib/fontlist.json", text.encode())])


# What a kernel of the site imports when it starts (piplite, and pyodide_kernel, which imports IPython, which imports
# jedi) and what the notebooks' first cells import: the modules :func:`bytecode_wheels` compiles ahead.
WARM_IMPORTS = ["pyodide_kernel", "piplite.piplite", "IPython", "jedi", "numpy", "matplotlib.pyplot",
                "matplotlib_inline.backend_inline", "ipywidgets", "anywidget", "attn_lib", "attn_lib.exercises",
                "attn_lib.plotting", "attn_lib.review", "attn_lib.training", "attn_lib.widgets"]

# Run by run_in_pyodide with /out: import WARM_IMPORTS, then compile the source of every module those imports
# compiled from the site's wheels to a pyc file in /out (the path it takes in site-packages); print {source: pyc}
# (each path relative to site-packages).
BYTECODE_PY = """
import importlib, importlib.machinery, importlib.util, json, os, site, warnings
from importlib._bootstrap_external import _code_to_hash_pyc

os.environ["MPLBACKEND"] = "agg"
read = []  # every source the imports compile: also a module whose import fails and is caught (dateutil.tz.win)
source_to_code = importlib.machinery.SourceFileLoader.source_to_code
def recording(self, data, path, **kwargs):
    read.append(path)
    return source_to_code(self, data, path, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = recording
for name in IMPORTS:
    importlib.import_module(name)
importlib.machinery.SourceFileLoader.source_to_code = source_to_code
packages = site.getsitepackages()[0] + "/"
sources = sorted({path[len(packages):] for path in read if path.startswith(packages)})
compiled = {}
for relative in sources:
    with open(packages + relative, "rb") as f:
        source = f.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in some packages' sources: the import warns the same
        code = compile(source, packages + relative, "exec", dont_inherit=True)
    compiled[relative] = importlib.util.cache_from_source(relative)  # with the browser's Python's cache tag
    os.makedirs(os.path.dirname("/out/" + compiled[relative]), exist_ok=True)
    with open("/out/" + compiled[relative], "wb") as f:
        f.write(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=True))
json.dumps(compiled)
"""


def bytecode_wheels(dest: Path, lock: dict, pyodide: Path) -> dict:
    """name -> path of a wheel ``<name>-bytecode``, written to ``dest``, for each package of the lock (its wheels in
    ``pyodide``, Pyodide's folder of the site) that a kernel or a notebook's first cell imports: the compiled
    bytecode of exactly the modules WARM_IMPORTS loads, as ``__pycache__/<module>.cpython-312.pyc`` beside the
    sources.

    Pyodide's wheels carry sources only, so every fresh kernel compiled about 750 modules (IPython, numpy,
    matplotlib, attn_lib, ...) before it could run a cell: about 5 s of a learner's CPU each time a notebook
    opens. The site's own Pyodide compiles them under Node (its Python, its bytecode format) as checked
    hash-based pyc files (PEP 552): an import reads the source, checks its hash and uses the bytecode only if it
    matches, whatever file times the unpacking sets. The sources stay in each package's own wheel, whose bytes
    are unchanged, and tracebacks show them."""
    wheels = {name: pyodide / record["file_name"] for name, record in lock["packages"].items()
              if record["file_name"].endswith(".whl")}
    with tempfile.TemporaryDirectory() as out:
        out = Path(out)
        compiled = json.loads(run_in_pyodide(pyodide, wheels, f"IMPORTS = {WARM_IMPORTS!r}\n" + BYTECODE_PY,
                                             "compiling the bytecode", out))
        sources = set(compiled)
        made = {}
        for name, wheel in sorted(wheels.items()):
            with zipfile.ZipFile(wheel) as unpacked:
                mine = sorted(sources & set(unpacked.namelist()))
            if not mine:
                continue
            sources -= set(mine)
            version = lock["packages"][name]["version"]
            entries = [(compiled[source], (out / compiled[source]).read_bytes()) for source in mine]
            made[name] = write_wheel(dest / f"{name.replace('-', '_')}_bytecode-{version}-py3-none-any.whl",
                                     f"{name}-bytecode", version, f"The compiled bytecode of {name}'s imported "
                                     "modules, made at build time", entries)
    if sources:
        raise BuildError(f"imported modules that no wheel of the site's lock holds: {sorted(sources)[:5]}")
    return made


BYTECODE_KEPT = 3  # the cache keeps the bytecode of this many sets of wheels (a developer's last attn_lib edits)


def cached_bytecode_wheels(dest: Path, lock: dict, cache: Path) -> dict:
    """:func:`bytecode_wheels`, kept in ``cache``/bytecode/ under a hash of every wheel of the lock and of the code
    that compiles them: a rebuild whose wheels did not change (another course version, changed notebooks) copies
    them instead of starting Pyodide again."""
    digest = hashlib.sha256(json.dumps([WARM_IMPORTS, PYODIDE_RUN_JS, BYTECODE_PY]).encode())
    for name, record in sorted(lock["packages"].items()):
        digest.update(f"{name} {sha256(dest / record['file_name'])}\n".encode())
    folder = cache / "bytecode" / digest.hexdigest()[:16]
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:  # complete, or not there at all
            made = bytecode_wheels(Path(tmp), lock, dest)
            (Path(tmp) / "made.json").write_text(json.dumps({name: path.name for name, path in made.items()}))
            try:
                os.rename(tmp, folder)
            except OSError:  # another build made the same folder first
                pass
        kept = [p for p in folder.parent.iterdir() if not p.name.startswith("tmp")]  # not another build's, unfinished
        for old in sorted(kept, key=lambda p: p.stat().st_mtime_ns)[:-BYTECODE_KEPT]:
            shutil.rmtree(old, ignore_errors=True)
    else:
        folder.touch()  # recently used: kept
    wheels = {}
    for name, file_name in json.loads((folder / "made.json").read_text()).items():
        wheels[name] = Path(shutil.copy2(folder / file_name, dest / file_name))
    return wheels


def lock_entry(path: Path, name: str, version: str, imports, depends) -> dict:
    return {"name": name, "version": version, "file_name": path.name, "install_dir": "site",
            "sha256": sha256(path), "package_type": "package", "imports": list(imports),
            "depends": list(depends), "unvendored_tests": False, "shared_library": False}


def kernel_wheels(kernel: Path) -> dict:
    """name -> path of each of KERNEL_WHEELS in the unpacked ``kernel`` package, each checked against the sha256 of
    the kernel's own package index (all.json, from the pinned wheel checked by :func:`kernel_package`)."""
    found = list(kernel.glob("*.data/data/share/jupyter/labextensions/@jupyterlite/pyodide-kernel-extension/"
                             "static/pypi/all.json"))
    if not found:
        raise BuildError(f"the unpacked kernel package in {kernel} has no package index (static/pypi/all.json): "
                         "delete that folder and run this again")
    index = json.loads(found[0].read_text())
    wheels = {}
    for name in KERNEL_WHEELS:
        releases = index.get(name, {}).get("releases", {})
        files = [f for release in releases.values() for f in release]
        if len(files) != 1:
            raise BuildError(f"the kernel's package index lists {len(files)} wheels of {name}, not one")
        path = found[0].parent / files[0]["url"].split("/")[-1]
        check_sha256(path, files[0]["digests"]["sha256"], f"the kernel's wheel {path.name}",
                     "delete the unpacked kernel package in build/lite-cache/ and run this again")
        wheels[name] = path
    return wheels


def pyodide_distribution(versions: dict, dest: Path, cache: Path, wheels_from: Path | None,
                         kernel: Path) -> tuple[dict, dict]:
    """static/pyodide/ of the site: core, the needed official wheels, the kernel's and the course's wheels, and their
    lock. Returns the lock and the extra wheels (name -> path)."""
    if dest.exists():
        shutil.rmtree(dest)
    official = pyodide_core(versions, cache, dest)
    lock = pyodide_wheels(versions, official, wheels_folder(versions, wheels_from), dest)
    extras = extra_wheels(versions, cache)
    for name, path in extras.items():
        spec = versions["extra-wheels"][name]
        shutil.copy2(path, dest / path.name)
        lock["packages"][name] = lock_entry(dest / path.name, name, spec["version"], spec["imports"],
                                            spec["depends"])
    for name, path in kernel_wheels(kernel).items():  # no dependencies: the kernel's index lists none
        shutil.copy2(path, dest / path.name)
        lock["packages"][name] = lock_entry(dest / path.name, name, path.name.split("-")[1],
                                            [name.replace("-", "_")], [])
    ours = attn_lib_wheel(dest)
    version = ours.name.split("-")[1]
    lock["packages"]["attn-lib"] = lock_entry(ours, "attn-lib", version, ["attn_lib"], ATTN_LIB_DEPENDS)
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    fonts = font_list_wheel(dest, lock)
    lock["packages"]["matplotlib-font-list"] = lock_entry(fonts, "matplotlib-font-list",
                                                          lock["packages"]["matplotlib"]["version"], [],
                                                          ["matplotlib"])
    lock["packages"]["attn-lib"]["depends"].append("matplotlib-font-list")
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    for name, path in cached_bytecode_wheels(dest, lock, cache).items():  # loaded with its package, its dependent
        record = lock["packages"][name]
        lock["packages"][f"{name}-bytecode"] = lock_entry(path, f"{name}-bytecode", record["version"], [], [])
        record["depends"] = [*record["depends"], f"{name}-bytecode"]
    for name, record in lock["packages"].items():
        missing = [d for d in record["depends"] if d.lower().replace("_", "-") not in lock["packages"]]
        if missing:
            raise BuildError(f"{name} depends on {missing}, which the site's lock lacks (lite/versions.toml)")
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return lock, extras


# ---------------------------------------------------------------------------------------------------------------
# The front end


def labextension_sources(versions: dict, wheels: dict, kernel: Path) -> list[Path]:
    """What the site's federated extensions are built from, each at its pinned version: the kernel-side wheels that
    ship one (``wheels``: name -> path), the kernel's extension in the unpacked ``kernel`` package, and the course's
    own folder."""
    sources = []
    for name, spec in versions["labextensions"].items():
        if "wheel" in spec:
            path = wheels[spec["wheel"]]
            with zipfile.ZipFile(path) as wheel:
                inside = [n for n in wheel.namelist()
                          if n.endswith(f"share/jupyter/labextensions/{name}/package.json")]
                if not inside:
                    raise BuildError(f"{path.name} ships no front-end extension {name} (lite/versions.toml)")
                got = json.loads(wheel.read(inside[0]))["version"]
            where = f"{path.name} ships {name} {got}"
        else:
            found = list(kernel.glob(f"*.data/data/share/jupyter/labextensions/{name}/package.json"))
            if not found:
                raise BuildError(f"the unpacked {spec['package']} in {kernel} has no front-end extension {name}: "
                                 "delete that folder and run this again")
            path = found[0].parent
            got = json.loads(found[0].read_text())["version"]
            where = f"{spec['package']} ships {name} {got}"
        if got != spec["version"]:
            raise BuildError(f"{where}, lite/versions.toml pins {spec['version']}: pip install -r "
                             "requirements-dev.txt, or fix lite/versions.toml")
        sources.append(path)
    sources.append(EXTENSION)
    return sources


def site_config() -> dict:
    """jupyter-lite.json of the site: the local Pyodide, no PyPI fallback, the kernel's packages loaded with Pyodide,
    the app exposed for the tests."""
    config = json.loads((LITE / "jupyter-lite.json").read_text())
    settings = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    settings["pyodideUrl"] = "./static/pyodide/pyodide.js"
    settings["disablePyPIFallback"] = True
    settings["loadPyodideOptions"] = {"packages": KERNEL_START}
    return config


def stage_contents(stage: Path, course: dict, notebooks: Path, version: str) -> Path:
    """files/ of the site: the learner notebooks of ``notebooks``, and the edition's contents page, each stamped with
    the course ``version`` (:func:`stamped`)."""
    files = stage / "files"
    files.mkdir(parents=True)
    entries = nav.course_entries(notebooks, course)
    for entry in entries:
        if nav.runs_in_browser(course, entry):
            (files / entry.name).write_text(stamped((notebooks / entry.name).read_text(encoding="utf-8"), version),
                                            encoding="utf-8")
    for name, text in nav.lite_pages(entries, course).items():
        (files / name).write_text(stamped(text, version), encoding="utf-8")
    # The review session (attn_lib.review: its record is written beside the notebooks, in the browser's storage).
    (files / nav.REVIEW).write_text(stamped((notebooks / nav.REVIEW).read_text(encoding="utf-8"), version),
                                    encoding="utf-8")
    return files


# ---------------------------------------------------------------------------------------------------------------
# The course version each notebook of the site records, and the front end that reads it (lite/learner-copies/):
# a learner's saved copy of an older version is flagged when it opens; Download All My Work; Reset Notebook.


def fingerprint(nb: dict) -> str:
    """What identifies a notebook's course content: FNV-1a (64 bits, 16 hex digits) of the UTF-8 of its cells'
    types and sources as compact JSON. Outputs and metadata do not count. lite/learner-copies computes the same in
    the browser, to tell a learner's edited copy from an untouched one."""
    cells = [[c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"]]
             for c in nb["cells"]]
    value = 0xCBF29CE484222325
    for byte in json.dumps(cells, ensure_ascii=False, separators=(",", ":")).encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


# What the site is built from: a change in any of these that is not committed is refused (unless asked for).
INPUTS = ("notebooks", "attn_lib", "tools", "lite", "pyproject.toml")


def _git(root: Path, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def uncommitted(root: Path = ROOT) -> list[str]:
    """The site's inputs (:data:`INPUTS`) that differ from the commit, new files too, as git names them; [] outside
    a git checkout."""
    try:
        status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", *INPUTS)
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line[3:] for line in status.splitlines() if line.strip()]


def course_version(root: Path = ROOT) -> str:
    """The version a learner reads: "YYYY-MM-DD abc1234", the date and short id of the commit the site is built
    from, "+changes" after it when the site's inputs differ from that commit (a build asked for the working tree);
    the build's date (UTC) alone outside a git checkout."""
    try:
        date, short = _git(root, "log", "-1", "--format=%cd %h", "--date=format:%Y-%m-%d").split()
    except (OSError, subprocess.CalledProcessError, ValueError):
        return time.strftime("%Y-%m-%d", time.gmtime())
    return f"{date} {short}" + ("+changes" if uncommitted(root) else "")


# The kernel of the browser edition as its notebooks' metadata names it, exactly as the Pyodide kernel writes it when
# it starts: a notebook stamped so is not marked modified by opening it (JupyterLite 0.6's kernel reports these).
LITE_KERNEL_METADATA = {
    "kernelspec": {"display_name": "Python (Pyodide)", "language": "python", "name": "python"},
    "language_info": {"codemirror_mode": {"name": "python", "version": 3}, "file_extension": ".py",
                      "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                      "pygments_lexer": "ipython3", "version": "3.8"},
}


def stamped(text: str, version: str) -> str:
    """A notebook's text with ``metadata.attn_course = {"version": version, "fingerprint": ...}`` and the browser
    kernel's metadata (:data:`LITE_KERNEL_METADATA`), in nbformat's own layout (one-space indents)."""
    nb = json.loads(text)
    nb.setdefault("metadata", {}).update(copy.deepcopy(LITE_KERNEL_METADATA))
    nb["metadata"]["attn_course"] = {"version": version, "fingerprint": fingerprint(nb)}
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def learner_copies_extension(versions: dict, cache: Path, stage: Path) -> Path:
    """lite/learner-copies/ staged with npm's fflate (its browser module and licence, each checked) beside its
    remoteEntry.js: the folder the site's extension is built from."""
    spec = versions["npm"]["fflate"]
    tarball = npm_package("fflate", spec["version"], spec["npm-integrity"], cache)
    dest = stage / "extension-sources" / LEARNER_COPIES.name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(LEARNER_COPIES, dest)
    fix = f"lite/versions.toml records npm's fflate@{spec['version']}: delete {tarball} and run this again"
    with tarfile.open(tarball) as tar:
        for inside, name, expected in ((spec["module"], "fflate.js", spec["module-sha256"]),
                                       ("LICENSE", "fflate-LICENSE", spec["license-sha256"])):
            try:
                member = tar.getmember(f"package/{inside}")
            except KeyError:
                raise BuildError(f"npm's fflate@{spec['version']} has no {inside}: {fix}") from None
            (dest / "static" / name).write_bytes(tar.extractfile(member).read())
            check_sha256(dest / "static" / name, expected, f"fflate's {inside}", fix)
    return dest


def build(out: Path = OUT, cache: Path = CACHE, wheels_from: Path | None = None,
          notebooks: Path = ROOT / "notebooks", version: str | None = None, stage: Path = STAGE,
          working_tree: bool = False) -> dict:
    """Write the whole site to ``out`` from the course's ``notebooks``, each stamped with ``version`` (by default
    :func:`course_version`), staging its inputs in ``stage`` (emptied first); return a summary (sizes, counts,
    seconds, version). A change to the site's inputs that is not committed is refused (BuildError), so that no
    saved answer or half-made edit ships, unless ``working_tree`` (the tests, the benchmarks) asks for the files as
    they are."""
    start = time.monotonic()
    changed = [] if working_tree else uncommitted()
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise BuildError(f"the site is built from what is committed, and {shown} differ from the commit (a saved "
                         "notebook would ship its answers): commit or stash them, or pass --working-tree to build "
                         "from the files as they are (the version then ends in +changes)")
    version = version or course_version()
    versions = load_versions()
    check_installed(versions)
    course = nav.load_course()
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    kernel = kernel_package(versions, cache)
    lock, extras = pyodide_distribution(versions, stage / "static" / "pyodide", cache, wheels_from, kernel)
    stage_contents(stage, course, notebooks, version)
    (stage / "jupyter-lite.json").write_text(json.dumps(site_config(), indent=2) + "\n")
    # JupyterLab 4.4's command-mode arrow shortcuts (move between cells) fire on a focused widget too, so an arrow
    # key on an explorer's slider moved the notebook's selection instead of the slider: the same four shortcuts,
    # not on a widget (JupyterLab 4.6, the course's other front end, leaves the arrows to the widget). And JupyterLab
    # 4.4's table of contents, reading headings from outputs, indexed its stale list of headings when a code cell
    # with markdown output (a problem's statement cell) scrolled into view: an uncaught TypeError ("reading 'type'")
    # on opening every notebook with one. The course's outputs hold no headings, so the table of contents reads
    # none from outputs (4.6 keeps its index and list together, and is left as it is).
    shutil.copy2(LITE / "overrides.json", stage / "overrides.json")
    lite_config = {"LiteBuildConfig": {
        "apps": ["lab"],
        "contents": [str(stage / "files")],
        "output_dir": str(out),
        "federated_extensions": [str(p) for p in [*labextension_sources(versions, extras, kernel),
                                                   learner_copies_extension(versions, cache, stage)]],
        "ignore_sys_prefix": ["federated_extensions"],
        "no_sourcemaps": True,
        "no_unused_shared_packages": True,
    }}
    (stage / "jupyter_lite_config.json").write_text(json.dumps(lite_config, indent=2) + "\n")
    if out.exists():
        shutil.rmtree(out)  # always clean: an incremental rebuild once dropped pyodideUrl (and fell back to a CDN)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(kernel), os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(stage)], cwd=stage,
                   check=True, env=env)
    shutil.copy2(out / "lab" / "favicon.ico", out / "favicon.ico")  # the icon a browser asks the site's root for
    problems = check_site(out)
    if problems:
        raise BuildError("the site is not self-contained:\n  " + "\n  ".join(problems))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    pyodide_size = sum(p.stat().st_size for p in (out / "static" / "pyodide").rglob("*") if p.is_file())
    return {"seconds": time.monotonic() - start, "bytes": size, "pyodide_bytes": pyodide_size,
            "files": sum(1 for p in out.rglob("*") if p.is_file()), "packages": len(lock["packages"]),
            "notebooks": sorted(p.name for p in (out / "files").glob("*.ipynb")), "version": version}


def check_site(out: Path) -> list[str]:
    """What makes the built site depend on the outside world (an empty list when nothing does)."""
    problems = []
    config = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    text = json.dumps(config)
    for scheme in ("http://", "https://", "//cdn"):
        if scheme in text:
            problems.append(f"jupyter-lite.json names an outside URL ({scheme}...)")
    settings = config.get("litePluginSettings", {}).get(KERNEL_PLUGIN, {})
    if settings.get("pyodideUrl") != "./static/pyodide/pyodide.js":
        problems.append(f"pyodideUrl is {settings.get('pyodideUrl')!r}, not the site's own Pyodide")
    if settings.get("disablePyPIFallback") is not True:
        problems.append("the PyPI fallback is not off (disablePyPIFallback)")
    lock = json.loads((out / "static" / "pyodide" / "pyodide-lock.json").read_text())
    for name in settings.get("loadPyodideOptions", {}).get("packages", []):
        if name.lower().replace("_", "-") not in lock["packages"]:  # as Pyodide's loadPackage spells it
            problems.append(f"the kernel loads {name} when it starts, and the site's lock has no such package")
    for name, record in lock["packages"].items():
        path = out / "static" / "pyodide" / record["file_name"]
        if not path.exists() or sha256(path) != record["sha256"]:
            problems.append(f"{record['file_name']} ({name}) is missing or differs from the site's lock")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the site (default build/lite)")
    parser.add_argument("--cache", type=Path, default=CACHE, help="npm and pip downloads (default build/lite-cache)")
    parser.add_argument("--wheels-from", type=Path, default=None,
                        help="a folder with Pyodide's official wheels (an unpacked release), instead of the PyPI "
                             "package named in lite/versions.toml")
    parser.add_argument("--working-tree", action="store_true",
                        help="build from the files as they are, changes not committed included (tests, benchmarks)")
    parser.add_argument("--course-version", default=None,
                        help="the version each notebook records (default: the commit's date and short id)")
    args = parser.parse_args(argv)
    try:
        summary = build(args.out.resolve(), args.cache.resolve(), args.wheels_from, version=args.course_version,
                        working_tree=args.working_tree)
    except BuildError as err:
        print(f"tools/build_lite.py: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {summary['files']} files, {summary['bytes'] / 1e6:.1f} MB "
          f"(Pyodide and its wheels {summary['pyodide_bytes'] / 1e6:.1f} MB, {summary['packages']} packages), "
          f"notebooks {', '.join(summary['notebooks'])}, course version {summary['version']}; "
          f"{summary['seconds']:.0f} s")
    print(f"serve it: python -m http.server -d {args.out} 8000, then open http://127.0.0.1:8000/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
