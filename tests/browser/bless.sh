#!/bin/sh
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Takes the visual test's pictures again and makes them its references
# (tests/browser/references/), for when the board's looks changed on
# purpose. Look at `git diff --stat` and the pictures before committing.
# usage: tests/browser/bless.sh [path to khetd]   (default: the release build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
khetd=${1:-$here/../../build/release/service/khetd/khetd}
exec node "$here/visual_test.mjs" --khetd "$khetd" --out "${TMPDIR:-/tmp}/khet-visual" --bless
