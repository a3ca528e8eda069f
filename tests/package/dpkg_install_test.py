#!/usr/bin/env python3
"""The Debian package installed by dpkg itself into a scratch root, then gating a spec.

usage: dpkg_install_test.py PACKAGE_DIR

check_package.py unpacks the .deb with `dpkg-deb -x`, which runs no part of dpkg's install. Here
`dpkg --root=ROOT -i` installs it as apt would, into a scratch root with a dpkg database of its
own (ROOT/var/lib/dpkg), never the machine's:
  * the database starts empty: dpkg refuses to configure the package and names its Depends
    (so the dependency check is live);
  * the database then holds this machine's own status entries for the packages Depends names
    (`dpkg-query -s`, the installed versions): dpkg checks each Depends with its version against
    them, unpacks the files, records them, and runs the package's maintainer script (CPack's
    `ldconfig` postinst) chrooted into ROOT, which therefore holds the programs that script runs
    (sh and ldconfig, copied from this machine with the libraries they load). The package ends
    "install ok installed", `dpkg --verify` finds every file as shipped;
  * the installed /usr/bin/perfengine (ROOT/usr/bin/perfengine, nothing from the build tree)
    validates and runs one spec gated on allocation counts twice: perl (perl-base, essential)
    as the candidate against sort misses max_allocations_ratio (exit 1, with its failing line), and the same pair
    swapped passes (exit 0). Counts are exact, so neither depends on the machine's load.
dpkg needs root for the chroot and for file ownership. As root it runs as it is; otherwise it
runs in a user namespace where this user is root (`unshare --map-root-user`), which Debian 12's
kernel allows unprivileged users. Without that (`--force-not-root` alone), dpkg unpacks the
files but cannot chroot for the postinst ("not enough privileges to change root directory"), and
with `--force-script-chrootless` the postinst runs this machine's ldconfig, which cannot write
/etc/ld.so.cache: neither installs the package, so neither is used.
Prints "dpkg install ok" and exits 0, or names the first thing wrong and exits 1.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SPEC = """\
# sort against perl printing the same file line by line: perl makes many times sort's allocation
# calls, so with perl as the candidate max_allocations_ratio is missed, and with sort it is met.
[run]
rounds = 2
max_rounds = 2
warmup_rounds = 0
baseline = "{baseline}"
candidate = "{candidate}"

[contenders.sort]
argv = ["sort"]
startup = ["sort", "/dev/null"]

[contenders.perl]
argv = ["perl", "-ne", "print"]
startup = ["sort", "/dev/null"]

[workloads.read]
fixture = {{ generator = "text_lines", lines = 2000 }}
args = ["{{fixture}}/lines.txt"]
parity = "none"

[thresholds]
max_allocations_ratio = 1.5
"""

# What the installed package must list (dpkg -L) and hold on disk.
EXPECTED_FILES = [
    "/usr/bin/perfengine", "/usr/bin/perfengine-spawner", "/usr/lib/perfengine/libperfengine-alloccount.so",
    "/usr/share/man/man1/perfengine.1"
]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, expect=0, **kwargs):
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if expect is not None and done.returncode != expect:
        fail(f"{' '.join(argv)} exited {done.returncode}, not {expect}\n{done.stdout}{done.stderr}")
    return done


def as_root(argv):
    """argv as root: itself when this process is root, else in a user namespace mapping us to root."""
    return argv if os.geteuid() == 0 else ["unshare", "--map-root-user", *argv]


def copy_program(program, root):
    """`program` into root at the same path, with every library it loads (ldd), so it runs chrooted."""
    files = [program]
    done = subprocess.run(["ldd", program], capture_output=True, text=True)
    # A static program makes ldd exit 1 ("not a dynamic executable"); it needs nothing more.
    for line in done.stdout.splitlines() if done.returncode == 0 else []:
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            files.append(m.group(1))
    for f in files:
        target = os.path.join(root, f.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.realpath(f), target)


def make_root(root):
    """An empty dpkg root: the database's directories, and Debian 12's merged /usr layout."""
    for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/log", "etc", "usr/bin", "usr/sbin", "usr/lib",
              "usr/lib64"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for link in ("bin", "sbin", "lib", "lib64"):
        os.symlink("usr/" + link, os.path.join(root, link))
    open(os.path.join(root, "var/lib/dpkg/status"), "w").close()


def dpkg(root, *args, expect=0):
    return run(as_root(["dpkg", f"--root={root}", f"--log={root}/var/log/dpkg.log", *args]), expect=expect)


def depends_groups(deb):
    """The Depends field as alternatives per group, each name without its version."""
    depends = run(["dpkg-deb", "-f", deb, "Depends"]).stdout
    return [[re.sub(r"\s*\(.*\)", "", a).strip() for a in group.split("|")] for group in depends.split(",")
            if group.strip()]


def seed_database(root, deb):
    """This machine's status entry for the first installed alternative of each Depends group."""
    with open(os.path.join(root, "var/lib/dpkg/status"), "a") as status:
        for group in depends_groups(deb):
            for name in group:
                done = subprocess.run(["dpkg-query", "-s", name], capture_output=True, text=True)
                if done.returncode == 0 and "Status: install ok installed" in done.stdout:
                    status.write(done.stdout.rstrip("\n") + "\n\n")
                    # Its file list, empty: dpkg reads one per installed package.
                    package = run(["dpkg-query", "-W", "-f=${binary:Package}", name]).stdout.strip()
                    open(os.path.join(root, "var/lib/dpkg/info", package + ".list"), "w").close()
                    break
            else:
                fail(f"no package of '{' | '.join(group)}' is installed here: Depends cannot be met")


