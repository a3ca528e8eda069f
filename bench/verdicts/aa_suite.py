#!/usr/bin/env python3
"""An A/A suite of many workloads x 2 gated measures, family-wise against per-check, and a
planted +3% in one workload of it (issue 23, "Proof").

The suite: bench/verdicts/work.c built once, --workloads workloads (default 30) running it at
distinct sizes (ITERATIONS argv), each gated on two measures: `max_slowdown` (CPU time from
wait4) and the noisy counter `loop_us` (the loop's own CPU time, which work.c reports through
$PERFENGINE_COUNTERS; docs/counters.md), both at --bar. The same binary is baseline and
candidate. In the planted scenario the candidate gets WORK_EXTRA="w15:3" (work.c's patch-free
knob): 3% more work in that one workload, nothing else changed.

Levels. The family is every gated sequential check of the suite (m = 2 x workloads). The runs
stop at the family-wise level: with --family-by spec (today's gate, the default) the spec's
`confidence` is the union-bound level 1 - (1 - c)/m per check (what stats::PerCheckConfidence
gives); with --family-by gate (a gate that applies the family level itself) the spec says c and
the level the checks were judged at is read back from the results file (each check's
interval.level) and printed, so the table says which level it shows. The per-check column is the
same runs replayed round by round at c: for k = rounds..n, the results file cut to its first k
measured rounds is judged again by `perfengine report` (explain::Rejudged: every figure from the
samples), and each workload keeps the verdict of the first k at which all its checks resolved,
as today's gate stopping at c would have. A per-check gate stops no later than the family one
(its sequences are nested inside), so the replay has every round that gate would have seen.

  python3 bench/verdicts/aa_suite.py --perfengine build/bin/perfengine --runs 50
  python3 bench/verdicts/aa_suite.py --runs 50 --load       # alternate and duet, two busy loops

--load starts one busy loop per core for the whole harness (killed at the end, and by the
kernel if the harness dies: PR_SET_PDEATHSIG) and runs every scenario in alternate order and in
duet rounds, side by side. Run by hand (it takes long: up to workloads x 2 x max_rounds
executions per run); figures and their dates go in bench/verdicts/README.md.
"""
import argparse
import copy
import ctypes
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PR_SET_PDEATHSIG = 1


def build_work(out_dir):
    exe = os.path.join(out_dir, "work")
    subprocess.run(["cc", "-O2", os.path.join(HERE, "work.c"), "-o", exe], check=True)
    return exe


def workload_names(count):
    return [f"w{i + 1:02d}" for i in range(count)]


def suite_spec(args, work, order, seed, level, plant):
    lines = [
        "[run]",
        f"rounds = {args.rounds}",
        f"max_rounds = {args.max_rounds}",
        "warmup_rounds = 1",
        f"seed = {seed}",
        f'order = "{order}"',
        "bootstrap_resamples = 100",  # no check here reads a bootstrap interval
        'baseline = "baseline"',
        'candidate = "candidate"',
        "[contenders.baseline]",
        f'argv = ["{work}"]',
        "[contenders.candidate]",
        f'argv = ["{work}"]',
    ]
    if plant:
        lines.append(f'env = {{ WORK_EXTRA = "{plant}" }}')
    lines += ["[counters.loop_us]", 'unit = "us"', "exact = false"]
    for i, name in enumerate(workload_names(args.workloads)):
        lines += [f"[workloads.{name}]", f'args = ["{args.min_iterations + i * args.step}", "{name}"]']
    lines += ["[thresholds]", f"max_slowdown = {args.bar}", f"confidence = {level:.10g}",
              f"counters = {{ loop_us = {args.bar} }}"]
    return "\n".join(lines) + "\n"


def gated_checks(results):
    """workload -> its gated checks (those with a bar in force), from a results file."""
    out = {}
    for c in results["verdict"]["checks"]:
        if c.get("skipped"):
            continue
        out.setdefault(c["workload"], []).append(c)
    return out


def levels_of(results):
    return sorted({c["interval"]["level"] for c in results["verdict"]["checks"] if c.get("interval")})


def measured_rounds(workload):
    return sorted({s["round"] for s in workload["samples"] if not s.get("warmup") and not s.get("rss_only")})


def cut_to(results, k, confidence):
    """The results file with only its first k measured rounds (per workload), every
    workload's checks at `confidence`."""
    out = copy.deepcopy(results)
    for w in out["workloads"]:
        keep = set(measured_rounds(w)[:k])
        w["samples"] = [s for s in w["samples"] if s.get("warmup") or s.get("rss_only") or s["round"] in keep]
        w["thresholds"]["confidence"] = confidence
    return out


