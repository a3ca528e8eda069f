#!/usr/bin/env python3
"""A stand-in for upstream bazel-diff's `serve` (Tinder/bazel-diff 37.0.0, cli/ServeCommand.kt and
cli/src/main/kotlin/com/bazel_diff/server/), written from upstream's code independently of the
reference contender, to check the reference's serve answers against (serve_parity_test.py).

What it does as upstream does:
  * binds, then `git fetch --all --prune` in -w before /health says 200 (a failure: never ready;
    --no-initial-fetch skips it);
  * GET reads from/to/targetType from the query string (URL-decoded, last value wins), POST only
    its JSON body; missing from/to is 400 with upstream's words;
  * resolves both names with `git rev-parse --verify NAME^{commit}`; when either is missing, under
    one lock: again, then after `git fetch --all --prune`, then after `git fetch REMOTE NAME` for
    each remote, then a 400 "git error: revision 'X' is missing from the local clone";
  * per commit, a cache file <cacheDir>/<sha>.<fingerprint>.json read on every hit (upstream's
    LocalDiskHashCacheStorage); on a miss, under one lock, read again, then
    `git -c gc.auto=0 checkout --force SHA` in -w and the hashes of that checkout, stored in
    upstream's shape (typed hashes; with --trackDeps {"hashes", "metadata": {"depEdges"}});
  * impacted targets: labels of `to` whose "Type#hash~direct" differs from `from` or that `from`
    lacks, ordered SourceFile, GeneratedFile, Rule, other, untyped, then by label
    (CalculateImpactedTargetsInteractor.impactedTargetOrdering);
  * distances (CalculateImpactedTargetsInteractor.calculateDistance): a new target or one whose
    direct hash changed is 0/0; one without edges in `to`'s dep edges, or none of whose deps is
    impacted, is 0/0; else 1 + the least targetDistance of its impacted deps, and separately the
    least packageDistance of its impacted deps plus 1 where the dep's package (before the first
    ':') differs; 400 "distances unavailable: server started without --trackDeps" without it.
    Answers are Gson's: {"from":..,"to":..,"impactedTargets":[..]}.

What it borrows: the hashes themselves. A hash's bytes are not upstream's in any rewrite, so the
stand-in runs the reference's own `generate-hashes --includeTargetType [-d EDGES]` (the program
named by --hasher, default $REFDIFF_HASHER) on the checkout, the documented generate-hashes
whose parity with upstream the flagship's other workloads check. Everything a serve adds on top
is computed here.
"""

import hashlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

KIND_RANK = {"SourceFile": 0, "GeneratedFile": 1, "Rule": 2}


class Options:
    def __init__(self, argv):
        self.port = 8080
        self.workspace = None
        self.bazel = "bazel"
        self.git = "git"
        self.cache_dir = None
        self.track_deps = False
        self.initial_fetch = True
        self.port_file = None
        self.hasher = os.environ.get("REFDIFF_HASHER", "")
        if not argv or argv[0] != "serve":
            raise SystemExit("upstream_serve.py: the only command is serve")
        i = 1
        takes_value = {"--port", "-w", "--workspacePath", "-b", "--bazelPath", "--gitPath", "--cacheDir",
                       "--port-file", "--hasher"}
        while i < len(argv):
            arg = argv[i]
            name, eq, inline = arg.partition("=")
            if name in takes_value:
                value = inline if eq else argv[i + 1]
                i += 1 if eq else 2
                if name == "--port":
                    self.port = int(value)
                elif name in ("-w", "--workspacePath"):
                    self.workspace = os.path.abspath(value)
                elif name in ("-b", "--bazelPath"):
                    self.bazel = os.path.abspath(value) if os.sep in value else value
                elif name == "--gitPath":
                    self.git = value
                elif name == "--cacheDir":
                    self.cache_dir = os.path.abspath(value)
                elif name == "--port-file":
                    self.port_file = value
                elif name == "--hasher":
                    self.hasher = value
            elif arg == "--trackDeps":
                self.track_deps, i = True, i + 1
            elif arg == "--no-trackDeps":
                self.track_deps, i = False, i + 1
            elif arg == "--no-initial-fetch":
                self.initial_fetch, i = False, i + 1
            else:
                raise SystemExit("upstream_serve.py: unknown option " + arg)
        if not self.workspace or not self.cache_dir or not self.hasher:
            raise SystemExit("upstream_serve.py: needs -w, --cacheDir and --hasher (or $REFDIFF_HASHER)")


class GitError(Exception):
    pass


class MissingRevision(GitError):
    def __init__(self, revision):
        super().__init__("revision '%s' is missing from the local clone" % revision)


