#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# The web board's API module against the OpenAPI document (ctest label
# `contract`): openapi-typescript turns docs/openapi.yaml into khet_api.d.ts,
# and tsc checks clients/web/api.js's JSDoc types against it (--checkJs,
# --strict, a caught error untyped as in JavaScript). The same run shows the
# check bites: a copy of api.js that reads a field the document does not
# have must fail it, and nothing else may.
# Usage: typescript_test.sh DOCUMENT API_JS BIN_DIR WORK_DIR
set -euo pipefail
document=$1 api=$2 bin=$3 work=$4
rm -rf "$work" && mkdir -p "$work/good" "$work/bad"
# Outside tests/contract, so that its redocly.yaml (lint rules) stays out.
(cd "$work" && "$bin/openapi-typescript" "$document" -o "$work/good/khet_api.d.ts")
cp "$api" "$work/good/api.js"
cp "$work/good/khet_api.d.ts" "$work/bad/"
cp "$api" "$work/bad/api.js"
cat >>"$work/bad/api.js" <<'JS'
/** @param {S['Session']} session */
export const notInTheDocument = (session) => session.bogusField;
JS

# One tsc run over both copies (each its own module): the errors must all be
# the bad copy's bogusField.
status=0
out=$(cd "$work" && "$bin/tsc" --noEmit --allowJs --checkJs --strict \
  --useUnknownInCatchVariables false --target es2022 --module es2022 \
  --moduleResolution bundler --lib es2022,dom --skipLibCheck \
  good/api.js bad/api.js 2>&1) || status=$?
errors=$(grep -c "error TS" <<<"$out" || true)
if grep "error TS" <<<"$out" | grep -qv "^bad/api.js.*bogusField"; then
  echo "FAIL: api.js does not match docs/openapi.yaml's types:" >&2
  echo "$out" >&2
  exit 1
fi
if [[ $status -eq 0 || $errors -eq 0 ]]; then
  echo "FAIL: tsc accepted a field the document does not have (exit $status)" >&2
  exit 1
fi
echo "tsc: api.js matches docs/openapi.yaml's types"
echo "tsc refuses a field the document does not have: $(grep -o 'error TS[0-9]*' <<<"$out" | head -1)"
