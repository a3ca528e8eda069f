#!/usr/bin/env python3
"""What each process does per execution of /bin/true, for one or more perfengine builds: counts
that a loaded machine does not change (issue 27, "Nothing between executions").

Each BUILD is a directory holding `perfengine` and `perfengine-spawner`. For each, a spec runs
/bin/true on both sides for --rounds rounds (the startup workload included), and:

- `strace -f -ff` counts the syscalls of each process by its role (engine, spawner, minder, the
  child), per measured execution;
- `perf record` of the page-fault tracepoints counts the page faults of the spawner and of
  each minder (before and after it starts its child), per minder: on a paravirtualised guest a
  fault costs tens of microseconds, and a forked minder faults on every page it writes or runs
  first;
- `perf stat` (software events, the whole process tree) gives task-clock, context switches,
  CPU migrations and page faults per measured execution, --repeat times, builds interleaved.

  bench/process_start/per_execution_counts.py build-old/bin build/bin [--rounds 50] [--repeat 3]

Run by hand; figures go in docs/reducing-variance.md with the date.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

SPEC = """description = "per-execution counts: /bin/true"
[run]
rounds = {rounds}
warmup_rounds = 3
order = "alternate"
[contenders.baseline]
argv = ["/bin/true"]
[contenders.candidate]
argv = ["/bin/true"]
[workloads.run]
args = []
"""
SYSCALL = re.compile(r"(?:[\d.]+ )?\w+\(")


def executions(results):
    with open(results) as f:
        data = json.load(f)
    return sum(len(w["samples"]) for w in data["workloads"])


def command(build, spec, results):
    env = dict(os.environ, PERFENGINE_SPAWNER=os.path.join(build, "perfengine-spawner"))
    return [os.path.join(build, "perfengine"), "run", spec, "--quiet", "--json", results], env


def role(text):
    if re.search(r'execve\("[^"]*/(usr/)?bin/true"', text):
        return "child"
    if re.search(r'execve\("[^"]*perfengine-spawner"', text):
        return "spawner"
    if re.search(r'execve\("[^"]*/perfengine"', text):
        return "engine"
    # A minder forked per request reads nothing itself; the resident minder reads its own socket, fd 4.
    if "CLONE_VM|CLONE_VFORK" in text or "recvmsg(3" in text or "recvmsg(4" in text:
        return "minder"
    return "engine"  # the engine's threads


def syscalls(build, spec, work, tag):
    traces = os.path.join(work, f"strace-{tag}")
    os.makedirs(traces, exist_ok=True)
    results = os.path.join(work, "strace.json")
    argv, env = command(build, spec, results)
    subprocess.run(["strace", "-f", "-ff", "-o", os.path.join(traces, "t"), *argv], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    counts = {}
    for name in os.listdir(traces):
        with open(os.path.join(traces, name)) as f:
            text = f.read()
        kind = role(text)
        counts[kind] = counts.get(kind, 0) + sum(1 for line in text.splitlines() if SYSCALL.match(line))
    n = executions(results)
    return {kind: count / n for kind, count in counts.items()}


def page_faults(build, spec, work):
    """Median page faults per minder (before its child's clone, after it) and the spawner's per
    minder, from the tracepoints of one run: a minder is a process the spawner forked."""
    data = os.path.join(work, "faults.data")
    argv, env = command(build, spec, os.path.join(work, "faults.json"))
    events = "exceptions:page_fault_user,exceptions:page_fault_kernel,sched:sched_process_fork"
    subprocess.run(["perf", "record", "-q", "-a", "-e", events, "-o", data, "--", *argv], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,event,trace"], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    fork = re.compile(r"\s*perfengine-spaw\s+(\d+)\s+sched:sched_process_fork:.*child_pid=(\d+)")
    parent = {}
    for line in script:
        m = fork.match(line)
        if m:
            parent[int(m.group(2))] = int(m.group(1))
    if not parent:
        return None
    spawner = statistics.mode(parent.values())
    minders = {child for child, p in parent.items() if p == spawner}
    before, after, spawner_faults, cloned = {m: 0 for m in minders}, {m: 0 for m in minders}, 0, set()
    for line in script:
        fields = line.split()
        if len(fields) < 3 or not fields[1].isdigit():
            continue
        pid = int(fields[1])
        if fields[2].startswith("sched:sched_process_fork") and pid in minders:
            cloned.add(pid)
        elif "page_fault" in fields[2]:
            if pid == spawner:
                spawner_faults += 1
            elif pid in minders:
                (after if pid in cloned else before)[pid] += 1
    return (statistics.median(before.values()), statistics.median(after.values()), spawner_faults / len(minders))


def perf_stat(build, spec, work):
    results = os.path.join(work, "perf.json")
    out = os.path.join(work, "perf.csv")
    argv, env = command(build, spec, results)
    subprocess.run(["perf", "stat", "-x,", "-e", "task-clock,context-switches,cpu-migrations,page-faults", "-o", out, *argv],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    n = executions(results)
    figures = {}
    with open(out) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) > 3 and fields[0] and fields[0][0].isdigit():
                figures[fields[2]] = float(fields[0]) / n
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in args.builds]
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]), f"({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="pe-counts-") as work:
        spec = os.path.join(work, "true.toml")
        with open(spec, "w") as f:
            f.write(SPEC.format(rounds=args.rounds))
        print("syscalls per measured execution (strace -f -ff):")
        for tag, build in enumerate(builds):
            counts = syscalls(build, spec, work, tag)
            print(f"  {build}: " + ", ".join(f"{k} {counts[k]:.1f}" for k in sorted(counts)))
        print("page faults (perf record): per minder, median, before and after its child's start; the spawner's per minder:")
        for build in builds:
            faults = page_faults(build, spec, work)
            print(f"  {build}: " + ("no minders seen" if faults is None else
                                    "minder {:.0f} before, {:.0f} after; spawner {:.1f}".format(*faults)))
        print("perf stat, whole process tree, per measured execution (task-clock in ms):")
        for rep in range(args.repeat):
            for build in builds:
                figures = perf_stat(build, spec, work)
                print(f"  {rep + 1} {build}: " + ", ".join(f"{k} {v:.2f}" for k, v in figures.items()), flush=True)
    with open("/proc/loadavg") as f:
        print("load average at end:", " ".join(f.read().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
