#!/usr/bin/env python3
"""Process mode against worker mode on one ruby/json build (docs/ruby-json.md, "Worker mode").

    bench/ruby_json/worker_counts.py WORKTREE FIXTURES

WORKTREE is a ruby/json worktree with pe-lib/json/ext/{parser,generator}.so built (the spec's
build); FIXTURES a directory holding the json_docs fixtures as small_hash/, nested/, api_1k/ and
stream/ (perfengine generate writes them). For each of the 36 benchmarks it runs bench.rb once
(a process, its iteration count) and, in two worker processes, two batches of the same count
each; it prints per benchmark whether the worker's digest is bench.rb's, the process's
ruby_objects, the worker's first and second batch's, and whether the two worker processes
counted the same. No timing.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SPEC_DIR = ROOT / "specs" / "ruby-json"
RUBY = ["ruby", "--disable-gems", "-Ipe-lib", "-Ilib"]
KINDS = ["small_hash", "nested", "api_1k", "stream"]


def benchmarks(worktree):
    """(name, iterations, fixture kind or '') of benchmarks.rb, in its order."""
    out = subprocess.run(RUBY + ["-rjson", "-e", f"require {str(SPEC_DIR / 'benchmarks')!r}; "
                                 "RubyJsonBenchmarks::LIST.each { |b| puts [b.name, b.iterations, b.fixture].join(' ') }"],
                         cwd=worktree, check=True, capture_output=True, text=True).stdout
    return [(f[0], int(f[1]), f[2] if len(f) > 2 else "") for f in (line.split() for line in out.splitlines())]


def process_mode(worktree, fixtures, name, kind):
    with tempfile.TemporaryDirectory() as tmp:
        out, counters = os.path.join(tmp, "out"), os.path.join(tmp, "counters")
        argv = RUBY + [str(SPEC_DIR / "bench.rb"), name, out] + ([os.path.join(fixtures, kind)] if kind else [])
        subprocess.run(argv, cwd=worktree, check=True, env={**os.environ, "PERFENGINE_COUNTERS": counters})
        digest = open(out).read().split()[1]
        objects = int(open(counters).read().split()[1])
    return digest, objects


def worker_mode(worktree, fixtures, suite):
    """{name: [(digest, objects) of batch 1, of batch 2]} from one worker process."""
    requests = "".join(f"run {name} {n}\n" for name, n, _ in suite for _ in range(2)) + "quit\n"
    argv = RUBY + [str(SPEC_DIR / "worker.rb")] + [f"{k}={os.path.join(fixtures, k)}" for k in KINDS]
    out = subprocess.run(argv, cwd=worktree, input=requests, check=True, capture_output=True, text=True,
                         env={**os.environ, "PERFENGINE_WORKER_FDS": "0,1"}).stdout
    batches = {}
    for line in out.splitlines()[1:]:
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        if line.startswith("failed"):
            sys.exit(f"worker: {line}")
        batches.setdefault(fields["name"], []).append((fields["digest"], int(fields["counter.ruby_objects"])))
    return batches


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    worktree, fixtures = sys.argv[1], sys.argv[2]
    suite = benchmarks(worktree)
    first, second = worker_mode(worktree, fixtures, suite), worker_mode(worktree, fixtures, suite)
    print(f"{'benchmark':26} {'N':>5} {'digest':>7} {'process':>8} {'batch 1':>8} {'batch 2':>8} {'repeats':>8}")
    for name, n, kind in suite:
        digest, objects = process_mode(worktree, fixtures, name, kind)
        (d1, o1), (_, o2) = first[name]
        same = "yes" if first[name] == second[name] else "NO"
        print(f"{name:26} {n:>5} {'same' if d1 == digest else 'DIFF':>7} {objects:>8} {o1:>8} {o2:>8} {same:>8}")


if __name__ == "__main__":
    main()
