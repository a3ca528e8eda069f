#!/usr/bin/env python3
"""perfengine against `hyperfine -N`, side by side in one run, on commands so short that the
harness's own cost shows: /bin/true and a ~20 ms command (sleep 0.02). Run by hand:

    bench/process_start/bench_process_start.py [--perfengine build/bin/perfengine] [--runs 60]

It prints, per command, each tool's median wall time and their ratio, and each tool's total wall
time per measured execution (elapsed time of the whole tool run / executions it measured) and
that ratio. Goals (issue 12): medians within 5% of hyperfine's; perfengine's wall per measured
execution at most 1.2x hyperfine's. Exit status 0 when both hold, 1 when not, 2 when it could
not run. perfengine also measures each contender's start-up command (`--version`) and runs
each once for parity; hyperfine is given the same `--version` commands so both tools measure
the same executions, and perfengine's extra parity runs count against it.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TRUE = "/bin/true"
SLEEP = shutil.which("sleep") or "/usr/bin/sleep"


def spec_text(runs, warmup):
    return f"""description = "process start cost: /bin/true and a 20 ms command"
[run]
rounds = {runs}
warmup_rounds = {warmup}
order = "alternate"

[contenders.baseline]
description = "/bin/true"
argv = ["{TRUE}"]

[contenders.candidate]
description = "sleep 0.02"
argv = ["{SLEEP}", "0.02"]

[workloads.run]
description = "the command itself"
args = []
"""


def run_perfengine(perfengine, runs, warmup, work):
    spec = os.path.join(work, "process_start.toml")
    with open(spec, "w") as f:
        f.write(spec_text(runs, warmup))
    results = os.path.join(work, "perfengine.json")
    start = time.monotonic()
    done = subprocess.run([perfengine, "run", spec, "--json", results],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - start
    if done.returncode not in (0, 1):
        sys.exit(f"perfengine run failed ({done.returncode}): {done.stderr}")
    with open(results) as f:
        data = json.load(f)
    medians = {}
    measured = 0
    for workload in data["workloads"]:
        for summary in workload.get("summaries", []):
            medians[(workload["name"], summary["contender"])] = summary["median_wall_s"]
            measured += summary["n"]
    return medians, measured, elapsed


def run_hyperfine(runs, warmup, work):
    results = os.path.join(work, "hyperfine.json")
    commands = [TRUE, f"{TRUE} --version", f"{SLEEP} 0.02", f"{SLEEP} --version"]
    start = time.monotonic()
    subprocess.run(["hyperfine", "-N", "--style", "none", "--runs", str(runs), "--warmup", str(warmup),
                    "--export-json", results, *commands],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.monotonic() - start
    with open(results) as f:
        data = json.load(f)
    medians = {r["command"]: statistics.median(r["times"]) for r in data["results"]}
    measured = sum(len(r["times"]) for r in data["results"])
    return medians, measured, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--perfengine", default=os.path.join(here, "..", "..", "build", "bin", "perfengine"))
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        print("hyperfine not found (scripts/install-deps.sh installs it)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pe-bench-start-") as work:
        # Interleaved: hyperfine, perfengine, hyperfine, so a load change during the run shows
        # up as disagreement between the two hyperfine passes.
        h1 = run_hyperfine(args.runs, args.warmup, work)
        p = run_perfengine(os.path.abspath(args.perfengine), args.runs, args.warmup, work)
        h2 = run_hyperfine(args.runs, args.warmup, work)
    pe_medians, pe_measured, pe_elapsed = p
    hf_medians = {c: statistics.median([h1[0][c], h2[0][c]]) for c in h1[0]}
    hf_measured = h1[1]
    hf_elapsed = (h1[2] + h2[2]) / 2
    ok = True
    print(f"{'command':<22}{'perfengine':>12}{'hyperfine -N':>14}{'ratio':>8}")
    for label, key, command in [("/bin/true", ("run", "baseline"), TRUE),
                                ("sleep 0.02", ("run", "candidate"), f"{SLEEP} 0.02")]:
        pe, hf = pe_medians[key], hf_medians[command]
        ratio = pe / hf
        ok &= abs(ratio - 1) <= 0.05
        print(f"{label + ' median':<22}{pe * 1e3:>10.3f}ms{hf * 1e3:>12.3f}ms{ratio:>8.3f}")
    pe_per = pe_elapsed / pe_measured
    hf_per = hf_elapsed / hf_measured
    ratio = pe_per / hf_per
    ok &= ratio <= 1.2
    print(f"{'wall per measured run':<22}{pe_per * 1e3:>10.3f}ms{hf_per * 1e3:>12.3f}ms{ratio:>8.3f}")
    print(f"(perfengine: {pe_elapsed:.2f} s for {pe_measured} measured runs; "
          f"hyperfine: {h1[2]:.2f} s and {h2[2]:.2f} s for {hf_measured})")
    print("goals met" if ok else "goals NOT met: medians within 5%, wall per run <= 1.2x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
