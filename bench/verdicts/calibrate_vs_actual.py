#!/usr/bin/env python3
"""`perfengine calibrate`'s predicted rounds to a verdict against the rounds real runs used.

Per scenario: `perfengine calibrate SPEC --rounds N --assume-change P --json` (an A/A run of the
baseline; P is the scenario's true change, 0 for A/A), then --runs real runs of the same spec
with `perfengine run`. A run stops a workload once all its checks resolve, so the round at which
each check resolved is found by replaying the run: the results file cut to its first k measured
rounds is judged again by `perfengine report` (every figure from the samples) for k = rounds..n,
and a check's actual rounds are the first k at which it was resolved (pass or fail); one still
open when the run ended counts as "open at n". The table prints, per check, calibrate's
prediction (rounds_at_assumed; "never": no number of rounds) beside the median and range of the
actual rounds and the verdicts.

Default spec: bench/verdicts/work.c (the planted program) on one workload, gated on
max_slowdown (CPU time), the noisy counter loop_us it reports, and min_win_rate; scenarios A/A
(the same binary on both sides) and +3% (WORK_EXTRA plants 3% more work in the candidate).
With --spec FILE the spec is used as it is (one scenario: its own candidate, --assume-change as
given, e.g. the flagship with 0).

  python3 bench/verdicts/calibrate_vs_actual.py --perfengine build/bin/perfengine --runs 10
  python3 bench/verdicts/calibrate_vs_actual.py --spec specs/bazel-diff.toml --runs 3

Run by hand; figures and their dates go in bench/verdicts/README.md.
"""
import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from aa_suite import build_work, loadavg, measured_rounds, rejudge, run_once, run_spec  # noqa: E402

rejudge.cpu_s = 0.0  # aa_suite's rejudge adds the CPU time of each report it runs here

SPEC = """
[run]
rounds = {rounds}
max_rounds = {max_rounds}
warmup_rounds = 1
seed = {seed}
bootstrap_resamples = 100
baseline = "baseline"
candidate = "candidate"
[contenders.baseline]
argv = ["{work}"]
[contenders.candidate]
argv = ["{work}"]
{candidate_env}
[counters.loop_us]
unit = "us"
exact = false
[workloads.work]
args = ["{iterations}", "work"]
[thresholds]
max_slowdown = {bar}
min_win_rate = 0.5
counters = {{ loop_us = {bar} }}
"""


