// refdiff_fixture DIR TARGETS [DEPS_PER_LIBRARY]
//
// Writes DIR/workspace (source and .bzl files), DIR/query.pb (the streamed_proto result bazel
// would print for it) and DIR/bazel (a link to the replay bazel), the layout of the
// bazel_workspace generator's fixtures. Each package holds 8 targets: 4 source files, a
// cc_library over two of them that depends on DEPS_PER_LIBRARY (default 6) libraries of earlier
// packages, a cc_test, a genrule and its output. Deterministic: the same arguments give the same
// bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "build.pb.h"

namespace {

namespace fs = std::filesystem;

void AddAttribute(blaze_query::Rule& rule, const std::string& name, blaze_query::Attribute::Discriminator type,
                  const std::string& value) {
  blaze_query::Attribute* attribute = rule.add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  attribute->set_explicitly_specified(true);
  attribute->set_string_value(value);
}

void AddListAttribute(blaze_query::Rule& rule, const std::string& name, blaze_query::Attribute::Discriminator type,
                      const std::vector<std::string>& values) {
  blaze_query::Attribute* attribute = rule.add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  for (const auto& value : values) attribute->add_string_list_value(value);
}

void Append(std::string& stream, const blaze_query::Target& target) {
  std::string bytes = target.SerializeAsString();
  std::uint64_t size = bytes.size();
  do {
    unsigned char byte = size & 0x7f;
    size >>= 7;
    if (size != 0) byte |= 0x80;
    stream += static_cast<char>(byte);
  } while (size != 0);
  stream += bytes;
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: refdiff_fixture DIR TARGETS [DEPS_PER_LIBRARY]\n");
    return 2;
  }
  fs::path dir = argv[1];
  long targets = std::atol(argv[2]);
  int deps_per_library = argc > 3 ? std::atoi(argv[3]) : 6;
  long packages = std::max(1L, targets / 8);
  constexpr int kBzlFiles = 20;

  fs::create_directories(dir / "workspace" / "tools");
  for (int b = 0; b < kBzlFiles; ++b) {
    WriteText(dir / "workspace" / "tools" / ("macro" + std::to_string(b) + ".bzl"),
              "def macro" + std::to_string(b) + "(name, **kwargs):\n    native.cc_library(name = name, **kwargs)\n");
  }

  std::mt19937_64 random(42);
  std::string stream;
  stream.reserve(static_cast<std::size_t>(targets) * 400);
  std::string filler(400, 'x');
  for (long p = 0; p < packages; ++p) {
    std::string package = "pkg" + std::to_string(p / 100) + "/sub" + std::to_string(p % 100);
    std::string prefix = "//" + package + ":";
    fs::create_directories(dir / "workspace" / package);
    std::vector<std::string> sources;
    for (int s = 0; s < 4; ++s) {
      std::string name = "file" + std::to_string(s) + ".cc";
      WriteText(dir / "workspace" / package / name, "// " + package + "/" + name + "\nint f" + std::to_string(p) + "_" +
                                                        std::to_string(s) + "() { return " +
                                                        std::to_string(random() % 1000) + "; }\n// " + filler + "\n");
      blaze_query::Target source;
      source.set_type(blaze_query::Target::SOURCE_FILE);
      source.mutable_source_file()->set_name(prefix + name);
      source.mutable_source_file()->set_location("/ws/" + package + "/BUILD:1:1");
      Append(stream, source);
      sources.push_back(prefix + name);
    }

    std::vector<std::string> deps;
    for (int d = 0; d < deps_per_library && p > 0; ++d) {
      long other = static_cast<long>(random() % static_cast<std::uint64_t>(p));
      deps.push_back("//pkg" + std::to_string(other / 100) + "/sub" + std::to_string(other % 100) + ":lib");
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());

    using A = blaze_query::Attribute;
    blaze_query::Target lib;
    lib.set_type(blaze_query::Target::RULE);
    blaze_query::Rule& rule = *lib.mutable_rule();
    rule.set_name(prefix + "lib");
    rule.set_rule_class("cc_library");
    rule.set_location("/ws/" + package + "/BUILD:3:1");
    AddAttribute(rule, "name", A::STRING, "lib");
    AddListAttribute(rule, "srcs", A::LABEL_LIST, {sources[0], sources[1]});
    AddListAttribute(rule, "deps", A::LABEL_LIST, deps);
    AddListAttribute(rule, "copts", A::STRING_LIST, {"-O2", "-Wall", "-DPKG=" + std::to_string(p)});
    AddListAttribute(rule, "visibility", A::STRING_LIST, {"//visibility:public"});
    AddAttribute(rule, "generator_location", A::STRING, package + "/BUILD:3:1");
    AddAttribute(rule, "generator_function", A::STRING, "macro" + std::to_string(p % kBzlFiles));
    rule.add_rule_input(sources[0]);
    rule.add_rule_input(sources[1]);
    for (const auto& dep : deps) rule.add_rule_input(dep);
    rule.add_instantiation_stack("tools/macro" + std::to_string(p % kBzlFiles) + ".bzl:2:21: macro" +
                                 std::to_string(p % kBzlFiles));
    rule.add_instantiation_stack(package + "/BUILD:3:7: <toplevel>");
    Append(stream, lib);

    blaze_query::Target test;
    test.set_type(blaze_query::Target::RULE);
    blaze_query::Rule& test_rule = *test.mutable_rule();
    test_rule.set_name(prefix + "lib_test");
    test_rule.set_rule_class("cc_test");
    AddAttribute(test_rule, "name", A::STRING, "lib_test");
    AddListAttribute(test_rule, "srcs", A::LABEL_LIST, {sources[2]});
    AddListAttribute(test_rule, "deps", A::LABEL_LIST, {prefix + "lib"});
    AddAttribute(test_rule, "size", A::STRING, "small");
    test_rule.add_rule_input(sources[2]);
    test_rule.add_rule_input(prefix + "lib");
    Append(stream, test);

    blaze_query::Target gen;
    gen.set_type(blaze_query::Target::RULE);
    blaze_query::Rule& gen_rule = *gen.mutable_rule();
    gen_rule.set_name(prefix + "gen");
    gen_rule.set_rule_class("genrule");
    AddAttribute(gen_rule, "name", A::STRING, "gen");
    AddListAttribute(gen_rule, "srcs", A::LABEL_LIST, {sources[3]});
    AddListAttribute(gen_rule, "outs", A::OUTPUT_LIST, {prefix + "gen.h"});
    AddAttribute(gen_rule, "cmd", A::STRING, "cp $< $@");
    gen_rule.add_rule_input(sources[3]);
    gen_rule.add_rule_output(prefix + "gen.h");
    Append(stream, gen);

    blaze_query::Target out;
    out.set_type(blaze_query::Target::GENERATED_FILE);
    out.mutable_generated_file()->set_name(prefix + "gen.h");
    out.mutable_generated_file()->set_generating_rule(prefix + "gen");
    Append(stream, out);
  }
  WriteText(dir / "query.pb", stream);
  fs::remove(dir / "bazel");
  fs::create_symlink(REFDIFF_REPLAY_BAZEL, dir / "bazel");
  std::printf("%s: %ld targets in %ld packages, %zu-byte query result\n", dir.c_str(), packages * 8, packages,
              stream.size());
  return 0;
}
