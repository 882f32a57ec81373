#!/usr/bin/env bash
# CI: build the static reading copy of the course (build/html/) from the committed, executed notebooks, and check
# it: a page for every notebook (solutions included), every figure embedded as an image, every relative link
# (previous | contents | next, and solutions back to their notebooks) pointing at a page that exists.
# Needs nbconvert (requirements-dev.txt). Usage: bash .ci/html.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python tools/build_html.py
