#!/usr/bin/env bash
# Build the one-folder app with PyInstaller and smoke-test it offscreen.
# Usage: packaging/build.sh [OUT_PNG]    (run from anywhere; uses the repo's .venv)
# Takes a few minutes on 2 cores, so CI runs it as its own step (see .ci/run), not in pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
$py -m pip install -q -e '.[package]'
$py -m PyInstaller --noconfirm --log-level WARN --distpath build/dist --workpath build/work packaging/workbench.spec
app=build/dist/workbench/workbench
"$app" --version
out=${1:-build/packaged-screenshot.png}
QT_QPA_PLATFORM=offscreen "$app" --screenshot "$out"
test -s "$out"
echo "packaged app OK: $app, screenshot $out"
