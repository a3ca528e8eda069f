#!/usr/bin/env python3
"""Serve parity (issue 44): the reference contender's `serve` answers what upstream bazel-diff's
serve answers, on three revisions, on /impacted_targets and /impacted_targets_with_distances.

The judge is upstream_serve.py, a stand-in written from upstream's Kotlin (it borrows only the
reference's generate-hashes for hash values). Both serve their own clone of one generated
git_workspace fixture (perfengine generate); every ordered pair of the three revisions is asked
of both, by GET and POST, with and without targetType, and the parsed answers must be equal,
list order included. Then perfengine itself runs the flagship's serve-distances workload with
the stand-in as baseline: its parity check must pass as well.

usage: serve_parity_test.py PERFENGINE REFDIFF_BASELINE REFDIFF_CANDIDATE SOURCE_DIR
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "upstream_serve.py")

FIXTURE_SPEC = """description = "serve parity fixture"
[run]
baseline = "baseline"
candidate = "candidate"
[contenders.baseline]
argv = ["/bin/true"]
[contenders.candidate]
argv = ["/bin/true"]
[workloads.serve]
kind = "serve"
args = ["serve", "--port", "{port}", "-w", "{checkout}", "-b", "{fixture}/bazel", "--cacheDir", "{workdir}/cache"]
fixture = { generator = "git_workspace", targets = 1200, revisions = 3, shape = "calibrated" }
requests = ["/health"]
"""

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


class Server:
    def __init__(self, argv, scratch, name, env=None):
        self.port_file = os.path.join(scratch, name + ".port")
        self.log = open(os.path.join(scratch, name + ".log"), "w+")
        self.process = subprocess.Popen(argv + ["--port", "0", "--port-file", self.port_file], stdout=self.log,
                                        stderr=self.log, env=env, start_new_session=True)
        self.port = None
        deadline = time.time() + 60
        while time.time() < deadline and self.process.poll() is None:
            if os.path.exists(self.port_file):
                self.port = int(open(self.port_file).read())
                break
            time.sleep(0.05)
        while self.port and time.time() < deadline and self.process.poll() is None:
            if self.request("GET", "/health")[0] == 200:
                return
            time.sleep(0.05)
        raise RuntimeError("%s never became healthy: %s" % (name, self.output()))

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def request(self, method, target, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, target), data=data, method=method)
        try:
            with urllib.request.urlopen(req, timeout=120) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        except OSError as error:
            return 0, str(error)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


def main(perfengine, baseline, candidate, source_dir):
    scratch = tempfile.mkdtemp(prefix="serve-parity-")
    servers = []
    try:
        with open(os.path.join(scratch, "fixture.toml"), "w") as f:
            f.write(FIXTURE_SPEC)
        subprocess.run([perfengine, "generate", os.path.join(scratch, "fixture.toml"), "--out",
                        os.path.join(scratch, "fixtures"), "--cache-dir", os.path.join(scratch, "cache")],
                       check=True, stdout=subprocess.DEVNULL)
        fixture = os.path.join(scratch, "fixtures", "serve")
        bazel = os.path.join(fixture, "bazel")
        commits = {r["tag"]: r["commit"] for r in json.load(open(os.path.join(fixture, "revisions.json")))}
        check(sorted(commits) == ["rev0", "rev1", "rev2"], "three revisions: %s" % sorted(commits))

        def clone(name):
            path = os.path.join(scratch, name)
            git(scratch, "clone", "--quiet", "--shared", os.path.join(fixture, "repo"), path)
            return path

        env = dict(os.environ, REFDIFF_HASHER=baseline)
        upstream = Server([sys.executable, STANDIN, "serve", "-w", clone("upstream-clone"), "-b", bazel,
                           "--cacheDir", os.path.join(scratch, "upstream-cache"), "--trackDeps"],
                          scratch, "upstream", env)
        servers.append(upstream)
        references = {}
        for name, program in (("baseline", baseline), ("candidate", candidate)):
            references[name] = Server([program, "serve", "-w", clone(name + "-clone"), "-b", bazel,
                                       "--cacheDir", os.path.join(scratch, name + "-cache"), "--trackDeps"],
                                      scratch, name)
            servers.append(references[name])

        revisions = ["rev0", "rev1", "rev2"]
        queries = []
        for frm in revisions:
            for to in revisions:
                for path in ("/impacted_targets", "/impacted_targets_with_distances"):
                    queries.append(("GET", "%s?from=%s&to=%s" % (path, frm, to), None))
                    queries.append(("POST", path, {"from": frm, "to": to}))
        queries += [
            ("GET", "/impacted_targets?from=rev0&to=rev2&targetType=Rule", None),
            ("GET", "/impacted_targets_with_distances?from=rev2&to=rev0&targetType=SourceFile,Rule", None),
            ("POST", "/impacted_targets", {"from": "rev1", "to": "rev2", "targetType": ["SourceFile"]}),
            ("GET", "/impacted_targets?from=%s&to=main" % commits["rev0"][:10], None),
            ("GET", "/impacted_targets?from=rev0&to=nope", None),
            ("GET", "/impacted_targets?from=rev0", None),
            ("POST", "/impacted_targets", {"to": "rev1"}),
        ]
        distances_seen = indirect_seen = 0
        for method, target, body in queries:
            expected_status, expected_text = upstream.request(method, target, body)
            expected = json.loads(expected_text)
            for name, server in references.items():
                status, text = server.request(method, target, body)
                check(status == expected_status, "%s %s %s: status %d, upstream %d (%s)" %
                      (name, method, target, status, expected_status, text))
                try:
                    answer = json.loads(text)
                except ValueError:
                    check(False, "%s %s %s: not JSON: %r" % (name, method, target, text))
                    continue
                check(answer == expected, "%s %s %s: answers differ:\n  reference %s\n  upstream  %s" %
                      (name, method, target, json.dumps(answer)[:400], json.dumps(expected)[:400]))
            if "distances" in target and expected_status == 200:
                distances_seen += len(expected["impactedTargets"])
                indirect_seen += sum(1 for t in expected["impactedTargets"] if t["targetDistance"] > 0)
        check(distances_seen > 0 and indirect_seen > 0,
              "the fixture's changes reach other targets (%d impacted, %d indirectly)" % (distances_seen, indirect_seen))
        # Upstream checked the last revision it hashed out in -w; so must the reference.
        for name in references:
            head = git(os.path.join(scratch, name + "-clone"), "rev-parse", "HEAD")
            check(head in commits.values(), "%s left -w at %s, a fixture revision" % (name, head))
        for server in servers:
            server.stop()
        servers.clear()

        # The flagship's serve-distances workload through perfengine's own parity check, with the
        # stand-in as the baseline: a wrapper, since a contender is one argv.
        wrapper = os.path.join(scratch, "upstream-serve")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nREFDIFF_HASHER='%s' exec '%s' '%s' \"$@\"\n" % (baseline, sys.executable, STANDIN))
        os.chmod(wrapper, 0o755)
        # The workload exactly as specs/bazel-diff.toml ships it, in a spec with no thresholds, so
        # one round is enough: what is checked is the parity before the rounds.
        with open(os.path.join(source_dir, "specs", "bazel-diff.toml"), "rb") as f:
            workload = tomllib.load(f)["workloads"]["serve-distances"]
        lines = ['description = "serve-distances against the upstream stand-in"', "[run]", "rounds = 1",
                 "warmup_rounds = 0", 'baseline = "baseline"', 'candidate = "candidate"',
                 "[contenders.baseline]", "argv = [%s]" % json.dumps(wrapper),
                 "[contenders.candidate]", "argv = [%s]" % json.dumps(candidate), "[workloads.serve-distances]"]
        for key, value in workload.items():
            if isinstance(value, dict):
                value = "{ %s }" % ", ".join("%s = %s" % (k, json.dumps(v)) for k, v in value.items())
            else:
                value = json.dumps(value)
            lines.append("%s = %s" % (key, value))
        spec = os.path.join(scratch, "serve-distances.toml")
        with open(spec, "w") as f:
            f.write("\n".join(lines) + "\n")
        run = subprocess.run([perfengine, "run", spec, "--serve-requests", "6", "--cache-dir",
                              os.path.join(scratch, "cache"), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # Exit 2 is a failed run (a parity mismatch among them); 0 or 1 is a verdict on speed,
        # which one round of a Python stand-in does not make meaningful.
        check(run.returncode in (0, 1), "perfengine run serve-distances with the stand-in as baseline: exit %d\n%s" %
              (run.returncode, run.stdout[-3000:]))
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("serve parity: reference baseline and candidate answer as the upstream stand-in (%d queries)" % len(queries))
    return 0


if __name__ == "__main__":
    sys.exit(main(*[os.path.abspath(arg) for arg in sys.argv[1:5]]))
