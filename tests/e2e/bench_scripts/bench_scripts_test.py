#!/usr/bin/env python3
"""Every bench script still starts: each bench/**/*.py is run with --help and must not die with
a traceback. The bench scripts are run by hand, not by the suite, so a helper one of them
imports from another (verdicts/calibrate_vs_actual.py imports aa_suite.py's) can be renamed
without anything noticing until someone needs the figure; this test is what notices.

    bench_scripts_test.py PROJECT_DIR
"""
import os
import subprocess
import sys


def main():
    root = sys.argv[1]
    scripts = sorted(os.path.join(d, f) for d, _, files in os.walk(os.path.join(root, "bench"))
                     for f in files if f.endswith(".py"))
    if not scripts:
        sys.exit(f"no bench scripts under {root}/bench")
    failed = []
    for script in scripts:
        p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60,
                           cwd=os.path.dirname(script))
        if "Traceback" in p.stderr or p.returncode not in (0, 1):
            failed.append(f"{os.path.relpath(script, root)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    for f in failed:
        print(f, file=sys.stderr)
    print(f"{len(scripts) - len(failed)} of {len(scripts)} bench scripts start")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
