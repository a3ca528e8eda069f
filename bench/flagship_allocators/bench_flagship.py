#!/usr/bin/env python3
"""The flagship's command-line workloads (specs/bazel-diff.toml) under `hyperfine -N`, both
reference builds side by side in one run, plus the baseline with Debian's mimalloc preloaded:
the allocator the candidate links, on the baseline's code. Issue #28: on the flagship machine
the candidate lost get-impacted-targets because mimalloc served its per-entry JSON allocations
slower than glibc malloc; this shows whether that still decides anything. Run by hand:

    perfengine generate specs/bazel-diff.toml --out /tmp/flagship-fixtures   # once
    bench/flagship_allocators/bench_flagship.py --fixtures /tmp/flagship-fixtures [--runs 10]

It prints, per workload, each command's median wall time and mean user CPU time, and the ratios
against the baseline (below 1: faster than the baseline). The serve workloads need a server and
a load client, which hyperfine is not; run them with perfengine (`--workload serve-small`).
Exit status 0 when the candidate's median wall time is below the baseline's on every workload
measured (start-up excepted: it is measured, not gated, as in the spec), 1 when not, 2 on
errors. User CPU time is shown, not judged: the candidate's parallel decode spends about the
baseline's CPU time on generate-hashes, spread over the cores.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIMALLOC = "libmimalloc.so.2"  # Debian's libmimalloc2.0, as the allocator sweep preloads it


def commands(spec, bins, fixtures, workload, out):
    """The three command lines of one workload, as the spec builds them."""
    w = spec["workloads"][workload]
    args = [a.replace("{fixture}", os.path.join(fixtures, workload)).replace("{out}", out) for a in
            w.get("args", ["--version"])]
    baseline = [os.path.join(bins, "bazel-diff-ref-baseline")] + args
    candidate = [os.path.join(bins, "bazel-diff-ref-candidate")] + args
    preloaded = ["/usr/bin/env", f"LD_PRELOAD={MIMALLOC}"] + baseline
    return {"baseline": baseline, "candidate": candidate, "baseline+mimalloc": preloaded}


def hyperfine(named, runs, warmup, work):
    export = os.path.join(work, "hyperfine.json")
    argv = ["hyperfine", "-N", "--style", "none", "--warmup", str(warmup), "--runs", str(runs),
            "--export-json", export]
    for name, command in named.items():
        argv += ["-n", name, " ".join(command)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    with open(export) as f:
        return {r["command"]: r for r in json.load(f)["results"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", required=True, help="perfengine generate's --out directory")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--spec", default=os.path.join(ROOT, "specs", "bazel-diff.toml"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--workload", action="append", help="only these (repeatable)")
    options = parser.parse_args()

    with open(options.spec, "rb") as f:
        spec = tomllib.load(f)
    names = options.workload or [n for n, w in spec["workloads"].items() if w.get("kind") != "serve"]
    all_faster = True
    with tempfile.TemporaryDirectory(prefix="bench-flagship-") as work:
        print(f"{'workload':32} {'command':18} {'median wall':>12} {'user':>9} {'wall/base':>10} {'user/base':>10}")
        for name in names:
            if not os.path.isdir(os.path.join(options.fixtures, name)) and name != "startup":
                print(f"{name}: no fixture in {options.fixtures} (run perfengine generate)", file=sys.stderr)
                return 2
            try:
                results = hyperfine(commands(spec, options.bin, options.fixtures, name, os.path.join(work, "out")),
                                    options.runs, options.warmup, work)
            except subprocess.CalledProcessError as error:
                print(f"{name}: hyperfine failed ({error})", file=sys.stderr)
                return 2
            base = results["baseline"]
            for command, r in results.items():
                wall, user = r["median"] / base["median"], r["user"] / base["user"]
                print(f"{name:32} {command:18} {r['median']:11.3f}s {r['user']:8.3f}s {wall:9.3f}x {user:9.3f}x")
                if command == "candidate" and name != "startup" and wall >= 1:
                    all_faster = False
    print("candidate's median wall time below the baseline's on every workload:", "yes" if all_faster else "no")
    return 0 if all_faster else 1


if __name__ == "__main__":
    sys.exit(main())
