#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Installs the Debian packages the project needs. Idempotent: when everything
# is present it only checks, in well under a second.
#
#   scripts/setup.sh           what scripts/run.sh needs: the toolchain and
#                              the libraries to configure and build khetd,
#                              and Python's gRPC for the chat bot
#   scripts/setup.sh --tests   that, and what only the tests run: servers
#                              (PostgreSQL, nginx, ngircd, prosody), Chromium,
#                              clang with libFuzzer, Mono for the in-world
#                              tests, test-only Python modules
#                              and the npm packages of the Node.js tests
#   scripts/setup.sh --deploy  what scripts/run.sh needs, and podman with what
#                              it needs to build deploy/Dockerfile and run it
#                              and deploy/compose.yaml for real (the opt-in
#                              container test, tests/deploy/); combines with
#                              --tests
#
# Test servers are installed switched off: a policy-rc.d keeps the packages
# from starting them, and each newly installed one is then disabled at boot,
# so no PostgreSQL listens on :5432, no nginx on :80, no IRC or XMPP server
# on theirs. The tests start their own instances on loopback. README.md says
# why each package is here.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

tests=false
deploy=false
for arg in "$@"; do
  case $arg in
    --tests) tests=true ;;
    --deploy) deploy=true ;;
    *) echo "usage: scripts/setup.sh [--tests] [--deploy]" >&2; exit 2 ;;
  esac
done

# Configuring the tree (every CMakeLists.txt) needs all of these.
packages=(
  build-essential    # g++ 12
  cmake              # the build
  ninja-build        # fast incremental builds
  ccache             # compiler cache: keeps CI and rebuilds short
  libabsl-dev        # Abseil: Status, strings (the engine's only dependency)
  libgtest-dev       # GoogleTest (the build configures its tests)
  libgmock-dev       # GoogleMock (matchers in tests)
  libbenchmark-dev   # Google Benchmark: speed figures, never timed tests
  # khetd, the service:
  libgrpc++-dev            # gRPC 1.51 server, client, health and reflection
  protobuf-compiler-grpc   # gRPC's protoc plugins (C++ and the Python stubs)
  libprotobuf-dev          # protobuf 3.21 runtime
  protobuf-compiler        # protoc
  libsqlite3-dev           # SQLite 3.40: the embedded default session store
  libjemalloc-dev          # jemalloc: khetd's allocator (a move makes and frees many small messages)
  libpq-dev                # libpq: the PostgreSQL store's client library
  # khetd's HTTP/JSON gateway and the web board:
  libboost1.81-dev         # Boost.Beast's HTTP parser on Boost.Asio: the gateway's event-driven server
  libssl-dev               # OpenSSL: HTTPS on the gateway, token hashes (gRPC brings its own TLS)
  openssl                  # certificates for TLS; the configure step looks for it
  libcpp-httplib-dev       # cpp-httplib 0.11: the HTTP client of tools and tests
  nlohmann-json3-dev       # JSON for the compact view and tests' HTTP clients
  python3-yaml             # the build turns docs/openapi.yaml into the JSON khetd serves; the deploy test reads deploy/'s YAML
  python3-pil              # JPEG 2000 textures: the build makes the board's OAR khetd serves (clients/lsl/make_oar.py); the in-world tests' board pictures
  # The Python client and the chat bot (built by scripts/run.sh too):
  python3-grpcio           # Python gRPC runtime
  python3-protobuf         # Python protobuf runtime
)

# Only the tests, the fuzzing and the formatting use these.
test_packages=(
  clang-format             # the project's formatting
  chromium                 # headless browser for the web board's test
  ngircd                   # a real IRC server for the chat bot's IRC test
  prosody                  # a real XMPP server for the chat bot's XMPP test
  python3-slixmpp          # XMPP for the chat bot's adapter (its test needs it)
  postgresql               # PostgreSQL 15 server for the shared store's tests
  nginx                    # gRPC load balancer in front of two replicas
  mono-complete            # runs OpenSimulator and builds the in-world tests' avatar client (tests/inworld/)
  fakeroot                 # the package test installs the .deb into a scratch root, unprivileged (tests/release/)
  # Fuzzing (fuzz/, the `fuzz` preset, scripts/fuzz.sh, docs/FUZZING.md):
  clang-14                 # clang for -fsanitize=fuzzer; the rest builds with g++
  libfuzzer-14-dev         # libFuzzer
  libclang-rt-14-dev       # clang's runtimes: libFuzzer's, ASan's and UBSan's
)

# Only the container test uses these (tests/deploy/, deploy/README.md,
# "With podman"): images built and run as root, no daemon.
deploy_packages=(
  podman                   # builds deploy/Dockerfile and runs its containers, daemonless
  runc                     # the OCI runtime podman is told to use: crun refuses hybrid cgroups (v1 + v2)
  debootstrap              # the base image, from Debian's mirror rather than Docker Hub
  netavark                 # podman's network backend: the compose network, ports published on 127.0.0.1
  aardvark-dns             # names inside that network: khetd finds "postgres", nginx finds "khetd"
  iptables                 # netavark's NAT and port forwarding rules
)

# The test packages that bring a system service with them.
services=(postgresql nginx ngircd prosody)

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"

wanted=("${packages[@]}")
$tests && wanted+=("${test_packages[@]}")
$deploy && wanted+=("${deploy_packages[@]}")
# Node.js for the Node client's, the web board's and the browser tests: the
# machine's own if it has one, else Debian's.
if $tests && ! command -v node >/dev/null; then wanted+=(nodejs); fi
# npm for the tests' npm ci (below): the machine's own, else Debian's.
if $tests && ! command -v npm >/dev/null; then wanted+=(npm); fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

# A policy-rc.d that answers 101 ("not allowed") keeps every maintainer
# script from starting its service. One already there (a container's) stays.
policy=/usr/sbin/policy-rc.d
own_policy=false
cleanup() { if $own_policy; then $sudo rm -f "$policy"; fi; }
trap cleanup EXIT

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# scripts/setup.sh: no service starts while it installs.\nexit 101\n' |
      $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    own_policy=true
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
  # Newly installed servers: stopped (in case another policy let them
  # start) and off at boot.
  for service in "${services[@]}"; do
    [[ " ${missing[*]} " == *" $service "* ]] || continue
    if [[ -d /run/systemd/system ]]; then
      $sudo systemctl disable --now "$service" >/dev/null 2>&1 || true
    fi
    if [[ -x /etc/init.d/$service ]]; then
      $sudo "/etc/init.d/$service" stop >/dev/null 2>&1 || true
      $sudo update-rc.d "$service" disable >/dev/null 2>&1 || true
    fi
  done
  # podman enables its API socket and its units that restart and update
  # containers at boot; the container test needs none of them.
  if [[ " ${missing[*]} " == *" podman "* && -d /run/systemd/system ]]; then
    $sudo systemctl disable --now podman.socket podman.service \
      podman-restart.service podman-auto-update.timer >/dev/null 2>&1 || true
  fi
fi

$tests || exit 0

# npm packages as each folder's package-lock.json pins them: the Node.js
# client's, playwright-core for the web board's browser test (it drives
# the chromium above; no browser download), and the API contract's tools
# (tests/contract: buf, the OpenAPI linter and validator, TypeScript). Skipped
# while node_modules is newer than the lock file.
for folder in clients/node tests/browser tests/contract; do
  if [[ ! "$root/$folder/node_modules/.package-lock.json" -nt "$root/$folder/package-lock.json" ]]; then
    echo "setup: npm ci in $folder"
    (cd "$root/$folder" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
