#!/bin/bash
# What Ruby's start-up costs each process of specs/ruby-json.toml, natively and under valgrind
# (docs/ruby-json.md, "The time the suite takes"):
#
#   bench/ruby_json/startup_cost.sh WORKTREE
#
# WORKTREE is a ruby/json worktree built as the spec builds it (pe-lib/json/ext/*.so), e.g. the
# one perfengine left in its cache directory. Prints, for `require 'json'` with the libraries
# bench.rb loads: the best of 7 native CPU times, and the CPU time (user + sys) and instruction
# count of one run under callgrind (as perfengine counts), cachegrind without cache or branch
# simulation, and valgrind's --tool=none (translation alone), with the load average.
set -euo pipefail
wt=${1:?usage: startup_cost.sh WORKTREE}
cd "$wt"
req="require 'json'; require 'digest'; require 'date'; require 'stringio'"
ruby=(ruby --disable-gems -Ipe-lib -Ilib -e "$req")
best=
for _ in 1 2 3 4 5 6 7; do
  ms=$( { /usr/bin/time -f "%U %S" "${ruby[@]}"; } 2>&1 | awk '{printf "%d", ($1 + $2) * 1000}')
  if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
done
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
echo "native: ${best} ms CPU (best of 7)"
for tool in callgrind cachegrind none; do
  dir=$(mktemp -d)
  case $tool in
    callgrind) opts=(--dump-before=fork "--callgrind-out-file=$dir/out") ;;
    cachegrind) opts=(--cache-sim=no --branch-sim=no "--cachegrind-out-file=$dir/out") ;;
    none) opts=() ;;
  esac
  cpu=$( { /usr/bin/time -f "%U %S" valgrind --tool=$tool --trace-children=yes "${opts[@]}" \
           "--log-file=$dir/log" "${ruby[@]}"; } 2>&1 | awk '{printf "%.2f", $1 + $2}')
  ir=$(grep -hE '^(totals|summary):' "$dir"/out 2>/dev/null | head -1 | awk '{print $2}' || true)
  printf "%-10s %5s s CPU%s\n" "$tool" "$cpu" "${ir:+, $ir instructions}"
  rm -rf "$dir"
done
