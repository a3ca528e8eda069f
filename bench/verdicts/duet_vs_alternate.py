#!/usr/bin/env python3
"""Duet rounds against alternate order: A/A noise and +3% planted detection, quiet and loaded.

Builds bench/verdicts/work.c twice (the same work, and +3% of it) and, for each round order
("alternate", "duet") and each load (none, then --load busy loops started here, one per core by
default), runs the real binary:

  - A/A: the same build on both sides, --aa-rounds fixed rounds (max_rounds = rounds, so the
    run never stops early), --runs times; the noise is the MAD of the per-round log-ratio of
    CPU time (user + sys, what max_slowdown reads) and of wall time, read from the results
    file's samples; the table prints the median over the runs;
  - +3%: max_slowdown = 1.01, rounds 7..--max-rounds, --runs times: how often the regression is
    shown (exit 1) and the median rounds the run used.

  python3 bench/verdicts/duet_vs_alternate.py --perfengine build/bin/perfengine --runs 10 --load 2

Run by hand (minutes); its figures go in docs/statistics.md ("Duet rounds against alternate").
Duet rounds need at least two cores; Bulej et al., "Duet Benchmarking", ICPE 2020.
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
sys.path.insert(0, HERE)
from aa_suite import pair_mad  # noqa: E402  (the per-round log-ratio's MAD, in percent)

SPEC = """
[run]
rounds = {rounds}
max_rounds = {max_rounds}
warmup_rounds = 1
seed = {seed}
order = "{order}"
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
"""


def build(out_dir, extra, iterations):
    exe = os.path.join(out_dir, f"work{extra:+d}")
    subprocess.run(["cc", "-O2", f"-DEXTRA_PERCENT={extra}", f"-DITERATIONS={iterations}ULL",
                    os.path.join(HERE, "work.c"), "-o", exe], check=True)
    return exe


def run_once(perfengine, text, work_dir, tag):
    spec = os.path.join(work_dir, f"spec-{tag}.toml")
    results = os.path.join(work_dir, f"results-{tag}.json")
    with open(spec, "w") as f:
        f.write(text)
    p = subprocess.run([perfengine, "run", spec, "--json", results, "--quiet"], capture_output=True, text=True)
    if p.returncode == 2:
        sys.stderr.write(p.stdout + p.stderr)
        return p.returncode, None, None, None
    with open(results) as f:
        data = json.load(f)
    work = next(w for w in data["workloads"] if w["name"] == "work")
    rounds = len({s["round"] for s in work["samples"] if not s.get("warmup") and not s.get("rss_only")})
    return (p.returncode, rounds, pair_mad(work, lambda s: s["user_s"] + s["sys_s"]),
            pair_mad(work, lambda s: s["wall_s"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--load", type=int, default=os.cpu_count(), help="busy loops in the loaded half")
    ap.add_argument("--iterations", type=int, default=12000000)
    ap.add_argument("--aa-rounds", type=int, default=15)
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--bar", type=float, default=1.01)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pe-duet-")
    shutil.copy2(os.path.abspath(args.perfengine), os.path.join(work, "perfengine"))
    perfengine = os.path.join(work, "perfengine")
    builds = {e: build(work, e, args.iterations) for e in (0, 3)}
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]))
    print(f"{args.runs} runs per row; A/A {args.aa_rounds} rounds; +3% at max_slowdown {args.bar}, rounds "
          f"7..{args.max_rounds}; {os.cpu_count()} cores")
    print(f"{'order':<10} {'load':>5} {'A/A CPU MAD':>12} {'A/A wall MAD':>13} {'+3% shown':>10} "
          f"{'+3% rounds median':>18}")
    for load in (0, args.load):
        loaders = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(load)]
        try:
            for order in ("alternate", "duet"):
                cpu_mads, wall_mads, shown, rounds = [], [], 0, []
                for r in range(args.runs):
                    aa = SPEC.format(rounds=args.aa_rounds, max_rounds=args.aa_rounds, seed=2000 + r, order=order,
                                     baseline=builds[0], candidate=builds[0], bar=args.bar)
                    code, _, cpu, wall = run_once(perfengine, aa, work, f"aa-{order}-{load}-{r}")
                    if cpu is not None:
                        cpu_mads.append(cpu)
                        wall_mads.append(wall)
                    planted = SPEC.format(rounds=7, max_rounds=args.max_rounds, seed=3000 + r, order=order,
                                          baseline=builds[0], candidate=builds[3], bar=args.bar)
                    code, used, _, _ = run_once(perfengine, planted, work, f"p3-{order}-{load}-{r}")
                    shown += code == 1
                    if used is not None:
                        rounds.append(used)
                cpu_text = f"{statistics.median(cpu_mads):.2f}%" if cpu_mads else "-"
                wall_text = f"{statistics.median(wall_mads):.2f}%" if wall_mads else "-"
                print(f"{order:<10} {load:>5} {cpu_text:>12} {wall_text:>13} {shown:>4} of {args.runs:<3} "
                      f"{statistics.median(rounds) if rounds else '-':>18}", flush=True)
        finally:
            for l in loaders:
                l.kill()
                l.wait()
    with open("/proc/loadavg") as f:
        print("load average at end:", " ".join(f.read().split()[:3]))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
