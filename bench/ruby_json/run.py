#!/usr/bin/env python3
"""Planted regressions in ruby/json, caught by specs/ruby-json.toml (issue 22, docs/ruby-json.md).

    bench/ruby_json/run.py CHECKOUT [--out DIR] [--jobs N] [--only NAME ...] [--perfengine BIN]
                           [--counts-only | --no-instructions] [--kind parse|generate | --workload NAME ...] [--report-only]
                           [--spec specs/ruby-json-worker.toml] [--load N]

CHECKOUT is a clone of https://github.com/ruby/json with a `master` branch (fetched once by the
developer; nothing here touches the network). For each planted regression in patches/ this
script makes a branch `perfengine-plant-N` from master with the patch applied and committed, a
git worktree of that branch under DIR, and runs

    RUBY_JSON=WORKTREE perfengine run specs/ruby-json.toml --json DIR/NAME.json

so the spec's baseline is master and its candidate the worktree's HEAD, each built by perfengine
from git. `master-1`..`master-3` do the same with master itself as the candidate (A/A). The
checkout's own HEAD, index and files are never touched: only the branches and worktrees named
here are created (and reset on the next run).

It prints, per run, the time without builds and the engine's phases (measuring split into the
timed rounds and the instruction counts and profiles), the load average, and per benchmark its
CPU time and instructions per execution, the rounds it used, the CPU-time check's state, noise
and what it could have shown, and every check that failed: the metric and its ratio (for plant
2, also how the benchmark's strings reach the escape search). Then the count of failed
benchmarks among the parsing and the generating ones beside the reference's (ruby/json pull
request "Duel": 12/16, 15/20, 14/14, and 0 for master against itself), what the failed
benchmarks' profiles name first (the own function by inclusive cost with the callee and call
site the growth came through, the first counted call that grew) and how many of those profiles
were read from the instruction counts' callgrind files, and a table of the runs.
--counts-only gates on instructions and Ruby objects only (one round, no CPU-time check);
--no-instructions on CPU time and Ruby objects only (the --spec without max_instructions_ratio and
max_own_instructions_ratio);
--keep-measuring passes perfengine's own, so a plant's CPU-time checks get max_rounds too;
--kind parse runs the 16 parsing benchmarks only (results in NAME-subset.json).
--jobs runs that many gates at once (each with its own cache dir); CPU-time checks suffer from
it, instruction and object counts do not. --load N starts N busy loops (Python `while True`)
before the first gate and kills them after the last: the loaded runs of docs/ruby-json.md. bench/ruby_json/valgrind_cpu.py measures the CPU
time of a run's callgrind processes; bench/ruby_json/startup_cost.sh what Ruby's start-up costs.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SPEC = ROOT / "specs" / "ruby-json.toml"

# name -> (patch file or None, what the reference reported: failed benchmarks / benchmarks of the kind)
RUNS = {
    "plant-1": ("1-parser-extra-str-dup.patch", "parse", (12, 16)),
    "plant-2": ("2-generator-scalar-escape-search.patch", "generate", (15, 20)),
    "plant-3": ("3-parse-transform-keys.patch", "parse", (14, 14)),
    "master-1": (None, None, (0, 36)),
    "master-2": (None, None, (0, 36)),
    "master-3": (None, None, (0, 36)),
}
# Benchmarks that go through JSON.parse (the reference's 14 for plant 3).
THROUGH_JSON_PARSE = 14
SHORT = {
    "max_slowdown": "cpu",
    "max_instructions_ratio": "instructions",
    "counters.ruby_objects": "ruby_objects",
}


def git(checkout, *args, **kw):
    return subprocess.run(["git", "-C", str(checkout), "-c", "core.hooksPath=/dev/null",
                           "-c", "user.name=perfengine bench", "-c", "user.email=bench@perfengine.invalid",
                           *args], check=True, text=True, capture_output=True, **kw).stdout.strip()


def prepare(checkout, name, patch, out):
    """A branch and a worktree of master (+ patch) for one run; returns the worktree."""
    branch = f"perfengine-{name}" if patch else "perfengine-aa"
    wt = out / f"wt-{branch}"
    master = git(checkout, "rev-parse", "master")
    message = f"planted regression: {patch}"
    if wt.exists() and patch:
        # Reuse a worktree this script made on the same master: the commit, and so perfengine's
        # build of it in the cache directory, stays the same.
        try:
            if git(wt, "rev-parse", "HEAD^") == master and git(wt, "log", "-1", "--format=%s") == message:
                return wt
        except subprocess.CalledProcessError:
            pass
    if wt.exists():
        git(checkout, "worktree", "remove", "--force", str(wt))
    git(checkout, "worktree", "prune")
    git(checkout, "branch", "-f", branch, "master")
    git(checkout, "worktree", "add", "--quiet", str(wt), branch)
    if patch:
        git(wt, "apply", str(HERE / "patches" / patch))
        # Dated like master, so the same patch on the same master is the same commit.
        date = git(checkout, "log", "-1", "--format=%cI", "master")
        subprocess.run(["git", "-C", str(wt), "-c", "core.hooksPath=/dev/null", "-c", "user.name=perfengine bench",
                        "-c", "user.email=bench@perfengine.invalid", "commit", "--quiet", "-am", message],
                       check=True, env=dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))
    return wt


def counts_only_spec(out, spec):
    """SPEC (--spec, specs/ruby-json.toml by default) without max_slowdown, one round and no
    warm-up: the instruction and Ruby-object checks only, for a machine too loaded to run the
    CPU-time rounds in time."""
    text = spec.read_text()
    for key, value in (("rounds", 1), ("max_rounds", 1), ("warmup_rounds", 0)):
        text, n = re.subn(rf"^{key} = \d+", f"{key} = {value}", text, count=1, flags=re.M)
        assert n == 1, key
    text = "\n".join(l for l in text.split("\n") if not l.startswith("max_slowdown"))
    return spec_copy(out, "ruby-json-counts.toml", text)


def spec_copy(out, name, text):
    """Writes TEXT as OUT/spec/NAME beside a link to specs/ruby-json/, so the copy's
    {spec_dir}/ruby-json/ is the same folder of scripts as the original's."""
    folder = out / "spec"
    folder.mkdir(exist_ok=True)
    link = folder / "ruby-json"
    if not link.exists():
        link.symlink_to(SPEC.parent / "ruby-json")
    spec = folder / name
    spec.write_text(text)
    return spec


