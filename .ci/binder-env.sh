#!/usr/bin/env bash
# CI: prove the course works in Binder's environment, without Docker.
#  1. repo2docker --no-build prints the Dockerfile Binder would build: check that it reads binder/requirements.txt
#     (after copying the repository, which `-e .` needs) and binder/runtime.txt (Python 3.12).
#  2. Take Binder's server pins (JupyterLab, ipywidgets, the kernel) from that repo2docker's Python 3.12 lock,
#     build a Python 3.12 virtual environment with them, install binder/requirements.txt on top, and check the
#     pins did not move and the widget extensions are there; run binder/postBuild (notebook 10's model files).
#  3. Execute every notebook there with nbval --nbval-lax: a cell that errors fails, and the cells marked
#     NBVAL_CHECK_OUTPUT must print what they store.
# Usage: bash .ci/binder-env.sh    (PY312=/path/to/python3.12 to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step() { echo "== binder-env [$((SECONDS - start)) s] $*"; }

# The JupyterLab and ipywidgets that Binder's base environment pins today (repo2docker's Python 3.12 lock).
EXPECTED_JUPYTERLAB=4.4.9
EXPECTED_IPYWIDGETS=8.1.7

PY312="${PY312:-/root/.pyenv/versions/3.12.1/bin/python}"
if [ ! -x "$PY312" ]; then
  PY312="$(command -v python3.12 || true)"
fi
if [ -z "$PY312" ]; then
  echo "binder-env: no Python 3.12 here (looked for /root/.pyenv/versions/3.12.1/bin/python and python3.12 on PATH)." >&2
  echo "binder-env: falling back to $(python3 --version): the check runs, but not on Binder's Python version." >&2
  PY312="$(command -v python3)"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/binder-env.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# pip, quietly; its full log is shown only if it fails.
pip_install() {
  "$@" >"$work/pip.log" 2>&1 || { grep -v "is neither a file nor a directory" "$work/pip.log" >&2; exit 1; }
}

# --- 1. what Binder would build ----------------------------------------------------------------------------------
step "repo2docker --no-build"
python3 -m venv "$work/r2d"
pip_install "$work/r2d/bin/python" -m pip install --disable-pip-version-check --no-compile jupyter-repo2docker
"$work/r2d/bin/repo2docker" --no-build --debug . >"$work/dockerfile.txt" 2>&1 || {
  cat "$work/dockerfile.txt"; echo "binder-env: repo2docker --no-build failed" >&2; exit 1; }
"$work/r2d/bin/python" - "$work/dockerfile.txt" <<'PY'
import sys
text = open(sys.argv[1]).read()
problems = []
if "Building conda environment for python=3.12" not in text:
    problems.append("runtime.txt not read as Python 3.12 (no 'Building conda environment for python=3.12')")
install = 'pip install --no-cache-dir -r "binder/requirements.txt"'
if install not in text:
    problems.append("binder/requirements.txt is not installed")
elif "COPY --chown" not in text[: text.index(install)] or "src/ ${REPO_DIR}/" not in text[: text.index(install)]:
    problems.append("the repository is not copied before binder/requirements.txt is installed (`-e .` needs it)")
post = text.find("binder/postBuild")
if post < 0:
    problems.append("binder/postBuild is not run (it fetches notebook 10's model files into the image)")
elif install in text and post < text.index(install):
    problems.append("binder/postBuild runs before binder/requirements.txt is installed (it needs attn_lib)")
for p in problems:
    print(f"binder-env: {p}", file=sys.stderr)
if problems:
    sys.exit(1)
print("repo2docker reads binder/runtime.txt (python=3.12), installs binder/requirements.txt after copying the repo, "
      "then runs binder/postBuild")
PY

