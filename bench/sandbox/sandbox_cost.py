#!/usr/bin/env python3
"""What the sandbox costs (docs/threat-model.md, "The sandbox"), side by side in one run: the same
spec run by perfengine with its sandbox and without one, runs interleaved. Without one means
inside a user namespace whose user.max_user_namespaces is 0, where the spawner's probe is refused
and every child runs as on a kernel without namespaces (the engine's own code is the same).

    bench/sandbox/sandbox_cost.py [--perfengine build/bin/perfengine] [--rounds 40] [--repeat 3]

Per command (/bin/true and a 20 ms sleep) it prints, for each mode, the median wall and CPU time
of the measured executions (what the sandbox must not change: it is built before the clock
starts) and the whole tool run's wall time per execution (what it does cost: namespaces, mounts
and the namespace's init, per execution), and each sandboxed/unsandboxed ratio. Exit 0 when it
ran, 2 when it could not.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SLEEP = shutil.which("sleep") or "/usr/bin/sleep"
COMMANDS = {"/bin/true": ["/bin/true"], "sleep 0.02": [SLEEP, "0.02"]}
REFUSE = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\""


def spec_text(rounds, argv):
    return f"""[run]
rounds = {rounds}
warmup_rounds = 1
order = "alternate"

[contenders.baseline]
argv = {json.dumps(argv)}
startup = ["/bin/true"]

[contenders.candidate]
argv = {json.dumps(argv)}
startup = ["/bin/true"]

[workloads.run]
args = []
"""


def run_once(perfengine, spec, results, sandboxed):
    argv = [perfengine, "run", spec, "--json", results, "-q"]
    if not sandboxed:
        argv = ["unshare", "--user", "--map-root-user", "sh", "-c", REFUSE] + argv
    start = time.monotonic()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(f"perfengine exited {done.returncode}: {done.stderr[-2000:]}")
    with open(results) as f:
        result = json.load(f)
    notes = json.dumps(result)
    if sandboxed == ("not sandboxed" in notes):
        raise RuntimeError("the run was not in the mode asked for")
    samples = [s for w in result["workloads"] if w["name"] == "run" for s in w["samples"] if not s.get("warmup")]
    executions = sum(len(w["samples"]) for w in result["workloads"]) + 4  # + parity's
    return ([s["wall_s"] for s in samples], [s["user_s"] + s["sys_s"] for s in samples], elapsed / executions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perfengine", default="build/bin/perfengine")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c", "echo 0 > /proc/sys/user/max_user_namespaces"],
                           capture_output=True)
    if probe.returncode != 0:
        print("cannot make a user namespace to run without the sandbox", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in COMMANDS.items():
            spec = os.path.join(tmp, "spec.toml")
            with open(spec, "w") as f:
                f.write(spec_text(args.rounds, argv))
            figures = {True: ([], [], []), False: ([], [], [])}
            for _ in range(args.repeat):
                for sandboxed in (True, False):
                    wall, cpu, per = run_once(args.perfengine, spec, os.path.join(tmp, "r.json"), sandboxed)
                    figures[sandboxed][0].extend(wall)
                    figures[sandboxed][1].extend(cpu)
                    figures[sandboxed][2].append(per)
            print(f"{name}: {args.repeat} runs of {args.rounds} rounds each way, interleaved")
            for label, i, unit in (("median wall", 0, "ms"), ("median CPU", 1, "ms"), ("tool wall per execution", 2, "ms")):
                on = statistics.median(figures[True][i]) * 1e3
                off = statistics.median(figures[False][i]) * 1e3
                print(f"  {label:24} sandboxed {on:8.3f} {unit}  unsandboxed {off:8.3f} {unit}  ratio {on / off:6.3f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
