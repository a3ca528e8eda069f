#!/usr/bin/env python3
"""The flagship spec run repeatedly: as shipped (the rewrite against the original), and as an
A/A pair (the original on both sides, via --contender candidate=...). A verdict to believe
passes the first every time and never passes the second.

  python3 bench/verdicts/flagship.py --perfengine build/bin/perfengine --runs 5

Prints each run's exit code, wall time and rounds used per workload, then the tally. Run by
hand on a quiet machine (each run takes minutes); figures go in docs/statistics.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(perfengine, spec, extra, results):
    start = time.monotonic()
    p = subprocess.run([perfengine, "run", spec, "--json", results] + extra, capture_output=True, text=True)
    seconds = time.monotonic() - start
    rounds = {}
    try:
        with open(results) as f:
            for w in json.load(f)["workloads"]:
                if "comparison" in w:
                    rounds[w["name"]] = w["comparison"].get("rounds")
    except (OSError, ValueError, KeyError):
        pass
    failed = [line.strip() for line in p.stdout.splitlines() if "FAIL" in line or "not shown" in line]
    with open(results[:-len(".json")] + ".txt", "w") as f:  # the report as printed
        f.write(p.stdout)
    return p.returncode, seconds, rounds, failed, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfengine", default=os.path.join(ROOT, "build/bin/perfengine"))
    ap.add_argument("--spec", default=os.path.join(ROOT, "specs/bazel-diff.toml"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", choices=["shipped", "aa"], default=None)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pe-flagship-")
    # A copy, so a rebuild while the trials run cannot swap the binary under them; the helpers
    # it starts (the spawner, the replay bazel shim) are found next to it.
    perfengine = os.path.join(work, "perfengine")
    for name in ("perfengine", "perfengine-spawner", "perfengine-bazel-shim"):
        shutil.copy2(os.path.join(os.path.dirname(os.path.abspath(args.perfengine)), name), os.path.join(work, name))
    baseline = os.path.join(ROOT, "build/bin/bazel-diff-ref-baseline")
    scenarios = [("shipped", [], 0), ("aa", ["--contender", "candidate=" + baseline], None)]
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]), flush=True)
    for name, extra, want in scenarios:
        if args.only and name != args.only:
            continue
        codes = []
        for r in range(args.runs):
            code, seconds, rounds, failed, err = run(perfengine, args.spec, extra,
                                                     os.path.join(work, f"{name}{r}.json"))
            codes.append(code)
            print(f"{name} run {r + 1}: exit {code}, {seconds:.0f} s, rounds {rounds}", flush=True)
            for line in failed[:4]:
                print("    " + line)
            if code == 2:
                print("    " + err.strip().splitlines()[-1] if err.strip() else "")
        passes = codes.count(0)
        verdict = f"passed {passes} of {len(codes)}"
        print(f"reports and results files in {work}")
        print(f"{name}: {verdict}" + (" (must pass every time)" if want == 0 else " (must never pass)"), flush=True)
    with open("/proc/loadavg") as f:
        print("load average at end:", " ".join(f.read().split()[:3]))


if __name__ == "__main__":
    main()