class Service:
    def __init__(self, options):
        self.o = options
        self.ready = False
        self.generation_lock = threading.Lock()
        self.fetch_lock = threading.Lock()
        canonical = "trackDeps=%s\nversion=standin\n" % ("true" if options.track_deps else "false")
        self.fingerprint = hashlib.sha256(canonical.encode()).hexdigest()[:12]
        os.makedirs(options.cache_dir, exist_ok=True)

    # --- git (ProcessGitClient) ---
    def git(self, *args):
        done = subprocess.run([self.o.git, *args], cwd=self.o.workspace, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            out = done.stdout.strip()
            raise GitError("git %s failed (exit %d)%s" % (" ".join(args), done.returncode, ": " + out if out else ""))
        return done.stdout.splitlines()

    def fetch(self):
        self.git("fetch", "--all", "--prune")

    def fetch_revision(self, revision):
        try:
            remotes = [r.strip() for r in self.git("remote") if r.strip()]
        except GitError:
            return False
        for remote in remotes:
            try:
                self.git("fetch", remote, revision)
                return True
            except GitError:
                pass
        return False

    def resolve_sha(self, revision):
        try:
            lines = self.git("rev-parse", "--verify", revision + "^{commit}")
        except GitError:
            raise MissingRevision(revision)
        for line in lines:
            line = line.strip()
            if len(line) == 40 and all(c in "0123456789abcdef" for c in line):
                return line
        raise MissingRevision(revision)

    def resolvable(self, revision):
        try:
            self.resolve_sha(revision)
            return True
        except MissingRevision:
            return False

    def resolve_both(self, from_rev, to_rev):
        def both():
            try:
                return self.resolve_sha(from_rev), self.resolve_sha(to_rev)
            except MissingRevision:
                return None

        found = both()
        if found:
            return found
        with self.fetch_lock:
            found = both()
            if found:
                return found
            self.fetch()
            found = both()
            if found:
                return found
            for rev in dict.fromkeys([from_rev, to_rev]):
                if not self.resolvable(rev):
                    self.fetch_revision(rev)
        return self.resolve_sha(from_rev), self.resolve_sha(to_rev)

    # --- hashes (HashService) ---
    def cache_path(self, sha):
        return os.path.join(self.o.cache_dir, "%s.%s.json" % (sha, self.fingerprint))

    def read_cache(self, sha):
        try:
            with open(self.cache_path(sha)) as f:
                document = json.load(f)
        except FileNotFoundError:
            return None
        if "hashes" in document and "metadata" in document:
            return document["hashes"], document["metadata"].get("depEdges", {}), \
                document["metadata"].get("moduleGraphJson")
        return document, {}, None

    def get_hashes(self, sha):
        cached = self.read_cache(sha)
        if cached is not None:
            return cached
        with self.generation_lock:
            cached = self.read_cache(sha)
            if cached is not None:
                return cached
            self.git("-c", "gc.auto=0", "checkout", "--force", sha)
            with tempfile.TemporaryDirectory(prefix="upstream-serve-") as tmp:
                out, deps = os.path.join(tmp, "hashes.json"), os.path.join(tmp, "deps.json")
                argv = [self.o.hasher, "generate-hashes", "-w", self.o.workspace, "-b", self.o.bazel,
                        "--includeTargetType"]
                if self.o.track_deps:
                    argv += ["-d", deps]
                done = subprocess.run(argv + [out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if done.returncode != 0:
                    raise RuntimeError("hashing failed: " + done.stderr.strip())
                with open(out) as f:
                    generated = json.load(f)
                edges = {}
                if self.o.track_deps:
                    with open(deps) as f:
                        edges = json.load(f)
            module_graph = None
            if "hashes" in generated and "metadata" in generated:
                module_graph = generated["metadata"].get("moduleGraphJson")
                generated = generated["hashes"]
            metadata = {}
            if module_graph is not None:
                metadata["moduleGraphJson"] = module_graph
            if self.o.track_deps:
                metadata["depEdges"] = edges
            document = {"hashes": generated, "metadata": metadata} if metadata else generated
            partial = self.cache_path(sha) + ".tmp"
            with open(partial, "w") as f:
                json.dump(document, f)
            os.replace(partial, self.cache_path(sha))
            return generated, edges, module_graph

    # --- the diff (CalculateImpactedTargetsInteractor) ---
    @staticmethod
    def type_of(value):
        return value.split("#", 1)[0] if "#" in value else ""

    @staticmethod
    def direct_of(value):
        return value.split("~", 1)[1] if "~" in value else ""

    def ordering(self, to, frm):
        def key(label):
            kind = self.type_of(to.get(label, "")) or self.type_of(frm.get(label, "")) or None
            rank = 4 if kind is None else KIND_RANK.get(kind, 3)
            return rank, label
        return key

    @staticmethod
    def accepts(label, types, to):
        if types is None:
            return True
        value = to[label]
        if "#" not in value:
            raise RuntimeError("No target type info found, please re-generate the target hashes JSON "
                               "with --includeTargetType!")
        return Service.type_of(value) in types

    def impacted(self, frm, to, types, exclude_external):
        labels = [label for label, value in to.items() if frm.get(label) != value]
        labels = [l for l in labels if self.accepts(l, types, to)]
        labels = [l for l in labels if not (exclude_external and l.startswith("//external:"))]
        return sorted(labels, key=self.ordering(to, frm))

    def distances(self, frm, to, edges, types, exclude_external):
        impacted = {}
        for label, value in to.items():
            if label not in frm:
                impacted[label] = "DIRECT"
            elif frm[label] != value:
                impacted[label] = "DIRECT" if self.direct_of(frm[label]) != self.direct_of(value) else "INDIRECT"
        memo = {}

        def calculate(label):
            if label in memo:
                return memo[label]
            if impacted[label] == "DIRECT":
                memo[label] = (0, 0)
                return memo[label]
            deps = edges.get(label)
            if deps is None:
                memo[label] = (0, 0)
                return memo[label]
            impacted_deps = [d for d in deps if d in impacted]
            if not impacted_deps:
                memo[label] = (0, 0)
                return memo[label]
            pairs = []
            for dep in impacted_deps:
                t, p = calculate(dep)
                crosses = label.split(":")[0] != dep.split(":")[0]
                pairs.append((t + 1, p + (1 if crosses else 0)))
            memo[label] = (min(t for t, _ in pairs), min(p for _, p in pairs))
            return memo[label]

        sys.setrecursionlimit(max(10000, 4 * len(impacted)))
        for label in impacted:
            calculate(label)
        labels = [l for l in impacted if self.accepts(l, types, to)]
        labels = [l for l in labels if not (exclude_external and l.startswith("//external:"))]
        labels.sort(key=self.ordering(to, frm))
        return [{"label": l, "targetDistance": memo[l][0], "packageDistance": memo[l][1]} for l in labels]

    def answer(self, from_rev, to_rev, types, with_distances):
        if with_distances and not self.o.track_deps:
            return 400, {"error": "distances unavailable: server started without --trackDeps"}
        try:
            from_sha, to_sha = self.resolve_both(from_rev, to_rev)
            frm, _, from_graph = self.get_hashes(from_sha)
            to, edges, to_graph = self.get_hashes(to_sha)
        except GitError as error:
            return 400, {"error": "git error: %s" % error}
        exclude_external = to_graph is not None  # upstream: isBzlmodEnabled
        if with_distances:
            targets = self.distances(frm, to, edges, types, exclude_external)
        else:
            targets = self.impacted(frm, to, types, exclude_external)
        return 200, {"from": from_sha, "to": to_sha, "impactedTargets": targets}


def make_handler(service):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, content_type="application/json"):
            data = (body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def handle_any(self, method):
            path, _, raw_query = self.path.partition("?")
            body = b""
            if "Content-Length" in self.headers:
                body = self.rfile.read(int(self.headers["Content-Length"]))
            if path == "/health":
                return self.send(200 if service.ready else 503, "OK\n" if service.ready else "NOT_READY\n",
                                 "text/plain")
            if path not in ("/impacted_targets", "/impacted_targets_with_distances"):
                return self.send(404, {"error": "not found"})
            if method not in ("GET", "POST"):
                return self.send(405, {"error": "method not allowed, use GET or POST"})
            if not service.ready:
                return self.send(503, {"error": "service not ready"})
            if method == "GET":
                params = {}
                for pair in raw_query.split("&") if raw_query else []:
                    if "=" in pair:
                        key, _, value = pair.partition("=")
                        params[urllib.parse.unquote_plus(key)] = urllib.parse.unquote_plus(value)
                frm, to = params.get("from"), params.get("to")
                if not frm or not to:
                    return self.send(400, {"error": "missing required query parameters 'from' and 'to'"})
                types = None
                if "targetType" in params:
                    types = {t.strip() for t in params["targetType"].split(",") if t.strip()}
            else:
                try:
                    document = json.loads(body.decode() or "null")
                except ValueError as error:
                    return self.send(400, {"error": "invalid JSON body: %s" % error})
                if not isinstance(document, dict):
                    return self.send(400, {"error": "missing JSON body with 'from' and 'to'"})
                frm, to = document.get("from"), document.get("to")
                if not frm or not to:
                    return self.send(400, {"error": "missing required fields 'from' and 'to'"})
                types = {t.strip() for t in document.get("targetType") or [] if t.strip()} or None
            try:
                status, answer = service.answer(frm, to, types, path == "/impacted_targets_with_distances")
            except Exception as error:  # upstream: 500 with the message
                status, answer = 500, {"error": str(error)}
            self.send(status, answer)

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

        def do_DELETE(self):
            self.handle_any("DELETE")

    return Handler


def main(argv):
    if argv[:1] in (["--version"], ["-V"]):
        print("upstream serve stand-in (bazel-diff 37.0.0)")
        return 0
    options = Options(argv)
    service = Service(options)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), make_handler(service))
    server.daemon_threads = True
    if options.port_file:
        with open(options.port_file + ".partial", "w") as f:
            f.write("%d\n" % server.server_address[1])
        os.replace(options.port_file + ".partial", options.port_file)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if options.initial_fetch:
        try:
            service.fetch()
            service.ready = True
        except GitError as error:
            print("[Error] initial git fetch failed; server is lame-ducked (health will report NOT_READY): %s" % error,
                  file=sys.stderr)
    else:
        service.ready = True
    import signal
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
