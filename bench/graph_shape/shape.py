#!/usr/bin/env python3
"""The shape of Bazel target graphs, side by side: real query output against generated fixtures.

Each GRAPH argument is NAME=QUERY_PB[:WORKSPACE_DIR]: a `bazel query ... --output=streamed_proto`
stream (varint-delimited blaze_query.Target messages) and, optionally, the workspace it was taken
from, whose files give the source-size distribution. The query is the one bazel-diff runs:

  bazel query '//external:all-targets + //...:all-targets' --output=streamed_proto \\
      --order_output=no --proto:instantiation_stack [--keep_going]

For a generated fixture, `perfengine generate SPEC --out DIR` writes DIR/WORKLOAD/query.pb and
DIR/WORKLOAD/workspace; `--generate SPEC` does that here (bench/graph_shape/shapes.toml names the
shapes docs/generators.md compares) and adds one column per workload.

Prints one row per figure, one column per graph (plain text, or Markdown with --markdown):
rule-class mix, attributes per rule, Starlark rules, select(), tests/binaries/aliases/filegroups/
config_settings, rules depending on external repositories and each external repository's fan-in,
source sizes, and the fan-in/fan-out of the rule graph (quantiles). "Main-repo rule" means a rule
outside //external.

Decodes with Python's protobuf (python3-protobuf) over Bazel's own build.proto (from Debian's
bazel-bootstrap-source), compiled with protoc into a scratch directory.

  bench/graph_shape/shape.py bazel=/tmp/bazel-src.pb:/tmp/bazel-src \\
      --generate bench/graph_shape/shapes.toml --perfengine build/bin/perfengine [--markdown]
"""
import argparse
import collections
import datetime
import os
import shutil
import subprocess
import sys
import tempfile

BUILD_PROTO = "/usr/src/bazel-bootstrap/src/main/protobuf/build.proto"
SELECTOR_LIST = 20
LABEL_TYPES = (3, 6)  # LABEL, LABEL_LIST
TOP_CLASSES = 10


def load_proto(tmp):
    subprocess.run(["protoc", "-I" + os.path.dirname(BUILD_PROTO), "--python_out=" + tmp, BUILD_PROTO], check=True)
    sys.path.insert(0, tmp)
    import build_pb2  # noqa: E402
    from google.protobuf.internal.decoder import _DecodeVarint32  # noqa: E402
    return build_pb2, _DecodeVarint32


def read_targets(path, build_pb2, decode_varint):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        n, pos = decode_varint(data, pos)
        t = build_pb2.Target()
        t.ParseFromString(data[pos:pos + n])
        pos += n
        yield t


