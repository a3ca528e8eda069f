#include "generators/query_proto.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include "build.pb.h"
#include "generators/rng.h"
#include "generators/sha256.h"

namespace pe::gen {
namespace {

using blaze_query::Attribute;
using blaze_query::Rule;
using blaze_query::Target;

constexpr std::uint64_t kProtoStream = 0x70726f746f2d7631;  // "proto-v1"

Attribute* AddAttribute(Rule* rule, const char* name, Attribute::Discriminator type,
                        bool explicitly_specified) {
  Attribute* attribute = rule->add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  attribute->set_explicitly_specified(explicitly_specified);
  return attribute;
}

void AppendDelimited(const Target& target, std::string& buffer) {
  const std::size_t size = target.ByteSizeLong();
  std::uint8_t header[10];
  const auto* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
      static_cast<std::uint32_t>(size), header);
  buffer.append(reinterpret_cast<const char*>(header), static_cast<std::size_t>(end - header));
  const std::size_t offset = buffer.size();
  buffer.resize(offset + size);
  target.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(buffer.data() + offset));
}

class Writer {
 public:
  Writer(const BazelGraph& graph, OutputFile& out) : graph_(graph), out_(out) {
    // A Starlark rule's environment hash: stable per rule class within one fixture.
    for (auto rule_class : RuleClasses()) {
      environment_hashes_.push_back(Sha256Hex(fmt::format("{}:{}", graph.seed, rule_class)));
    }
  }

  void Run() {
    for (std::size_t i = 0; i < graph_.externals.size(); ++i) External(i);
    for (std::uint32_t p = 0; p < graph_.packages.size(); ++p) Package(p);
  }

 private:
  void Emit() {
    AppendDelimited(target_, out_.buffer());
    out_.MaybeFlush();
  }

  void External(std::size_t i) {
    const std::string& name = graph_.externals[i];
    target_.Clear();
    target_.set_type(Target::RULE);
    Rule* rule = target_.mutable_rule();
    rule->set_name("//external:" + name);
    rule->set_rule_class("http_archive");
    const auto line = kWorkspaceHeaderLines + 1 + i * kWorkspaceRepoLines;
    rule->set_location(fmt::format("WORKSPACE:{}:13", line));
    AddAttribute(rule, "name", Attribute::STRING, true)->set_string_value(name);
    AddAttribute(rule, "sha256", Attribute::STRING, true)
        ->set_string_value(Sha256Hex(fmt::format("{}:{}", graph_.seed, name)));
    AddAttribute(rule, "strip_prefix", Attribute::STRING, true)
        ->set_string_value(name + "-1.0");
    AddAttribute(rule, "urls", Attribute::STRING_LIST, true)
        ->add_string_list_value(fmt::format("https://example.com/{0}/{0}-1.0.tar.gz", name));
    rule->set_skylark_environment_hash_code(Sha256Hex(fmt::format("{}:http", graph_.seed)));
    rule->add_instantiation_stack(fmt::format("WORKSPACE:{}:13: <toplevel>", line));
    Emit();
  }

  void Package(std::uint32_t p) {
    const PackageNode& package = graph_.packages[p];
    prefix_ = fmt::format("//{}:", package.name);
    build_file_ = package.name + "/BUILD";
    for (const PackageEntry& entry : graph_.PackageTargets(p)) {
      target_.Clear();
      switch (entry.kind) {
        case PackageEntry::Kind::kBuildFile:
        case PackageEntry::Kind::kDefsFile:
          SourceFile(entry.name, build_file_ + ":1:1");
          break;
        case PackageEntry::Kind::kSource:
          SourceFile(entry.name, RuleLocation(graph_.rules[entry.rule]));
          break;
        case PackageEntry::Kind::kOutput: {
          target_.set_type(Target::GENERATED_FILE);
          auto* file = target_.mutable_generated_file();
          file->set_name(prefix_ + entry.name);
          file->set_generating_rule(prefix_ + BazelGraph::RuleName(graph_.rules[entry.rule]));
          file->set_location(RuleLocation(graph_.rules[entry.rule]));
          break;
        }
        case PackageEntry::Kind::kRule:
          RuleTarget(entry.rule);
          break;
      }
      Emit();
    }
  }

