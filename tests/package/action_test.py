#!/usr/bin/env python3
"""action.yml, parsed and run: its steps' commands against a scratch repository.

usage: action_test.py ACTION_YML PACKAGE_DIR

A small stand-in for the GitHub runner runs the composite action's steps in order: `${{ }}`
expressions are replaced from the inputs, `runner.temp` and earlier steps' outputs (an expression
it does not know fails the test), `if:` conditions are evaluated, GITHUB_OUTPUT, GITHUB_PATH and
GITHUB_STEP_SUMMARY are files as on GitHub, and `run:` bodies run under `bash --noprofile --norc
-eo pipefail` as `shell: bash` does. `uses:` steps (the artifact upload) cannot run here: what
they would be given is checked instead. The repository has a base branch `main` whose spec gates
peak memory at 1.5x, and a pull request that loosens the bar to 100x: the gate must judge the
pull request by main's bar.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

ACTION, PACKAGE_DIR = sys.argv[1], sys.argv[2]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

BASE_SPEC = """\
# The candidate (python3 reading the file) uses several times sort's peak memory: a deterministic
# miss of max_rss_ratio, whatever the machine's load.
[run]
rounds = 3
max_rounds = 3
warmup_rounds = 0
baseline = "sort"
candidate = "python"

[contenders.sort]
argv = ["sort"]
startup = ["sort", "/dev/null"]

[contenders.python]
argv = ["python3", "-c", "import sys; sys.stdout.write(open(sys.argv[1]).read())"]
startup = ["sort", "/dev/null"]

[workloads.read]
fixture = { generator = "text_lines", lines = 2000 }
args = ["{fixture}/lines.txt"]
parity = "none"

[thresholds]
max_rss_ratio = 1.5
"""


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                   cwd=cwd,
                   check=True,
                   capture_output=True)


class Runner:
    """Runs a composite action's steps the way the GitHub runner does, as far as this test needs."""

    def __init__(self, action, inputs, workspace, temp, path=()):
        self.action = action
        self.workspace = workspace
        self.temp = temp
        self.inputs = {}
        for name, spec in action["inputs"].items():
            if name in inputs:
                self.inputs[name] = inputs[name]
            elif spec.get("required"):
                raise AssertionError(f"the test gives no value for the required input {name}")
            else:
                default = str(spec.get("default", ""))
                if EXPR.search(default):
                    raise AssertionError(f"input {name}: the test must give a value (default {default})")
                self.inputs[name] = default
        self.outputs = {}  # step id -> {name: value}
        self.outcomes = []  # (step name, "success" | "failure" | "skipped")
        self.uploads = []  # the `with:` of each upload step that would run
        self.path = list(path)  # GITHUB_PATH entries, newest first
        self.logs = {}  # step name -> stdout + stderr

    def value(self, expr):
        if expr.startswith("inputs."):
            return self.inputs[expr[len("inputs."):]]
        if expr == "runner.temp":
            return self.temp
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m:
            return self.outputs.get(m.group(1), {}).get(m.group(2), "")
        raise AssertionError(f"unknown expression ${{{{ {expr} }}}}")

    def subst(self, text):
        return EXPR.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, text, failed):
        text = text.strip()
        m = EXPR.fullmatch(text)
        if m:
            text = m.group(1)
        status_function = False
        result = True
        for term in text.split("&&"):
            term = term.strip()
            if term == "always()":
                status_function = True
            elif term == "success()":
                status_function = True
                result = result and not failed
            elif term == "failure()":
                status_function = True
                result = result and failed
            else:
                m = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", term)
                if not m:
                    raise AssertionError(f"cannot evaluate the condition term {term!r}")
                equal = self.value(m.group(1)) == m.group(3)
                result = result and (equal if m.group(2) == "==" else not equal)
        return result if status_function else result and not failed

    def run(self):
        failed = False
        for i, step in enumerate(self.action["runs"]["steps"]):
            name = step["name"]
            if "if" in step and not self.condition(str(step["if"]), failed):
                self.outcomes.append((name, "skipped"))
                continue
            if "if" not in step and failed:
                self.outcomes.append((name, "skipped"))
                continue
            if "uses" in step:
                self.uploads.append({k: self.subst(v) for k, v in step.get("with", {}).items()})
                self.outcomes.append((name, "success"))
                continue
            files = {}
            for var in ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"):
                files[var] = os.path.join(self.temp, f"_step{i}_{var}")
                open(files[var], "w").close()
            env = dict(os.environ)
            env.update({k: self.subst(v) for k, v in step.get("env", {}).items()})
            env.update(files)
            env.update({"RUNNER_TEMP": self.temp, "GITHUB_WORKSPACE": self.workspace})
            env["PATH"] = os.pathsep.join(self.path + [os.environ["PATH"]])
            script = os.path.join(self.temp, f"_step{i}.sh")
            with open(script, "w") as h:
                h.write(self.subst(step["run"]))
            cwd = os.path.join(self.workspace, self.subst(step.get("working-directory", ".")))
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                  cwd=cwd,
                                  env=env,
                                  capture_output=True,
                                  text=True)
            self.logs[name] = done.stdout + done.stderr
            outputs = {}
            with open(files["GITHUB_OUTPUT"]) as h:
                for line in h.read().splitlines():
                    key, _, val = line.partition("=")
                    outputs[key] = val
            if "id" in step:
                self.outputs[step["id"]] = outputs
            with open(files["GITHUB_PATH"]) as h:
                self.path = [p for p in h.read().splitlines() if p][::-1] + self.path
            failed = failed or done.returncode != 0
            self.outcomes.append((name, "success" if done.returncode == 0 else "failure"))
        return not failed

    def outcome(self, name_start):
        found = [o for n, o in self.outcomes if n.startswith(name_start)]
        assert len(found) == 1, f"{name_start!r}: {self.outcomes}"
        return found[0]

    def log(self):
        return "\n".join(f"--- {n}\n{text}" for n, text in self.logs.items())


