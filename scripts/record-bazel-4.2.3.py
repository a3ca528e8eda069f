#!/usr/bin/env python3
"""Records what real Bazel 4.2.3 says about the rule classes the Bazel fixtures use.

Runs Debian's Bazel 4.2.3 (bazel-bootstrap) over a probe workspace with one rule of each
class, each given exactly the attributes the fixture generators give explicitly, and writes
generators/bazel_4_2_3_data.cc:
  - per rule class, every attribute in Bazel's order: either a slot the generator fills
    (explicitly specified in the probe) or the serialised Attribute message Bazel printed for
    the default, byte for byte;
  - the implicit rule inputs and the implicit outputs of each class;
  - the default //external: repositories every 4.2.3 workspace has (DEFAULT.WORKSPACE),
    serialised Target messages sorted by label, with this machine's output base replaced by a
    fixed path so the fixture stays a pure function of its spec;
  - the workspace's own repository (a local_repository named by workspace()).
The query is the one bazel-diff runs (streamed_proto, --order_output=no,
--proto:instantiation_stack). Run it again when the fixtures move to another Bazel:
  /usr/bin/python3 scripts/record-bazel-4.2.3.py [--bazel /usr/bin/bazel] [--dump probe.txt]
Needs protoc, python3-protobuf and bazel-bootstrap-source's build.proto.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

BUILD_PROTO = "/usr/src/bazel-bootstrap/src/main/protobuf/build.proto"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "generators", "bazel_4_2_3_data.cc")
FIXED_OUTPUT_ROOT = "/home/user/.cache/bazel/_bazel_user"

# The .bzl every generated package loads when the graph has Starlark rules, byte for byte
# (generators/source_tree.cc, RenderDefsFile): `$rule_implementation_hash` is a digest of it.
DEFS_WITH_RULE = """\
def my_macro(name, kind, **kwargs):
    kind(name = name, **kwargs)

def _my_rule_impl(ctx):
    return [DefaultInfo(files = depset(ctx.files.srcs))]

my_rule = rule(
    implementation = _my_rule_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True),
        "deps": attr.label_list(),
        "local": attr.bool(),
    },
)
"""

# One rule per class with the attributes the generators set (generators/source_tree.cc).
PROBE_BUILD = """\
load(":defs.bzl", "my_rule")

