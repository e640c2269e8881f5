#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Runs the libFuzzer targets of fuzz/ (docs/FUZZING.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]
#
# Builds the `fuzz` preset (clang 14, ASan + UBSan), then runs TARGET
# (notation, positions, http_routes, session_service; default all, one
# after another) for SECONDS each (default 60), starting from the checked-in
# seeds (fuzz/corpus/TARGET) and the campaign corpus kept in
# build/fuzz/corpus/TARGET, which it merges (minimises) afterwards unless
# FUZZ_MERGE=0. FUZZ_PARALLEL=N runs up to N targets at once (default 1;
# CI runs one per core), their reports printed in the targets' order. Prints
# each run's executions per second and coverage. A crash, a leak, a
# sanitizer report, a timeout or a broken invariant stops the script with
# exit 1 after printing the reproducer's path and its bytes in base64
# (re-run one with `build/fuzz/fuzz/fuzz_TARGET FILE`).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(notation positions http_routes session_service)
which=${1:-all}
seconds=${2:-60}
if [[ $which != all ]]; then
  [[ " ${targets[*]} " == *" $which "* ]] ||
    { echo "fuzz.sh: no target '$which' (${targets[*]})" >&2; exit 2; }
  targets=("$which")
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# Fuzzes one target; its report goes to build/fuzz/logs/TARGET.report and
# its status is the run's (0 or 1).
fuzz_one() {
  local target=$1
  local binary=build/fuzz/fuzz/fuzz_$target
  local seeds=fuzz/corpus/$target
  local corpus=build/fuzz/corpus/$target
  local artifacts=build/fuzz/artifacts/$target
  local log=build/fuzz/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  local options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1
                 -artifact_prefix="$artifacts/")
  # The stateful targets read a sequence of operations: long inputs from
  # the start (libFuzzer otherwise grows its length limit slowly).
  case $target in
    notation) options+=(-dict=fuzz/dict/notation.dict) ;;
    http_routes) options+=(-dict=fuzz/dict/json.dict -len_control=0 -max_len=2048) ;;
    session_service) options+=(-len_control=0 -max_len=1024) ;;
  esac
  # Extra libFuzzer flags, e.g. FUZZ_OPTIONS=-jobs=2.
  local extra
  read -r -a extra <<<"${FUZZ_OPTIONS:-}"
  options+=("${extra[@]}")
  rm -f "$artifacts"/*
  local run=0
  "$binary" "${options[@]}" "$corpus" "$seeds" >"$log" 2>&1 || run=$?
  {
    echo "=== fuzz $target for $seconds s"
    # The last status line ("#N DONE cov: ... exec/s: ...") and the totals.
    grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
    if ((run != 0)); then
      echo "fuzz $target FAILED (exit $run); the end of its log ($log):"
      tail -60 "$log"
      for file in "$artifacts"/*; do
        [[ -e $file ]] || continue
        echo "reproducer: $file"
        echo "reproducer base64: $(base64 -w0 "$file")"
      done
    elif [[ ${FUZZ_MERGE:-1} != 0 ]]; then
      # Keeps the campaign corpus minimal: only inputs that add coverage.
      # FUZZ_MERGE=0 skips it (CI: each pass over a stateful target's
      # corpus takes minutes, and CI keeps no corpus).
      local merged
      merged=$(mktemp -d)
      "$binary" -merge=1 "$merged" "$corpus" >"$log.merge" 2>&1
      rm -rf "$corpus" && mv "$merged" "$corpus"
      echo "corpus $corpus: $(find "$corpus" -type f | wc -l) inputs"
    fi
  } >"build/fuzz/logs/$target.report"
  return $((run != 0))
}

parallel=${FUZZ_PARALLEL:-1}
status=0
# Runs the targets in groups of `parallel`, each group's reports in order.
for ((first = 0; first < ${#targets[@]}; first += parallel)); do
  group=("${targets[@]:first:parallel}")
  pids=()
  for target in "${group[@]}"; do
    fuzz_one "$target" &
    pids+=($!)
  done
  for i in "${!group[@]}"; do
    wait "${pids[i]}" || status=1
    cat "build/fuzz/logs/${group[i]}.report"
  done
done
exit "$status"