def calibrate(perfengine, spec, rounds, change, work_dir, tag):
    out = os.path.join(work_dir, f"calibration-{tag}.json")
    p = subprocess.run([perfengine, "calibrate", spec, "--rounds", str(rounds), f"--assume-change={change}",
                        f"--json={out}"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"calibrate failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
    with open(out) as f:
        return json.load(f), p.stdout


def resolution_rounds(perfengine, results, work_dir):
    """(workload, threshold) -> (first k at which it was resolved, its state then) or
    (n, "open") when the run ended with it unresolved."""
    confidence = {w["name"]: w["thresholds"]["confidence"] for w in results["workloads"]}
    gated = [w for w in results["workloads"] if w.get("gate", True) and not w.get("startup")]
    first = results["settings"].get("rounds") or 1
    longest = max(len(measured_rounds(w)) for w in gated)
    out = {}
    for k in range(first, longest + 1):
        judged = rejudge(perfengine, cut_to_own_levels(results, k, confidence), work_dir)
        for c in judged["verdict"]["checks"]:
            key = (c["workload"], c["threshold"])
            if key in out or c.get("skipped"):
                continue
            n = len(measured_rounds(next(w for w in gated if w["name"] == c["workload"])))
            if c["state"] != "unresolved":
                out[key] = (min(k, n), c["state"])
            elif k >= n:
                out[key] = (n, "open")
    return out


def cut_to_own_levels(results, k, confidence):
    """The results file with only its first k measured rounds per workload, each workload's
    checks at its own level (confidence: name -> level, as the run judged them)."""
    out = copy.deepcopy(results)
    for w in out["workloads"]:
        keep = set(measured_rounds(w)[:k])
        w["samples"] = [s for s in w["samples"] if s.get("warmup") or s.get("rss_only") or s["round"] in keep]
        w["thresholds"]["confidence"] = confidence[w["name"]]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--spec", help="calibrate and run this spec as it is, instead of the planted program's")
    ap.add_argument("--assume-change", type=float, default=0.0, help="with --spec: the change to predict for, in %%")
    ap.add_argument("--runs", type=int, default=10, help="real runs per scenario")
    ap.add_argument("--calibrate-rounds", type=int, default=30, help="A/A rounds calibrate runs")
    ap.add_argument("--iterations", type=int, default=4000000)
    ap.add_argument("--bar", type=float, default=1.01)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--planted", type=int, default=3)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work_dir = tempfile.mkdtemp(prefix="pe-cal-vs-actual-")
    perfengine = os.path.join(work_dir, "perfengine")
    shutil.copy2(os.path.abspath(args.perfengine), perfengine)
    if args.spec:
        scenarios = [("spec", os.path.abspath(args.spec), args.assume_change)]
    else:
        work = build_work(work_dir)
        scenarios = []
        for name, change, env in (("A/A", 0, ""), (f"+{args.planted}%", args.planted,
                                                    f'env = {{ WORK_EXTRA = "work:{args.planted}" }}')):
            spec = os.path.join(work_dir, f"spec-{len(scenarios)}.toml")
            with open(spec, "w") as f:
                f.write(SPEC.format(rounds=args.rounds, max_rounds=args.max_rounds, seed=7000, work=work,
                                    candidate_env=env, iterations=args.iterations, bar=args.bar))
            scenarios.append((name, spec, change))
    print(f"calibrate_vs_actual: {time.strftime('%Y-%m-%d %H:%M %Z')}; load average at start {loadavg()}; "
          f"{os.cpu_count()} cores; calibrate --rounds {args.calibrate_rounds}; {args.runs} real runs per scenario")
    rows = []
    for name, spec, change in scenarios:
        cal, text = calibrate(perfengine, spec, args.calibrate_rounds, change, work_dir, len(rows))
        print(f"\n== {name}: calibrate --assume-change={change}\n{text}", flush=True)
        actual, measured = {}, {}
        for r in range(args.runs):
            if name == "spec":
                # The user's spec runs where it is: its contenders' relative paths are the
                # spec's own directory's, so a copy elsewhere could not find them.
                results = run_spec(perfengine, spec, work_dir, f"{len(rows)}-{r}")
            else:
                with open(spec) as f:
                    spec_text = f.read()
                results = run_once(perfengine, spec_text.replace("seed = 7000", f"seed = {7000 + r}"), work_dir,
                                   f"{len(rows)}-{r}")
            if results is None:
                continue
            for key, value in resolution_rounds(perfengine, results, work_dir).items():
                actual.setdefault(key, []).append(value)
            for c in results["verdict"]["checks"]:
                if c.get("measured") is not None:
                    measured.setdefault((c["workload"], c["threshold"]), []).append(c["measured"])
            print(f"  {name} run {r + 1}/{args.runs}: exit {results['verdict']['exit']}; load {loadavg()}", flush=True)
        for w in cal["workloads"]:
            for c in w["checks"]:
                got = actual.get((w["name"], c["threshold"]), [])
                rows.append((name, w["name"], c["threshold"], c["bar"], c["rounds_at_assumed"], got,
                             c.get("detectable"), measured.get((w["name"], c["threshold"]))))
    print(f"\nload average at end {loadavg()}\n")
    print(f"{'scenario':<9} {'workload':<30} {'check':<18} {'bar':>6} {'shown at 80%':>12} {'measured':>9} "
          f"{'predicted':>10} {'actual median':>14} {'actual range':>13} verdicts")
    for name, workload, threshold, bar, predicted, got, detectable, seen in rows:
        rounds = [k for k, _ in got]
        states = {}
        for _, state in got:
            states[state] = states.get(state, 0) + 1
        verdicts = ", ".join(f"{s} {n}" for s, n in sorted(states.items())) or "-"
        shown = f"{detectable:.3f}x" if detectable else "-"
        seen_text = f"{statistics.median(seen):.3f}" if seen else "-"
        print(f"{name:<9} {workload:<30} {threshold:<18} {bar:>6g} {shown:>12} {seen_text:>9} "
              f"{predicted if predicted is not None else 'never':>10} "
              f"{statistics.median(rounds) if rounds else '-':>14} "
              f"{f'{min(rounds)}-{max(rounds)}' if rounds else '-':>13} {verdicts}")
    print("\nshown at 80%: the smallest change calibrate says the check shows with 80% power within max_rounds; "
          "measured: the check's figure in the real runs (median); predicted: calibrate's rounds to a verdict at "
          "the scenario's change; actual: the first round at which the check was resolved in each real run (open: "
          "unresolved when the run ended, at its last round)")
    if args.keep:
        print(f"kept in {work_dir}")
    else:
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
