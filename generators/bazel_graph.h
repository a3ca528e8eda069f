// The in-memory shape of a synthetic Bazel workspace: packages in layers, rules whose deps
// point only at rules of the layer directly below (fan_in of them), each rule with its own
// source files and outputs. One BazelGraph drives both the streamed_proto writer and the
// workspace writer, so the query output and the files on disk always agree. The rule classes
// are those real Bazel 4.2.3 loads them as (generators/bazel_4_2_3.h): a genrule has outs and
// names its deps in srcs, a java_library has its two implicit jars, the others no outputs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "generators/params.h"

namespace pe::gen {

struct GraphOptions {
  std::int64_t targets = 4800;  // every target in the query output, externals included; scaled
  std::int64_t fan_in = 4;
  std::int64_t layers = 8;
  std::int64_t rules_per_package = 8;
  std::int64_t srcs_per_rule = 3;
  std::int64_t outs_per_rule = 1;
  double macro_fraction = 0.25;
  std::int64_t external_targets = 5;
  bool package_groups = true;  // a package_group per package (hash files leave them out, as upstream)
};

// Reads the graph parameters (docs/generators.md); `targets` comes back multiplied by scale.
GraphOptions ReadGraphOptions(ParamReader& reader, double scale, std::int64_t default_targets = 4800);

// A source file of a rule: named mod{rule}_s{id}.cc; version changes its content.
struct SourceRef {
  std::uint32_t id = 0;
  std::uint32_t version = 0;
};

struct RuleNode {
  std::uint32_t package = 0;
  std::uint32_t index = 0;  // position in its package: the rule is named mod{index}
  std::uint32_t outs = 0;   // a genrule's mod{index}_gen{k}.h; a java_library's two jars
  std::uint32_t dep_begin = 0;
  std::uint32_t dep_count = 0;
  std::uint32_t next_source_id = 0;
  std::uint8_t kind = 0;  // index into RuleClasses()
  bool macro = false;     // instantiated by my_macro from the package's defs.bzl
  bool flag = false;      // the class's boolean attribute (FlagAttribute)
  std::vector<SourceRef> srcs;
};

struct PackageNode {
  std::string name;  // e.g. src/l03/p00042
  std::uint32_t layer = 0;
  std::uint32_t first_rule = 0;
  std::uint32_t rule_count = 0;
  bool has_defs = true;    // loads my_macro from defs.bzl (a .bzl file is not a target)
  bool has_group = false;  // ends with package_group(name = "friends"); false where the budget ran out
};

// One target of a package, for listing a package in bazel's order (sorted by name).
struct PackageEntry {
  enum class Kind { kBuildFile, kPackageGroup, kRule, kSource, kOutput };
  Kind kind;
  std::uint32_t rule = 0;  // for kRule, kSource, kOutput
  std::uint32_t item = 0;  // index into srcs (kSource) or output number (kOutput)
  std::string name;
};

class BazelGraph {
 public:
  std::vector<std::string> externals;  // names of //external: targets
  std::vector<PackageNode> packages;
  std::vector<RuleNode> rules;
  std::vector<std::uint32_t> deps;  // rule indices, sliced by RuleNode::dep_begin/dep_count
  std::uint32_t layers = 0;
  std::uint64_t seed = 0;

  std::int64_t TargetCount() const;
  std::int64_t SourceFileCount() const;  // BUILD files and rule sources (not externals)
  static constexpr std::string_view kPackageGroupName = "friends";

  std::span<const std::uint32_t> DepsOf(std::uint32_t rule) const {
    return {deps.data() + rules[rule].dep_begin, rules[rule].dep_count};
  }
  // Rules of one layer are contiguous: [first, last).
  std::pair<std::uint32_t, std::uint32_t> LayerRules(std::uint32_t layer) const;

  static std::string RuleName(const RuleNode& rule);
  static std::string SourceName(const RuleNode& rule, const SourceRef& src);
  static std::string OutputName(const RuleNode& rule, std::uint32_t k);
  std::string Label(std::uint32_t package, std::string_view name) const;
  std::string RuleLabel(std::uint32_t rule) const;

  std::vector<PackageEntry> PackageTargets(std::uint32_t package) const;
};

// Rule classes used for the synthetic rules: genrule, cc_library, java_library, py_library.
std::span<const std::string_view> RuleClasses();
inline constexpr std::uint8_t kGenrule = 0, kJavaLibrary = 2;
// The boolean attribute each class sets from RuleNode::flag.
std::string_view FlagAttribute(std::uint8_t kind);

// Targets every query output has whatever the graph: the default //external: repositories of
// Bazel 4.2.3, //external:WORKSPACE and the workspace's own repository.
std::int64_t FixedExternalCount();
// The sha256 a fixture's http_archive declares for one of graph.externals.
std::string ExternalSha256(const BazelGraph& graph, std::string_view name);
inline constexpr std::string_view kWorkspaceName = "perfengine_fixture";

// Deterministic in (options, seed).
BazelGraph BuildGraph(const GraphOptions& options, std::uint64_t seed);

// Where things sit in the generated BUILD files, so query locations match the files on disk.
inline constexpr std::uint32_t kBuildHeaderLines = 2;
inline constexpr std::uint32_t kBuildRuleLines = 9;
inline std::uint32_t RuleLine(const RuleNode& rule) { return kBuildHeaderLines + 1 + rule.index * kBuildRuleLines; }
inline constexpr std::uint32_t kWorkspaceHeaderLines = 4;
inline constexpr std::uint32_t kWorkspaceRepoLines = 6;

}  // namespace pe::gen
