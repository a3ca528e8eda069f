#!/usr/bin/env python3
"""The engine's own peak RSS on a spec, against the bar docs/reducing-variance.md states.

Runs `perfengine run SPEC [ARGS...]` and reads its ru_maxrss from wait4. That figure is the
engine's and that of every descendant it reaped (the spawner, minders, contenders), so it is an
upper bound on the engine's own; a contender that holds more than the bar makes it meaningless,
which the output says. tests/e2e/footprint/ checks the bar on a spec built to stress it.

  python3 bench/engine_rss/engine_rss.py --perfengine build/bin/perfengine specs/bazel-diff.toml
"""
import argparse
import os
import subprocess
import sys
import time

BAR_MIB = 64


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("spec")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="more arguments for perfengine run")
    args = ap.parse_args()
    start = time.monotonic()
    with open(os.devnull, "w") as devnull:
        child = subprocess.Popen([args.perfengine, "run", args.spec] + args.args, stdout=devnull)
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    mib = usage.ru_maxrss / 1024
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{args.spec}: exit {code}, {seconds:.0f} s, load average {load}")
    print(f"peak RSS of the engine and the descendants it reaped: {usage.ru_maxrss} KiB ({mib:.1f} MiB); "
          f"bar {BAR_MIB} MiB: {'under' if mib < BAR_MIB else 'OVER (or a contender held more)'}")
    return 0 if mib < BAR_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
