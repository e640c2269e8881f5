#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# The main job: builds the release preset and starts khetd, the Khet session
# service, on 127.0.0.1:50051 with its embedded SQLite store in ./khet-data.
# Extra arguments go to khetd, e.g. scripts/run.sh --listen 0.0.0.0:50051.
# Stop it with Ctrl-C (SIGINT) or SIGTERM: it shuts down cleanly. Talk to it
# with build/release/clients/khetctl/khetctl; the engine's demonstration game
# is `build/release/tools/khet-engine play`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Configuring says, as a warning, which language clients it left out and why.
cmake --preset release >/dev/null
targets=(khetd khetctl khet-engine)
# The chat bot's and the Python client's stubs (build/release/clients/chatbot/
# khet-chatbot runs the bot), when configuring found Python's gRPC.
if cmake --build --preset release --target help | grep -q '^khet_python_stubs:'; then
  targets+=(khet_python_stubs)
fi
cmake --build --preset release --target "${targets[@]}"
exec build/release/service/khetd/khetd --data_dir ./khet-data "$@"
