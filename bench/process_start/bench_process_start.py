#!/usr/bin/env python3
"""perfengine against `hyperfine -N`, side by side in one run, on commands so short that the
harness's own cost shows: /bin/true and a ~20 ms command (sleep 0.02). Run by hand:

    bench/process_start/bench_process_start.py [--perfengine build/bin/perfengine] [--runs 60] [--repeat 9]

It prints, per command, each tool's median wall time and their ratio, and each tool's total wall
time per measured execution (elapsed time of the whole tool run / executions it measured) and
that ratio. Goals (issue 12): medians within 5% of hyperfine's; perfengine's wall per measured
execution at most 1.2x hyperfine's. With --blocks it also shows the /bin/true blocks' wall per
execution alone, where the harness's own cost is largest; that figure is not judged. Exit
status 0 when both hold, 1 when not, 2 when it could not run. perfengine also measures each
contender's start-up command (`--version`) and runs each once for parity; hyperfine is given
the same `--version` commands so both tools measure the same executions, and perfengine's extra
parity runs count against it.
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


def spec_text(runs, warmup, baseline, candidate):
    return f"""description = "process start cost: /bin/true and a 20 ms command"
[run]
rounds = {runs}
warmup_rounds = {warmup}
order = "alternate"

[contenders.baseline]
description = "{' '.join(baseline)}"
argv = {json.dumps(baseline)}

[contenders.candidate]
description = "{' '.join(candidate)}"
argv = {json.dumps(candidate)}

[workloads.run]
description = "the command itself"
args = []
"""


def run_perfengine(perfengine, runs, warmup, work, baseline=(TRUE,), candidate=(SLEEP, "0.02")):
    spec = os.path.join(work, "process_start.toml")
    with open(spec, "w") as f:
        f.write(spec_text(runs, warmup, list(baseline), list(candidate)))
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


def run_hyperfine(runs, warmup, work, commands=None):
    results = os.path.join(work, "hyperfine.json")
    commands = commands or [TRUE, f"{TRUE} --version", f"{SLEEP} 0.02", f"{SLEEP} --version"]
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


def triple_of(perfengine, args, work, command, hyperfine_commands):
    """One command timed hyperfine, perfengine, hyperfine, back to back: perfengine runs it on
    both sides (so 4 executions a round with the --version start-up), hyperfine runs the command
    and its --version."""
    h1 = run_hyperfine(args.runs, args.warmup, work, hyperfine_commands)
    p = run_perfengine(perfengine, args.runs, args.warmup, work, command, command)
    h2 = run_hyperfine(args.runs, args.warmup, work, hyperfine_commands)
    return p, h1, h2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--perfengine", default=os.path.join(here, "..", "..", "build", "bin", "perfengine"))
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure this many hyperfine-perfengine-hyperfine triples and judge the median ratios: "
                             "on a shared VM one triple's ratio moves by 20%% from run to run")
    parser.add_argument("--blocks", action="store_true",
                        help="time each command in a perfengine run of its own (the same command on both sides), "
                             "as hyperfine times each command in a block; by default perfengine alternates /bin/true "
                             "with sleep 0.02 round by round, so /bin/true often starts on a CPU that just idled")
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        print("hyperfine not found (scripts/install-deps.sh installs it)", file=sys.stderr)
        return 2
    rows = {"/bin/true median": [], "sleep 0.02 median": [], "wall per measured run": []}
    if args.blocks:
        rows["/bin/true wall per run"] = []
    print(f"{'triple':<8}{'command':<24}{'perfengine':>12}{'hyperfine -N':>14}{'ratio':>8}")
    for triple in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="pe-bench-start-") as work:
            perfengine = os.path.abspath(args.perfengine)
            # Interleaved: hyperfine, perfengine, hyperfine, so a load change during the run shows
            # up as disagreement between the two hyperfine passes. With --blocks each command's
            # triple runs back to back, seconds apart, rather than either side of the other's.
            if args.blocks:
                true = triple_of(perfengine, args, work, (TRUE,), [TRUE, f"{TRUE} --version"])
                sleep = triple_of(perfengine, args, work, (SLEEP, "0.02"), [f"{SLEEP} 0.02", f"{SLEEP} --version"])
                p = ({("run", "baseline"): true[0][0][("run", "baseline")],
                      ("run", "candidate"): sleep[0][0][("run", "baseline")]},
                     true[0][1] + sleep[0][1], true[0][2] + sleep[0][2])
                h1 = ({**true[1][0], **sleep[1][0]}, true[1][1] + sleep[1][1], true[1][2] + sleep[1][2])
                h2 = ({**true[2][0], **sleep[2][0]}, true[2][1] + sleep[2][1], true[2][2] + sleep[2][2])
            else:
                h1 = run_hyperfine(args.runs, args.warmup, work)
                p = run_perfengine(perfengine, args.runs, args.warmup, work)
                h2 = run_hyperfine(args.runs, args.warmup, work)
        pe_medians, pe_measured, pe_elapsed = p
        hf_medians = {c: statistics.median([h1[0][c], h2[0][c]]) for c in h1[0]}
        figures = [("/bin/true median", pe_medians[("run", "baseline")], hf_medians[TRUE]),
                   ("sleep 0.02 median", pe_medians[("run", "candidate")], hf_medians[f"{SLEEP} 0.02"]),
                   ("wall per measured run", pe_elapsed / pe_measured, (h1[2] + h2[2]) / 2 / h1[1])]
        if args.blocks:
            # The /bin/true blocks alone: 4 executions a round in both tools (2 sides x the
            # command and its --version), so their ratio is the harness's own cost per start.
            hf_true = (true[1][2] + true[2][2]) / 2 / true[1][1]
            figures.append(("/bin/true wall per run", true[0][2] / true[0][1], hf_true))
        for label, pe, hf in figures:
            rows[label].append(pe / hf)
            print(f"{triple + 1:<8}{label:<24}{pe * 1e3:>10.3f}ms{hf * 1e3:>12.3f}ms{pe / hf:>8.3f}")
    ok = True
    print(f"median ratio over {args.repeat} triple(s) (lowest to highest):")
    for label, ratios in rows.items():
        median = statistics.median(ratios)
        # Issue 12's goals are for the benchmark as a whole; /bin/true's blocks alone are shown,
        # not judged, as the harsher figure.
        judged = label != "/bin/true wall per run"
        if judged:
            ok &= median <= 1.2 if "wall" in label else abs(median - 1) <= 0.05
        print(f"  {label:<24}{median:>8.3f}  ({min(ratios):.3f} to {max(ratios):.3f})"
              f"{'' if judged else '  (shown, not judged)'}")
    print("goals met" if ok else "goals NOT met: medians within 5%, wall per run <= 1.2x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
