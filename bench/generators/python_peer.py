#!/usr/bin/env python3
"""The workspace writer against a pure-Python peer, in one run (issue 27).

    bench/generators/python_peer.py BENCH_GENERATORS [--peer GEN_PROJECT_PY | --mirror GIT_DIR] [--rounds 3]

The peer is bazel-diff's own synthetic workspace generator, tools/firecracker/bench/gen_project.py
(pure Python: a layered genrule graph, one BUILD file and a few source files per package), read
from a git mirror of bazel-diff (default /work/.mirror/Tinder+bazel-diff/repo, its HEAD) into a
temporary file and run there; nothing of it is copied into this repository. It is asked for about
as many files as the dense uniform workspace has (4,800 packages of 24 sources and a BUILD file,
fan-in 12, 8 layers), without --git.

Each round runs, interleaved (the order alternates): `BENCH_GENERATORS --case dense --shape
uniform --workspace --repeat 1 --summary` (its workspace writer: WriteSourceTree of the dense graph)
and the peer into an empty directory. It prints, per round, files, MB, files/s and MB/s of each
and the load average, then the medians and the writer's rates as a ratio of the peer's. Files/s
is the fair figure: the peer's files are a few bytes each, the writer's about a kilobyte.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PEER_PATH = "tools/firecracker/bench/gen_project.py"


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def tree_size(root):
    files = 0
    total = 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            files += 1
            total += os.path.getsize(os.path.join(dirpath, name))
    return files, total


def run_writer(bench):
    out = subprocess.run([bench, "--case", "dense", "--shape", "uniform", "--workspace", "--repeat", "1",
                          "--summary"], check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        if line.startswith("RESULT "):
            fields = dict(f.split("=") for f in line.split()[2:])
            return float(fields["tree_files"]), float(fields["tree_mbps"]), float(fields["tree_files_per_s"])
    sys.exit(f"{bench} printed no RESULT line:\n{out}")


def run_peer(peer, scratch):
    out = os.path.join(scratch, "peer")
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, peer, "--out", out, "--packages", "4800", "--targets-per-package", "8",
            "--sources-per-package", "24", "--fanin", "12", "--layers", "8"]
    start = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    files, total = tree_size(out)
    shutil.rmtree(out)
    return files, total / 1e6 / seconds, files / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench")
    parser.add_argument("--peer", help="gen_project.py itself (else read from --mirror)")
    parser.add_argument("--mirror", default="/work/.mirror/Tinder+bazel-diff/repo")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pe-python-peer-") as scratch:
        peer = options.peer
        if peer is None:
            peer = os.path.join(scratch, "gen_project.py")
            shown = subprocess.run(["git", "--git-dir", options.mirror, "show", f"HEAD:{PEER_PATH}"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if shown.returncode != 0:
                print(f"python_peer.py: cannot read {PEER_PATH} from {options.mirror}: {shown.stderr.strip()}",
                      file=sys.stderr)
                return 2
            with open(peer, "w") as f:
                f.write(shown.stdout)
        rates = {"writer": [], "peer": []}
        for r in range(options.rounds):
            order = [("writer", lambda: run_writer(options.bench)), ("peer", lambda: run_peer(peer, scratch))]
            if r % 2 == 1:
                order.reverse()
            for name, run in order:
                load = load_average()
                files, mbps, files_per_s = run()
                rates[name].append((mbps, files_per_s))
                print(f"round {r + 1} {name:<6}: {files:>8.0f} files  {mbps:8.1f} MB/s  {files_per_s:8.0f} files/s"
                      f"  (load average {load})", flush=True)
    medians = {name: (statistics.median(m for m, _ in v), statistics.median(f for _, f in v))
               for name, v in rates.items()}
    print(f"\nmedians of {options.rounds} interleaved rounds")
    for name, (mbps, files_per_s) in medians.items():
        print(f"  {name:<6} {mbps:8.1f} MB/s  {files_per_s:8.0f} files/s")
    print(f"  the workspace writer: {medians['writer'][1] / medians['peer'][1]:.1f}x the peer's files/s, "
          f"{medians['writer'][0] / medians['peer'][0]:.1f}x its MB/s")
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