def quantile(values, q):
    """Nearest-rank quantile (Hyndman & Fan type 1) of a non-empty list; 0 for an empty one."""
    if not values:
        return 0
    s = sorted(values)
    rank = max(1, -(-len(s) * q // 1))  # ceil(n q), at least 1
    return s[int(min(rank, len(s))) - 1]


def dist(values):
    return "p50 %s, p90 %s, p99 %s, max %s" % tuple(fmt_num(quantile(values, q)) for q in (0.5, 0.9, 0.99, 1.0))


def fmt_num(x):
    if isinstance(x, float) and not x.is_integer():
        return "%.1f" % x
    return "%d" % x


def fmt_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d B" % n


def pct(part, whole):
    return "%.1f%%" % (100.0 * part / whole) if whole else "n/a"


def repo_of(label):
    """'@zlib//:z' -> 'zlib'; main-repo labels ('//a:b') -> None."""
    if label.startswith("@"):
        return label[1:label.index("//")].lstrip("@")
    return None


def explicit_labels(attr):
    """Every label an explicitly specified attribute names, selector branches included."""
    if not attr.explicitly_specified:
        return []
    if attr.type == SELECTOR_LIST:
        out = []
        for element in attr.selector_list.elements:
            for entry in element.entries:
                if attr.selector_list.type == 3:
                    out.append(entry.string_value)
                elif attr.selector_list.type == 6:
                    out.extend(entry.string_list_value)
        return [x for x in out if x]
    if attr.type == 3:
        return [attr.string_value] if attr.string_value else []
    if attr.type == 6:
        return list(attr.string_list_value)
    return []


def shape(query_pb, workspace, build_pb2, decode_varint):
    rules, sources, generated, groups = [], [], 0, 0
    for t in read_targets(query_pb, build_pb2, decode_varint):
        if t.HasField("rule"):
            rules.append(t.rule)
        elif t.HasField("source_file"):
            sources.append(t.source_file.name)
        elif t.HasField("generated_file"):
            generated += 1
        elif t.HasField("package_group"):
            groups += 1
    main = [r for r in rules if not r.name.startswith("//external:")]
    main_names = {r.name for r in main}
    classes = collections.Counter(r.rule_class for r in main)
    fan_out, fan_in = [], collections.Counter()
    attrs, explicit = [], []
    starlark = select = 0
    external_rules = 0
    repo_fan_in = collections.Counter()
    packages = collections.Counter()
    for r in main:
        packages[r.name.split(":")[0]] += 1
        attrs.append(len(r.attribute))
        explicit.append(sum(1 for a in r.attribute if a.explicitly_specified))
        if any(a.name == "$rule_implementation_hash" for a in r.attribute):
            starlark += 1
        if any(a.type == SELECTOR_LIST for a in r.attribute):
            select += 1
        deps = {i for i in r.rule_input if i in main_names}
        fan_out.append(len(deps))
        for d in deps:
            fan_in[d] += 1
        repos = set()
        for a in r.attribute:
            for label in explicit_labels(a):
                repo = repo_of(label)
                if repo and repo != "bazel_tools":
                    repos.add(repo)
        if repos:
            external_rules += 1
        for repo in repos:
            repo_fan_in[repo] += 1
    fan_in_all = [fan_in.get(r.name, 0) for r in main]
    sizes = []
    if workspace:
        for label in sources:
            if label.startswith("@") or label.startswith("//external:"):
                continue
            package, name = label[2:].split(":", 1)
            if name in ("BUILD", "BUILD.bazel"):
                continue
            path = os.path.join(workspace, package, name)
            if os.path.isfile(path):
                sizes.append(os.path.getsize(path))

    def kind(pred):
        n = sum(c for k, c in classes.items() if pred(k))
        return "%d (%s)" % (n, pct(n, len(main)))

    rows = collections.OrderedDict()
    rows["targets"] = "%d" % (len(rules) + len(sources) + generated + groups)
    rows["main-repo rules / packages"] = "%d / %d" % (len(main), len(packages))
    rows["rules per package"] = dist(list(packages.values()))
    rows["source files / generated files"] = "%d / %d" % (len(sources), generated)
    rows["rule classes"] = "%d" % len(classes)
    top = ", ".join("%s %s" % (k, pct(c, len(main))) for k, c in classes.most_common(TOP_CLASSES))
    rows["class mix (top %d)" % TOP_CLASSES] = top
    rows["attributes per rule"] = dist(attrs)
    rows["explicit attributes per rule"] = dist(explicit)
    rows["Starlark rules ($rule_implementation_hash)"] = "%d (%s)" % (starlark, pct(starlark, len(main)))
    # Bazel prints a select() flattened (--proto:flatten_selects is on by default), so the stream
    # rarely shows one; the BUILD files do.
    rows["rules with select() in the stream"] = "%d (%s)" % (select, pct(select, len(main)))
    if workspace:
        calls = 0
        for package in packages:
            for build in ("BUILD", "BUILD.bazel"):
                path = os.path.join(workspace, package[2:], build)
                if os.path.isfile(path):
                    with open(path, errors="replace") as f:
                        calls += f.read().count("select(")
                    break
        rows["select( calls in BUILD files"] = "%d (%.1f per 100 rules)" % (calls, 100.0 * calls / max(1, len(main)))
    rows["tests (*_test)"] = kind(lambda k: k.endswith("_test"))
    rows["binaries (*_binary)"] = kind(lambda k: k.endswith("_binary"))
    rows["alias"] = kind(lambda k: k == "alias")
    rows["filegroup"] = kind(lambda k: k == "filegroup")
    rows["config_setting"] = kind(lambda k: k == "config_setting")
    rows["rules naming an external repo"] = "%d (%s)" % (external_rules, pct(external_rules, len(main)))
    rows["external repos named / fan-in"] = "%d / %s" % (len(repo_fan_in), dist(list(repo_fan_in.values())))
    rows["rule fan-out (main-repo rule deps)"] = dist(fan_out)
    rows["rule fan-in (main-repo dependents)"] = dist(fan_in_all)
    rows["rules nobody depends on"] = pct(sum(1 for x in fan_in_all if x == 0), len(main))
    if sizes:
        rows["source files measured"] = "%d" % len(sizes)
        rows["source size"] = "p10 %s, p50 %s, p90 %s, p99 %s, max %s" % tuple(
            fmt_bytes(quantile(sizes, q)) for q in (0.1, 0.5, 0.9, 0.99, 1.0))
        rows["source size mean"] = fmt_bytes(sum(sizes) / len(sizes))
    else:
        rows["source size"] = "n/a (no workspace)"
    return rows


def print_table(columns, markdown):
    names = [name for name, _ in columns]
    keys = []
    for _, rows in columns:
        for k in rows:
            if k not in keys:
                keys.append(k)
    if markdown:
        print("| figure | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for k in keys:
            print("| %s | %s |" % (k, " | ".join(rows.get(k, "") for _, rows in columns)))
        return
    for k in keys:
        print(k)
        for name, rows in columns:
            print("  %-12s %s" % (name, rows.get(k, "")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graphs", nargs="*", metavar="NAME=QUERY_PB[:WORKSPACE]")
    ap.add_argument("--generate", metavar="SPEC", help="also generate SPEC's fixtures and add one column per workload")
    ap.add_argument("--perfengine", default="build/bin/perfengine")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="graph-shape-")
    try:
        build_pb2, decode_varint = load_proto(tmp)
        inputs = []
        for g in args.graphs:
            if "=" not in g:
                ap.error("a graph is NAME=QUERY_PB[:WORKSPACE], not %r" % g)
            name, rest = g.split("=", 1)
            pb, _, ws = rest.partition(":")
            inputs.append((name, pb, ws or None))
        if args.generate:
            out = os.path.join(tmp, "fixtures")
            subprocess.run([args.perfengine, "generate", args.generate, "--out", out], check=True,
                           stdout=subprocess.DEVNULL)
            for w in sorted(os.listdir(out)):
                inputs.append((w, os.path.join(out, w, "query.pb"), os.path.join(out, w, "workspace")))
        if not inputs:
            ap.error("no graph given")
        columns = [(name, shape(pb, ws, build_pb2, decode_varint)) for name, pb, ws in inputs]
        print("bench/graph_shape/shape.py, %s" % datetime.date.today().isoformat())
        print_table(columns, args.markdown)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
