#!/usr/bin/env bash
# A clean build of everything scripts/build.sh puts in build/, timed as a unity build and file
# by file, one after the other on this machine (CONTRIBUTING.md, "unity builds"). Run by hand:
#   bench/build_time/unity_build_time.sh [JOBS]      (JOBS defaults to nproc)
# Each build goes into a fresh directory under $TMPDIR, removed at the end. Prints each build's
# wall and CPU (user + sys, /usr/bin/time) and unity / file-by-file for both.
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs="${1:-$(nproc)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in ON OFF; do
  cmake -S . -B "$work/$mode" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=$mode >/dev/null
  /usr/bin/time -f "%e %U %S" -o "$work/$mode.time" cmake --build "$work/$mode" -j "$jobs" >/dev/null
  awk -v mode="$mode" '{ printf "unity %-3s  wall %7.1f s  CPU %7.1f s\n", mode, $1, $2 + $3 }' "$work/$mode.time"
  rm -rf "${work:?}/$mode"
done
awk 'NR == 1 { w = $1; c = $2 + $3 } NR == 2 { printf "unity / file by file: wall %.2f, CPU %.2f\n", w / $1, c / ($2 + $3) }' \
  "$work/ON.time" "$work/OFF.time"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
