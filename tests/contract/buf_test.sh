#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# The proto contract under buf (ctest label `contract`):
#   lint      `buf lint` with proto/buf.yaml (STANDARD, its exceptions named)
#   breaking  `buf breaking` against proto/khet/v1/released.binpb, the API as
#             last released (scripts/release_api.sh), and that the check
#             bites: a copy of proto/ with a field removed, renumbered or
#             renamed must fail it with the rule that names the change.
# Usage: buf_test.sh lint|breaking PROTO_DIR BUF WORK_DIR
set -euo pipefail
what=$1 proto=$2 buf=$3 work=$4
export BUF_CACHE_DIR="$work/buf-cache"
mkdir -p "$work"
released="$proto/khet/v1/released.binpb"

case $what in
  lint)
    (cd "$proto" && "$buf" lint)
    echo "buf lint: proto/ passes"
    ;;
  breaking)
    (cd "$proto" && "$buf" breaking --against "$released")
    echo "buf breaking: proto/ keeps the released API"

    # expect_break NAME SED_SCRIPT RULE: applies SED_SCRIPT to a copy of
    # game.proto and requires buf breaking to fail naming RULE.
    expect_break() {
      local name=$1 script=$2 rule=$3 copy="$work/$1"
      rm -rf "$copy" && cp -r "$proto" "$copy"
      sed -i "$script" "$copy/khet/v1/game.proto"
      if cmp -s "$proto/khet/v1/game.proto" "$copy/khet/v1/game.proto"; then
        echo "FAIL $name: the edit did not apply (is Piece.token field 6 still?)" >&2
        exit 1
      fi
      local out status=0
      out=$(cd "$copy" && "$buf" breaking --against "$released" --error-format json) || status=$?
      if [[ $status -eq 0 ]]; then
        echo "FAIL $name: buf breaking accepted it" >&2
        exit 1
      fi
      if ! grep -q "\"type\":\"$rule\"" <<<"$out"; then
        echo "FAIL $name: expected rule $rule, got (exit $status):" >&2
        echo "$out" >&2
        exit 1
      fi
      echo "buf breaking refuses $name: $rule (exit $status)"
      rm -rf "$copy"
    }
    expect_break field-removed '/^  string token = 6; /d' FIELD_NO_DELETE
    expect_break field-renumbered 's/^  string token = 6; /  string token = 16;/' FIELD_NO_DELETE
    expect_break field-renamed 's/^  string token = 6; /  string piece_token = 6;/' FIELD_SAME_NAME
    ;;
  *) echo "usage: buf_test.sh lint|breaking PROTO_DIR BUF WORK_DIR" >&2; exit 2 ;;
esac