def cpu_and_objects_spec(out, source):
    """SOURCE without max_instructions_ratio and max_own_instructions_ratio: CPU time and Ruby
    objects only, no instruction counts (issue 41's "CPU time and Ruby objects alone")."""
    text = "\n".join(l for l in source.read_text().split("\n")
                     if not l.startswith(("max_instructions_ratio", "max_own_instructions_ratio")))
    return spec_copy(out, f"{source.stem}-cpu-and-objects.toml", text)


def run_gate(perfengine, wt, name, out, spec=SPEC, workloads=(), cache=None, extra=()):
    """Runs one gate; returns (exit code, wall seconds, results path, log path, load averages
    before and after)."""
    result = out / f"{name}.json"
    log = out / f"{name}.log"
    env = dict(os.environ, RUBY_JSON=str(wt))
    cache = cache or out / f"cache-{name.removesuffix('-subset')}"
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    with open(log, "w") as f:
        rc = subprocess.run([str(perfengine), "run", str(spec), "--json", str(result),
                             "--markdown", str(out / f"{name}.md"), "--cache-dir", str(cache),
                             *[arg for w in workloads for arg in ("--workload", w)], *extra],
                            env=env, stdout=f, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
    return rc, wall, result, log, (load_before, os.getloadavg()[0])


def judge_recorded(d):
    """An interrupted run has no verdict: hold the figures it did record to the spec's bars the
    way the gate does for exact figures (the Ruby-object ratio of medians, the instruction-count
    ratio; docs/counters.md, docs/no-regression.md). CPU time is not judged here: its check
    needs the run's rounds. A benchmark whose figure was not reached is listed as such."""
    failed = {}
    for w in d["workloads"]:
        if w["name"] == "startup":
            continue
        checks = []
        bars = {c["name"]: c.get("max_ratio") for c in w.get("counters", [])}
        for c in (w.get("comparison") or {}).get("counters", []):
            bar = bars.get(c["name"])
            if bar is not None and c.get("ratio") is not None and c["ratio"] > bar:
                checks.append({"threshold": f"counters.{c['name']}", "measured": c["ratio"],
                               "extra": c["candidate"] - c["baseline"]})
        counts = {x["contender"]: x.get("instructions") for x in w.get("summaries", [])}
        bar = w.get("thresholds", {}).get("max_instructions_ratio")
        if counts.get(d["baseline"]) and counts.get(d["candidate"]) and bar:
            ratio = counts[d["candidate"]] / counts[d["baseline"]]
            if ratio > bar:
                checks.append({"threshold": "max_instructions_ratio", "measured": ratio})
        elif bar:
            checks.append({"threshold": "max_instructions_ratio", "measured": float("nan"), "not_reached": True})
        if checks:
            failed[w["name"]] = checks
    return failed


def profile_entry(g):
    """One profile entry as the report names it: 'build_string (parser.so) +N inclusive [of which ...]',
    'Hash#transform_keys 0 -> 4 calls', or 'rb_str_dup +N self'."""
    basis = g.get("basis", "self")
    if basis == "calls":
        return f"{g['function']} {g['baseline_cost']} -> {g['candidate_cost']} calls"
    grew = f"{g['function']}{' (' + g['object'] + ')' if g.get('object') else ''} " \
           f"{g['candidate_cost'] - g['baseline_cost']:+,} {basis}"
    return grew + (f" [{g['detail']}]" if g.get("detail") else "")


# Plant 2 (the escape search): how each generating benchmark's strings reach
# convert_UTF8_to_JSON in generator.c, whose SSE2 scan the patch turns off. Strings of 16 bytes
# or more are scanned 16 at a time by SSE2 and byte by byte with the patch; shorter ones take
# the same few steps either way (search_escape_basic below 4 bytes, one padded chunk from 4 to
# 15); numbers never reach it, and script_safe and ascii_only have loops of their own.
ESCAPE_PATH = {
    "generate_twitter": "long strings",
    "generate_twitter_pretty": "long strings",
    "generate_citm_catalog": "mostly short strings",
    "generate_canada_points": "none: numbers only",
    "generate_api_1k": "long strings",
    "generate_api_1k_pretty": "long strings",
    "generate_api_1k_to_json": "long strings",
    "generate_api_1k_coder": "long strings",
    "generate_api_1k_dump_io": "long strings",
    "generate_integers": "none: numbers only",
    "generate_decimals": "none: numbers only",
    "generate_escaped_strings": "long strings",
    "generate_ascii_but_one": "long strings",
    "generate_multibyte": "long strings",
    "generate_script_safe": "none: its own loop",
    "generate_ascii_only": "none: its own loop",
    "generate_to_json_objects": "keys of 1 byte",
    "generate_to_s_objects": "strings of 7-9 bytes",
    "generate_time": "strings of 23 bytes",
    "generate_date": "strings of 10 bytes",
}


def profile_summary(d, failed_names):
    """What the profiles of the failed benchmarks name first, grouped: the first own function by
    inclusive cost with the callee and call site the growth came through ('json_string_fastpath
    (parser.so) via rb_str_dup at parser.c:892 on 12 of 12'), the first method whose counted
    calls grew, and how many profiles were read from the instruction counts' callgrind files
    (the engine's profile note says 'not run again') rather than taken by runs of their own."""
    by_name = {w["name"]: w for w in d["workloads"]}
    inclusive, calls, reused, profiled = {}, {}, 0, 0
    for name in failed_names:
        w = by_name.get(name, {})
        profile = w.get("profile") or []
        if not profile:
            continue
        profiled += 1
        reused += "not run again" in (w.get("profile_note") or "")
        first = next((g for g in profile if g.get("basis") == "inclusive"), None)
        if first:
            key = f"{first['function']}{' (' + first['object'] + ')' if first.get('object') else ''}"
            via = re.search(r"of which (\S+) \([^)]*\) [+-][\d,]+ \(called at ([^)]+)\)", first.get("detail") or "")
            if via:
                key += f" via {via.group(1)} at {via.group(2)}"
            inclusive.setdefault(key, []).append(name)
        counted = next((g for g in profile if g.get("basis") == "calls"), None)
        if counted:
            calls.setdefault(counted["function"], []).append(name)
    n = len(failed_names)
    if not n:
        return []
    lines = [f"   profiles: {profiled} of the {n} failed benchmarks profiled, {reused} of them from the "
             f"instruction counts' callgrind files (no callgrind run of their own)"]
    for key, names in sorted(inclusive.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"     first own function (inclusive): {key} on {len(names)} of {n}"
                     + (f" ({', '.join(names)})" if len(names) < n else ""))
    for key, names in sorted(calls.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"     first counted call that grew: {key} on {len(names)} of {n}"
                     + (f" ({', '.join(names)})" if len(names) < n else ""))
    missing = [x for x in failed_names if not any(x in v for v in inclusive.values())]
    if missing and len(missing) < n:
        lines.append(f"     no own function named: {', '.join(missing)}")
    elif missing:
        lines.append("     no own function named on any")
    return lines


def minutes(seconds):
    return f"{seconds / 60:.1f} min"


def summarise(name, rc, seconds, result_path, kind, reference, loads=None):
    """Lines for one run, and a row for the table of runs (None without a results file)."""
    lines = [f"== {name}: exit {rc}"]
    if result_path.exists() and not json.loads(result_path.read_text()).get("complete", True):
        lines[0] += " -- INCOMPLETE: the run was interrupted; checks not reached are not judged"
    if not result_path.exists():
        lines.append(f"   no results file; see {result_path.with_suffix('.log')}")
        return lines, None
    d = json.loads(result_path.read_text())
    if rc == "not recorded" and d["verdict"].get("exit"):  # --report-only: the verdict the file holds
        rc = d["verdict"]["exit"]
        lines[0] = lines[0].replace("exit not recorded", f"verdict {rc}")
    failed = {}
    for c in d["verdict"]["checks"]:
        if c.get("state") == "fail" or c.get("passed") is False:
            failed.setdefault(c["workload"], []).append(c)
    if not d.get("complete", True):
        failed = judge_recorded(d)
    samples = [x for w in d["workloads"] for x in w.get("samples", [])]

    def batch_total(x, figure):
        # A worker sample's figures are per iteration of the fastest of its round's batches
        # (docs/workers.md): times its iterations and batches, about what the round measured.
        per = x.get(figure, 0)
        wk = x.get("worker")
        return per * wk["iterations"] * wk.get("batches", 1) if wk else per

    timed_wall = sum(batch_total(x, "wall_s") for x in samples)
    timed_cpu = sum(batch_total(x, "user_s") + batch_total(x, "sys_s") for x in samples)
    round_loads = [l["load_1m"] for l in d.get("load", []) if l.get("load_1m") is not None]
    loads = sorted([*(loads or ()), *round_loads])
    load_text = f"load average {loads[0]:.1f} to {loads[-1]:.1f}" if loads else "load not recorded"
    # Where the time went: the engine's phases (model::PhaseTimes), the timed executions of the
    # rounds (their own wall times) and the rest of measuring (instruction counts, profiles).
    ph = d.get("phases")
    without_builds = None
    if ph:
        without_builds = ph["total_s"] - ph["build_s"]
        rest = max(0.0, ph["measuring_s"] - timed_wall)
        lines.append(f"   {minutes(without_builds)} without builds ({load_text} on {os.cpu_count()} cores): "
                     f"build {minutes(ph['build_s'])}, fixtures {minutes(ph['fixtures_s'])}, "
                     f"parity {minutes(ph['parity_s'])}, measuring {minutes(ph['measuring_s'])} "
                     + (f"(measured batches {minutes(timed_wall)}, the rest: worker starts, collections "
                        f"between batches, instruction counts and profiles {minutes(rest)}), "
                        if any(x.get("worker") for x in samples) else
                        f"(timed rounds {minutes(timed_wall)}, instruction counts and profiles {minutes(rest)}), ")
                     + f"analysis {minutes(ph['analysis_s'])}")
    elif seconds:
        lines.append(f"   {minutes(seconds)} wall, builds included ({load_text})")
    lines.append(f"   timed executions: {len(samples)}, {minutes(timed_wall)} wall, {minutes(timed_cpu)} CPU "
                 f"(wall/CPU {timed_wall / timed_cpu if timed_cpu else 0:.1f}x)")
    checks_by = {}
    for c in d["verdict"]["checks"]:
        checks_by.setdefault(c["workload"], {})[c["threshold"]] = c
    lines.append(f"   {'benchmark':<26} CPU/run  M instr  rounds  CPU check      CPU noise  could show  result"
                 + ("  (escape search)" if kind == "generate" else ""))
    rounds = []
    for w in d["workloads"]:
        if w["name"] == "startup" or not w.get("comparison"):
            continue
        cmp = w["comparison"]
        rounds.append(cmp.get("rounds", 0))
        everything = failed.get(w["name"], [])
        # A counter's extra units (candidate - baseline), from the comparison the check read.
        extras = {f"counters.{x['name']}": x["candidate"] - x["baseline"] for x in cmp.get("counters", [])
                  if x.get("candidate") is not None and x.get("baseline") is not None}
        everything = [dict(c, extra=extras[c["threshold"]]) if "extra" not in c and c["threshold"] in extras else c
                      for c in everything]
        checks = [c for c in everything if not c.get("not_reached")]
        text = ", ".join(f"{SHORT.get(c['threshold'], c['threshold'])} {c['measured']:.4f}x"
                         + (f" (+{c['extra']:,.0f})" if "extra" in c else "") for c in checks)
        if len(checks) < len(everything):
            text += ("; " if text else "") + "instructions not reached"
        top = ""
        if checks and w.get("profile"):  # FunctionShift: inclusive (own function), calls (counted), self
            named = [g for g in w["profile"] if g.get("basis", "self") != "self"][:3]
            named += [g for g in w["profile"] if g.get("basis", "self") == "self"][:2]
            top = "  profile: " + ", ".join(profile_entry(g) for g in named)
        cpu_check = checks_by.get(w["name"], {}).get("max_slowdown", {})
        state = cpu_check.get("state", "-")
        noise = cmp.get("cpu_noise")
        could = cpu_check.get("detectable")
        # The baseline's median CPU time per execution (timed rounds) and its instruction count:
        # what one process of this benchmark costs, start-up included.
        own = sorted(x.get("user_s", 0) + x.get("sys_s", 0) for x in w.get("samples", [])
                     if x.get("contender") == d["baseline"] and not x.get("warmup") and not x.get("rss_only"))
        per_run = f"{own[len(own) // 2] * 1000:.0f} ms" if own else "-"
        ir = next((x.get("instructions") for x in w.get("summaries", []) if x.get("contender") == d["baseline"]), None)
        path = f"  ({ESCAPE_PATH.get(w['name'], '')})" if kind == "generate" and w["name"] in ESCAPE_PATH else ""
        lines.append(f"   {w['name']:<26} {per_run:>7}  {(f'{ir / 1e6:.0f}' if ir else '-'):>7}  "
                     f"{cmp.get('rounds', 0):>6}  {state:<13} "
                     f"{(f'{noise * 100:.1f}%' if noise is not None else '-'):>9}  "
                     f"{(f'{could:.2f}x' if could else '-'):>10}  "
                     f"{'FAIL ' + text if checks else ('pass; ' + text if text else 'pass')}{path}{top}")
    parse = [w["name"] for w in d["workloads"] if w["name"].startswith("parse_")]
    gen = [w["name"] for w in d["workloads"] if w["name"].startswith("generate_")]
    unreached = sum(1 for cs in failed.values() if any(c.get("not_reached") for c in cs))
    if unreached:
        lines.append(f"   instruction counts not reached for {unreached} benchmarks (interrupted run)")
    failed = {n: cs for n, cs in failed.items() if any(not c.get("not_reached") for c in cs)}
    fp = sum(1 for n in parse if n in failed)
    fg = sum(1 for n in gen if n in failed)
    ref = f"{reference[0]}/{reference[1]}"
    if kind == "parse":
        verdict = f"{fp}/{len(parse)} parsing (reference {ref}), {fg}/{len(gen)} generating"
    elif kind == "generate":
        verdict = f"{fg}/{len(gen)} generating (reference {ref}), {fp}/{len(parse)} parsing"
    else:
        verdict = f"{fp + fg}/{len(parse) + len(gen)} (reference 0: master against itself)"
    lines.append(f"   failed: {verdict}")
    lines += profile_summary(d, [w["name"] for w in d["workloads"] if w["name"] in failed])
    for f in d.get("failures", []):
        lines.append(f"   run failure: {json.dumps(f)[:300]}")
    rounds.sort()
    row = (name, rc, fp + fg, f"{rounds[0]}/{rounds[len(rounds) // 2]}/{rounds[-1]}" if rounds else "-",
           minutes(without_builds) if without_builds is not None else "-", minutes(timed_cpu),
           f"{loads[0]:.1f}-{loads[-1]:.1f}" if loads else "-")
    return lines, row


def table_of_runs(rows):
    """One line per run: what A/A repeated (and the planted runs) cost and found."""
    head = ("run", "exit", "failed benchmarks", "rounds min/median/max", "time without builds",
            "CPU of the timed rounds", "load average")
    rows = [tuple(str(x) for x in r) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head), *(fmt.format(*r) for r in rows)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", help="a ruby/json clone (not needed with --report-only)")
    ap.add_argument("--out", default="/tmp/perfengine-ruby-json")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", nargs="*", choices=list(RUNS), default=list(RUNS))
    ap.add_argument("--perfengine", default=str(ROOT / "build" / "bin" / "perfengine"))
    ap.add_argument("--counts-only", action="store_true",
                    help="gate on instructions and Ruby objects only (one round, no CPU-time check)")
    ap.add_argument("--keep-measuring", action="store_true",
                    help="perfengine run --keep-measuring: rounds go on to max_rounds after a settled miss, so "
                         "the CPU-time checks of a plant get their rounds too")
    ap.add_argument("--no-instructions", action="store_true",
                    help="--spec without max_instructions_ratio and max_own_instructions_ratio: CPU time and Ruby "
                         "objects only, no callgrind counts")
    ap.add_argument("--workload", nargs="*", default=[],
                    help="only these benchmarks (results go to NAME-subset.json; with --report-only, read from there)")
    ap.add_argument("--kind", choices=["parse", "generate"],
                    help="only the parsing (parse_*) or generating (generate_*) benchmarks: --workload with their names")
    ap.add_argument("--spec", default=str(SPEC),
                    help="the spec to run (specs/ruby-json-worker.toml: the same gate in warm workers)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: summarise the results files an earlier run left in --out")
    ap.add_argument("--load", type=int, default=0,
                    help="busy loops to run meanwhile (started before the first gate, killed after the last)")
    a = ap.parse_args()
    if a.kind:
        a.workload += re.findall(rf"^\[workloads\.({a.kind}_\w+)\]", pathlib.Path(a.spec).read_text(), flags=re.M)
    if a.report_only:
        out = pathlib.Path(a.out).resolve()
        rows = []
        for name in a.only:
            label = f"{name}-subset" if a.workload else name
            lines, row = summarise(name, "not recorded", 0, out / f"{label}.json", RUNS[name][1], RUNS[name][2])
            print("\n".join(lines))
            rows += [row] if row else []
        print("\n".join(table_of_runs(rows)) if len(rows) > 1 else "", end="\n" if len(rows) > 1 else "")
        return
    if not a.checkout:
        ap.error("give the ruby/json checkout")
    checkout = pathlib.Path(a.checkout).resolve()
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["git", "-C", str(checkout), "rev-parse", "--verify", "--quiet", "master^{commit}"],
                      capture_output=True).returncode != 0:
        sys.exit(f"run.py: {checkout} has no 'master' branch: give a clone of https://github.com/ruby/json")
    print(f"ruby/json master {git(checkout, 'rev-parse', '--short=12', 'master')}; results in {out}", flush=True)
    worktrees = {name: prepare(checkout, name, RUNS[name][0], out) for name in a.only}

    # One gate at a time shares one cache directory, so master is built once for all the runs
    # (builds are not part of the suite's time, but they are of the afternoon's).
    shared_cache = out / "cache" if a.jobs == 1 else None

    # Written once, before the gates start side by side.
    spec = counts_only_spec(out, pathlib.Path(a.spec).resolve()) if a.counts_only else pathlib.Path(a.spec).resolve()
    if a.no_instructions:
        spec = cpu_and_objects_spec(out, spec)

    def one(name):
        label = f"{name}-subset" if a.workload else name
        rc, secs, result, _, loads = run_gate(a.perfengine, worktrees[name], label, out, spec, a.workload,
                                              shared_cache, ["--keep-measuring"] if a.keep_measuring else [])
        return summarise(name, rc, secs, result, RUNS[name][1], RUNS[name][2], loads)

    rows = []
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.load)]
    print(f"started {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores, {a.load} busy loops of our own", flush=True)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for name, (lines, row) in zip(a.only, pool.map(one, a.only)):
                print("\n".join(lines), flush=True)
                rows += [row] if row else []
    finally:
        for loop in busy:
            loop.kill()
            loop.wait()
    if len(rows) > 1:
        print("\n".join(table_of_runs(rows)))

if __name__ == "__main__":
    main()