class ActionYaml(unittest.TestCase):
    """What can be checked without running anything."""

    @classmethod
    def setUpClass(cls):
        with open(ACTION) as h:
            cls.action = yaml.safe_load(h)

    def test_is_a_composite_action_with_named_steps(self):
        self.assertEqual(self.action["runs"]["using"], "composite")
        for step in self.action["runs"]["steps"]:
            self.assertIn("name", step)
            self.assertTrue(("run" in step) != ("uses" in step), step["name"])
            if "run" in step:
                self.assertEqual(step.get("shell"), "bash", step["name"])  # composite run steps need one

    def test_no_expression_is_pasted_into_a_script(self):
        # A branch name or a label in a `run:` body would be shell code (script injection).
        for step in self.action["runs"]["steps"]:
            self.assertNotIn("${{", step.get("run", ""), step["name"])

    def test_every_reference_names_an_input_or_an_earlier_step(self):
        with open(ACTION) as h:
            text = h.read()
        used = set(re.findall(r"inputs\.([\w-]+)", text))
        self.assertEqual(used, set(self.action["inputs"]), "inputs used vs declared")
        seen = set()
        for step in self.action["runs"]["steps"]:
            for ref in re.findall(r"steps\.([\w-]+)\.outputs", yaml.safe_dump(step)):
                self.assertIn(ref, seen, f"{step['name']} reads a step that has not run")
            if "id" in step:
                seen.add(step["id"])
        for name, output in self.action["outputs"].items():
            self.assertRegex(output["value"], r"^\$\{\{ steps\.(%s)\.outputs\.[\w-]+ \}\}$" % "|".join(seen), name)

    def test_the_accept_label_and_the_unresolved_policy(self):
        self.assertEqual(self.action["inputs"]["accept"]["default"],
                         "${{ contains(github.event.pull_request.labels.*.name, 'perf: accept') }}")
        self.assertEqual(self.action["inputs"]["unresolved"]["default"], "exit3")
        gate = [s for s in self.action["runs"]["steps"] if s.get("id") == "gate"][0]
        self.assertIn('PERFENGINE_ACCEPT_REGRESSION="$ACCEPT"', gate["run"])
        self.assertIn('--unresolved="$UNRESOLVED"', gate["run"])

    def test_scripts_pass_shellcheck(self):
        for step in self.action["runs"]["steps"]:
            if "run" not in step:
                continue
            # SC2016: '${Status}' is dpkg-query's format, meant literally.
            done = subprocess.run(["shellcheck", "-s", "bash", "-e", "SC2016", "-"],
                                  input=step["run"],
                                  capture_output=True,
                                  text=True)
            self.assertEqual(done.returncode, 0, f"{step['name']}:\n{done.stdout}{done.stderr}")


