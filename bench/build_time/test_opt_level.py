#!/usr/bin/env python3
"""The test programs' compile time at -O1 and at -O0, one level after the other on this machine
(tests/CMakeLists.txt compiles every *_test target at -O0 in optimised builds). Run by hand:

    bench/build_time/test_opt_level.py [--build build] [--jobs N]

Takes the compile commands of every *_test target from BUILD/compile_commands.json (a unity
build's batches, as scripts/build.sh makes them), compiles them all at each level with N at a
time into a temporary directory (the build itself is not touched), and prints each level's wall
and CPU (user + sys of the compilers) and -O0 / -O1 for both.
"""
import argparse
import concurrent.futures
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time


def test_commands(build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    return [e for e in entries if re.search(r"/tests/.*/[A-Za-z0-9_]+_test\.dir/", e["command"])]


def compile_all(entries, level, jobs, out_dir):
    def one(i_entry):
        i, e = i_entry
        argv = shlex.split(e["command"])
        argv = [a for a in argv if not re.fullmatch(r"-O[0-3s]", a)]
        o = argv.index("-o")
        argv[o + 1] = os.path.join(out_dir, f"{i}.o")
        argv = [a for a in argv if a not in ("-MD",)]
        if "-MF" in argv:
            m = argv.index("-MF")
            del argv[m:m + 2]
        if "-MT" in argv:
            m = argv.index("-MT")
            del argv[m:m + 2]
        argv.append(level)
        done = subprocess.run(argv, cwd=e["directory"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{e['file']}: {done.stderr[-2000:]}")

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, enumerate(entries)))
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    entries = test_commands(args.build)
    if not entries:
        print(f"no *_test compile commands in {args.build}/compile_commands.json", file=sys.stderr)
        return 2
    print(f"{len(entries)} compile commands of *_test targets; {args.jobs} at a time; "
          f"load average before: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    results = {}
    with tempfile.TemporaryDirectory() as out_dir:
        for level in ("-O1", "-O0"):
            wall, cpu = compile_all(entries, level, args.jobs, out_dir)
            results[level] = (wall, cpu)
            print(f"{level}: wall {wall:7.1f} s  CPU {cpu:7.1f} s")
    print(f"-O0 / -O1: wall {results['-O0'][0] / results['-O1'][0]:.2f}, CPU {results['-O0'][1] / results['-O1'][1]:.2f}")
    print(f"load average after: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
