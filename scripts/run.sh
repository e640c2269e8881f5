#!/usr/bin/env bash
# The main job: builds the release preset and plays a demonstration game in
# the terminal (board and laser path after each move). Extra arguments go to
# `khet-engine play`, e.g. scripts/run.sh --setup dynasty-2b --delay-ms 0.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target khet-engine
exec build/release/tools/khet-engine play "$@"
