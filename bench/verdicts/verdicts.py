#!/usr/bin/env python3
"""Verdicts under repetition: planted regressions and A/A pairs through the real binary.

Builds bench/verdicts/work.c several ways (the same work, and +1%, +3%, +10% of it; and a
build doing 20% less, a true speed-up), writes one spec per scenario and runs
`perfengine run` on each many times, then reports how often each gate said what:
false-alarm rates for A/A pairs (the same binary on both sides) and detection rates for
planted changes, with the median rounds the adaptive run used. Optionally loads the
machine with busy loops (--load N) to see the same on a saturated runner.

  python3 bench/verdicts/verdicts.py --perfengine build/bin/perfengine --runs 50 [--load 2] [--final-look]

Run by hand (it takes minutes); its figures go in docs/statistics.md.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

NO_REGRESSION = """
[run]
rounds = {rounds}
max_rounds = {max_rounds}
warmup_rounds = 1
seed = {seed}
{final_look}
baseline = "baseline"
candidate = "candidate"
[contenders.baseline]
argv = ["{baseline}"]
[contenders.candidate]
argv = ["{candidate}"]
[workloads.work]
args = []
[thresholds]
max_slowdown = {bar}
per_check_confidence = {confidence}
"""

SPEEDUP = """
[run]
rounds = {rounds}
max_rounds = {max_rounds}
warmup_rounds = 1
seed = {seed}
baseline = "baseline"
candidate = "candidate"
[contenders.baseline]
argv = ["{baseline}"]
[contenders.candidate]
argv = ["{candidate}"]
[workloads.work]
args = []
[thresholds]
min_speedup = 1.0
min_win_rate = 0.5
per_check_confidence = {confidence}
"""


def build(out_dir, extra, iterations):
    exe = os.path.join(out_dir, f"work{extra:+d}")
    subprocess.run(["cc", "-O2", f"-DEXTRA_PERCENT={extra}", f"-DITERATIONS={iterations}ULL",
                    os.path.join(HERE, "work.c"), "-o", exe], check=True)
    return exe


def run_once(perfengine, spec_text, work_dir, index):
    spec = os.path.join(work_dir, f"spec{index}.toml")
    results = os.path.join(work_dir, f"results{index}.json")
    with open(spec, "w") as f:
        f.write(spec_text)
    p = subprocess.run([perfengine, "run", spec, "--json", results], capture_output=True, text=True)
    rounds = None
    try:
        with open(results) as f:
            data = json.load(f)
        for w in data["workloads"]:
            if w["name"] == "work" and "comparison" in w:
                rounds = w["comparison"]["rounds"]
    except (OSError, ValueError, KeyError):
        pass
    if p.returncode == 2:
        sys.stderr.write(p.stdout + p.stderr)
    return p.returncode, rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--load", type=int, default=0, help="busy loops to run meanwhile")
    ap.add_argument("--iterations", type=int, default=12000000)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--bar", type=float, default=1.01, help="max_slowdown for the no-regression gate")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--final-look", action="store_true",
                    help='[run] final_look = "signed-rank" in the no-regression specs (docs/statistics.md)')
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]))
    perfengine = os.path.abspath(args.perfengine)

    work = tempfile.mkdtemp(prefix="pe-verdicts-")
    # A copy, so a rebuild while the trials run cannot swap the binary under them.
    shutil.copy2(perfengine, os.path.join(work, "perfengine"))
    perfengine = os.path.join(work, "perfengine")
    builds = {e: build(work, e, args.iterations) for e in (0, 1, 3, 10, -20)}
    # name, template, candidate build, what a correct gate says (exit code)
    scenarios = [
        ("A/A no-regression", NO_REGRESSION, 0, 0),
        ("+1% no-regression", NO_REGRESSION, 1, None),
        ("+3% no-regression", NO_REGRESSION, 3, 1),
        ("+10% no-regression", NO_REGRESSION, 10, 1),
        ("A/A speed-up claim", SPEEDUP, 0, 3),  # unresolved: exit 3 (docs/exit-codes.md)
        ("-20% speed-up claim", SPEEDUP, -20, 0),
    ]
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s[0] in wanted]
    loaders = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.load)]
    try:
        print(f"{args.runs} runs per scenario; rounds {args.rounds}..{args.max_rounds}; "
              f"confidence {args.confidence}; max_slowdown {args.bar}; "
              f"final look {'signed-rank' if args.final_look else 'none'}; load {args.load} busy loops; "
              f"{os.cpu_count()} cores")
        print(f"{'scenario':<22} {'pass':>5} {'fail(1)':>8} {'error(2)':>9} {'unres(3)':>9} {'right':>7} "
              f"{'right <=15 rounds':>18} {'before cap':>11} {'rounds median':>14} {'rounds p90':>11} "
              f"{'rounds max':>11}")
        for i, (name, template, extra, expected) in enumerate(scenarios):
            codes, rounds, right_early = [], [], 0
            for r in range(args.runs):
                text = template.format(rounds=args.rounds, max_rounds=args.max_rounds, seed=1000 + r,
                                       baseline=builds[0], candidate=builds[extra], bar=args.bar,
                                       confidence=args.confidence,
                                       final_look='final_look = "signed-rank"' if args.final_look else "")
                code, used = run_once(perfengine, text, work, f"{i}-{r}")
                codes.append(code)
                if used is not None:
                    rounds.append(used)
                if code == expected and used is not None and used <= 15:
                    right_early += 1
            right = "-" if expected is None else f"{sum(c == expected for c in codes) / len(codes):.0%}"
            early = "-" if expected is None else f"{right_early / len(codes):.0%}"
            p90 = sorted(rounds)[max(0, int(0.9 * len(rounds)) - 1)] if rounds else "-"
            # Resolved before the cap: the run stopped adding rounds because every check resolved.
            before_cap = f"{sum(r < args.max_rounds for r in rounds) / len(codes):.0%}"
            print(f"{name:<22} {codes.count(0):>5} {codes.count(1):>8} {codes.count(2):>9} {codes.count(3):>9} "
                  f"{right:>7} {early:>18} {before_cap:>11} {statistics.median(rounds) if rounds else '-':>14} {p90:>11} "
                  f"{max(rounds) if rounds else '-':>11}", flush=True)
    finally:
        for l in loaders:
            l.kill()
        with open("/proc/loadavg") as f:
            print("load average at end:", " ".join(f.read().split()[:3]))


if __name__ == "__main__":
    main()
