#!/usr/bin/env python3
"""The Debian package, built and used as a user would, without touching the system.

usage: check_package.py BUILD_DIR PACKAGE_DIR

PACKAGE_DIR is where ctest's package_build ran `cpack` (tests/package/CMakeLists.txt). Checks:
  * its name, version and architecture, and the files it installs (binary and helpers, the
    allocation counter, man page, bash and zsh completion, docs and the results schema);
  * its Depends: every shared library an ELF file in the package needs (readelf's NEEDED,
    an independent judge of what dpkg-shlibdeps derived) comes from a package it names; it names
    no build-only package (compilers, -dev packages, Bazel, Chromium, SciPy, the test tools);
    each package it names is installed here (the Debian 12 it was built on can install it);
  * no binary carries a run path into the build tree;
  * unpacked into a scratch root (`dpkg-deb -x`: no dpkg database, no root), the installed
    perfengine validates and runs a small spec, finding its spawner beside itself and its
    allocation counter in ../lib/perfengine: the allocation-count threshold reads a count.
Prints "package ok" and exits 0, or names the first thing wrong and exits 1.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

# Package names a runtime package must never depend on: the toolchain, headers, and what only
# the tests and benchmarks use.
BUILD_ONLY = re.compile(r"(-dev$|^bazel|^chromium|scipy|^python3|^cmake|^ninja|^g\+\+|^gcc($|-\d)|^cpp($|-)|^clang|"
                        r"^build-essential|^protobuf-compiler|^libgtest|^libgmock|^googletest|^valgrind$|^hyperfine$|"
                        r"^wrk$|^dpkg-dev$|^fonts-)")

EXPECTED_FILES = [
    "usr/bin/perfengine", "usr/bin/perfengine-spawner", "usr/bin/perfengine-bazel-shim",
    "usr/lib/perfengine/libperfengine-alloccount.so", "usr/share/man/man1/perfengine.1",
    "usr/share/bash-completion/completions/perfengine", "usr/share/zsh/vendor-completions/_perfengine",
    "usr/share/doc/perfengine/README.md", "usr/share/doc/perfengine/spec.md",
    "usr/share/doc/perfengine/ci.md", "usr/share/doc/perfengine/results.schema.json"
]

SPEC = """\
# Two commands on a generated fixture, gated on a count: the same for both, so the gate passes
# on any machine, and it can only pass when the installed allocation counter was found.
[run]
rounds = 3
max_rounds = 3
warmup_rounds = 0
baseline = "forward"
candidate = "reverse"

[contenders.forward]
argv = ["sort"]
startup = ["sort", "/dev/null"]

[contenders.reverse]
argv = ["sort", "-r"]
startup = ["sort", "/dev/null"]

[workloads.sort]
fixture = { generator = "text_lines", lines = 2000 }
args = ["{fixture}/lines.txt"]
parity = "none"

