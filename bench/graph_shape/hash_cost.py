#!/usr/bin/env python3
"""What the calibrated graph shape costs bazel-diff per target: generate-hashes over the uniform
and the calibrated fixture of the same size, side by side, in one run.

Generates two bazel_workspace fixtures with `perfengine generate` (TARGETS targets each, the
flagship's seed; the calibrated one with shape = "calibrated"), then runs each contender's
`generate-hashes -w {fixture}/workspace -b {fixture}/bazel OUT` on both, alternating the order
round by round, and prints the median wall time per target for each shape and their ratio
(calibrated over uniform). The stream bytes per target are printed too: a calibrated rule carries
more attributes (Starlark rules list every default), selects and external labels.

  bench/graph_shape/hash_cost.py [--targets 24000] [--rounds 7] [--perfengine build/bin/perfengine]
      [--contender build/bin/bazel-diff-ref-baseline] [--contender build/bin/bazel-diff-ref-candidate]

Timings are wall-clock of whole processes (start-up included), so compare the ratio, never the
absolute figures, and only within one run.
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import tempfile
import time

SPEC = """\
description = "bench/graph_shape/hash_cost.py: the uniform and the calibrated shape at one size"

[run]
seed = 20261202

[workloads.uniform]
args = ["{{fixture}}"]
fixture = {{ generator = "bazel_workspace", targets = {targets}, fan_in = 4 }}

[workloads.calibrated]
args = ["{{fixture}}"]
fixture = {{ generator = "bazel_workspace", targets = {targets}, fan_in = 4, shape = "calibrated" }}
"""


def run_once(contender, fixture, out):
    start = time.monotonic()
    subprocess.run([contender, "generate-hashes", "-w", os.path.join(fixture, "workspace"), "-b",
                    os.path.join(fixture, "bazel"), out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", type=int, default=24000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--contender", action="append")
    args = ap.parse_args()
    contenders = args.contender or ["build/bin/bazel-diff-ref-baseline", "build/bin/bazel-diff-ref-candidate"]
    tmp = tempfile.mkdtemp(prefix="hash-cost-")
    try:
        spec = os.path.join(tmp, "shapes.toml")
        with open(spec, "w") as f:
            f.write(SPEC.format(targets=args.targets))
        fixtures = os.path.join(tmp, "fixtures")
        subprocess.run([args.perfengine, "generate", spec, "--out", fixtures], check=True, stdout=subprocess.DEVNULL)
        shapes = ["uniform", "calibrated"]
        out = os.path.join(tmp, "hashes.json")
        print("bench/graph_shape/hash_cost.py, %s, %d targets, %d rounds (+1 warm-up), load %s" %
              (datetime.date.today().isoformat(), args.targets, args.rounds,
               " ".join("%.2f" % x for x in os.getloadavg())))
        for shape in shapes:
            size = os.path.getsize(os.path.join(fixtures, shape, "query.pb"))
            print("  %-10s query.pb %d bytes, %.0f bytes per target" % (shape, size, size / args.targets))
        for contender in contenders:
            times = {shape: [] for shape in shapes}
            for shape in shapes:
                run_once(contender, os.path.join(fixtures, shape), out)  # warm-up
            for r in range(args.rounds):
                order = shapes if r % 2 == 0 else shapes[::-1]
                for shape in order:
                    times[shape].append(run_once(contender, os.path.join(fixtures, shape), out))
            med = {shape: statistics.median(times[shape]) for shape in shapes}
            per = {shape: med[shape] / args.targets * 1e6 for shape in shapes}
            print("%s: uniform %.2f us/target (median %.3f s), calibrated %.2f us/target (median %.3f s): "
                  "calibrated/uniform %.2fx" % (os.path.basename(contender), per["uniform"], med["uniform"],
                                                per["calibrated"], med["calibrated"],
                                                med["calibrated"] / med["uniform"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