class ActionRun(unittest.TestCase):
    """The steps run against a repository with a base branch and a pull request."""

    @classmethod
    def setUpClass(cls):
        with open(ACTION) as h:
            cls.action = yaml.safe_load(h)
        debs = glob.glob(os.path.join(PACKAGE_DIR, "*.deb"))
        assert len(debs) == 1, f"package_build left {debs} in {PACKAGE_DIR}"
        cls.deb = debs[0]
        cls.scratch = tempfile.mkdtemp(prefix="perfengine-action-")
        upstream = os.path.join(cls.scratch, "upstream")
        os.makedirs(os.path.join(upstream, "perf"))
        git(upstream, "init", "-q", "-b", "main")
        with open(os.path.join(upstream, "perf", "gate.toml"), "w") as h:
            h.write(BASE_SPEC)
        git(upstream, "add", ".")
        git(upstream, "commit", "-q", "-m", "the gate")
        git(upstream, "checkout", "-q", "-b", "pr")
        with open(os.path.join(upstream, "perf", "gate.toml"), "w") as h:
            h.write(BASE_SPEC.replace("max_rss_ratio = 1.5", "max_rss_ratio = 100"))
        with open(os.path.join(upstream, "perf", "new.toml"), "w") as h:
            h.write(BASE_SPEC)
        git(upstream, "add", ".")
        git(upstream, "commit", "-q", "-m", "a pull request that loosens its own gate")
        # As actions/checkout leaves it by default: the pull request only, no origin/main.
        cls.workspace = os.path.join(cls.scratch, "workspace")
        git(cls.scratch, "clone", "-q", "--single-branch", "--branch", "pr", upstream, cls.workspace)
        cls.cache = os.path.join(cls.scratch, "cache")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def run_action(self, path=(), **inputs):
        temp = tempfile.mkdtemp(dir=self.scratch, prefix="runner-temp-")
        given = {
            "package": self.deb,
            "spec": "perf/gate.toml",
            "base": "main",
            "accept": "false",
            "cache-dir": self.cache,
            "pr-number": "17"
        }
        given.update({k.replace("_", "-"): v for k, v in inputs.items()})
        runner = Runner(self.action, given, self.workspace, temp, path)
        return runner, runner.run()

    def results(self, runner):
        with open(os.path.join(runner.outputs["gate"]["report-dir"], "results.json")) as h:
            return json.load(h)

    def test_a_regression_is_judged_by_the_base_branchs_spec(self):
        runner, ok = self.run_action()
        self.assertFalse(ok, runner.log())
        self.assertEqual(runner.outputs["gate"]["status"], "1", runner.log())
        self.assertIn("this pull request changes perf/gate.toml; the gate runs the base branch's version (main)",
                      runner.logs["Take the spec from the base branch"])
        checks = self.results(runner)["verdict"]["checks"]
        self.assertEqual([(c["threshold"], c["bar"], c["state"]) for c in checks], [("max_rss_ratio", 1.5, "fail")])
        self.assertEqual(runner.outcome("Upload the report"), "success")
        self.assertEqual(runner.outcome("Fail the check"), "failure")
        self.assertIn("::error::performance regression", runner.logs["Fail the check on a regression, a failed run "
                                                                     "or an unresolved claim"])
        # What the upload step is given: the folder with every report and the number.
        [upload] = runner.uploads
        self.assertEqual(upload["name"], "perf-report")
        self.assertEqual(upload["path"], runner.outputs["gate"]["report-dir"])
        self.assertEqual(sorted(os.listdir(upload["path"])), ["pr-number", "report.html", "report.md", "results.json"])
        with open(os.path.join(upload["path"], "pr-number")) as h:
            self.assertEqual(h.read(), "17\n")
        # The pull request's own copy is untouched; the base's sits beside it, untracked.
        with open(os.path.join(self.workspace, "perf", "gate.toml")) as h:
            self.assertIn("max_rss_ratio = 100", h.read())

    def test_the_accept_label_accepts_a_missed_threshold(self):
        runner, ok = self.run_action(accept="true", cache_dir="")  # and the default cache folder
        self.assertTrue(ok, runner.log())
        self.assertTrue(os.path.isdir(os.path.join(runner.temp, "perfengine-cache")))
        self.assertEqual(runner.outputs["gate"]["status"], "0")
        verdict = self.results(runner)["verdict"]
        self.assertTrue(verdict["accepted"])
        self.assertEqual(verdict["accepted_by"], "PERFENGINE_ACCEPT_REGRESSION")
        self.assertEqual(runner.outcome("Fail the check"), "skipped")

    def test_a_spec_the_base_branch_lacks_is_refused(self):
        runner, ok = self.run_action(spec="perf/new.toml")
        self.assertFalse(ok)
        self.assertEqual(runner.outcome("Take the spec from the base branch"), "failure")
        self.assertIn("perf/new.toml is not on the base branch main", runner.log())
        self.assertEqual(runner.outcome("Run the gate"), "skipped")
        self.assertEqual(runner.outcome("Upload the report"), "skipped")
        self.assertEqual(runner.uploads, [])

    def test_a_bad_accept_value_or_unresolved_policy_is_a_failed_run(self):
        for inputs, message in (({"accept": "maybe"}, "PERFENGINE_ACCEPT_REGRESSION is 'maybe'"),
                                ({"unresolved": "sometimes"}, "sometimes")):
            runner, ok = self.run_action(**inputs)
            self.assertFalse(ok)
            self.assertEqual(runner.outputs["gate"]["status"], "2", runner.log())
            self.assertIn(message, runner.logs["Run the gate"])
            self.assertIn("::error::the perf gate could not run (exit 2", runner.log())
            self.assertEqual(runner.outcome("Upload the report"), "success")

    def test_a_missing_package_stops_before_anything_runs(self):
        runner, ok = self.run_action(package=os.path.join(self.scratch, "nothing.deb"))
        self.assertFalse(ok)
        self.assertIn("perfengine: no package at", runner.log())
        self.assertEqual([o for _, o in runner.outcomes], ["failure", "skipped", "skipped", "skipped", "skipped"])

    def test_only_missing_dependencies_are_installed(self):
        # The package again, with a Depends no machine has (an alternative group, a version):
        # apt-get (a stand-in on PATH that records its arguments) is asked for that one only.
        tree = os.path.join(self.scratch, "repack")
        subprocess.run(["dpkg-deb", "-R", self.deb, tree], check=True)
        control = os.path.join(tree, "DEBIAN", "control")
        with open(control) as h:
            text = h.read()
        with open(control, "w") as h:
            h.write(re.sub(r"^Depends: (.*)$", r"Depends: \1, perfengine-test-absent (>= 1.0) | perfengine-test-other",
                           text,
                           flags=re.M))
        deb = os.path.join(self.scratch, "repacked.deb")
        subprocess.run(["dpkg-deb", "-b", "-Zgzip", tree, deb], check=True, capture_output=True)
        fake = os.path.join(self.scratch, "fake-bin")
        os.makedirs(fake, exist_ok=True)
        calls = os.path.join(self.scratch, "apt-get.calls")
        for tool in ("apt-get", "sudo"):
            with open(os.path.join(fake, tool), "w") as h:
                if tool == "sudo":
                    h.write('#!/bin/sh\nexec "$@"\n')
                else:
                    h.write(f'#!/bin/sh\necho "$*" >> {calls}\n')
            os.chmod(os.path.join(fake, tool), 0o755)
        runner, _ = self.run_action(path=[fake], package=deb, spec="perf/new.toml")
        self.assertEqual(runner.outcome("Install perfengine"), "success", runner.log())
        with open(calls) as h:
            self.assertEqual(h.read().splitlines(), ["update -qq", "install -y -qq --no-install-recommends "
                                                     "perfengine-test-absent"])

    def test_a_package_that_is_not_perfengine_is_refused(self):
        tree = os.path.join(self.scratch, "other")
        os.makedirs(os.path.join(tree, "DEBIAN"))
        with open(os.path.join(tree, "DEBIAN", "control"), "w") as h:
            h.write("Package: other\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.invalid>\n"
                    "Description: not perfengine\n")
        deb = os.path.join(self.scratch, "other.deb")
        subprocess.run(["dpkg-deb", "-b", tree, deb], check=True, capture_output=True)
        runner, ok = self.run_action(package=deb)
        self.assertFalse(ok)
        self.assertIn("is not a perfengine package", runner.log())

    def test_the_installed_perfengine_is_the_packaged_one(self):
        runner, _ = self.run_action(spec="perf/new.toml")
        self.assertEqual(runner.outcome("Install perfengine"), "success", runner.log())
        self.assertEqual(runner.path, [os.path.join(runner.temp, "perfengine", "usr", "bin")])
        self.assertTrue(os.access(os.path.join(runner.path[0], "perfengine"), os.X_OK))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