def gate(perfengine, work, cache, baseline, candidate, expect):
    name = f"{baseline}-{candidate}"
    with open(os.path.join(work, name + ".toml"), "w") as h:
        h.write(SPEC.format(baseline=baseline, candidate=candidate))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFENGINE_")}
    env["PATH"] = "/usr/bin:/bin"
    run([perfengine, "validate", name + ".toml"], cwd=work, env=env)
    done = run([perfengine, "run", name + ".toml", "--quiet", "--cache-dir", cache, "--json", name + ".json"],
               expect=expect,
               cwd=work,
               env=env)
    with open(os.path.join(work, name + ".json")) as h:
        checks = json.load(h)["verdict"]["checks"]
    states = [(c["threshold"], c["state"]) for c in checks]
    want = [("max_allocations_ratio", "pass" if expect == 0 else "fail")]
    if states != want:
        fail(f"{name}: the checks are {states}, not {want}")
    said = done.stdout + done.stderr
    if expect == 1 and not re.search(r"read: allocation count ratio [0-9.]+x is above the allowed 1\.50x", said):
        fail(f"{name}: no failing line for the allocation count ratio\n{said}")


def check(package_dir, scratch):
    debs = glob.glob(os.path.join(package_dir, "*.deb"))
    if len(debs) != 1:
        fail(f"cpack made {len(debs)} .deb files, not 1: {debs}")
    deb = debs[0]

    # An empty database: dpkg unpacks, then refuses to configure for the missing Depends.
    bare = os.path.join(scratch, "bare")
    make_root(bare)
    done = dpkg(bare, "-i", deb, expect=1)
    first = depends_groups(deb)[0][0]
    if "dependency problems" not in done.stderr or f"Package {first} is not installed" not in done.stderr:
        fail(f"dpkg did not refuse the package for its Depends:\n{done.stdout}{done.stderr}")

    root = os.path.join(scratch, "root")
    make_root(root)
    seed_database(root, deb)
    for program in ("sh", "ldconfig"):
        path = shutil.which(program, path="/usr/sbin:/usr/bin:/sbin:/bin")
        if path is None:
            fail(f"no {program} on this machine for the package's maintainer script")
        copy_program(path, root)
    dpkg(root, "-i", deb)
    status = run(["dpkg-query", f"--admindir={root}/var/lib/dpkg", "-W", "-f=${Status} ${Version}",
                  "perfengine"]).stdout
    version = run(["dpkg-deb", "-f", deb, "Version"]).stdout.strip()
    if status != f"install ok installed {version}":
        fail(f"the package's status is '{status}'")
    listed = set(run(["dpkg-query", f"--admindir={root}/var/lib/dpkg", "-L", "perfengine"]).stdout.split("\n"))
    for f in EXPECTED_FILES:
        if f not in listed or not os.path.isfile(root + f):
            fail(f"dpkg did not install {f}")
    # Every file as the package's md5sums say (no output: nothing differs).
    verify = dpkg(root, "--verify", "perfengine")
    if verify.stdout.strip():
        fail(f"dpkg --verify: {verify.stdout}")
    if not os.path.isfile(os.path.join(root, "etc/ld.so.cache")):
        fail("the postinst's ldconfig did not run in the scratch root")

    perfengine = os.path.join(root, "usr/bin/perfengine")
    work = os.path.join(scratch, "work")
    os.mkdir(work)
    cache = os.path.join(scratch, "cache")
    gate(perfengine, work, cache, "sort", "perl", expect=1)
    gate(perfengine, work, cache, "perl", "sort", expect=0)


def main():
    scratch = tempfile.mkdtemp(prefix="perfengine-dpkg-")
    try:
        check(sys.argv[1], scratch)
    finally:
        # Fixtures in the cache are read-only, which only root may ignore.
        subprocess.run(["chmod", "-R", "u+w", scratch])
        subprocess.run(["rm", "-rf", scratch])
    print("dpkg install ok")


if __name__ == "__main__":
    main()
