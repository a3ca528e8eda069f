#!/usr/bin/env python3
"""Runs real Bazel 4.2.3 (Debian's bazel-bootstrap), offline, over a real workspace and writes the
streamed_proto bench/graph_shape/shape.py reads: the query bazel-diff runs,

  bazel query '//external:all-targets + //...:all-targets' --output=streamed_proto \\
      --order_output=no --proto:instantiation_stack --keep_going

--keep_going because a real WORKSPACE names repositories that cannot be fetched offline: the
packages that load from them are left out (Bazel says which on stderr; the count is printed).

  bench/graph_shape/query_real.py --bazel-source OUT.pb     # Bazel's own tree (bazel-bootstrap-source)
  bench/graph_shape/query_real.py WORKSPACE OUT.pb [--override NAME=DIR ...]

With --bazel-source the tree is copied from /usr/src/bazel-bootstrap to a scratch directory (Bazel
writes its convenience links into a workspace) and every repository of its mock_repos/ (the
stand-ins Debian ships so the tree loads offline) is passed as --override_repository. The copy is
left at OUT.pb's name + ".workspace" for shape.py's source sizes.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

BAZEL_SOURCE = "/usr/src/bazel-bootstrap"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", metavar="[WORKSPACE] OUT.pb")
    ap.add_argument("--bazel-source", action="store_true")
    ap.add_argument("--override", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--bazel", default="/usr/bin/bazel")
    args = ap.parse_args()
    if args.bazel_source:
        if len(args.paths) != 1:
            ap.error("--bazel-source takes OUT.pb only")
        out = os.path.abspath(args.paths[0])
        workspace = out + ".workspace"
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.copytree(BAZEL_SOURCE, workspace, symlinks=True)
        mock = os.path.join(workspace, "mock_repos")
        # The WORKSPACE calls bazel_skydoc io_bazel_skydoc.
        names = {"bazel_skydoc": "io_bazel_skydoc"}
        overrides = ["%s=%s" % (names.get(d, d), os.path.join(mock, d)) for d in sorted(os.listdir(mock))]
    else:
        if len(args.paths) != 2:
            ap.error("give WORKSPACE and OUT.pb")
        workspace, out = (os.path.abspath(p) for p in args.paths)
        overrides = []
    overrides += args.override
    root = tempfile.mkdtemp(prefix="query-real-root-")
    try:
        query = [args.bazel, "--batch", "--output_user_root=" + root, "--nohome_rc", "query",
                 "//external:all-targets + //...:all-targets", "--output=streamed_proto", "--order_output=no",
                 "--proto:instantiation_stack", "--keep_going"]
        query += ["--override_repository=" + o for o in overrides]
        with open(out, "wb") as f:
            result = subprocess.run(query, cwd=workspace, stdout=f, stderr=subprocess.PIPE, text=True)
        errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR:")]
        print("bazel query exit %d, %d bytes, %d ERROR lines (packages --keep_going left out)" %
              (result.returncode, os.path.getsize(out), len(errors)))
        for line in errors[:10]:
            print("  " + line[:200])
        # 0 is success, 3 is a partial result under --keep_going; anything else is no result.
        if result.returncode not in (0, 3):
            sys.stderr.write(result.stderr[-4000:])
            sys.exit(1)
    finally:
        subprocess.run(["chmod", "-R", "u+w", root], check=False)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
