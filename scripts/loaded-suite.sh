#!/usr/bin/env bash
# Runs the whole ctest suite N times on a loaded machine: one busy loop per core (as a shared
# CI runner or a developer's busy laptop would be), so a test that depends on scheduling,
# on time measured between two clocks or on a timeout too tight for a slow machine fails here
# rather than at random in CI. Prints each pass's result and wall time; exits 1 if any failed.
#   scripts/loaded-suite.sh [N] [BUILD_DIR]     (N defaults to 3, BUILD_DIR to build)
# Extra ctest arguments can be given in $CTEST_ARGS (e.g. CTEST_ARGS="-LE real_bazel").
# The busy loops are always stopped, on success, failure or Ctrl-C.
set -uo pipefail
runs="${1:-3}"
build="${2:-build}"
cd "$(dirname "$0")/.." || exit 2
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "loaded-suite: $build is not a configured build directory (run ./scripts/build.sh first)" >&2
  exit 2
fi
cores="$(nproc)"
loops=()
stop_loops() {
  # Only the loops this script started, by their pids.
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${loops[@]}"; do wait "$pid" 2>/dev/null; done
  loops=()
}
trap stop_loops EXIT
trap 'exit 130' INT TERM HUP
for _ in $(seq "$cores"); do
  (while :; do :; done) &
  loops+=("$!")
done
echo "loaded-suite: $cores busy loops (pids ${loops[*]}); $runs runs of ctest -j2 in $build"
failed=0
for i in $(seq "$runs"); do
  log="$build/loaded-suite-$i.log"
  start="$(date +%s)"
  # shellcheck disable=SC2086
  ctest --test-dir "$build" -j2 --output-on-failure ${CTEST_ARGS:-} >"$log" 2>&1
  status=$?
  wall=$(($(date +%s) - start))
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  summary="$(grep -E '^[0-9]+% tests passed' "$log" || echo 'no summary')"
  if [ "$status" -eq 0 ]; then
    echo "run $i: pass in ${wall} s ($summary; load average $load)"
  else
    failed=$((failed + 1))
    echo "run $i: FAIL (ctest exit $status) in ${wall} s ($summary; load average $load); log: $log"
    sed -n '/The following tests FAILED/,$p' "$log"
  fi
done
echo "loaded-suite: $((runs - failed)) of $runs runs passed"
[ "$failed" -eq 0 ]
