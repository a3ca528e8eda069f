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
stop at the family-wise level: the spec's `[run] confidence` is c, and the gate splits it across
the family (engine/spec/family.h: 1 - (1 - c)/m per check); the level each check was judged at is
read back from the results file (each check's interval.level) and printed, so the table says
which level it shows. The per-check column is the same runs replayed round by round at c: every
gated workload cut to its first k measured rounds, for each k from `rounds` to the rounds it
ran, each cut at c, all judged again by one `perfengine report` (explain::Rejudged: every figure
from the samples); each workload keeps the verdict of the first k at which all its checks
resolved, as today's gate stopping at c would have. A per-check gate stops no later than the
family one (its sequences are nested inside), so the replay has every round that gate would
have seen.

Each run prints where its time went: the executions' own wall time (the samples), the rest of
the measuring phase (starting and reaping processes, the engine's work between executions and
rounds), the final analysis (the run's own phase times, results "phases"), and the replay.

  python3 bench/verdicts/aa_suite.py --perfengine build/bin/perfengine --runs 50
  python3 bench/verdicts/aa_suite.py --runs 50 --load       # alternate and duet, two busy loops
  python3 bench/verdicts/aa_suite.py --builds old=OLD/perfengine,new=NEW/perfengine --runs 8 \
      --scenarios planted --planted-iterations 12000000   # an A/B of two builds (issue 27)

--load starts one busy loop per core for the whole harness (killed at the end, and by the
kernel if the harness dies: PR_SET_PDEATHSIG) and runs every scenario in alternate order and in
duet rounds, side by side. Run by hand (it takes long: up to workloads x 2 x max_rounds
executions per run); figures and their dates go in bench/verdicts/README.md.
"""
import argparse
import ctypes
import json
import math
import os
import resource
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
    """work.c linked statically: most of an execution of a 0.35-1 ms loop is starting the
    process, and without the dynamic loader's work it costs about 0.6x the CPU (3.1 ms against
    4.9 ms per start from Python at a load of 12 on 2 cores, 4 December 2026). The same binary
    is on both sides, so nothing compared changes."""
    exe = os.path.join(out_dir, "work")
    subprocess.run(["cc", "-O2", "-static", os.path.join(HERE, "work.c"), "-o", exe], check=True)
    return exe


def workload_names(count):
    return [f"w{i + 1:02d}" for i in range(count)]


def iterations_of(args, i, name):
    """work.c's loop count for workload number i: the suite's ramp, or --planted-iterations for
    the planted workload (in every scenario, so the A/A runs gate it at that size too)."""
    if name == args.planted_workload and args.planted_iterations:
        return args.planted_iterations
    return args.min_iterations + i * args.step


def suite_spec(args, work, order, seed, plant):
    lines = [
        "[run]",
        f"confidence = {args.confidence:g}",
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
        lines += [f"[workloads.{name}]", f'args = ["{iterations_of(args, i, name)}", "{name}"]']
    lines += ["[thresholds]", f"max_slowdown = {args.bar}", f"counters = {{ loop_us = {args.bar} }}"]
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


def cut_batch(results, ks_by_name, confidence):
    """One results file holding, for every gated workload NAME and every k in ks_by_name[NAME],
    a copy of NAME cut to its first k measured rounds, named NAME@k, with its checks at
    `confidence`; the other workloads (the startup workload) as they were. Each workload is
    analysed and judged on its own samples (only min_logic_speedup reads the startup
    workload's, and the suite does not gate it), so one `perfengine report` judges every cut
    of every workload at once, where a file per k cost one engine start, one parse of the
    whole run and one analysis of every workload per round replayed."""
    out = {key: value for key, value in results.items() if key != "workloads"}
    out["workloads"] = []
    for w in results["workloads"]:
        ks = ks_by_name.get(w["name"])
        if ks is None:
            out["workloads"].append(w)
            continue
        order = measured_rounds(w)
        for k in ks:
            keep = set(order[:k])
            # The figures computed from the samples are left out: report computes them again.
            cut = {key: value for key, value in w.items()
                   if key not in ("samples", "thresholds", "name", "comparison", "summaries", "other_comparisons")}
            cut["summaries"], cut["other_comparisons"] = [], []
            cut["name"] = f"{w['name']}@{k}"
            cut["thresholds"] = dict(w["thresholds"], confidence=confidence)
            cut["samples"] = [s for s in w["samples"] if s.get("warmup") or s.get("rss_only") or s["round"] in keep]
            out["workloads"].append(cut)
    return out


def rejudge(perfengine, results, work_dir):
    src = os.path.join(work_dir, "cut.json")
    dst = os.path.join(work_dir, "cut-judged.json")
    with open(src, "w") as f:
        json.dump(results, f, separators=(",", ":"))
    cpu_before = children_cpu_s()
    p = subprocess.run([perfengine, "report", src, "--json", dst], capture_output=True, text=True)
    rejudge.cpu_s += children_cpu_s() - cpu_before
    if p.returncode == 2 or not os.path.exists(dst):
        raise RuntimeError(f"perfengine report failed: {p.stderr.strip()}")
    with open(dst) as f:
        text = f.read()
    os.unlink(dst)
    os.unlink(src)
    # Only the verdict is read: the report's samples are the cuts' own, and parsing them again
    # was most of this script's time. The results file's keys are sorted, "verdict" is a key of
    # the top level only, and every name in these files is the harness's own.
    at = text.find('"verdict":')
    if at < 0:
        return json.loads(text)
    verdict, _ = json.JSONDecoder().raw_decode(text, text.index("{", at))
    return {"verdict": verdict}


def replay_per_check(perfengine, results, confidence, first_round, work_dir, chunk=8):
    """Each gated workload's verdict under a gate at `confidence` per check that looks after
    every round and stops the workload at its first round with every check resolved:
    workload -> (failed, rounds used), and the levels the replay's checks were judged at.
    The cuts go to `perfengine report` `chunk` rounds at a time, each batch holding only the
    workloads still open: a workload resolved at k is never judged again past k (most of the
    replay's cost is the JSON of the cut samples, which grows with the rounds cut)."""
    gated = {w["name"]: w for w in results["workloads"] if w.get("gate", True) and not w.get("startup")}
    ran = {name: len(measured_rounds(w)) for name, w in gated.items()}
    verdicts, levels = {}, set()
    start = first_round
    while len(verdicts) < len(gated):
        ks = {name: [k for k in range(min(start, ran[name]), min(start + chunk, ran[name] + 1))]
              for name in gated if name not in verdicts}
        judged = gated_checks(rejudge(perfengine, cut_batch(results, ks, confidence), work_dir))
        for name, cut_ks in ks.items():
            for k in cut_ks:
                checks = judged.get(f"{name}@{k}", [])
                levels.update(c["interval"]["level"] for c in checks if c.get("interval"))
                if k >= ran[name] or all(c["state"] != "unresolved" for c in checks):
                    verdicts[name] = (any(c["state"] == "fail" for c in checks), k)
                    break
        start += chunk
    return verdicts, sorted(levels)


def time_split(results):
    """Where the run's wall time went (seconds): the executions' own wall time (every sample,
    warm-ups included; parity's executions are in its own phase), the rest of the measuring
    phase (starting and reaping processes, the engine's work between executions and rounds),
    the final analysis, and the whole run."""
    phases = results.get("phases") or {}
    if results["settings"].get("order") == "duet":  # a round's contenders run at once: the longer counts
        longest = {}
        for w in results["workloads"]:
            for s in w["samples"]:
                key = (w["name"], s["round"], s.get("rss_only", False))
                longest[key] = max(longest.get(key, 0.0), s["wall_s"])
        executions = sum(longest.values())
    else:
        executions = sum(s["wall_s"] for w in results["workloads"] for s in w["samples"])
    measuring = phases.get("measuring_s", 0.0)
    return {"executions": executions, "engine": measuring - executions, "analysis": phases.get("analysis_s", 0.0),
            "parity": phases.get("parity_s", 0.0), "total": phases.get("total_s", 0.0)}


def run_once(perfengine, text, work_dir, tag):
    """`perfengine run` on a spec written from `text`; see run_spec."""
    spec = os.path.join(work_dir, f"spec-{tag}.toml")
    with open(spec, "w") as f:
        f.write(text)
    return run_spec(perfengine, spec, work_dir, tag)


def run_spec(perfengine, spec, work_dir, tag):
    """`perfengine run SPEC` on the spec file where it is: its results (with the CPU time the run
    cost, "aa_suite_cpu_s"), or None when the run failed."""
    results = os.path.join(work_dir, f"results-{tag}.json")
    cpu_before = children_cpu_s()
    p = subprocess.run([perfengine, "run", spec, "--json", results, "--quiet"], capture_output=True, text=True)
    if p.returncode == 2 or not os.path.exists(results):
        sys.stderr.write(f"run {tag} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
        return None
    with open(results) as f:
        data = json.load(f)
    data["aa_suite_cpu_s"] = children_cpu_s() - cpu_before
    return data


def children_cpu_s():
    """CPU time (user + system) of this harness's reaped children and theirs: perfengine and
    every process it started. The busy loops count only once reaped, at the end. On a quiet
    machine a run's wall time is about its CPU time (one execution at a time, no other work),
    so this estimates the quiet duration of a run measured on a busy machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pair_mad(workload, value):
    """MAD (unscaled) of the per-round log-ratio candidate/baseline of value(sample), in percent."""
    by_round = {}
    for s in workload["samples"]:
        if not s.get("warmup") and not s.get("rss_only"):
            by_round.setdefault(s["round"], {})[s["contender"]] = s
    logs = [math.log(value(r["candidate"]) / value(r["baseline"])) for r in by_round.values()
            if len(r) == 2 and value(r["candidate"]) > 0 and value(r["baseline"]) > 0]
    if len(logs) < 2:
        return None
    m = statistics.median(logs)
    return 100 * statistics.median(abs(x - m) for x in logs)


def unchanged_cpu_mad(results, planted):
    """The median over the unchanged workloads of each one's per-round CPU-time pair MAD: the
    run's A/A noise, the figure duet rounds are meant to lower."""
    mads = [pair_mad(w, lambda s: s["user_s"] + s["sys_s"]) for w in results["workloads"]
            if w["name"] != planted and w["name"].startswith("w")]
    mads = [m for m in mads if m is not None]
    return statistics.median(mads) if mads else None


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
    ap.add_argument("--builds", default="",
                    help="an A/B of two or more builds instead of --perfengine: NAME=PATH,NAME=PATH (each the "
                         "perfengine binary; the perfengine-spawner beside it is used), interleaved run by run "
                         "in alternating order")
    ap.add_argument("--runs", type=int, default=50, help="runs per scenario and order (R)")
    ap.add_argument("--workloads", type=int, default=30)
    ap.add_argument("--min-iterations", type=int, default=200000, help="work.c's size for w01")
    ap.add_argument("--step", type=int, default=10000, help="each next workload does this many more")
    ap.add_argument("--bar", type=float, default=1.01, help="max_slowdown and the loop_us counter's bar")
    ap.add_argument("--confidence", type=float, default=0.95, help="the run's family-wise confidence c")
    ap.add_argument("--rounds", type=int, default=7, help="rounds before the run may stop")
    ap.add_argument("--max-rounds", type=int, default=60)
    ap.add_argument("--planted", type=int, default=3, help="percent more work planted in one workload")
    ap.add_argument("--planted-workload", default="w15")
    ap.add_argument("--planted-iterations", type=int, default=0,
                    help="the planted workload's size in every scenario (default: its place in the ramp); "
                         "work.c's own default is 12000000")
    ap.add_argument("--scenarios", default="aa,planted", help="comma-separated: aa, planted")
    ap.add_argument("--load", action="store_true", help="one busy loop per core; alternate and duet side by side")
    ap.add_argument("--orders", default="",
                    help="comma-separated rounds orders to run one after another (alternate, duet); "
                         "default alternate, or alternate,duet with --load")
    ap.add_argument("--keep", action="store_true", help="keep the specs and results files")
    ap.add_argument("--write-spec", metavar="FILE",
                    help="only write the A/A suite's spec to FILE (work.c built beside it) and exit: for "
                         "`perfengine calibrate FILE --assume-change 3`")
    args = ap.parse_args()
    if args.planted_workload not in workload_names(args.workloads):
        sys.exit(f"aa_suite: --planted-workload {args.planted_workload} is not one of w01..w{args.workloads:02d}")
    if args.write_spec:
        spec_dir = os.path.dirname(os.path.abspath(args.write_spec))
        with open(args.write_spec, "w") as f:
            f.write(suite_spec(args, build_work(spec_dir), "alternate", 5000, ""))
        return
    # SIGTERM unwinds like Ctrl-C, so the busy loops are killed on every way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    work_dir = tempfile.mkdtemp(prefix="pe-aa-suite-")
    # Copies, so a rebuild while the trials run cannot swap a binary under them; each build's
    # spawner goes beside its engine, where the engine looks first.
    builds = {}
    for name, path in parse_builds(args):
        build_dir = os.path.join(work_dir, "build-" + name)
        os.makedirs(build_dir)
        engine = os.path.abspath(path)
        builds[name] = shutil.copy2(engine, os.path.join(build_dir, "perfengine"))
        spawner = os.path.join(os.path.dirname(engine), "perfengine-spawner")
        if os.path.exists(spawner):
            shutil.copy2(spawner, build_dir)
    work = build_work(work_dir)
    family = 2 * args.workloads
    per_check = args.confidence
    union_level = 1 - (1 - args.confidence) / family  # what the gate's split gives (stats::PerCheckConfidence)
    orders = [o for o in args.orders.split(",") if o] or (["alternate", "duet"] if args.load else ["alternate"])
    scenarios = [s for s in args.scenarios.split(",") if s]
    loaders = start_load(os.cpu_count()) if args.load else []
    print(f"aa_suite: {time.strftime('%Y-%m-%d %H:%M %Z')}; load average at start {loadavg()}; "
          f"{os.cpu_count()} cores; {'%d busy loops (one per core)' % len(loaders) if loaders else 'no busy loops'}")
    print(f"{args.workloads} workloads x 2 gated measures (max_slowdown on CPU, counter loop_us), bar {args.bar}, "
          f"rounds {args.rounds}..{args.max_rounds}; {args.runs} runs per row; family m = {family}: "
          f"{100 * args.confidence:g}% for the run = {100 * union_level:.4g}% per check (union bound); "
          f"per-check gate {100 * per_check:g}%; planted +{args.planted}% in {args.planted_workload} "
          f"({iterations_of(args, workload_names(args.workloads).index(args.planted_workload), args.planted_workload)} "
          f"iterations)")
    # Runs are interleaved: run r of every order and scenario before run r + 1 of any, so a drift
    # in the machine's load reaches every row alike.
    rows = {(build, order, scenario): Row(order, scenario, build if len(builds) > 1 else "")
            for order in orders for scenario in scenarios for build in builds}
    try:
        for r in range(args.runs):
            # The builds' order alternates run by run (A B, B A, ...).
            names = list(builds) if r % 2 == 0 else list(reversed(builds))
            for build, order, scenario in [(b, o, sc) for o in orders for sc in scenarios for b in names]:
                row = rows[(build, order, scenario)]
                perfengine = builds[build]
                plant = f"{args.planted_workload}:{args.planted}" if scenario == "planted" else ""
                started = time.time()
                tag = f"{build}-{scenario}-{order}-{r}"
                results = run_once(perfengine, suite_spec(args, work, order, 5000 + r, plant), work_dir, tag)
                if results is None:
                    continue
                row.runs += 1
                noise = unchanged_cpu_mad(results, args.planted_workload if plant else "")
                if noise is not None:
                    row.noise.append(noise)
                row.fam_levels.update(levels_of(results))
                checks = gated_checks(results)
                failed = {n for n, cs in checks.items() if any(c["state"] == "fail" for c in cs)}
                replay_started, replay_own, rejudge.cpu_s = time.time(), time.process_time(), 0.0
                replay, levels = replay_per_check(perfengine, results, per_check, args.rounds, work_dir)
                replay_s, replay_own = time.time() - replay_started, time.process_time() - replay_own
                split = time_split(results)
                row.pc_levels.update(levels)
                pc_failed = {n for n, (f, _) in replay.items() if f}
                if scenario == "aa":
                    row.fam_any += bool(failed)
                    row.pc_any += bool(pc_failed)
                else:
                    row.fam_any += bool(failed - {args.planted_workload})
                    row.pc_any += bool(pc_failed - {args.planted_workload})
                    row.fam_hit += args.planted_workload in failed
                    row.pc_hit += args.planted_workload in pc_failed
                    w = next(w for w in results["workloads"] if w["name"] == args.planted_workload)
                    if w.get("comparison"):
                        row.fam_rounds.append(w["comparison"]["rounds"])
                    if args.planted_workload in replay:
                        row.pc_rounds.append(replay[args.planted_workload][1])
                if not args.keep:
                    for suffix in ("toml", "json"):
                        os.unlink(os.path.join(work_dir, f"{'spec' if suffix == 'toml' else 'results'}-{tag}."
                                                         f"{suffix}"))
                row.minutes += (time.time() - started) / 60
                planted_rounds = (f"; {args.planted_workload} rounds {row.fam_rounds[-1] if row.fam_rounds else '-'} "
                                  f"(per-check {row.pc_rounds[-1] if row.pc_rounds else '-'})" if plant else "")
                print(f"  {row.build + ' ' if row.build else ''}{order} {scenario} run {r + 1}/{args.runs}: exit {results['verdict']['exit']}, "
                      f"failed {sorted(failed) or '-'} (per-check replay: {sorted(pc_failed) or '-'})"
                      f"{planted_rounds}; A/A CPU MAD {f'{noise:.2f}%' if noise is not None else '-'}; "
                      f"{row.minutes:.1f} min; load {loadavg()}", flush=True)
                print(f"    time: run {split['total']:.1f} s (executions {split['executions']:.1f} s, the rest of "
                      f"measuring {split['engine']:.1f} s, parity {split['parity']:.1f} s, analysis "
                      f"{split['analysis']:.2f} s; CPU {results['aa_suite_cpu_s']:.1f} s); per-check replay "
                      f"{replay_s:.1f} s (CPU: perfengine report {rejudge.cpu_s:.1f} s, this script {replay_own:.1f} s); "
                      f"{sum(len(w['samples']) for w in results['workloads'])} timed executions", flush=True)
            if len(rows) > 1:
                print_table(rows.values())
    finally:
        stop_load(loaders)
    print(f"\nload average at end {loadavg()}")
    print_table(rows.values())
    if args.keep:
        print(f"specs and results kept in {work_dir}")
    else:
        shutil.rmtree(work_dir, ignore_errors=True)


def parse_builds(args):
    """[(name, perfengine path)]: --builds, or the one --perfengine."""
    if not args.builds:
        return [("this", args.perfengine)]
    builds = []
    for item in args.builds.split(","):
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            sys.exit(f"aa_suite: --builds wants NAME=PATH,NAME=PATH, not {item!r}")
        builds.append((name, path))
    return builds


class Row:
    """One order and scenario's tallies over its runs."""

    def __init__(self, order, scenario, build=""):
        self.order, self.scenario, self.build = order, scenario, build
        self.runs = self.fam_any = self.pc_any = self.fam_hit = self.pc_hit = 0
        self.fam_rounds, self.pc_rounds, self.fam_levels, self.pc_levels = [], [], set(), set()
        self.minutes = 0.0
        self.noise = []  # per run: the unchanged workloads' median CPU-time pair MAD, percent


def print_table(rows):
    print(f"\n{'build':<8} {'order':<10} {'scenario':<9} {'runs':>5} {'level read':>12} {'any false alarm':>16} "
          f"{'planted caught':>15} {'median rounds':>14} {'minutes':>8} {'A/A CPU MAD':>12}")
    for row in rows:
        order, scenario, runs, minutes = row.order, row.scenario, row.runs, row.minutes
        fam_any, pc_any, fam_hit, pc_hit = row.fam_any, row.pc_any, row.fam_hit, row.pc_hit
        fam_rounds, pc_rounds, fam_levels, pc_levels = row.fam_rounds, row.pc_rounds, sorted(row.fam_levels), sorted(
            row.pc_levels)

        def level_text(levels):
            return ",".join(f"{100 * l:.4g}%" for l in levels) or "-"

        planted = scenario == "planted"
        print(f"{row.build or '-':<8} {order:<10} {scenario:<9} {runs:>5} {level_text(fam_levels):>12} {pct(fam_any, runs):>16} "
              f"{pct(fam_hit, runs) if planted else '-':>15} {median_text(fam_rounds) if planted else '-':>14} "
              f"{minutes:>8.1f} {median_text([round(n, 2) for n in row.noise]) + '%' if row.noise else '-':>12}"
              f"   family-wise (the runs)")
        print(f"{'':<8} {'':<10} {'':<9} {'':>5} {level_text(pc_levels):>12} {pct(pc_any, runs):>16} "
              f"{pct(pc_hit, runs) if planted else '-':>15} {median_text(pc_rounds) if planted else '-':>14} "
              f"{'':>8}   per-check (replayed on the same rounds)")
    print("\nany false alarm: runs with a failed check on a workload that changed nothing (in the planted "
          "scenario: on any other workload); planted caught: runs whose planted workload failed a check; A/A CPU "
          "MAD: per run, the median over the unchanged workloads of the MAD of each one's per-round CPU-time "
          "log-ratio; the median of that over the runs", flush=True)


if __name__ == "__main__":
    main()
