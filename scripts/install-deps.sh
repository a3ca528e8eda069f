#!/usr/bin/env bash
# Installs every Debian 12 package perfengine needs to build, test and run its specs.
# Idempotent: apt-get skips what is already installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git pkg-config
  clang-format          # scripts/check-format.sh (run by .ci/run): changed lines follow .clang-format
  libtomlplusplus-dev   # spec parsing with source positions
  libboost-dev libboost-filesystem-dev  # Boost.Process (children; it needs Boost.Filesystem), Asio/Beast (serve)
  libeigen3-dev         # scaling fits in stats/
  libfmt-dev            # output formatting
  nlohmann-json3-dev    # results files (the result model written out)
  libcli11-dev          # command line, --help on every subcommand
  libprotobuf-dev protobuf-compiler  # streamed_proto fixtures and the reference contender
  bazel-bootstrap-source  # Bazel's own src/main/protobuf/build.proto, compiled by proto/ at build time
  bazel-bootstrap       # real Bazel 4.2.3: the differential test checks fixtures and hashing against it
  libssl-dev            # SHA-256 for fixture digests and the reference contender
  libmimalloc-dev       # the reference contender's fast build
  libsqlite3-dev        # the history of runs (run --record, perfengine history): one file, safe with parallel CI writers
  libgtest-dev libgmock-dev  # unit and end-to-end tests
  python3 python3-scipy python3-protobuf  # independent reference values and decoders in tests
  python3-jsonschema    # every results file the e2e tests write is validated against docs/results.schema.json
  valgrind              # instruction counts where perf counters are not available
  wrk                   # bench_http_client's peer: the rate the engine's HTTP client is held to
  hyperfine             # bench/process_start: the process-start cost perfengine is held to (hyperfine -N)
  zstd lz4              # tests/e2e/newuser: a new user's gzip/zstd/lz4 comparison with three contenders
  chromium fonts-dejavu-core  # the HTML report's test renders the page headless (tests/e2e/html)
)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
