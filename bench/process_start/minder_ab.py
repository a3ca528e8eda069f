#!/usr/bin/env python3
"""A/B of two perfengine builds' process start (issue 27, "Nothing between executions"): does a
spawner change make per-round CPU time noisier, or a planted regression harder to catch?

Each build is a directory holding `perfengine` and `perfengine-spawner` (the spawner beside the
engine is the one it uses; PERFENGINE_SPAWNER is set to it as well). Both builds run the same
trials, interleaved (old, new, new, old, ...), so a change in the machine's load reaches both:

- A/A: bench/verdicts/work.c on both sides, a fixed number of rounds (no early stop). Noise is
  the MAD (median absolute deviation, unscaled) of the per-round log-ratio of CPU time
  (user + sys from wait4) of the two sides, in percent; lower is quieter.
- /bin/true: both sides, --true-rounds rounds; the whole run's wall time per measured
  execution (elapsed / executions, the startup workload's included), i.e. what the harness costs
  per start. Printed per trial as new / old, since both ran seconds apart.
- planted: the candidate does --planted percent more of the same work (work.c's WORK_EXTRA knob),
  gated with max_slowdown = --bar at per_check_confidence --confidence, rounds --rounds up to
  --max-rounds. Detection is exit 1 (the regression named); the rounds the run needed are shown.

Also the whole-run wall time per measured execution of each A/A run (the harness's own cost
beside the work), as a ratio new / old.

  bench/process_start/minder_ab.py --old build-old/bin --new build/bin --trials 10 [--load 2]

Run by hand; figures go in docs/reducing-variance.md with the date.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK_C = os.path.join(HERE, "..", "verdicts", "work.c")

SPEC = """description = "minder A/B: {what}"
[run]
rounds = {rounds}
max_rounds = {max_rounds}
warmup_rounds = 1
seed = {seed}
order = "alternate"
baseline = "baseline"
candidate = "candidate"
[contenders.baseline]
argv = ["{work}", "{iterations}", "w"]
[contenders.candidate]
argv = ["{work}", "{iterations}", "w"]
env = {{ WORK_EXTRA = "w:{planted}" }}
[workloads.work]
args = []
[thresholds]
max_slowdown = {bar}
per_check_confidence = {confidence}
"""


TRUE_SPEC = """description = "minder A/B: /bin/true"
[run]
rounds = {rounds}
warmup_rounds = 3
order = "alternate"
[contenders.baseline]
argv = ["/bin/true"]
[contenders.candidate]
argv = ["/bin/true"]
[workloads.run]
args = []
"""


def run(build, spec_text, work_dir, name):
    spec = os.path.join(work_dir, f"{name}.toml")
    results = os.path.join(work_dir, f"{name}.json")
    with open(spec, "w") as f:
        f.write(spec_text)
    env = dict(os.environ, PERFENGINE_SPAWNER=os.path.join(build, "perfengine-spawner"))
    start = time.monotonic()
    p = subprocess.run([os.path.join(build, "perfengine"), "run", spec, "--json", results, "--quiet"],
                       capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - start
    if p.returncode == 2:
        sys.exit(f"perfengine failed:\n{p.stdout}{p.stderr}")
    with open(results) as f:
        data = json.load(f)
    workload = next(w for w in data["workloads"] if w["name"] in ("work", "run"))
    cpu = {}
    executions = 0
    for w in data["workloads"]:
        executions += sum(1 for s in w.get("samples", []) if not s.get("rss_only"))
    for s in workload["samples"]:
        if s.get("warmup") or s.get("rss_only"):
            continue
        cpu.setdefault(s["round"], {})[s["contender"]] = s["user_s"] + s["sys_s"]
    ratios = [math.log(r["candidate"] / r["baseline"]) for r in cpu.values()
              if r.get("baseline", 0) > 0 and r.get("candidate", 0) > 0]
    return p.returncode, ratios, len(cpu), elapsed / max(executions, 1)


def mad(values):
    m = statistics.median(values)
    return statistics.median(abs(v - m) for v in values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="directory with the old perfengine and perfengine-spawner")
    ap.add_argument("--new", required=True, help="directory with the new perfengine and perfengine-spawner")
    ap.add_argument("--trials", type=int, default=10, help="A/A and planted runs per build")
    ap.add_argument("--iterations", type=int, default=3000000, help="work.c's loop count (about 1 ns each)")
    ap.add_argument("--aa-rounds", type=int, default=30)
    ap.add_argument("--true-rounds", type=int, default=60)
    ap.add_argument("--planted", type=int, default=3, help="percent more work for the planted candidate")
    ap.add_argument("--bar", type=float, default=1.01)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--load", type=int, default=0, help="busy loops to run meanwhile")
    args = ap.parse_args()
    builds = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    for label, build in builds.items():
        for program in ("perfengine", "perfengine-spawner"):
            if not os.access(os.path.join(build, program), os.X_OK):
                print(f"{label}: {program} not found in {build}", file=sys.stderr)
                return 2
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]), f"({os.cpu_count()} cores)")
    loaders = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(args.load)]
    aa = {k: [] for k in builds}          # per run: MAD of the per-round CPU log-ratio
    wall = {k: [] for k in builds}        # per run: whole-run wall per measured execution
    caught = {k: 0 for k in builds}
    rounds_used = {k: [] for k in builds}
    true_wall = {k: [] for k in builds}   # per run: /bin/true, whole-run wall per measured execution
    try:
        with tempfile.TemporaryDirectory(prefix="pe-minder-ab-") as work_dir:
            work = os.path.join(work_dir, "work")
            subprocess.run(["cc", "-O2", WORK_C, "-o", work], check=True)
            for trial in range(args.trials):
                order = ["old", "new"] if trial % 2 == 0 else ["new", "old"]
                for label in order:
                    common = dict(work=work, iterations=args.iterations, seed=1000 + trial, bar=args.bar,
                                  confidence=args.confidence)
                    text = SPEC.format(what="A/A", rounds=args.aa_rounds, max_rounds=args.aa_rounds, planted=0,
                                       **common)
                    _, ratios, _, per_exec = run(builds[label], text, work_dir, f"aa-{label}-{trial}")
                    aa[label].append(mad(ratios) * 100)
                    wall[label].append(per_exec)
                    text = SPEC.format(what="planted", rounds=args.rounds, max_rounds=args.max_rounds,
                                       planted=args.planted, **common)
                    code, _, used, _ = run(builds[label], text, work_dir, f"planted-{label}-{trial}")
                    caught[label] += code == 1
                    rounds_used[label].append(used)
                    _, _, _, true_per_exec = run(builds[label], TRUE_SPEC.format(rounds=args.true_rounds), work_dir,
                                                 f"true-{label}-{trial}")
                    true_wall[label].append(true_per_exec)
                    print(f"trial {trial + 1} {label}: A/A MAD {aa[label][-1]:.3f}%, wall/execution "
                          f"{per_exec * 1e3:.3f} ms; planted +{args.planted}%: exit {code} after {used} rounds; "
                          f"/bin/true wall/execution {true_per_exec * 1e3:.3f} ms", flush=True)
    finally:
        for loader in loaders:
            loader.kill()
        with open("/proc/loadavg") as f:
            print("load average at end:", " ".join(f.read().split()[:3]))
    print(f"\n{args.trials} trials per build; work.c {args.iterations} iterations; A/A {args.aa_rounds} rounds; "
          f"planted +{args.planted}% at max_slowdown {args.bar}, rounds {args.rounds}..{args.max_rounds}; "
          f"{args.load} busy loops")
    print(f"{'build':<6}{'A/A MAD median':>16}{'(range)':>20}{'caught':>10}{'rounds median':>15}"
          f"{'wall/exec median':>18}")
    for label in builds:
        print(f"{label:<6}{statistics.median(aa[label]):>15.3f}%"
              f"{f'({min(aa[label]):.3f}-{max(aa[label]):.3f})':>20}"
              f"{f'{caught[label]}/{args.trials}':>10}{statistics.median(rounds_used[label]):>15}"
              f"{statistics.median(wall[label]) * 1e3:>16.3f}ms")
    true_ratios = sorted(n / o for n, o in zip(true_wall["new"], true_wall["old"]))
    print(f"/bin/true wall per measured execution, new / old per trial: median {statistics.median(true_ratios):.3f} "
          f"({true_ratios[0]:.3f} to {true_ratios[-1]:.3f}); old {statistics.median(true_wall['old']) * 1e3:.3f} ms, "
          f"new {statistics.median(true_wall['new']) * 1e3:.3f} ms")
    print(f"new / old: A/A MAD {statistics.median(aa['new']) / statistics.median(aa['old']):.3f}, "
          f"wall per execution {statistics.median(wall['new']) / statistics.median(wall['old']):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
