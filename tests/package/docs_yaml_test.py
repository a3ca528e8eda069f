#!/usr/bin/env python3
"""Every ```yaml block in README.md and docs/*.md, parsed and checked as what it claims to be.

usage: docs_yaml_test.py SOURCE_DIR

The ```toml blocks go through `perfengine validate` (tests/e2e/docs); these are CI files:
  * every block parses (yaml.safe_load);
  * a GitHub workflow's steps each have `run` or `uses`, and each `run` is bash that parses
    (`bash -n`, with `${{ }}` expressions replaced by a word); a GitLab job's script lines too;
  * a step that uses this repository's action (`perfengine/perfengine@REF`) gives only inputs
    action.yml declares, and every required one;
  * docs/ci.md's workflows fit together: the package the `tool` job uploads is the one the
    `measure` job downloads and hands to the action, the comment workflow waits for the
    measuring workflow by its name and downloads the artifact the action uploads.
"""
import glob
import os
import re
import subprocess
import sys
import unittest

import yaml

SOURCE = sys.argv[1]
EXPR = re.compile(r"\$\{\{.*?\}\}", re.S)


def yaml_blocks(path):
    """(line of the opening fence, text) of each ```yaml block."""
    with open(path) as h:
        lines = h.read().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```yaml":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            blocks.append((start, "\n".join(body) + "\n"))
        elif lines[i].strip().startswith("```"):
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
        i += 1
    return blocks


def all_blocks():
    pages = [os.path.join(SOURCE, "README.md")] + sorted(glob.glob(os.path.join(SOURCE, "docs", "*.md")))
    found = []
    for page in pages:
        for line, text in yaml_blocks(page):
            found.append((f"{os.path.relpath(page, SOURCE)}:{line}", text))
    return found


def bash_parses(script):
    done = subprocess.run(["bash", "-n"], input=EXPR.sub("X", script), capture_output=True, text=True)
    return done.returncode == 0, done.stderr


def steps_of(doc):
    for job_name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps", []):
            yield job_name, step


def is_workflow(doc):
    # YAML 1.1 reads the key `on` as true.
    return isinstance(doc, dict) and "jobs" in doc


class DocsYaml(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.blocks = all_blocks()
        with open(os.path.join(SOURCE, "action.yml")) as h:
            cls.action = yaml.safe_load(h)
        cls.docs = {}
        for where, text in cls.blocks:
            cls.docs[where] = yaml.safe_load(text)

    def test_the_docs_hold_workflows_and_one_uses_the_action(self):
        self.assertGreaterEqual(len(self.blocks), 5)
        uses = [s.get("uses", "") for d in self.docs.values() if is_workflow(d) for _, s in steps_of(d)]
        self.assertTrue(any(u.startswith("perfengine/perfengine@") for u in uses), uses)

    def test_every_step_runs_or_uses_and_its_script_parses(self):
        for where, doc in self.docs.items():
            if is_workflow(doc):
                for job, step in steps_of(doc):
                    self.assertTrue(("run" in step) != ("uses" in step), f"{where}: {job}: {step}")
                    if "run" in step:
                        ok, err = bash_parses(step["run"])
                        self.assertTrue(ok, f"{where}: {job}: {err}")
            elif isinstance(doc, dict):
                for name, job in doc.items():
                    if isinstance(job, dict) and ("script" in job or "before_script" in job):
                        for line in job.get("before_script", []) + job.get("script", []):
                            self.assertIsInstance(line, str, f"{where}: {name}")
                            ok, err = bash_parses(line)
                            self.assertTrue(ok, f"{where}: {name}: {line}: {err}")

    def test_the_action_is_given_only_inputs_it_declares(self):
        declared = set(self.action["inputs"])
        required = {n for n, spec in self.action["inputs"].items() if spec.get("required")}
        for where, doc in self.docs.items():
            if not is_workflow(doc):
                continue
            for job, step in steps_of(doc):
                if step.get("uses", "").startswith("perfengine/perfengine@"):
                    given = set(step.get("with", {}))
                    self.assertLessEqual(given, declared, f"{where}: {job}")
                    self.assertLessEqual(required, given, f"{where}: {job}")

    def test_the_ci_pages_workflows_fit_together(self):
        # The first workflow of each name: the ruby/json section reuses the name "perf gate" for its
        # own repository (so Workflow 2 serves it unchanged) and is checked by the other tests.
        workflows = {}
        for w, d in self.docs.items():
            if w.startswith("docs/ci.md") and is_workflow(d):
                workflows.setdefault(d["name"], d)
        gate, comment = workflows["perf gate"], workflows["perf gate comment"]
        tool = gate["jobs"]["tool"]
        measure = gate["jobs"]["measure"]
        self.assertEqual(measure["needs"], "tool")
        [upload] = [s for s in tool["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
        [download] = [s for s in measure["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
        [action] = [s for s in measure["steps"] if s.get("uses", "").startswith("perfengine/perfengine@")]
        self.assertEqual(download["with"]["name"], upload["with"]["name"])
        self.assertEqual(action["with"]["package"],
                         download["with"]["path"] + "/" + os.path.basename(upload["with"]["path"]))
        # The tool comes from the ref the action comes from, never from the pull request.
        [checkout] = [s for s in tool["steps"] if s.get("uses", "").startswith("actions/checkout@")]
        self.assertEqual(checkout["with"]["repository"] + "@" + str(checkout["with"]["ref"]), action["uses"])
        self.assertEqual(gate["permissions"], {"contents": "read"})
        on = gate.get("on", gate.get(True))
        self.assertLessEqual({"labeled", "unlabeled"}, set(on["pull_request"]["types"]))
        # The comment workflow waits for this one and fetches what the action uploads.
        on = comment.get("on", comment.get(True))
        self.assertEqual(on["workflow_run"]["workflows"], [gate["name"]])
        [fetch] = [s for _, s in steps_of(comment) if s.get("uses", "").startswith("actions/download-artifact@")]
        self.assertEqual(fetch["with"]["name"], self.action["inputs"]["report-name"]["default"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