genrule(
    name = "genrule_probe",
    srcs = ["a.cc", ":cc_library_probe"],
    outs = ["genrule_probe_gen0.h"],
    cmd = "cat $(SRCS) > $@",
    local = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

cc_library(
    name = "cc_library_probe",
    srcs = ["b.cc"],
    deps = [":py_library_probe"],
    linkstatic = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

java_library(
    name = "java_library_probe",
    srcs = ["c.cc"],
    deps = [":cc_library_probe"],
    neverlink = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

py_library(
    name = "py_library_probe",
    srcs = ["d.cc"],
    deps = [],
    testonly = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

cc_binary(
    name = "cc_binary_probe",
    srcs = ["e.cc"],
    deps = [":cc_library_probe", "@http_archive_probe//:http_archive_probe"],
    linkstatic = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

cc_test(
    name = "cc_test_probe",
    srcs = ["f.cc"],
    deps = [":cc_library_probe"],
    linkstatic = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

filegroup(
    name = "filegroup_probe",
    srcs = ["g.cc", ":cc_library_probe"],
    testonly = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

alias(
    name = "alias_probe",
    actual = ":cc_library_probe",
    testonly = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

config_setting(
    name = "config_setting_probe",
    values = {"define": "pe=probe"},
    testonly = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

# Not recorded (a select() fills the class's $config_dependencies): --dump shows how Bazel
# prints one (flattened, --proto:flatten_selects being the default).
cc_test(
    name = "select_probe",
    srcs = ["i.cc"],
    deps = select({":config_setting_probe": [":cc_library_probe", ":py_library_probe"], "//conditions:default": [":cc_library_probe"]}),
    linkstatic = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)

my_rule(
    name = "my_rule_probe",
    srcs = ["h.cc"],
    deps = [":cc_library_probe"],
    local = True,
    tags = ["l0"],
    visibility = ["//visibility:public"],
)
"""

PROBE_WORKSPACE = """\
workspace(name = "probe")

load("@bazel_tools//tools/build_defs/repo:http.bzl", "http_archive")

http_archive(
    name = "http_archive_probe",
    urls = ["https://example.com/x/x-1.0.tar.gz"],
    strip_prefix = "x-1.0",
    sha256 = "0000000000000000000000000000000000000000000000000000000000000000",
)
"""


def c_bytes(data):
    return 'std::string_view("' + "".join("\\x%02x" % b for b in data) + '", %d)' % len(data)


def c_str(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bazel", default="/usr/bin/bazel")
    ap.add_argument("--dump", help="also write the probe rules as text here (to read how Bazel prints them)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="record-bazel-")
    try:
        subprocess.run(["protoc", "-I" + os.path.dirname(BUILD_PROTO), "--python_out=" + tmp, BUILD_PROTO],
                       check=True)
        sys.path.insert(0, tmp)
        import build_pb2
        from google.protobuf.internal.decoder import _DecodeVarint32

        ws = os.path.join(tmp, "ws")
        os.makedirs(os.path.join(ws, "pkg"))
        with open(os.path.join(ws, "WORKSPACE"), "w") as f:
            f.write(PROBE_WORKSPACE)
        with open(os.path.join(ws, "pkg", "BUILD"), "w") as f:
            f.write(PROBE_BUILD)
        with open(os.path.join(ws, "pkg", "defs.bzl"), "w") as f:
            f.write(DEFS_WITH_RULE)
        for name in ("a.cc", "b.cc", "c.cc", "d.cc", "e.cc", "f.cc", "g.cc", "h.cc", "i.cc"):
            open(os.path.join(ws, "pkg", name), "w").close()
        root = os.path.join(tmp, "root")
        query = [args.bazel, "--batch", "--output_user_root=" + root, "--nohome_rc", "query",
                 "//external:all-targets + //...:all-targets", "--output=streamed_proto",
                 "--order_output=no", "--proto:instantiation_stack"]
        data = subprocess.run(query, cwd=ws, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "bazel-bootstrap"],
                                 stdout=subprocess.PIPE, text=True).stdout

        targets = []
        pos = 0
        while pos < len(data):
            n, pos = _DecodeVarint32(data, pos)
            t = build_pb2.Target()
            t.ParseFromString(data[pos:pos + n])
            pos += n
            targets.append(t)
        rules = {t.rule.name: t.rule for t in targets if t.HasField("rule")}

        out = []
        out.append("// Generated by scripts/record-bazel-4.2.3.py from Debian's bazel-bootstrap %s: do not edit." % version)
        out.append("// What real Bazel 4.2.3 prints for the rule classes of the Bazel fixtures (see the script).")
        out.append('#include "generators/bazel_4_2_3.h"')
        out.append("")
        out.append("namespace pe::gen::bazel423 {")
        out.append("namespace {")
        classes = []
        for label, klass in [("//pkg:genrule_probe", "genrule"), ("//pkg:cc_library_probe", "cc_library"),
                             ("//pkg:java_library_probe", "java_library"),
                             ("//pkg:py_library_probe", "py_library"),
                             ("//pkg:cc_binary_probe", "cc_binary"), ("//pkg:cc_test_probe", "cc_test"),
                             ("//pkg:filegroup_probe", "filegroup"), ("//pkg:alias_probe", "alias"),
                             ("//pkg:config_setting_probe", "config_setting"),
                             ("//pkg:my_rule_probe", "my_rule"),
                             ("//external:http_archive_probe", "http_archive"),
                             ("//external:probe", "local_repository")]:
            rule = rules[label]
            assert rule.rule_class == klass, (label, rule.rule_class)
            short = label.split(":")[1]
            out.append("constexpr Attribute k_%s_attributes[] = {" % klass)
            for a in rule.attribute:
                if a.explicitly_specified:
                    out.append("    {%s, {}}," % c_str(a.name))
                else:
                    out.append("    {%s, %s}," % (c_str(a.name), c_bytes(a.SerializeToString())))
            out.append("};")
            # Implicit inputs: every other repository's label but the probe's own external dep.
            inputs = [i for i in rule.rule_input if i.startswith("@") and not i.startswith("@http_archive_probe//")]
            out.append("constexpr std::string_view k_%s_inputs[] = {%s};" %
                       (klass, ", ".join(c_str(i) for i in inputs) or '""'))
            outputs = [o.split(":")[1].replace(short, "{name}") for o in rule.rule_output
                       if short + "_gen" not in o]
            out.append("constexpr std::string_view k_%s_outputs[] = {%s};" %
                       (klass, ", ".join(c_str(o) for o in outputs) or '""'))
            classes.append((klass, len(inputs), len(outputs)))
        # The output base is root/<md5 of the workspace path>: machine-specific, like root.
        output_base = next(os.path.join(root, d) for d in os.listdir(root) if len(d) == 32)
        externals = sorted((t for t in targets if t.HasField("rule") and
                            t.rule.location.startswith("/DEFAULT.WORKSPACE")), key=lambda t: t.rule.name)
        if args.dump:
            with open(args.dump, "w") as f:
                for t in targets:
                    if t.HasField("rule") and t.rule.name.startswith("//pkg:"):
                        f.write(str(t) + "\n")
        out.append("constexpr std::string_view kDefaultExternals[] = {")
        for t in externals:
            for i, frame in enumerate(t.rule.instantiation_stack):
                t.rule.instantiation_stack[i] = frame.replace(output_base, FIXED_OUTPUT_ROOT)
            out.append("    %s,  // %s" % (c_bytes(t.SerializeToString(deterministic=True)), t.rule.name))
        out.append("};")
        out.append("constexpr std::string_view kDefaultExternalLabels[] = {")
        for t in externals:
            out.append("    %s," % c_str(t.rule.name))
        out.append("};")
        out.append("constexpr RuleClass kClasses[] = {")
        for klass, inputs, outputs in classes:
            out.append("    {%s, k_%s_attributes, std::span(k_%s_inputs, %d), std::span(k_%s_outputs, %d)}," %
                       (c_str(klass), klass, klass, inputs, klass, outputs))
        out.append("};")
        out.append("}  // namespace")
        out.append("")
        out.append("std::span<const RuleClass> Classes() { return kClasses; }")
        out.append("std::span<const std::string_view> DefaultExternals() { return kDefaultExternals; }")
        out.append("std::span<const std::string_view> DefaultExternalLabels() { return kDefaultExternalLabels; }")
        out.append("")
        out.append("}  // namespace pe::gen::bazel423")
        with open(OUT, "w") as f:
            f.write("\n".join(out) + "\n")
        print("wrote %s: %d classes, %d default externals" % (OUT, len(classes), len(externals)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
