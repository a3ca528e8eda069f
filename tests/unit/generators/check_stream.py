#!/usr/bin/env python3
"""Decodes a generated streamed_proto fixture with Python's protobuf, independently of the
C++ code that wrote it, and checks its shape: required fields, counts, sort order, layering,
fan-in, and that the workspace holds every source file the stream names.

usage: check_stream.py GEN_TOOL PROTO_FILE SHIM_DIR
"""
import collections
import os
import subprocess
import sys
import tempfile

TARGETS = 300
FAN_IN = 3
LAYERS = 4
# The WORKSPACE's 5 repositories, Bazel 4.2.3's 30 defaults, the workspace's own and
# //external:WORKSPACE.
EXTERNALS = 5 + 30 + 2
SOURCE_BYTES = 200


def read_varint(data, pos):
    shift = 0
    value = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def main():
    gen_tool, proto_file, shim_dir = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="pe-check-stream-")
    subprocess.run(["protoc", "--proto_path=" + os.path.dirname(proto_file),
                    "--python_out=" + work, proto_file], check=True)
    sys.path.insert(0, work)
    import build_pb2  # noqa: E402  (generated above)

    fixture = os.path.join(work, "fixture")
    env = dict(os.environ, PERFENGINE_SHIM=os.path.join(shim_dir, "perfengine-bazel-shim"))
    subprocess.run([gen_tool, "bazel_workspace", fixture, "7", "1",
                    "targets=%d" % TARGETS, "fan_in=%d" % FAN_IN, "layers=%d" % LAYERS,
                    "source_bytes=%d" % SOURCE_BYTES], check=True, env=env)
    data = open(os.path.join(fixture, "query.pb"), "rb").read()

    targets = []
    pos = 0
    while pos < len(data):
        size, pos = read_varint(data, pos)
        target = build_pb2.Target()
        target.ParseFromString(data[pos:pos + size])
        pos += size
        if not target.IsInitialized():
            fail("message %d lacks required fields: %s" % (len(targets), target.FindInitializationErrors()))
        targets.append(target)
    if len(targets) != TARGETS:
        fail("expected %d targets, decoded %d" % (TARGETS, len(targets)))

    T = build_pb2.Target
    name_of = {T.RULE: lambda t: t.rule.name, T.SOURCE_FILE: lambda t: t.source_file.name,
               T.GENERATED_FILE: lambda t: t.generated_file.name,
               T.PACKAGE_GROUP: lambda t: t.package_group.name}
    labels = [name_of[t.type](t) for t in targets]
    if len(set(labels)) != len(labels):
        fail("duplicate labels")
    externals = [l for l in labels if l.startswith("//external:")]
    if len(externals) != EXTERNALS:
        fail("expected %d external targets, got %d" % (EXTERNALS, len(externals)))

    # Grouped by package, sorted by name within each package.
    packages = []
    for label in labels:
        package, name = label[2:].split(":", 1)
        if not packages or packages[-1][0] != package:
            if any(p == package for p, _ in packages):
                fail("package %s is not contiguous" % package)
            packages.append((package, []))
        packages[-1][1].append(name)
    for package, names in packages:
        # Bazel's own repositories come first, as recorded; the rest sort by name.
        if package != "external" and names != sorted(names):
            fail("targets of %s are not sorted" % package)

    rules = {t.rule.name: t.rule for t in targets if t.type == T.RULE}
    layer_of = {}
    for name, rule in rules.items():
        if name.startswith("//external:"):
            continue
        layer_of[name] = int(name.split("/")[3][1:])  # //src/lNN/pXXXXX:modJ
    by_layer = collections.Counter(layer_of.values())
    if sorted(by_layer) != list(range(LAYERS)):
        fail("expected layers 0..%d, got %s" % (LAYERS - 1, sorted(by_layer)))

    saw_macro = saw_visibility = False
    for name, rule in rules.items():
        if name.startswith("//external:"):
            continue
        if list(rule.rule_input) != sorted(rule.rule_input):
            fail("rule_input of %s is not sorted" % name)
        attrs = {a.name: a for a in rule.attribute}
        # What each class is given explicitly (a genrule's deps are in its srcs).
        explicit = {"genrule": ("srcs", "outs", "cmd", "local"),
                    "cc_library": ("srcs", "deps", "linkstatic"),
                    "java_library": ("srcs", "deps", "neverlink"),
                    "py_library": ("srcs", "deps", "testonly")}[rule.rule_class]
        for needed in explicit + ("tags", "visibility", "name"):
            if needed not in attrs or not attrs[needed].explicitly_specified:
                fail("%s lacks explicit attribute %s" % (name, needed))
        if not any(not a.explicitly_specified for a in rule.attribute):
            fail("%s has none of its class's default attributes" % name)
        if rule.rule_class == "genrule" and attrs["outs"].type != build_pb2.Attribute.OUTPUT_LIST:
            fail("outs of %s is not OUTPUT_LIST" % name)
        vis = attrs["visibility"]
        if vis.type != build_pb2.Attribute.STRING_LIST or not vis.nodep:
            fail("visibility of %s is not a nodep STRING_LIST" % name)
        saw_visibility = True
        flag = attrs[explicit[-1]]
        if flag.type != build_pb2.Attribute.BOOLEAN or flag.string_value not in ("true", "false"):
            fail("%s of %s is not a BOOLEAN with its string form" % (explicit[-1], name))
        if not rule.instantiation_stack or not rule.instantiation_stack[0].endswith(": <toplevel>"):
            fail("%s has no toplevel frame" % name)
        if attrs["generator_function"].explicitly_specified:
            saw_macro = True
            if not rule.instantiation_stack[-1].endswith("/defs.bzl:2:9: my_macro"):
                fail("%s is macro-made but its stack is %s" % (name, list(rule.instantiation_stack)))
        if rule.rule_class == "genrule":
            deps = [d for d in attrs["srcs"].string_list_value if d in layer_of]
        else:
            deps = list(attrs["deps"].string_list_value)
        layer = layer_of[name]
        if layer == 0:
            if deps:
                fail("%s is in layer 0 but has deps" % name)
            continue
        if len(deps) != min(FAN_IN, by_layer[layer - 1]):
            fail("%s has %d deps, expected fan-in %d" % (name, len(deps), FAN_IN))
        for dep in deps:
            if layer_of.get(dep) != layer - 1:
                fail("%s (layer %d) depends on %s outside layer %d" % (name, layer, dep, layer - 1))
        for src in attrs["srcs"].string_list_value:
            if src in layer_of:
                continue
            path = os.path.join(fixture, "workspace", *src[2:].split(":"))
            if os.path.getsize(path) != SOURCE_BYTES:
                fail("%s is not %d bytes on disk" % (path, SOURCE_BYTES))
    if not saw_macro:
        fail("no macro-made rule")

    generated = [t.generated_file for t in targets if t.type == T.GENERATED_FILE]
    for g in generated:
        if g.generating_rule not in rules or g.name not in rules[g.generating_rule].rule_output:
            fail("%s has no matching generating rule" % g.name)
    for t in targets:
        if t.type == T.SOURCE_FILE:
            name = t.source_file.name.replace("//external:", "//:")
            path = os.path.join(fixture, "workspace", *name[2:].split(":"))
            if not os.path.isfile(path):
                fail("source file %s missing at %s" % (t.source_file.name, path))
    print("ok: %d targets, %d rules, %d packages, layers %s" %
          (len(targets), len(rules), len(packages), dict(sorted(by_layer.items()))))


if __name__ == "__main__":
    main()
