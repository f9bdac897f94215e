#!/usr/bin/env bash
# Build the one-folder app with PyInstaller and smoke-test it offscreen.
# Usage: packaging/build.sh [OUT_PNG]    (run from anywhere; uses the repo's .venv)
# Takes a few minutes on 2 cores, so CI runs it as its own step (see .ci/run), not in pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
$py -m pip install -q -e '.[package]'
$py -m PyInstaller --noconfirm --log-level WARN --distpath build/dist --workpath build/work packaging/workbench.spec
app=$PWD/build/dist/workbench/workbench
"$app" --version
out=$(realpath -m "${1:-build/packaged-screenshot.png}")
# From an empty folder with an empty HOME, so the window shows the bundled demo (proves the
# resources were packaged).
tmp=$(mktemp -d)
(cd "$tmp" && HOME="$tmp" QT_QPA_PLATFORM=offscreen "$app" --screenshot "$out")
rm -rf "$tmp"
test -s "$out"
# The demo must have been found inside the bundle.
test -d build/dist/workbench/_internal/workbench/resources/demo/workspace/.claude
echo "packaged app OK: $app, screenshot $out"