# Binder's pins, from the lock file repo2docker uses for Python 3.12.
pins="$("$work/r2d/bin/python" - <<'PY'
import pathlib, re
import repo2docker
lock = pathlib.Path(repo2docker.__file__).parent / "buildpacks" / "conda" / "environment.py-3.12-linux-64.lock"
wanted = {"jupyterlab", "ipywidgets", "ipykernel", "ipython", "jupyter_server", "jupyterlab_widgets",
          "widgetsnbextension", "comm", "traitlets"}
found = {}
for m in re.finditer(r"/([a-z0-9_\-]+?)-(\d[\w.]*)-[^/]+\.(?:conda|tar\.bz2)", lock.read_text()):
    if m.group(1) in wanted:
        found[m.group(1)] = m.group(2)
print(" ".join(f"{name}=={version}" for name, version in sorted(found.items())))
PY
)"
echo "Binder's lock pins: $pins"
for expected in "jupyterlab==$EXPECTED_JUPYTERLAB" "ipywidgets==$EXPECTED_IPYWIDGETS"; do
  case " $pins " in
    *" $expected "*) ;;
    *) echo "binder-env: repo2docker's lock no longer pins $expected (it has: $pins); update EXPECTED_* here and" \
            "the comment in binder/requirements.txt after checking anywidget still fits" >&2; exit 1 ;;
  esac
done

# --- 2. Binder's environment, then ours on top -------------------------------------------------------------------
step "Python 3.12 environment: $("$PY312" --version)"
"$PY312" -m venv "$work/binder"
# shellcheck disable=SC1091
source "$work/binder/bin/activate"
pip_install python -m pip install --disable-pip-version-check --no-compile --upgrade pip
# shellcheck disable=SC2086
pip_install python -m pip install --disable-pip-version-check --no-compile $pins nbval pytest
step "pip install -r binder/requirements.txt"
pip_install python -m pip install --disable-pip-version-check --no-compile -r binder/requirements.txt
python -m pip check
python - "$pins" <<'PY'
import sys
from importlib.metadata import version
moved = [f"{pin} became {version(pin.split('==')[0])}" for pin in sys.argv[1].split()
         if version(pin.split("==")[0]) != pin.split("==")[1]]
if moved:
    sys.exit("binder-env: binder/requirements.txt moved Binder's own pins: " + "; ".join(moved))
print("Binder's pins unchanged after binder/requirements.txt:", sys.argv[1])
for name in ("attn-lib", "anywidget", "numpy", "matplotlib"):
    print(f"  {name} {version(name)}")
PY
step "binder/postBuild (notebook 10's model files, verified by sha256; widget state kept; notebooks trusted)"
# Binder's notebook user has its own data folder: the notebooks' trust goes there, not into this machine's.
JUPYTER_DATA_DIR="$work/binder-data" bash binder/postBuild
python - <<'PY'
import json, sys
from pathlib import Path
settings = Path(sys.prefix) / "share/jupyter/lab/settings/overrides.d/attn-course.json"
if json.loads(settings.read_text()) != json.loads(Path("lite/overrides.json").read_text()):
    sys.exit(f"binder-env: {settings} is not the browser edition's settings (lite/overrides.json)")
print("JupyterLab's settings are the browser edition's (arrow keys left to the explorers):", settings)
PY
extensions="$(jupyter labextension list 2>&1)"
for ext in "anywidget" "@jupyter-widgets/jupyterlab-manager"; do
  grep -q "$ext .*enabled.*OK" <<<"$extensions" || {
    echo "$extensions"; echo "binder-env: JupyterLab extension $ext missing or broken: widgets would show as text" >&2
    exit 1; }
done
echo "JupyterLab extensions enabled and OK: anywidget, @jupyter-widgets/jupyterlab-manager"

# --- 3. every notebook, executed there ---------------------------------------------------------------------------
step "nbval --nbval-lax on notebooks/"
python -m pytest -p no:cacheprovider -o addopts="" --nbval-lax --nbval-current-env \
  --nbval-sanitize-with tests/nbval_sanitize.cfg notebooks -q
deactivate
step "done in $((SECONDS - start)) s"
