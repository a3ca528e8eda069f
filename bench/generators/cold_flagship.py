#!/usr/bin/env python3
"""The flagship's fixtures generated from a cold cache (issue 27). Run by hand, as root:

    bench/generators/cold_flagship.py [--perfengine build/bin/perfengine] [--spec specs/bazel-diff.toml] [--repeat 3]

Each repeat writes every fixture of the spec from nothing, after `sync` and
`echo 3 > /proc/sys/vm/drop_caches` (so the program, git and the shim are read from disk too),
in two ways:

  generate  `perfengine generate SPEC --out DIR` into an empty directory;
  cache     `perfengine run SPEC --cache-dir EMPTY` with both contenders replaced by /bin/false,
            so the run stops at parity, right after its fixtures phase; the time is the fixtures
            phase the run reports in its results file (generation, the cache's manifest of every
            file's SHA-256, the read-only bits, the rename into place).

It prints each one's wall time, the user and system CPU time of perfengine and everything it
waited for (getrusage of the children), the bytes written and the load average before it, then
the median wall per way. Goal: at most 15 s for the flagship. Exit status 0 when the median
`generate` wall time is within the goal, 1 when not, 2 when it could not run.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GOAL_S = 15.0


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def tree_bytes(root):
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def timed(argv, **kwargs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def make_writable(root):
    # The cache makes fixtures read-only; open them up so they can be removed.
    for dirpath, dirs, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in dirs:
            os.chmod(os.path.join(dirpath, name), 0o755)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--perfengine", default="build/bin/perfengine")
    parser.add_argument("--spec", default="specs/bazel-diff.toml")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-cache-way", action="store_true", help="time `generate` only")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("cold_flagship.py: dropping the page cache needs root", file=sys.stderr)
        return 2
    perfengine = os.path.abspath(args.perfengine)
    if not os.access(perfengine, os.X_OK):
        print(f"cold_flagship.py: no program at {perfengine}", file=sys.stderr)
        return 2

    walls = {"generate": [], "cache": []}
    print(f"{args.spec}: every fixture from a cold page cache, {args.repeat} repeats, {os.cpu_count()} cores")
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="pe-cold-") as scratch:
            out = os.path.join(scratch, "out")
            drop_caches()
            load = load_average()
            proc, wall, user, sys_s = timed([perfengine, "generate", args.spec, "--out", out])
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 2
            size = tree_bytes(out)
            walls["generate"].append(wall)
            print(f"  generate  #{r + 1}: {wall:6.2f} s wall, {user:5.2f} s user, {sys_s:5.2f} s sys, "
                  f"{size / 1e6:6.0f} MB ({size / 1e6 / wall:5.0f} MB/s), load before {load}")
            shutil.rmtree(out)

            if args.no_cache_way:
                continue
            cache = os.path.join(scratch, "cache")
            results = os.path.join(scratch, "results.json")
            drop_caches()
            load = load_average()
            proc, wall, user, sys_s = timed([perfengine, "run", args.spec, "--cache-dir", cache,
                                             "--contender", "baseline=/bin/false", "--contender", "candidate=/bin/false",
                                             "--json", results])
            try:
                with open(results) as f:
                    phases = json.load(f)["phases"]
            except (OSError, KeyError, ValueError) as e:
                print(proc.stdout, proc.stderr, file=sys.stderr)
                print(f"cold_flagship.py: no fixtures phase in {results}: {e}", file=sys.stderr)
                return 2
            fixtures_s = phases["fixtures_s"]
            size = tree_bytes(cache)
            walls["cache"].append(fixtures_s)
            print(f"  cache     #{r + 1}: {fixtures_s:6.2f} s fixtures phase ({wall:.2f} s the whole failing run, "
                  f"{user:5.2f} s user, {sys_s:5.2f} s sys), {size / 1e6:6.0f} MB, load before {load}")
            make_writable(cache)

    for way, values in walls.items():
        if values:
            print(f"median {way}: {statistics.median(values):.2f} s (goal: at most {GOAL_S:.0f} s)")
    return 0 if statistics.median(walls["generate"]) <= GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
