#!/usr/bin/env bash
# Configures and builds perfengine, its reference contenders, tests and benchmarks in ./build.
# Release-level optimisation with debug info: the reference contenders are measured.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