  void SourceFile(const std::string& name, const std::string& location) {
    target_.set_type(Target::SOURCE_FILE);
    auto* file = target_.mutable_source_file();
    file->set_name(prefix_ + name);
    file->set_location(location);
  }

  std::string RuleLocation(const RuleNode& rule) const {
    const std::string_view callee =
        rule.macro ? std::string_view("my_macro") : RuleClasses()[rule.kind];
    // Bazel reports a rule's location at the call's opening parenthesis.
    return fmt::format("{}:{}:{}", build_file_, RuleLine(rule), callee.size() + 1);
  }

  void RuleTarget(std::uint32_t r) {
    const RuleNode& node = graph_.rules[r];
    const PackageNode& package = graph_.packages[node.package];
    const std::string name = BazelGraph::RuleName(node);
    const std::string location = RuleLocation(node);

    target_.set_type(Target::RULE);
    Rule* rule = target_.mutable_rule();
    rule->set_name(prefix_ + name);
    rule->set_rule_class(std::string(RuleClasses()[node.kind]));
    rule->set_location(location);

    inputs_.clear();
    for (const SourceRef& src : node.srcs) inputs_.push_back(prefix_ + BazelGraph::SourceName(node, src));
    const std::size_t source_count = inputs_.size();
    for (std::uint32_t dep : graph_.DepsOf(r)) inputs_.push_back(graph_.RuleLabel(dep));

    // Attributes in name order, as Bazel lists a rule class's attributes.
    AddAttribute(rule, "cmd", Attribute::STRING, true)->set_string_value("cat $(SRCS) > $@");
    Attribute* deps = AddAttribute(rule, "deps", Attribute::LABEL_LIST, true);
    for (std::size_t i = source_count; i < inputs_.size(); ++i) {
      deps->add_string_list_value(inputs_[i]);
    }
    if (node.macro) {
      AddAttribute(rule, "generator_function", Attribute::STRING, false)
          ->set_string_value("my_macro");
      AddAttribute(rule, "generator_location", Attribute::STRING, false)
          ->set_string_value(fmt::format("{}:{}:9", build_file_, RuleLine(node)));
      AddAttribute(rule, "generator_name", Attribute::STRING, false)->set_string_value(name);
    }
    AddAttribute(rule, "linkstatic", Attribute::BOOLEAN, true)->set_boolean_value(node.flag);
    AddAttribute(rule, "name", Attribute::STRING, true)->set_string_value(name);
    Attribute* outs = AddAttribute(rule, "outs", Attribute::OUTPUT_LIST, true);
    for (std::uint32_t k = 0; k < node.outs; ++k) {
      outs->add_string_list_value(prefix_ + BazelGraph::OutputName(node, k));
      rule->add_rule_output(prefix_ + BazelGraph::OutputName(node, k));
    }
    Attribute* srcs = AddAttribute(rule, "srcs", Attribute::LABEL_LIST, true);
    for (std::size_t i = 0; i < source_count; ++i) srcs->add_string_list_value(inputs_[i]);
    AddAttribute(rule, "tags", Attribute::STRING_LIST, true)
        ->add_string_list_value(fmt::format("l{}", package.layer));
    Attribute* visibility = AddAttribute(rule, "visibility", Attribute::STRING_LIST, true);
    visibility->add_string_list_value("//visibility:public");
    visibility->set_nodep(true);

    std::sort(inputs_.begin(), inputs_.end());
    for (const std::string& input : inputs_) rule->add_rule_input(input);
    rule->set_skylark_environment_hash_code(environment_hashes_[node.kind]);
    rule->add_instantiation_stack(fmt::format("{}: <toplevel>", location));
    if (node.macro) {
      rule->add_instantiation_stack(fmt::format("{}/defs.bzl:2:9: my_macro", package.name));
    }
  }

  const BazelGraph& graph_;
  OutputFile& out_;
  Target target_;
  std::string prefix_;
  std::string build_file_;
  std::vector<std::string> inputs_;
  std::vector<std::string> environment_hashes_;
};

}  // namespace

void WriteQueryProto(const BazelGraph& graph, OutputFile& out) { Writer(graph, out).Run(); }

void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path) {
  OutputFile out(path);
  WriteQueryProto(graph, out);
  out.Close();
}

}  // namespace pe::gen