def rejudge(perfengine, results, work_dir):
    src = os.path.join(work_dir, "cut.json")
    dst = os.path.join(work_dir, "cut-judged.json")
    with open(src, "w") as f:
        json.dump(results, f)
    p = subprocess.run([perfengine, "report", src, "--json", dst], capture_output=True, text=True)
    if p.returncode == 2 or not os.path.exists(dst):
        raise RuntimeError(f"perfengine report failed: {p.stderr.strip()}")
    with open(dst) as f:
        data = json.load(f)
    os.unlink(dst)
    return data


def replay_per_check(perfengine, results, confidence, first_round, work_dir):
    """Each gated workload's verdict under a gate at `confidence` per check that looks after
    every round and stops the workload at its first round with every check resolved:
    workload -> (failed, rounds used), and the levels the replay's checks were judged at."""
    gated = {w["name"]: w for w in results["workloads"] if w.get("gate", True) and not w.get("startup")}
    longest = max(len(measured_rounds(w)) for w in gated.values())
    verdicts, levels = {}, set()
    for k in range(first_round, longest + 1):
        open_names = [n for n in gated if n not in verdicts]
        if not open_names:
            break
        judged = gated_checks(rejudge(perfengine, cut_to(results, k, confidence), work_dir))
        for name in open_names:
            checks = judged.get(name, [])
            levels.update(c["interval"]["level"] for c in checks if c.get("interval"))
            last = k >= len(measured_rounds(gated[name]))
            if last or all(c["state"] != "unresolved" for c in checks):
                verdicts[name] = (any(c["state"] == "fail" for c in checks), min(k, len(measured_rounds(gated[name]))))
    return verdicts, sorted(levels)


def run_once(perfengine, text, work_dir, tag):
    spec = os.path.join(work_dir, f"spec-{tag}.toml")
    results = os.path.join(work_dir, f"results-{tag}.json")
    with open(spec, "w") as f:
        f.write(text)
    p = subprocess.run([perfengine, "run", spec, "--json", results, "--quiet"], capture_output=True, text=True)
    if p.returncode == 2 or not os.path.exists(results):
        sys.stderr.write(f"run {tag} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
        return None
    with open(results) as f:
        return json.load(f)


def start_load(count):
    def die_with_parent():
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=die_with_parent)
            for _ in range(count)]


def stop_load(loaders):
    for p in loaders:
        p.kill()
    for p in loaders:
        p.wait()


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pct(count, total):
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "-"


