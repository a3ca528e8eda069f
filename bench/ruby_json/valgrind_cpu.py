#!/usr/bin/env python3
"""CPU time of the valgrind runs of one perfengine run (docs/ruby-json.md, "The time the suite takes").

    bench/ruby_json/valgrind_cpu.py PID OUT

PID is a running `perfengine run`. Until it exits, every 0.2 s this walks its process tree
(/proc/PID/task/PID/children) and keeps, per valgrind or callgrind_annotate process, the last
user + system CPU time read from /proc/P/stat; it rewrites OUT with the count and the total of
each kind. A process's CPU time after its last reading is missed (at most 0.2 s of wall time
each). perfengine records no per-phase CPU time itself; this is how the instruction counts'
share of a run's CPU was measured.
"""
import os
import sys
import time


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, out = int(sys.argv[1]), sys.argv[2]
    tick = os.sysconf("SC_CLK_TCK")
    seen = {}
    while os.path.exists(f"/proc/{root}"):
        stack = [root]
        while stack:
            pid = stack.pop()
            stack += children(pid)
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{pid}/cmdline") as f:
                    cmd = f.read()
            except OSError:
                continue
            if "valgrind" in cmd or "callgrind_annotate" in cmd:
                fields = stat.rsplit(")", 1)[1].split()  # utime and stime are fields 14 and 15
                kind = "annotate" if "callgrind_annotate" in cmd else "callgrind"
                seen[pid] = (kind, (int(fields[11]) + int(fields[12])) / tick)
        time.sleep(0.2)
        with open(out, "w") as f:
            for kind in ("callgrind", "annotate"):
                cpu = [v[1] for v in seen.values() if v[0] == kind]
                f.write(f"{kind}: {len(cpu)} processes, {sum(cpu):.1f} s CPU\n")


if __name__ == "__main__":
    main()
