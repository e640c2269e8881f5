#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Freezes the khet.v1 contract as released: writes proto/khet/v1/released.binpb,
# the buf image of proto/ that `buf breaking` (ctest label `contract`) holds
# every later change against. Run it on purpose, when a release is cut, and
# commit the image with the release. buf comes from tests/contract/'s npm
# packages (scripts/setup.sh --tests installs them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
buf="$root/tests/contract/node_modules/.bin/buf"
[[ -x $buf ]] || { echo "release_api: $buf missing: run scripts/setup.sh --tests" >&2; exit 1; }
cd "$root/proto"
"$buf" lint
# Comments and source positions are left out: breaking checks need only the
# descriptors, and the image stays small.
"$buf" build --exclude-source-info -o khet/v1/released.binpb
echo "release_api: wrote proto/khet/v1/released.binpb; commit it with the release"
