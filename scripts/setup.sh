#!/usr/bin/env bash
# Installs the Debian packages the project builds and tests with. Idempotent:
# when everything is present it only checks, in well under a second.
set -euo pipefail

packages=(
  build-essential    # g++ 12
  cmake              # the build
  ninja-build        # fast incremental builds
  ccache             # compiler cache: keeps CI and rebuilds short
  libabsl-dev        # Abseil: Status, strings (the engine's only dependency)
  libgtest-dev       # GoogleTest
  libgmock-dev       # GoogleMock (matchers in tests)
  libbenchmark-dev   # Google Benchmark: speed figures, never timed tests
  clang-format       # the project's formatting
  # khetd, the service:
  libgrpc++-dev            # gRPC 1.51 server, client, health and reflection
  protobuf-compiler-grpc   # gRPC's protoc plugin (gRPC's CMake config needs it)
  libprotobuf-dev          # protobuf 3.21 runtime
  protobuf-compiler        # protoc
  libsqlite3-dev           # SQLite 3.40: the embedded default session store
  libjemalloc-dev          # jemalloc: khetd's allocator (a move makes and frees many small messages)
  # khetd's HTTP/JSON gateway and the web board:
  libboost1.81-dev         # Boost.Beast's HTTP parser on Boost.Asio: the gateway's event-driven server
  libssl-dev               # OpenSSL: HTTPS on the gateway, token hashes (gRPC brings its own TLS)
  openssl                  # the tests make their throwaway certificates with it
  libcpp-httplib-dev       # cpp-httplib 0.11: the HTTP client of tests and tools (never a server)
  nlohmann-json3-dev       # JSON for the compact view and tests' HTTP clients
  chromium                 # headless browser for the web board's test
  # Other-language clients and the chat bot:
  python3-grpcio           # Python gRPC runtime
  python3-protobuf         # Python protobuf runtime
  ngircd                   # a real IRC server for the chat bot's test
  # Several replicas:
  postgresql               # PostgreSQL 15 server for the shared store's tests
  libpq-dev                # libpq: the PostgreSQL store's client library
  nginx                    # gRPC load balancer in front of two replicas
  # Fuzzing (fuzz/, the `fuzz` preset, scripts/fuzz.sh, docs/FUZZING.md):
  clang-14                 # clang for -fsanitize=fuzzer; the rest builds with g++
  libfuzzer-14-dev         # libFuzzer
  libclang-rt-14-dev       # clang's runtimes: libFuzzer's, ASan's and UBSan's
  # Deployment files:
  python3-yaml             # the deploy test parses deploy/'s YAML
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

# Node.js for the Node client and the browser test's driver: the machine's
# own if it has one, else Debian's.
if ! command -v npm >/dev/null; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends nodejs npm
fi

# npm packages as each folder's package-lock.json pins them: the Node.js
# client's, and playwright-core for the web board's browser test (it drives
# the chromium above; no browser download). Skipped while node_modules is
# newer than the lock file.
root="$(cd "$(dirname "$0")/.." && pwd)"
for folder in clients/node tests/browser; do
  if [[ ! "$root/$folder/node_modules/.package-lock.json" -nt "$root/$folder/package-lock.json" ]]; then
    echo "setup: npm ci in $folder"
    (cd "$root/$folder" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
