#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Every test, after installing what they need (scripts/setup.sh --tests):
# the release build with everything (slow perft and end-to-end included)
# but the in-world tests, which then run on the same build as a stage of
# their own (label `inworld`: the board in an OpenSimulator region, once
# per CI run), the same under AddressSanitizer + UndefinedBehaviorSanitizer
# less the slow and browser labels (the web page's tests drive Chromium,
# whose time an instrumented khetd hardly changes), and the service's concurrent code (label `service`)
# under ThreadSanitizer, and the fuzz targets for a minute each, one per
# core at a time (fuzz stage, beside ASan's). The sanitizer stages build only what their tests
# run: khet_tests_asan and khet_tests_tsan, which cmake/KhetTestTargets.cmake
# derives from the same labels. Prints how long each stage took and how
# often the compiler cache hit.
#
# The container test (label `container`: deploy/Dockerfile and compose.yaml
# built and run with podman, khetd compiled inside the image) takes many
# minutes and is left out; `scripts/test.sh --deploy` adds it as a stage of
# its own after the release stage (and installs podman: setup.sh --deploy).
set -euo pipefail
cd "$(dirname "$0")/.."

deploy=false
case ${1:-} in
  "") ;;
  --deploy) deploy=true ;;
  *) echo "usage: scripts/test.sh [--deploy]" >&2; exit 2 ;;
esac

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
if $deploy; then scripts/setup.sh --tests --deploy; else scripts/setup.sh --tests; fi
stage_done "setup"

command -v ccache >/dev/null && ccache --zero-stats >/dev/null || true

# preset, build target, ctest label filter.
run_stage() {
  local preset=$1 target=$2
  shift 2
  stage "configure + build ($preset)"
  # The tests need every client (setup.sh --tests installed what they use).
  cmake --preset "$preset" -DKHET_BUILD_LANGUAGE_CLIENTS=ON >/dev/null
  cmake --build --preset "$preset" -j "$jobs" --target "$target"
  stage_done "build ($preset)"

  # A failing test run still prints its stage's time, then stops the script.
  stage "tests ($preset)"
  local status=0
  ctest --preset "$preset" -j "$jobs" "$@" || status=$?
  stage_done "tests ($preset)"
  return "$status"
}

# The fuzz targets of fuzz/ (clang, ASan + UBSan), each for FUZZ_SECONDS
# (default 60) from the checked-in seeds; a crash or a broken invariant
# fails and prints its reproducer (scripts/fuzz.sh, docs/FUZZING.md).
run_fuzz_stage() {
  stage "configure + build (fuzz)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs"
  stage_done "build (fuzz)"

  stage "fuzz targets (${FUZZ_SECONDS:-60} s each)"
  local status=0
  FUZZ_MERGE=0 FUZZ_PARALLEL="$jobs" scripts/fuzz.sh all "${FUZZ_SECONDS:-60}" || status=$?
  stage_done "fuzz targets"
  return "$status"
}

# The in-world tests on the release build (stage time in docs/PERFORMANCE.md),
# each once: a prim update the region never sent the avatar is asked for
# again as a viewer would (tests/inworld/avatar.cs, "refresh"), so a test that
# fails has found a bug.
run_inworld_stage() {
  stage "in-world tests (release)"
  local status=0
  ctest --preset release -j "$jobs" -L inworld || status=$?
  stage_done "in-world tests (release)"
  return "$status"
}

# deploy/Dockerfile and compose.yaml under podman, on the release build's
# khetctl (deploy/README.md, "With podman").
run_container_stage() {
  stage "container test (release)"
  local status=0
  ctest --preset release -L container || status=$?
  stage_done "container test (release)"
  return "$status"
}

run_stage release all -LE 'inworld|container'
run_inworld_stage
if $deploy; then run_container_stage; fi
run_stage asan khet_tests_asan -LE 'slow|browser'
run_fuzz_stage
run_stage tsan khet_tests_tsan -L service

command -v ccache >/dev/null && ccache --show-stats 2>/dev/null | head -5 || true
