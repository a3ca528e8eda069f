#!/usr/bin/env bash
# Installs every Debian 12 package perfengine needs to build, test and run its specs.
# Idempotent: apt-get skips what is already installed.
# --build-only: just what building perfengine and its Debian package needs (a CI job that builds
# the tool, docs/ci.md): no Bazel, Chromium, SciPy or test tools.
set -euo pipefail
build_packages=(
  build-essential cmake ninja-build git pkg-config
  dpkg-dev file         # cpack's Debian package: dpkg-shlibdeps derives its Depends, file finds the ELF files
  libtomlplusplus-dev   # spec parsing with source positions
  libboost-dev libboost-filesystem-dev  # Boost.Process (children; it needs Boost.Filesystem), Asio/Beast (serve)
  libeigen3-dev         # scaling fits in stats/
  libfmt-dev            # output formatting
  nlohmann-json3-dev    # results files (the result model written out)
  libcli11-dev          # command line, --help on every subcommand
  libprotobuf-dev protobuf-compiler  # streamed_proto fixtures and the reference contender
  bazel-bootstrap-source  # Bazel's own src/main/protobuf/build.proto, compiled by proto/ at build time
  libssl-dev            # SHA-256 for fixture digests and the reference contender
  libmimalloc-dev       # the reference contender's fast build
  libsqlite3-dev        # the history of runs (run --record, perfengine history): one file, safe with parallel CI writers
)
test_packages=(
  clang-format          # scripts/check-format.sh (run by .ci/run): changed lines follow .clang-format
  bazel-bootstrap       # real Bazel 4.2.3: the differential test checks fixtures and hashing against it
  libgtest-dev libgmock-dev  # unit and end-to-end tests
  python3 python3-scipy python3-protobuf  # independent reference values and decoders in tests
  python3-yaml shellcheck  # tests/package/: action.yml and the docs' YAML parsed, the action's scripts linted
  python3-jsonschema    # every results file the e2e tests write is validated against docs/results.schema.json
  ruby ruby-dev         # specs/ruby-json.toml: its benchmarks (specs/ruby-json/bench.rb) and the git builds of ruby/json (ruby extconf.rb && make)
  lld                   # specs/ruby-json-worker.toml: its builds link each extension in eight code layouts (--shuffle-sections)
  valgrind              # instruction counts where perf counters are not available
  libbenchmark-dev      # tests of perfengine-gbench-worker and bench/gbench: google/benchmark suites (1.7.1) it drives
  ruby ruby-dev         # tests/e2e/shared_objects: a Ruby C extension built from git, gated on Ruby object counts
  wrk                   # bench_http_client's peer: the rate the engine's HTTP client is held to
  hyperfine             # bench/process_start: the process-start cost perfengine is held to (hyperfine -N)
  zstd lz4              # tests/e2e/newuser: a new user's gzip/zstd/lz4 comparison with three contenders
  chromium fonts-dejavu-core  # the HTML report's test renders the page headless (tests/e2e/html)
)
packages=("${build_packages[@]}")
case "${1:-}" in
  --build-only) ;;
  "") packages+=("${test_packages[@]}") ;;
  *) echo "usage: $0 [--build-only]" >&2; exit 2 ;;
esac
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
