#!/usr/bin/env bash
# Every test: the release build with everything (slow perft and end-to-end
# included), the same under AddressSanitizer + UndefinedBehaviorSanitizer
# less the slow label, and the service's concurrent code (label `service`)
# under ThreadSanitizer. Prints how long each stage took.
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

stage "build (tsan, service tests)"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs" --target service_test store_test grpc_service_test \
  http_gateway_test http_server_test
stage_done "build (tsan)"
stage "tests (tsan)"
ctest --preset tsan -j "$jobs" -L service
stage_done "tests (tsan)"

command -v ccache >/dev/null && ccache --show-stats 2>/dev/null | head -5 || true
