#!/usr/bin/env python3
"""The google/benchmark adapter's proof (issue 41, item 6): a small C++ library of ours, two
revisions from git, a planted +5% caught and an A/A pass.

Commits bench/gbench/demo/ (a checksum function, its google/benchmark suite, a CMakeLists) into
a temporary git repository as three revisions:

  base    the library as it is
  plant   5% more work in its loop (kRounds 20 -> 21)
  again   base again: another commit, the same tree (the A/A pair)

then runs `perfengine run bench/gbench/demo.toml` twice, baseline at base both times: the
candidate at plant (must exit 1, the +5% caught) and at again (must exit 0, the A/A pass). Each
contender is a worker, perfengine-gbench-worker over the revision's own built
checksum_benchmarks, unmodified. Prints each run's exit code, its CPU-time ratio per workload
and its time, then one summary line. --load N runs N busy loops meanwhile (started and killed
by this script).

  python3 bench/gbench/run.py [--perfengine build/bin/perfengine] [--load 2] [--keep]

Exits 0 when the plant was caught and the A/A run passed, else 1. Run by hand (about a
minute or two); its figures go in docs/workers.md, "google/benchmark suites".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEMO = os.path.join(HERE, "demo")
SPEC = os.path.join(HERE, "demo.toml")
BASE_LINE = "constexpr int kRounds = 20;"
PLANT_LINE = "constexpr int kRounds = 21;"


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, stdout=subprocess.DEVNULL)


def make_repository(repo):
    """base, plant (+5% work) and again (base's tree), each a tag."""
    shutil.copytree(DEMO, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@perfengine.invalid")
    git(repo, "config", "user.name", "bench/gbench")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    source = os.path.join(repo, "checksum.cc")
    with open(source, encoding="utf-8") as f:
        text = f.read()
    if text.count(BASE_LINE) != 1:
        sys.exit(f"run.py: {source} no longer holds '{BASE_LINE}' once: update BASE_LINE")
    with open(source, "w", encoding="utf-8") as f:
        f.write(text.replace(BASE_LINE, PLANT_LINE))
    git(repo, "commit", "-q", "-am", "plant: 5% more work (kRounds 20 -> 21)")
    git(repo, "tag", "plant")
    with open(source, "w", encoding="utf-8") as f:
        f.write(text)
    git(repo, "commit", "-q", "-am", "base again")
    git(repo, "tag", "again")


def run_perfengine(perfengine, candidate, work, env):
    """One verdict: (exit code, seconds, results or None, its stdout)."""
    results = os.path.join(work, f"results-{candidate}.json")
    argv = [perfengine, "run", SPEC, "--contender", f"candidate=git:{candidate}", "--json", results,
            "--cache-dir", os.path.join(work, "cache"), "--quiet"]
    start = time.monotonic()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - start
    data = None
    if os.path.exists(results):
        with open(results, encoding="utf-8") as f:
            data = json.load(f)
    return done.returncode, seconds, data, done.stdout


def cpu_ratios(data):
    """workload -> 'ratio (low-high)' of the candidate's CPU time per iteration over the baseline's."""
    ratios = {}
    for workload in (data or {}).get("workloads", []):
        comparison = workload.get("comparison") or {}
        cs = comparison.get("cpu_ratio_cs") or {}
        if "estimate" in cs:
            ratios[workload["name"]] = f"{cs['estimate']:.3f}x ({cs['low']:.3f}x-{cs['high']:.3f}x)"
        elif "cpu_ratio" in comparison:
            ratios[workload["name"]] = f"{comparison['cpu_ratio']:.3f}x"
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfengine", default=os.path.join(ROOT, "build", "bin", "perfengine"))
    ap.add_argument("--adapter", default=None, help="perfengine-gbench-worker (default: beside --perfengine)")
    ap.add_argument("--load", type=int, default=0, help="busy loops to run meanwhile")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory and say where")
    args = ap.parse_args()
    perfengine = os.path.abspath(args.perfengine)
    adapter = os.path.abspath(args.adapter or os.path.join(os.path.dirname(perfengine), "perfengine-gbench-worker"))
    for program in (perfengine, adapter):
        if not os.access(program, os.X_OK):
            sys.exit(f"run.py: {program} is not built (cmake --build build --target perfengine perfengine-gbench-worker)")

    work = tempfile.mkdtemp(prefix="perfengine-gbench-")
    busy = []
    try:
        repo = os.path.join(work, "repo")
        make_repository(repo)
        env = dict(os.environ)
        env["GBENCH_DEMO_REPO"] = repo
        env["PATH"] = os.path.dirname(adapter) + os.pathsep + env.get("PATH", "")
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
        print(f"google/benchmark adapter: bench/gbench/demo from git, baseline at 'base'; {args.load} busy loops")
        verdicts = {}
        for candidate, expected, what in (("plant", 1, "planted +5%"), ("again", 0, "A/A (base again)")):
            code, seconds, data, output = run_perfengine(perfengine, candidate, work, env)
            verdicts[candidate] = code == expected
            ratios = ", ".join(f"{name} {ratio}" for name, ratio in cpu_ratios(data).items()) or "no figures"
            phases = (data or {}).get("phases") or {}
            split = (f" (build {phases['build_s']:.1f} s, measuring {phases['measuring_s']:.1f} s)"
                     if "build_s" in phases and "measuring_s" in phases else "")
            print(f"  {what}: candidate at '{candidate}': exit {code} (expected {expected}) in {seconds:.1f} s{split}; "
                  f"CPU time per iteration, candidate over baseline: {ratios}")
            if code != expected or code == 2:
                print("    perfengine's output:\n" + "".join(f"    | {line}\n" for line in output.splitlines()[-30:]))
        caught = "caught" if verdicts["plant"] else "NOT caught"
        passed = "passed" if verdicts["again"] else "did NOT pass"
        print(f"planted +5% {caught}; A/A {passed}")
        return 0 if all(verdicts.values()) else 1
    finally:
        for loop in busy:
            loop.kill()
            loop.wait()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
