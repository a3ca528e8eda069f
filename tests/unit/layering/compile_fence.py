#!/usr/bin/env python3
"""The include fence the build puts around each library (CONTRIBUTING.md, "Layering";
cmake/ModuleHeaders.cmake), proven with the compiler.

Each case compiles a one-line probe, `#include "<header>"`, with the exact command that compiles
a source of the named target (from the build's compile_commands.json: its include directories,
definitions and flags), and expects it to compile or to fail on that include. A wrong-layer include
must fail with "<header>: No such file or directory"; a header of the target's own module or of a
module it links must compile. The control then adds the repository root to the stats probe's
command and expects the wrong include to compile: the failure above comes from the fence, not
from a broken probe.

Usage: compile_fence.py BUILD_DIR SOURCE_DIR   (exit 0 when every case holds, 1 naming those that
do not). No build needed: configure writes compile_commands.json, and the probes include only
source headers.
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile

# target, header, whether it must compile, why
CASES = [
    ("pe_stats", "engine/model/result.h", False, "stats (layer 1) includes the result model (layer 2)"),
    ("pe_stats", "stats/descriptive.h", True, "stats includes its own header"),
    ("pe_generators", "engine/runner/spawn.h", False, "generators reach for the runner, beside them in layer 1"),
    ("pe_generators", "engine/process/spawn.h", True, "generators start git through engine/process, which they link"),
    ("pe_process", "engine/runner/process_runner.h", False, "the process module includes the runner above it"),
    ("pe_runner", "engine/process/interrupt.h", True, "the runner includes the process module it links"),
    ("pe_model", "engine/units/units.h", False, "the model includes a module of a lower layer that it does not link"),
    ("pe_gate", "stats/descriptive.h", True, "the gate includes stats, which it links PRIVATE"),
    ("pe_explain", "engine/analysis/analyze.h", True, "explain includes analysis, which it links PRIVATE"),
    ("perfengine", "stats/descriptive.h", False, "main.cc includes stats, which only reaches it through PRIVATE links"),
    ("perfengine", "engine/cli/cli.h", True, "main.cc includes the cli it links"),
]
CONTROL = ("pe_stats", "engine/model/result.h")


def command_of(entries, target):
    """The compile command of a source of `target`, as an argument list, and its directory."""
    marker = f"/CMakeFiles/{target}.dir/"
    for entry in entries:
        if marker in entry.get("output", "") or marker in entry["command"]:
            return shlex.split(entry["command"]), entry["directory"], entry["file"]
    return None


def probe_command(args, source, probe):
    """The target's compile command with its source replaced by the probe, checked and not written:
    no object file and no dependency file."""
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MT", "-MF", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD", source):
            continue
        out.append(arg)
    return out + ["-fsyntax-only", probe]


def compile_probe(args, directory, source, header, scratch, extra=()):
    probe = os.path.join(scratch, "probe.cc")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(f'#include "{header}"\n')
    command = probe_command(args, source, probe)
    command[1:1] = list(extra)
    result = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    return result.returncode == 0, result.stderr


def main():
    if len(sys.argv) != 3:
        print("usage: compile_fence.py BUILD_DIR SOURCE_DIR", file=sys.stderr)
        return 2
    build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        for target, header, must_compile, why in CASES:
            found = command_of(entries, target)
            if found is None:
                problems.append(f"{target}: no compile command in {build_dir}/compile_commands.json")
                continue
            compiled, errors = compile_probe(*found, header, scratch)
            missing = f"{header}: No such file or directory" in errors
            verdict = "compiles" if compiled else ("is not found" if missing else "fails")
            print(f"{target}: #include \"{header}\" {verdict} ({why})")
            if must_compile and not compiled:
                problems.append(f"{target}: #include \"{header}\" must compile ({why}):\n{errors}")
            elif not must_compile and not missing:
                problems.append(f"{target}: #include \"{header}\" must fail as not found ({why}), but it "
                                + ("compiles: the fence is open" if compiled else f"fails otherwise:\n{errors}"))
        target, header = CONTROL
        found = command_of(entries, target)
        if found is not None:
            compiled, errors = compile_probe(*found, header, scratch, extra=["-I", source_dir])
            print(f"control: {target} with -I {source_dir}: #include \"{header}\" "
                  + ("compiles" if compiled else "fails"))
            if not compiled:
                problems.append(f"control: with the repository root on its path, {target}'s probe of {header} "
                                f"must compile, or the cases above prove nothing:\n{errors}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