[thresholds]
max_allocations_ratio = 1.5
"""


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, **kwargs):
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        fail(f"{' '.join(argv)} exited {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout


def field(deb, name):
    return run(["dpkg-deb", "-f", deb, name]).strip()


def depends_names(depends):
    """Every package name in a Depends field: alternatives split, versions dropped."""
    names = []
    for group in depends.split(","):
        alternatives = [re.sub(r"\s*\(.*\)", "", a).strip() for a in group.split("|")]
        names.append([a.split(":")[0] for a in alternatives if a])
    return names


def owner_of_library(soname):
    """The installed package that ships the library the dynamic loader finds for `soname`."""
    for line in run(["ldconfig", "-p"]).splitlines():
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if not m or m.group(1) != soname:
            continue
        for path in (m.group(3), os.path.realpath(m.group(3))):
            for candidate in (path, re.sub(r"^/usr/lib/", "/lib/", path), re.sub(r"^/lib/", "/usr/lib/", path)):
                done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                if done.returncode == 0:
                    return done.stdout.split(":")[0].strip()
    fail(f"no installed package ships {soname}")


def main():
    build, package_dir = sys.argv[1], sys.argv[2]
    scratch = tempfile.mkdtemp(prefix="perfengine-package-")
    try:
        check(build, package_dir, scratch)
    finally:
        subprocess.run(["rm", "-rf", scratch])
    print("package ok")


def check(build, package_dir, scratch):
    debs = glob.glob(os.path.join(package_dir, "*.deb"))
    if len(debs) != 1:
        fail(f"cpack made {len(debs)} .deb files, not 1: {debs}")
    deb = debs[0]
    version = run([os.path.join(build, "bin", "perfengine"), "--version"]).split()[1]
    if field(deb, "Package") != "perfengine":
        fail(f"Package is {field(deb, 'Package')}")
    if field(deb, "Version") != version:
        fail(f"Version is {field(deb, 'Version')}, perfengine --version says {version}")
    arch = run(["dpkg", "--print-architecture"]).strip()
    if field(deb, "Architecture") != arch:
        fail(f"Architecture is {field(deb, 'Architecture')}, this machine is {arch}")

    depends = depends_names(field(deb, "Depends"))
    if not depends:
        fail("the package declares no Depends")
    flat = {name for group in depends for name in group}
    for name in sorted(flat):
        if BUILD_ONLY.search(name):
            fail(f"Depends names the build-only package {name}: {field(deb, 'Depends')}")
    for group in depends:
        status = [
            subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True).stdout
            for name in group
        ]
        if not any(s == "install ok installed" for s in status):
            fail(f"no package of '{' | '.join(group)}' is installed on this Debian: Depends cannot be met")
    for name in ("Recommends", "Suggests"):
        for group in depends_names(field(deb, name)):
            for pkg in group:
                if BUILD_ONLY.search(pkg) and pkg != "valgrind":
                    fail(f"{name} names the build-only package {pkg}")

    root = os.path.join(scratch, "root")
    run(["dpkg-deb", "-x", deb, root])
    for f in EXPECTED_FILES:
        if not os.path.isfile(os.path.join(root, f)):
            fail(f"the package does not install /{f}")

    # Every library an ELF file of the package needs comes from a package Depends names.
    build_real = os.path.realpath(build)
    for dirpath, _, files in os.walk(root):
        for f in files:
            path = os.path.join(dirpath, f)
            with open(path, "rb") as h:
                if h.read(4) != b"\x7fELF":
                    continue
            dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
            for m in re.finditer(r"\((RPATH|RUNPATH)\)\s+Library r\w*path: \[([^]]*)\]", dynamic):
                if build_real in m.group(2) or "/build" in m.group(2):
                    fail(f"{os.path.relpath(path, root)} has {m.group(1)} {m.group(2)}")
            for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic):
                owner = owner_of_library(soname)
                if owner not in flat:
                    fail(f"{os.path.relpath(path, root)} needs {soname} from {owner}, which Depends does not name: "
                         f"{field(deb, 'Depends')}")

    # The unpacked perfengine runs a spec with nothing from the build tree.
    perfengine = os.path.join(root, "usr", "bin", "perfengine")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFENGINE_")}
    env["PATH"] = "/usr/bin:/bin"
    work = os.path.join(scratch, "work")
    os.mkdir(work)
    with open(os.path.join(work, "spec.toml"), "w") as h:
        h.write(SPEC)
    if not run([perfengine, "--version"], env=env).startswith("perfengine "):
        fail("--version")
    run([perfengine, "validate", "spec.toml"], cwd=work, env=env)
    done = subprocess.run([
        perfengine, "run", "spec.toml", "--quiet", "--cache-dir",
        os.path.join(scratch, "cache"), "--json", "results.json", "--markdown", "report.md"
    ],
                          cwd=work,
                          env=env,
                          capture_output=True,
                          text=True)
    if done.returncode != 0:
        fail(f"the installed perfengine's run exited {done.returncode}\n{done.stdout}{done.stderr}")
    with open(os.path.join(work, "results.json")) as h:
        results = json.load(h)
    checks = results["verdict"]["checks"]
    if [(c["threshold"], c["state"]) for c in checks] != [("max_allocations_ratio", "pass")]:
        fail(f"the run's checks are {checks}")
    if not isinstance(checks[0]["measured"], float) or checks[0]["measured"] <= 0:
        fail(f"no allocation count ratio: {checks[0]}")
    if not os.path.getsize(os.path.join(work, "report.md")):
        fail("no Markdown report")


if __name__ == "__main__":
    main()
