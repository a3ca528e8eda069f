#!/usr/bin/env bash
# Configures and builds perfengine, its reference contenders, tests and benchmarks in ./build.
# Release-level optimisation with debug info: the reference contenders are measured.
#
# Then a second, smaller build in ./build-sanitize with AddressSanitizer and
# UndefinedBehaviorSanitizer (PERFENGINE_SANITIZE): the unit tests of the spec parser, the
# results model and stats, and the three fuzz targets. ctest's `sanitize.unit_and_fuzz` test
# runs them. -O0 -g1 compiles it 3-4x faster than -O1 -g (line tables are enough for the
# sanitizers' reports), so CI can afford it. PERFENGINE_SANITIZE_BUILD=0 skips it (that test
# then reports itself skipped).
#
# Both are unity builds (CMAKE_UNITY_BUILD: each target's sources compiled a few to a file), which
# parse the shared headers once per batch instead of once per source file; see CONTRIBUTING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j "$(nproc)"
if [ "${PERFENGINE_SANITIZE_BUILD:-1}" != 0 ]; then
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_UNITY_BUILD=ON \
    -DPERFENGINE_SANITIZE=ON -DPERFENGINE_BUILD_BENCH=OFF >/dev/null
  cmake --build build-sanitize -j "$(nproc)" --target spec_test model_test stats_test fuzz_spec_parser fuzz_results_reader \
    fuzz_counters_parser
fi
