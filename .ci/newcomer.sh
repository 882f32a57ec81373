#!/usr/bin/env bash
# CI: a newcomer on a fresh virtual environment follows README.md's two commands word for word.
#  - The open command (the line after `<!-- open-command -->` and its ```bash fence) runs unchanged in the
#    background. It is kept off the browser and on a known port by configuration alone: JUPYTER_CONFIG_DIR points
#    at a temporary folder whose jupyter_server_config.py sets the port, the token and open_browser=False.
#    The script waits until the server answers /lab, opens 00-start-here.ipynb through the contents API (the
#    server's top folder is the notebook's own, notebooks/),
#    checks the widget extensions are loaded in the page, then stops the server (by its process group).
#  - The test command (after `<!-- test-command -->`) is what .ci/run already runs word for word in its own fresh
#    virtual environment, so by default it is not run a second time here; pass --with-tests to run it too.
# Usage: bash .ci/newcomer.sh [--with-tests]     (NEWCOMER_PYTHON=python3.12 to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step() { echo "== newcomer [$((SECONDS - start)) s] $*"; }

with_tests=false
for arg in "$@"; do
  case "$arg" in
    --with-tests) with_tests=true ;;
    *) echo "usage: bash .ci/newcomer.sh [--with-tests]" >&2; exit 2 ;;
  esac
done

readme_command() {  # the command on the line after the ```bash fence that follows the marker $1
  awk -v marker="$1" 'index($0, marker){getline; getline; print; exit}' README.md | sed 's/^ *//'
}
open_command="$(readme_command '<!-- open-command -->')"
test_command="$(readme_command '<!-- test-command -->')"
[ -n "$open_command" ] || { echo "newcomer: no open command after <!-- open-command --> in README.md" >&2; exit 1; }
[ -n "$test_command" ] || { echo "newcomer: no test command after <!-- test-command --> in README.md" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/newcomer.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step "fresh virtual environment ($(${NEWCOMER_PYTHON:-python3} --version))"
"${NEWCOMER_PYTHON:-python3}" -m venv "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"

# Server settings that leave the command's words alone. Only this run's own config folder is read for user
# settings; the environment's own config (which enables the JupyterLab server extension) is still read.
port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="newcomer-$RANDOM$RANDOM"
export JUPYTER_CONFIG_DIR="$work/jupyter-config" JUPYTER_RUNTIME_DIR="$work/jupyter-runtime"
mkdir -p "$JUPYTER_CONFIG_DIR"
cat >"$JUPYTER_CONFIG_DIR/jupyter_server_config.py" <<EOF
c.ServerApp.open_browser = False
c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = $port
c.ServerApp.port_retries = 0
c.IdentityProvider.token = "$token"
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
EOF

step "open command, word for word: $open_command"
setsid bash -c "$open_command" >"$work/open.log" 2>&1 </dev/null &
server_pid=$!

# Wait for the install and the server start (a cold pip cache can take minutes), then look at the course.
python - "$port" "$token" "$server_pid" <<'PY' || { echo "--- open command's log:"; grep -v "is neither a file nor a directory" "$work/open.log" | tail -40; exit 1; }
import json, os, sys, time, urllib.error, urllib.request

port, token, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"


def get(path):
    request = urllib.request.Request(base + path, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read().decode("utf-8")


deadline = time.monotonic() + 900
while True:
    try:
        status, lab = get("/lab")
        break
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit("newcomer: the open command ended before the server answered")
        if time.monotonic() > deadline:
            sys.exit("newcomer: the server did not answer /lab within 15 minutes")
        time.sleep(2)
assert status == 200, f"/lab answered {status}"
print(f"/lab answers 200 on port {port}")

# `jupyter lab notebooks/00-start-here.ipynb` serves the notebook's own folder: the file is at its top.
root = json.loads(get("/api/contents")[1])
names = sorted(item["name"] for item in root["content"])
assert "00-start-here.ipynb" in names, f"00-start-here.ipynb is not at the server's top folder: {names}"
status, _ = get("/lab/tree/00-start-here.ipynb")
assert status == 200, f"/lab/tree/00-start-here.ipynb answered {status}"
model = json.loads(get("/api/contents/00-start-here.ipynb")[1])
assert model["type"] == "notebook" and model["content"]["cells"], "00-start-here.ipynb did not open as a notebook"
print(f"00-start-here.ipynb opens through the contents API ({len(model['content']['cells'])} cells);"
      f" the file browser shows {', '.join(names)}")

missing = [ext for ext in ("anywidget", "@jupyter-widgets/jupyterlab-manager") if f'"{ext}"' not in lab]
assert not missing, f"JupyterLab page does not load {missing}: widgets would show as plain text"
print("the page loads the widget extensions: anywidget, @jupyter-widgets/jupyterlab-manager")
status, body = get("/api/kernelspecs")
assert "python3" in json.loads(body)["kernelspecs"], "no python3 kernel"
print("a python3 kernel is available")
PY

step "stopping the server (process group $server_pid)"
kill -TERM -- "-$server_pid"
for _ in $(seq 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
kill -0 "$server_pid" 2>/dev/null && { echo "newcomer: server still up after SIGTERM; killing it"; kill -KILL -- "-$server_pid"; }
server_pid=""

if $with_tests; then
  step "test command, word for word: $test_command"
  eval "$test_command"
else
  echo "newcomer: test command not run here (.ci/run runs it word for word in a fresh environment): $test_command"
fi
step "done in $((SECONDS - start)) s"
