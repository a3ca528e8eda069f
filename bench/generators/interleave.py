#!/usr/bin/env python3
"""Two builds of bench_generators side by side, interleaved (issue 27: before and after).

    bench/generators/interleave.py OLD_BENCH NEW_BENCH [--rounds 3] [-- BENCH ARGS...]

OLD_BENCH and NEW_BENCH are bench_generators binaries built from two trees (the same
generators_bench.cc compiled against each tree's generators library, so both measure the same
cases the same way). Each round runs OLD then NEW (the order alternates every round) with
`--summary --repeat 1` and the given arguments, and reads their RESULT lines. It prints the load
average before every run, then per case and metric the median of the rounds for each build and
NEW/OLD (for a rate, above 1 is faster), and each build's rates as a ratio of its own plain loop.
"""
import argparse
import statistics
import subprocess
import sys


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(binary, args):
    out = subprocess.run([binary, "--summary", "--repeat", "1", *args], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    results = {}
    for line in out.splitlines():
        if not line.startswith("RESULT "):
            continue
        fields = line.split()
        results[fields[1]] = {k: float(v) for k, v in (f.split("=") for f in fields[2:])}
    if not results:
        sys.exit(f"{binary} printed no RESULT line:\n{out}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    bench_args = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    options.args = bench_args

    seen = {"old": [], "new": []}
    for r in range(options.rounds):
        order = [("old", options.old), ("new", options.new)]
        if r % 2 == 1:
            order.reverse()
        for name, binary in order:
            load = load_average()
            seen[name].append(run(binary, options.args))
            print(f"round {r + 1} {name}: load average {load}", flush=True)

    cases = list(seen["new"][0].keys())
    print(f"\nmedians of {options.rounds} interleaved rounds (MB/s; graph_s and workspace_s in seconds)")
    print(f"{'case':<18} {'metric':<12} {'old':>10} {'new':>10} {'new/old':>8}")
    for case in cases:
        for metric in seen["new"][0][case]:
            old = statistics.median(run_[case][metric] for run_ in seen["old"])
            new = statistics.median(run_[case][metric] for run_ in seen["new"])
            seconds = metric.endswith("_s") and not metric.endswith("_per_s")
            ratio = (old / new) if seconds else (new / old)
            digits = 3 if seconds else 1
            print(f"{case:<18} {metric:<12} {old:>10.{digits}f} {new:>10.{digits}f} {ratio:>7.2f}x")
        for name in ("old", "new"):
            stream = statistics.median(run_[case]["stream_mbps"] / run_[case]["plain_mbps"] for run_ in seen[name])
            line = f"{case:<18} {name}: stream {stream:.2f}x its plain write loop"
            if "tree_mbps" in seen[name][0][case]:
                tree = statistics.median(run_[case]["tree_mbps"] / run_[case]["files_mbps"] for run_ in seen[name])
                line += f", workspace writer {tree:.2f}x its plain file loop"
            print(line)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
