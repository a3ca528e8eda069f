#!/usr/bin/env python3
"""How a worker round should spend its measuring time (docs/workers.md, "Rounds").

Drives two workers of the same ruby/json build (an A/A pair) over the protocol itself, a fresh
pair each round as perfengine does, K batches of N/K iterations per benchmark and worker, the
workers taking turns (A B, B A, ...), laid out one of two ways (--layouts, each with its own
pair in the same rounds): `passes`, perfengine's, batch k of every benchmark and then batch
k + 1; `back-to-back`, each benchmark's warm-up batch of N/10 and then its K batches before the
next benchmark (perfengine's layout until 6 December 2026). The workers digest only each
benchmark's first batch, as perfengine asks (--digest-every, or a layout NAME:every: every batch, as before). Every
batch's process CPU time is kept, so one run answers, from the same batches, how noisy a
round's paired log-ratio is when the round's figure is
  - one short batch each (the first pair),
  - one long batch each (the K batches summed: the same measuring time as the rest),
  - the median of the K pairs' log-ratios,
  - each worker's fastest batch (what perfengine's [run] batches takes).
The noise of a benchmark is 1.4826 x MAD of its per-round log-ratios (docs/statistics.md); its
offset is the median log-ratio itself, which an A/A pair should have near 0. --long-lived keeps
one pair of workers for every round instead: an offset that stays there is the two processes'
own difference (heap, layout, hash seeds), which fresh workers per round turn into noise.

    bench/workers/batches.py --worktree WT --fixtures DIR [--rounds 24] [--batches 5]
                             [--batch-time 0.05[,0.02...]] [--layouts passes,back-to-back]
                             [--long-lived] [--digest-every] [--json OUT]

WT is a ruby/json worktree with pe-lib/json/ext/{parser,generator}.so built as
specs/ruby-json-worker.toml builds it (perfengine's cache holds one after a run, under
~/.cache/perfengine/worktrees/); DIR is `perfengine generate specs/ruby-json/fixtures.toml
--out DIR`. --batch-time is the measuring time per worker, benchmark and round (split K ways);
several, comma-separated, are measured in the same rounds, each layout and time with a pair of
its own (the one to go first turning round by round), so they compare under the same conditions.
"""

import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER_RB = os.path.join(HERE, "..", "..", "specs", "ruby-json", "worker.rb")


class Worker:
    def __init__(self, worktree, fixtures, digest_every=False):
        ours, theirs = socket.socketpair()
        env = dict(os.environ, PERFENGINE_WORKER_FDS="0,0", RUBY_JSON_FIXTURES=fixtures)
        # As perfengine sets it (worker_round.h): a digest on each benchmark's first batch only.
        env.pop("PERFENGINE_WORKER_DIGESTS", None)
        if not digest_every:
            env["PERFENGINE_WORKER_DIGESTS"] = "first"
        argv = ["ruby", "--disable-gems", "-Ipe-lib", "-Ilib", WORKER_RB]
        self.process = subprocess.Popen(argv, cwd=worktree, stdin=theirs, env=env, stdout=subprocess.DEVNULL)
        theirs.close()
        self.channel = ours.makefile("rw")

    def hello(self):
        line = self.channel.readline()
        if not line.startswith("hello "):
            sys.exit(f"batches.py: the worker did not greet: {line!r}")
        return line.split("benchmarks=")[1].split()[0].split(",")

    def run(self, name, iterations):
        """The batch's process CPU seconds."""
        self.channel.write(f"run {name} {iterations}\n")
        self.channel.flush()
        line = self.channel.readline()
        if not line.startswith("done "):
            sys.exit(f"batches.py: {name}: {line!r}")
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        return int(fields["process_cpu_ns"]) / 1e9

    def quit(self):
        self.channel.write("quit\n")
        self.channel.flush()
        self.process.wait()


def calibrate(worktree, fixtures, batch_time, batches):
    """N per benchmark: iterations for `batch_time` of CPU time, at least `batches`."""
    worker = Worker(worktree, fixtures)
    names = worker.hello()
    sizes = {}
    for name in names:
        n = 1
        while True:
            cpu = worker.run(name, n)
            if cpu >= batch_time / 4 or n > 10**7:
                break
            n *= 2
        sizes[name] = max(batches, int(n * batch_time / max(cpu, 1e-9)))
    worker.quit()
    return sizes


