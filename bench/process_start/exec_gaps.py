#!/usr/bin/env python3
"""Where the time between two executions goes (issue 27): perfengine and `hyperfine -N`, each
running /bin/true (and `/bin/true --version`, the start-up command) for --runs rounds, traced by
`perf record -a` on scheduler and system-call tracepoints (no hardware counters needed).

For each tool it prints the median over executions of the gap from one child's exit to the
next child's exec, and for perfengine that gap's parts, in order:

  report   the child's exit to the engine's wake-up (the minder reaps the child, kills what it
           left, writes the result; the engine wakes)
  engine   the engine's wake-up to its next request (its own work between executions)
  spawner  the request to the minder's fork (the spawner wakes, reads the request, forks)
  minder   the minder's fork to its clone of the child (the new process's set-up and first faults)
  exec     the clone to the child's exec (the tracepoint fires once the new program is loaded)

and for both tools the medians of every child's exec to its exit and of its clone to its exec
(together, about the child's timed window). Run by hand, nothing else running:

    bench/process_start/exec_gaps.py [--perfengine build/bin/perfengine] [--runs 60]

The spawner run is the `perfengine-spawner` beside the `perfengine` given.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from per_execution_counts import SPEC  # /bin/true on both sides, the start-up workload included

EVENTS = ["sched:sched_process_exec", "sched:sched_process_exit", "sched:sched_process_fork",
          "syscalls:sys_enter_sendmsg", "syscalls:sys_exit_poll"]
LINE = re.compile(r"\s*\S.*?\s+(\d+)\s+\[\d+\]\s+([\d.]+):\s+(\S+):\s*(.*)")
FORK = re.compile(r"pid=(\d+) child_comm=.* child_pid=(\d+)")
EXEC = re.compile(r"filename=(\S+) pid=(\d+)")


def trace(command, work, name):
    data = os.path.join(work, name + ".data")
    subprocess.run(["perf", "record", "-q", "-a", "-o", data, *sum((["-e", e] for e in EVENTS), []), "--", *command],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    script = subprocess.run(["perf", "script", "-i", data], check=True, capture_output=True, text=True).stdout
    events = []
    for line in script.splitlines():
        m = LINE.match(line)
        if m:
            events.append((float(m.group(2)), m.group(3).split(":")[-1], int(m.group(1)), m.group(4)))
    return events


def median_us(values):
    return statistics.median(values) * 1e6 if values else float("nan")


def children(events, program):
    """Each exec of `program` (a set of its paths): (exec time, pid), and every process's exit time and parent."""
    execs, exits, parent, forked = [], {}, {}, {}
    for t, name, pid, rest in events:
        if name == "sched_process_exec":
            m = EXEC.search(rest)
            if m and m.group(1) in program:
                execs.append((t, int(m.group(2))))
        elif name == "sched_process_exit":
            exits.setdefault(pid, t)
        elif name == "sched_process_fork":
            m = FORK.search(rest)
            if m:
                parent[int(m.group(2))] = int(m.group(1))
                forked[int(m.group(2))] = t
    return execs, exits, parent, forked


def gaps(execs, exits):
    out = []
    for (_, pid), (t_next, _) in zip(execs, execs[1:]):
        if pid in exits and t_next > exits[pid]:
            out.append(t_next - exits[pid])
    return out


def perfengine_parts(events, program):
    execs, exits, parent, forked = children(events, program)
    engine = next(pid for t, name, pid, rest in events
                  if name == "sched_process_exec" and EXEC.search(rest).group(1).endswith("/perfengine"))
    engine_events = [(t, name) for t, name, pid, _ in events
                     if pid == engine and name in ("sys_exit_poll", "sys_enter_sendmsg")]
    parts = {k: [] for k in ("report", "engine", "spawner", "minder", "exec")}
    for (_, pid), (t_next, next_pid) in zip(execs, execs[1:]):
        minder = parent.get(next_pid)
        if pid not in exits or minder not in forked or next_pid not in forked:
            continue
        t_exit = exits[pid]
        woke = next((t for t, name in engine_events if name == "sys_exit_poll" and t > t_exit), None)
        sent = next((t for t, name in engine_events if name == "sys_enter_sendmsg" and woke and t > woke), None)
        if woke is None or sent is None or not (sent < forked[minder] < forked[next_pid] < t_next):
            continue
        parts["report"].append(woke - t_exit)
        parts["engine"].append(sent - woke)
        parts["spawner"].append(forked[minder] - sent)
        parts["minder"].append(forked[next_pid] - forked[minder])
        parts["exec"].append(t_next - forked[next_pid])
    return gaps(execs, exits), parts


def clone_to_exec(events, program):
    """Each child's creation to its exec, whoever created it."""
    execs, _, _, forked = children(events, program)
    return [t - forked[pid] for t, pid in execs if pid in forked]


def lifetimes(events, program):
    """Each child's exec to its exit: the part of its timed window after the new program is loaded."""
    execs, exits, _, _ = children(events, program)
    return [exits[pid] - t for t, pid in execs if pid in exits]


def hyperfine_parts(events, program):
    execs, exits, _, _ = children(events, program)
    return gaps(execs, exits), clone_to_exec(events, program)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfengine", default=os.path.join(here, "..", "..", "build", "bin", "perfengine"))
    ap.add_argument("--runs", type=int, default=60)
    args = ap.parse_args()
    true = {"/bin/true", os.path.realpath("/bin/true")}  # as given, or as PATH found it
    with tempfile.TemporaryDirectory(prefix="pe-exec-gaps-") as work:
        spec = os.path.join(work, "spec.toml")
        with open(spec, "w") as f:
            f.write(SPEC.format(rounds=args.runs))
        pe = trace([os.path.abspath(args.perfengine), "run", spec, "--json", os.path.join(work, "r.json")], work, "pe")
        hf = trace(["hyperfine", "-N", "--style", "none", "--runs", str(args.runs), "--warmup", "3", "/bin/true",
                    "/bin/true --version"], work, "hf")
    pe_gaps, parts = perfengine_parts(pe, true)
    hf_gaps, hf_exec = hyperfine_parts(hf, true)
    if not pe_gaps or not hf_gaps:
        print("no executions traced (is perf allowed to record tracepoints here?)", file=sys.stderr)
        return 2
    print(f"exit to next exec, median: perfengine {median_us(pe_gaps):.0f} us ({len(pe_gaps)} gaps), "
          f"hyperfine -N {median_us(hf_gaps):.0f} us ({len(hf_gaps)}); ratio {median_us(pe_gaps) / median_us(hf_gaps):.2f}")
    if len(parts["report"]) >= len(pe_gaps) // 2:
        print(f"perfengine's parts, medians over {len(parts['report'])} gaps:")
        for name, values in parts.items():
            print(f"  {name:<8}{median_us(values):>7.0f} us")
    else:
        # A build whose minders are not forked on each request (a spare, a resident minder).
        print(f"perfengine's parts: not shown (only {len(parts['report'])} gaps have a minder forked after the request)")
    print(f"exec to exit, every child: perfengine {median_us(lifetimes(pe, true)):.0f} us, "
          f"hyperfine {median_us(lifetimes(hf, true)):.0f} us")
    print(f"clone to exec, every child: perfengine {median_us(clone_to_exec(pe, true)):.0f} us, "
          f"hyperfine {median_us(hf_exec):.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
