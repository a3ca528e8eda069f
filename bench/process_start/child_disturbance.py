#!/usr/bin/env python3
"""What disturbs a timed child, counted from the scheduler's own trace rather than timed, for one
or more perfengine builds (issue 27, "Nothing between executions").

Each BUILD is a directory holding `perfengine` and `perfengine-spawner`. For each, a spec runs a
contender on both sides (`/bin/true`, and bench/verdicts/work.c at --iterations) under
`perf record -a` of the scheduler's tracepoints (sched_switch, sched_wakeup, sched_wakeup_new,
sched_migrate_task, sched_process_fork, sched_process_exec, sched_process_exit). From the trace,
per measured execution of the contender (each process that exec'd it):

- `preempted`: the times it was switched out while runnable (sched_switch prev_state R: what
  the kernel counts in the child's ru_nivcsw), split by who took the CPU: `harness` (the
  engine, the spawner, a minder, the resident minder) or `other` (anything else: other
  engineers' builds, kernel threads); `blocked`: switched out asleep (ru_nvcsw);
- `migrations`: moves to another CPU (sched_migrate_task), before its exec and after;
- `harness wake-ups`: wake-ups of a harness process between the child's creation and its exit
  (the minder's timed window), before and after its exec, on the CPU the child was on at that
  moment (`on its CPU`) or elsewhere;
- `exec CPU = clone CPU`: how often the child exec'd on the CPU its parent cloned it on.

Timing plays no part: these are counts of events, which a loaded machine changes only through
`other` (reported apart). Run as root (perf record -a of tracepoints; tracefs is mounted at
/sys/kernel/tracing when it is not).

  bench/process_start/child_disturbance.py build-old/bin build/bin [--rounds 40] [--work-rounds 15]

Run by hand; figures go in docs/reducing-variance.md with the date.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORK_C = os.path.join(HERE, "..", "verdicts", "work.c")
EVENTS = ["sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_migrate_task",
          "sched:sched_process_fork", "sched:sched_process_exec", "sched:sched_process_exit"]

SPEC = """description = "child disturbance: {what}"
[run]
rounds = {rounds}
max_rounds = {rounds}
warmup_rounds = 2
order = "alternate"
[contenders.baseline]
argv = {argv}
[contenders.candidate]
argv = {argv}
[workloads.run]
args = []
"""

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>[\d.]+):\s+(?P<event>[\w:]+):\s+"
                  r"(?P<trace>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


def ensure_tracefs():
    if not os.path.exists("/sys/kernel/tracing/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"], check=False)


def switch_fields(trace):
    # "prev_comm=a b prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=c next_pid=2 next_prio=120"
    prev, _, nxt = trace.partition(" ==> ")
    p = dict(FIELD.findall(prev))
    n = dict(FIELD.findall(nxt))
    return int(p.get("prev_pid", -1)), p.get("prev_state", "?"), int(n.get("next_pid", -1))


class Tracker:
    """Roles by pid, built as the trace goes: the engine, the spawner, its minders, the resident."""

    def __init__(self, program, build):
        self.program = os.path.realpath(program)
        # Only this build's processes are the harness: other engineers' perfengine runs are "other".
        self.engine = os.path.join(build, "perfengine")
        self.spawner = os.path.join(build, "perfengine-spawner")
        self.role = {}        # pid -> engine | spawner | minder | resident | child
        self.children = {}    # pid -> per-child record
        self.where = {}       # pid -> last CPU it ran on
        self.parent_cpu = {}  # child pid -> CPU its parent ran on when it cloned it

    def harness(self, pid):
        return self.role.get(pid) in ("engine", "spawner", "minder", "resident")

    def feed(self, tid, cpu, event, trace):
        f = dict(FIELD.findall(trace))
        if event == "sched:sched_process_exec":
            name = f.get("filename", "")
            if name == self.engine:
                self.role[tid] = "engine"
            elif name == self.spawner:
                self.role[tid] = "spawner"
            elif os.path.realpath(name) == self.program:
                self.role[tid] = "child"
                c = self.children.setdefault(tid, new_child())
                c["exec_cpu"] = cpu
                c["clone_cpu"] = self.parent_cpu.get(tid)
                c["execd"] = True
        elif event == "sched:sched_process_fork":
            parent, child = int(f["pid"]), int(f["child_pid"])
            self.parent_cpu[child] = cpu
            prole = self.role.get(parent)
            if prole == "engine":
                self.role[child] = "engine"  # its threads (and nothing else: it forks no process)
            elif prole == "spawner":
                self.role[child] = "minder"  # the resident is renamed later (prctl), still a minder
            elif prole in ("minder", "resident"):
                self.children[child] = new_child()
        elif event == "sched:sched_switch":
            prev, state, nxt = switch_fields(trace)
            self.where[nxt] = cpu
            c = self.children.get(prev)
            if c is not None and not c["exited"]:
                phase = "program" if c["execd"] else "setup"
                if state.startswith("R"):
                    c[f"preempted_{phase}_" + ("harness" if self.harness(nxt) else "other")] += 1
                elif "X" not in state and "Z" not in state:
                    c[f"blocked_{phase}"] += 1
        elif event == "sched:sched_migrate_task":
            pid = int(f["pid"])
            c = self.children.get(pid)
            if c is not None and not c["exited"]:
                c["migrations_" + ("program" if c["execd"] else "setup")] += 1
                self.where[pid] = int(f["dest_cpu"])
        elif event in ("sched:sched_wakeup", "sched:sched_wakeup_new"):
            pid = int(f["pid"])
            target = int(f.get("target_cpu", "-1"))
            if pid in self.children:
                self.where[pid] = target
            if self.harness(pid):
                for cpid, c in self.children.items():
                    if not c["exited"]:
                        same = self.where.get(cpid) == target
                        phase = "program" if c["execd"] else "setup"
                        c[f"harness_wakeups_{phase}_" + ("same" if same else "other")] += 1
        elif event == "sched:sched_process_exit":
            pid = int(f.get("pid", tid))
            c = self.children.get(pid)
            if c is not None:
                c["exited"] = True

    def note_comm(self, tid, comm):
        if comm == "pe-resident" and self.role.get(tid) == "minder":
            self.role[tid] = "resident"


def new_child():
    c = collections.Counter()
    c["execd"] = False
    c["exited"] = False
    return c


COLUMNS = [
    ("preempted_program_harness", "preempted by harness, running"),
    ("preempted_program_other", "preempted by other, running"),
    ("preempted_setup_harness", "preempted by harness, before exec"),
    ("preempted_setup_other", "preempted by other, before exec"),
    ("blocked_program", "blocked, running"),
    ("blocked_setup", "blocked, before exec"),
    ("migrations_setup", "migrations before exec"),
    ("migrations_program", "migrations after exec"),
    ("harness_wakeups_setup_same", "harness wake-ups on its CPU, before exec"),
    ("harness_wakeups_setup_other", "harness wake-ups elsewhere, before exec"),
    ("harness_wakeups_program_same", "harness wake-ups on its CPU, after exec"),
    ("harness_wakeups_program_other", "harness wake-ups elsewhere, after exec"),
]


def measure(build, program, argv, rounds, work):
    spec = os.path.join(work, "spec.toml")
    with open(spec, "w") as f:
        f.write(SPEC.format(what=program, rounds=rounds, argv="[" + ", ".join(f'"{a}"' for a in argv) + "]"))
    data = os.path.join(work, "perf.data")
    env = dict(os.environ, PERFENGINE_SPAWNER=os.path.join(build, "perfengine-spawner"))
    subprocess.run(["perf", "record", "-q", "-a", "-o", data, *sum((["-e", e] for e in EVENTS), []), "--",
                    os.path.join(build, "perfengine"), "run", spec, "--quiet", "--json", os.path.join(work, "r.json")],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    script = subprocess.run(["perf", "script", "-i", data],
                            capture_output=True, text=True, check=True).stdout
    tracker = Tracker(program, build)
    for line in script.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        tid, cpu = int(m["tid"]), int(m["cpu"])
        tracker.note_comm(tid, m["comm"])
        tracker.feed(tid, cpu, m["event"], m["trace"])
    done = [c for c in tracker.children.values() if c["execd"] and c["exited"]]
    n = max(len(done), 1)
    figures = {key: sum(c[key] for c in done) / n for key, _ in COLUMNS}
    figures["same_cpu"] = sum(1 for c in done if c["clone_cpu"] is not None and c["exec_cpu"] == c["clone_cpu"]) / n
    return len(done), figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--rounds", type=int, default=40, help="rounds of /bin/true")
    ap.add_argument("--work-rounds", type=int, default=15, help="rounds of work.c")
    ap.add_argument("--iterations", type=int, default=3000000, help="work.c's loop count")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved passes over the builds")
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in args.builds]
    ensure_tracefs()
    for i, b in enumerate(builds):
        print(f"build {i + 1}: {b}")
    with open("/proc/loadavg") as f:
        print("load average at start:", " ".join(f.read().split()[:3]), f"({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="pe-disturb-") as work:
        binary = os.path.join(work, "work")
        subprocess.run(["cc", "-O2", WORK_C, "-o", binary], check=True)
        cases = [("/bin/true", ["/bin/true"], args.rounds),
                 (binary, [binary, str(args.iterations), "w"], args.work_rounds)]
        for program, argv, rounds in cases:
            name = "work.c" if program == binary else program
            print(f"\n{name}: per traced execution (children that exec'd and exited while traced)")
            header = f"{'':<44}" + "".join(f"{'build ' + str(i + 1):>14}" for i in range(len(builds)))
            for rep in range(args.repeat):
                results = [measure(b, program, argv, rounds, work) for b in builds]
                print(f"pass {rep + 1}: executions " + ", ".join(str(n) for n, _ in results))
                print(header)
                for key, label in COLUMNS + [("same_cpu", "exec CPU = clone CPU (fraction)")]:
                    print(f"{label:<44}" + "".join(f"{fig[key]:>14.3f}" for _, fig in results))
                with open("/proc/loadavg") as f:
                    print("load average:", " ".join(f.read().split()[:3]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