def run_back_to_back(pair, order, sizes, batches):
    """Each benchmark's warm-up batch of N/10, then its K batches, before the next benchmark."""
    out = {}
    for name, n in sizes.items():
        for i in order:
            pair[i].run(name, max(1, n // 10))
        out[name] = []
        for k in range(batches):
            turn = order if k % 2 == 0 else order[::-1]
            cpu = {i: pair[i].run(name, max(1, n // batches)) for i in turn}
            out[name].append([cpu[0], cpu[1]])
    return out


def run_in_passes(pair, order, sizes, batches):
    """As perfengine's round_runner.cc: batch k of every benchmark, then batch k + 1."""
    out = {name: [] for name in sizes}
    for k in range(batches):
        turn = order if k % 2 == 0 else order[::-1]
        for name, n in sizes.items():
            cpu = {i: pair[i].run(name, max(1, n // batches)) for i in turn}
            out[name].append([cpu[0], cpu[1]])
    return out


LAYOUTS = {"back-to-back": run_back_to_back, "passes": run_in_passes}


def collect(args):
    times = [float(t) for t in args.batch_time.split(",")]
    layouts = args.layouts.split(",")
    for layout in layouts:
        if layout.removesuffix(":every") not in LAYOUTS:
            sys.exit(f"batches.py: unknown layout {layout!r}: {', '.join(LAYOUTS)}, each optionally :every")
    sizes = calibrate(args.worktree, args.fixtures, max(times), args.batches)
    configs = [(layout, t) for layout in layouts for t in times]

    def every(config):
        return args.digest_every or config[0].endswith(":every")

    runs = {c: {"sizes": {n: max(args.batches, int(k * c[1] / max(times))) for n, k in sizes.items()},
                "batches": args.batches, "batch_time": c[1], "layout": c[0].removesuffix(":every"),
                "long_lived": args.long_lived, "digests": "every batch" if every(c) else "first", "rounds": []}
            for c in configs}
    pairs = {}
    for r in range(args.rounds):
        order = [0, 1] if r % 2 == 0 else [1, 0]
        # Each layout and batch time its own pair, the one to go first turning round by round.
        for c in configs[r % len(configs):] + configs[:r % len(configs)]:
            started = time.monotonic()
            if c not in pairs or not args.long_lived:
                pairs[c] = [Worker(args.worktree, args.fixtures, every(c)), Worker(args.worktree, args.fixtures, every(c))]
                for w in pairs[c]:
                    w.hello()
            batches = LAYOUTS[c[0].removesuffix(":every")](pairs[c], order, runs[c]["sizes"], args.batches)
            if not args.long_lived or r == args.rounds - 1:
                for w in pairs[c]:
                    w.quit()
            runs[c]["rounds"].append({"seconds": time.monotonic() - started, "batches": batches})
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
    return list(runs.values())


def robust_noise(values):
    centre = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - centre) for v in values)


READINGS = {
    "one short batch each": lambda b: math.log(b[0][1] / b[0][0]),
    "one long batch each (sum)": lambda b: math.log(sum(x[1] for x in b) / sum(x[0] for x in b)),
    "median of the pairs": lambda b: statistics.median(math.log(x[1] / x[0]) for x in b),
    "fastest batch each": lambda b: math.log(min(x[1] for x in b) / min(x[0] for x in b)),
}


def report(data):
    names = list(data["sizes"])
    workers = "one long-lived A/A pair" if data.get("long_lived") else "fresh A/A workers"
    seconds = statistics.median(r["seconds"] for r in data["rounds"]) if "seconds" in data["rounds"][0] else 0
    print(f"{len(data['rounds'])} rounds of {workers}, {len(names)} benchmarks, "
          f"{data['batches']} batches of {1000 * data.get('batch_time', 0.05) / data['batches']:.0f} ms each, "
          f"{data.get('layout', 'back-to-back')}, digests {data.get('digests', 'every batch')}: "
          f"median {seconds:.2f} s a pair's round")
    print(f"{'a round reads':28} {'noise: median':>14} {'p75':>6} {'max':>6} {'|offset|: median':>17} {'max':>6}")
    for label, read in READINGS.items():
        per = {n: [read(r["batches"][n]) for r in data["rounds"]] for n in names}
        noise = sorted(100 * robust_noise(v) for v in per.values())
        offset = sorted(100 * abs(statistics.median(v)) for v in per.values())
        print(f"{label:28} {statistics.median(noise):13.2f}% {noise[3 * len(noise) // 4]:5.2f}% {noise[-1]:5.2f}% "
              f"{statistics.median(offset):16.2f}% {offset[-1]:5.2f}%")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worktree")
    parser.add_argument("--fixtures")
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--batch-time", default="0.05")
    parser.add_argument("--long-lived", action="store_true", help="one pair of workers for every round")
    parser.add_argument("--layouts", default="passes",
                        help="back-to-back (a benchmark's batches together) and/or passes (batch k of every "
                             "benchmark, then k + 1: perfengine's), comma-separated, each with its own pair per round; "
                             "NAME:every digests every batch")
    parser.add_argument("--digest-every", action="store_true",
                        help="digest every batch, as before PERFENGINE_WORKER_DIGESTS=first")
    parser.add_argument("--json", help="write every batch's CPU time here")
    parser.add_argument("--report", help="only report on a --json file written before")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as f:
            data = json.load(f)
        for run in data if isinstance(data, list) else [data]:
            report(run)
        return
    if not args.worktree or not args.fixtures:
        parser.error("--worktree and --fixtures are needed (or --report FILE)")
    runs = collect(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f)
    for run in runs:
        report(run)


if __name__ == "__main__":
    main()
