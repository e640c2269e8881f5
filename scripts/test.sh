#!/usr/bin/env bash
# Every test: the release build with the slow perft suite, then the engine and
# the reference agreement under AddressSanitizer + UndefinedBehaviorSanitizer.
# Prints how long each stage took.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
stage_start=0
stage() {
  stage_start=$(date +%s)
  echo "=== $1"
}
stage_done() {
  echo "=== $1 took $(($(date +%s) - stage_start)) s"
}

stage "setup"
scripts/setup.sh
stage_done "setup"

for preset in release asan; do
  stage "configure + build ($preset)"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  stage_done "build ($preset)"

  stage "tests ($preset)"
  if [[ $preset == release ]]; then
    ctest --preset "$preset" -j "$jobs"
  else
    ctest --preset "$preset" -j "$jobs" -LE slow
  fi
  stage_done "tests ($preset)"
done

command -v ccache >/dev/null && ccache --show-stats 2>/dev/null | head -5 || true
