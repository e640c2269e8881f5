#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/FUZZING.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]
#
# Builds the `fuzz` preset (clang 14, ASan + UBSan), then runs TARGET
# (notation, positions, http_routes, session_service; default all, one
# after another) for SECONDS each (default 60), starting from the checked-in
# seeds (fuzz/corpus/TARGET) and the campaign corpus kept in
# build/fuzz/corpus/TARGET, which it merges (minimises) afterwards unless
# FUZZ_MERGE=0. Prints
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

status=0
for target in "${targets[@]}"; do
  binary=build/fuzz/fuzz/fuzz_$target
  seeds=fuzz/corpus/$target
  corpus=build/fuzz/corpus/$target
  artifacts=build/fuzz/artifacts/$target
  log=build/fuzz/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1
           -artifact_prefix="$artifacts/")
  # The stateful targets read a sequence of operations: long inputs from
  # the start (libFuzzer otherwise grows its length limit slowly).
  case $target in
    notation) options+=(-dict=fuzz/dict/notation.dict) ;;
    http_routes) options+=(-dict=fuzz/dict/json.dict -len_control=0 -max_len=2048) ;;
    session_service) options+=(-len_control=0 -max_len=1024) ;;
  esac
  # Extra libFuzzer flags, e.g. FUZZ_OPTIONS=-jobs=2.
  read -r -a extra <<<"${FUZZ_OPTIONS:-}"
  options+=("${extra[@]}")
  echo "=== fuzz $target for $seconds s"
  rm -f "$artifacts"/*
  run=0
  "$binary" "${options[@]}" "$corpus" "$seeds" >"$log" 2>&1 || run=$?
  # The last status line ("#N DONE cov: ... exec/s: ...") and the totals.
  grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
  if ((run != 0)); then
    status=1
    echo "fuzz $target FAILED (exit $run); the end of its log ($log):"
    tail -60 "$log"
    for file in "$artifacts"/*; do
      [[ -e $file ]] || continue
      echo "reproducer: $file"
      echo "reproducer base64: $(base64 -w0 "$file")"
    done
    continue
  fi
  # Keeps the campaign corpus minimal: only inputs that add coverage.
  # FUZZ_MERGE=0 skips it (CI: each pass over a stateful target's corpus
  # takes minutes, and CI keeps no corpus).
  [[ ${FUZZ_MERGE:-1} == 0 ]] && continue
  merged=$(mktemp -d)
  "$binary" -merge=1 "$merged" "$corpus" >"$log.merge" 2>&1
  rm -rf "$corpus" && mv "$merged" "$corpus"
  echo "corpus $corpus: $(find "$corpus" -type f | wc -l) inputs"
done
exit "$status"
