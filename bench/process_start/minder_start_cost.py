#!/usr/bin/env python3
"""What starting a minder costs perfengine-spawner on this machine (issue 27): fork() against
clone(CLONE_VM), in a static C program as small as the spawner (minder_start_cost.c, built here
with `cc -O2 -static`). Run by hand:

    bench/process_start/minder_start_cost.py [--starts 2000] [--repeat 5]

Prints, per repeat and as medians, the call alone (until fork or clone returns in the parent)
and the round trip (start; the new process writes a few pages, as a minder does; exit; reap),
in microseconds per start, and the ratio fork / clone. The spawner forks each minder; a spawner
whose minders were clone(CLONE_VM) was built, measured and reverted (docs/reducing-variance.md,
"A minder that shares the spawner's memory").
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", type=int, default=2000, help="starts per way and repeat")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pe-minder-cost-") as work:
        program = os.path.join(work, "minder_start_cost")
        built = subprocess.run(["cc", "-O2", "-static", "-o", program, os.path.join(HERE, "minder_start_cost.c")],
                               capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit(f"minder_start_cost: cc failed: {built.stderr.strip()}")
        print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}")
        print(f"{'repeat':<7} {'fork call':>10} {'fork trip':>10} {'clone call':>11} {'clone trip':>11}  (us per start)")
        rows = []
        for r in range(args.repeat):
            out = subprocess.run([program, str(args.starts)], check=True, capture_output=True, text=True).stdout
            row = [float(x) for x in out.split()]
            rows.append(row)
            print(f"{r + 1:<7} {row[0]:>10.1f} {row[1]:>10.1f} {row[2]:>11.1f} {row[3]:>11.1f}")
        med = [statistics.median(col) for col in zip(*rows)]
        print(f"{'median':<7} {med[0]:>10.1f} {med[1]:>10.1f} {med[2]:>11.1f} {med[3]:>11.1f}")
        print(f"fork / clone(CLONE_VM): call {med[0] / med[2]:.2f}x, round trip {med[1] / med[3]:.2f}x; "
              f"saved per start: call {med[0] - med[2]:.0f} us, round trip {med[1] - med[3]:.0f} us")


if __name__ == "__main__":
    main()