def median_text(values):
    return f"{statistics.median(values):g}" if values else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--runs", type=int, default=50, help="runs per scenario and order (R)")
    ap.add_argument("--workloads", type=int, default=30)
    ap.add_argument("--min-iterations", type=int, default=1000000, help="work.c's size for w01")
    ap.add_argument("--step", type=int, default=100000, help="each next workload does this many more")
    ap.add_argument("--bar", type=float, default=1.01, help="max_slowdown and the loop_us counter's bar")
    ap.add_argument("--confidence", type=float, default=0.95, help="the run's family-wise confidence c")
    ap.add_argument("--rounds", type=int, default=7, help="rounds before the run may stop")
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--planted", type=int, default=3, help="percent more work planted in one workload")
    ap.add_argument("--planted-workload", default="w15")
    ap.add_argument("--scenarios", default="aa,planted", help="comma-separated: aa, planted")
    ap.add_argument("--family-by", choices=("spec", "gate"), default="spec",
                    help="spec: the union-bound level written into the spec; gate: the gate applies it")
    ap.add_argument("--load", action="store_true", help="one busy loop per core; alternate and duet side by side")
    ap.add_argument("--keep", action="store_true", help="keep the specs and results files")
    args = ap.parse_args()
    if args.planted_workload not in workload_names(args.workloads):
        sys.exit(f"aa_suite: --planted-workload {args.planted_workload} is not one of w01..w{args.workloads:02d}")
    # SIGTERM unwinds like Ctrl-C, so the busy loops are killed on every way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    work_dir = tempfile.mkdtemp(prefix="pe-aa-suite-")
    # A copy, so a rebuild while the trials run cannot swap the binary under them.
    perfengine = os.path.join(work_dir, "perfengine")
    shutil.copy2(os.path.abspath(args.perfengine), perfengine)
    work = build_work(work_dir)
    family = 2 * args.workloads
    per_check = args.confidence
    union_level = 1 - (1 - args.confidence) / family
    spec_level = union_level if args.family_by == "spec" else args.confidence
    orders = ("alternate", "duet") if args.load else ("alternate",)
    scenarios = [s for s in args.scenarios.split(",") if s]
    loaders = start_load(os.cpu_count()) if args.load else []
    print(f"aa_suite: {time.strftime('%Y-%m-%d %H:%M %Z')}; load average at start {loadavg()}; "
          f"{os.cpu_count()} cores; {'%d busy loops (one per core)' % len(loaders) if loaders else 'no busy loops'}")
    print(f"{args.workloads} workloads x 2 gated measures (max_slowdown on CPU, counter loop_us), bar {args.bar}, "
          f"rounds {args.rounds}..{args.max_rounds}; {args.runs} runs per row; family m = {family}: "
          f"{100 * args.confidence:g}% for the run = {100 * union_level:.4g}% per check (union bound); "
          f"per-check gate {100 * per_check:g}%; planted +{args.planted}% in {args.planted_workload}")
    rows = []
    try:
        for order in orders:
            for scenario in scenarios:
                plant = f"{args.planted_workload}:{args.planted}" if scenario == "planted" else ""
                started = time.time()
                fam_any, pc_any, fam_hit, pc_hit, fam_rounds, pc_rounds, runs = 0, 0, 0, 0, [], [], 0
                fam_levels, pc_levels = set(), set()
                for r in range(args.runs):
                    tag = f"{scenario}-{order}-{r}"
                    results = run_once(perfengine,
                                       suite_spec(args, work, order, 5000 + r, spec_level, plant), work_dir, tag)
                    if results is None:
                        continue
                    runs += 1
                    fam_levels.update(levels_of(results))
                    checks = gated_checks(results)
                    failed = {n for n, cs in checks.items() if any(c["state"] == "fail" for c in cs)}
                    replay, levels = replay_per_check(perfengine, results, per_check, args.rounds, work_dir)
                    pc_levels.update(levels)
                    pc_failed = {n for n, (f, _) in replay.items() if f}
                    if scenario == "aa":
                        fam_any += bool(failed)
                        pc_any += bool(pc_failed)
                    else:
                        others = failed - {args.planted_workload}
                        fam_any += bool(others)
                        pc_any += bool(pc_failed - {args.planted_workload})
                        fam_hit += args.planted_workload in failed
                        pc_hit += args.planted_workload in pc_failed
                        w = next(w for w in results["workloads"] if w["name"] == args.planted_workload)
                        if w.get("comparison"):
                            fam_rounds.append(w["comparison"]["rounds"])
                        if args.planted_workload in replay:
                            pc_rounds.append(replay[args.planted_workload][1])
                    if not args.keep:
                        for suffix in ("toml", "json"):
                            os.unlink(os.path.join(work_dir, f"{'spec' if suffix == 'toml' else 'results'}-{tag}."
                                                             f"{suffix}"))
                    planted_rounds = (f"; {args.planted_workload} rounds {fam_rounds[-1] if fam_rounds else '-'} "
                                      f"(per-check {pc_rounds[-1] if pc_rounds else '-'})" if plant else "")
                    print(f"  {order} {scenario} run {r + 1}/{args.runs}: exit {results['verdict']['exit']}, "
                          f"failed {sorted(failed) or '-'} (per-check replay: {sorted(pc_failed) or '-'})"
                          f"{planted_rounds}; {(time.time() - started) / 60:.1f} min; load {loadavg()}", flush=True)
                rows.append((order, scenario, runs, fam_any, pc_any, fam_hit, pc_hit, fam_rounds, pc_rounds,
                             sorted(fam_levels), sorted(pc_levels), (time.time() - started) / 60))
                print_table(rows)
    finally:
        stop_load(loaders)
    print(f"\nload average at end {loadavg()}")
    print_table(rows)
    if args.keep:
        print(f"specs and results kept in {work_dir}")
    else:
        shutil.rmtree(work_dir, ignore_errors=True)


def print_table(rows):
    print(f"\n{'order':<10} {'scenario':<9} {'runs':>5} {'level read':>12} {'any false alarm':>16} "
          f"{'planted caught':>15} {'median rounds':>14} {'minutes':>8}")
    for (order, scenario, runs, fam_any, pc_any, fam_hit, pc_hit, fam_rounds, pc_rounds, fam_levels, pc_levels,
         minutes) in rows:
        def level_text(levels):
            return ",".join(f"{100 * l:.4g}%" for l in levels) or "-"

        planted = scenario == "planted"
        print(f"{order:<10} {scenario:<9} {runs:>5} {level_text(fam_levels):>12} {pct(fam_any, runs):>16} "
              f"{pct(fam_hit, runs) if planted else '-':>15} {median_text(fam_rounds) if planted else '-':>14} "
              f"{minutes:>8.1f}   family-wise (the runs)")
        print(f"{'':<10} {'':<9} {'':>5} {level_text(pc_levels):>12} {pct(pc_any, runs):>16} "
              f"{pct(pc_hit, runs) if planted else '-':>15} {median_text(pc_rounds) if planted else '-':>14} "
              f"{'':>8}   per-check (replayed on the same rounds)")
    print("\nany false alarm: runs with a failed check on a workload that changed nothing (in the planted "
          "scenario: on any other workload); planted caught: runs whose planted workload failed a check", flush=True)


if __name__ == "__main__":
    main()
