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
#include "generators/rng.h"

namespace pe::gen {

// What makes a graph look like a real repository's (docs/generators.md, "Shape"; calibrated by
// bench/graph_shape/shape.py). Every field at zero leaves the graph exactly the uniform one: the
// shape draws from its own random stream, so the uniform graph's draws do not move.
struct ShapeOptions {
  // Shares of rules of each further class (the rest are the four base classes, evenly).
  double test_fraction = 0;            // cc_test
  double binary_fraction = 0;          // cc_binary (its implicit outputs are generated files)
  double filegroup_fraction = 0;       // filegroup (its deps are srcs)
  double alias_fraction = 0;           // alias of one dep (a filegroup where there is none)
  double config_setting_fraction = 0;  // config_setting (no srcs, no deps)
  double starlark_fraction = 0;        // my_rule, a Starlark rule of the package's defs.bzl
  double select_fraction = 0;          // of rules with deps: deps = select() on a config_setting of a lower layer
  double external_fraction = 0;        // of rules with deps or srcs: also name one or two external repositories
  double fan_in_sigma = 0;             // each rule's deps: log-normal around fan_in with this sigma (0: exactly)
  double deep_fraction = 0;            // of deps: from any lower layer rather than the one directly below
  double hub_skew = 1;                 // >1: deps favour the first rules of a layer (skewed fan-in); 1: uniform
  double source_bytes_sigma = 0;       // source sizes: log-normal with median source_bytes (0: all equal)
  double package_sigma = 0;            // rules per package: log-normal with median rules_per_package
  // Defaults the shape gives parameters read elsewhere: the graph's external_targets and
  // rules_per_package, the workspace writer's source_bytes (not part of Any(): each is a plain
  // parameter too).
  std::int64_t rules_per_package = 8;
  std::int64_t external_targets = 5;
  std::int64_t source_bytes = 1024;
  bool Any() const {
    return test_fraction > 0 || binary_fraction > 0 || filegroup_fraction > 0 || alias_fraction > 0 ||
           config_setting_fraction > 0 || starlark_fraction > 0 || select_fraction > 0 || external_fraction > 0 ||
           fan_in_sigma > 0 || deep_fraction > 0 || hub_skew != 1 || source_bytes_sigma > 0 || package_sigma > 0;
  }
};

// The shape of a real repository's graph (`shape = "calibrated"`), as calibrated against real
// query output by bench/graph_shape/shape.py (docs/generators.md, "Shape").
ShapeOptions CalibratedShape();

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
  ShapeOptions shape;          // all zero: the uniform graph above, byte for byte
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
  std::uint8_t kind = 0;         // index into RuleClasses()
  bool macro = false;            // instantiated by my_macro from the package's defs.bzl
  bool flag = false;             // the class's boolean attribute (FlagAttribute)
  bool select = false;           // deps = select({DepsOf()[select_key]: deps, default: deps but the last})
  std::uint32_t select_key = 0;  // position in DepsOf() of the config_setting
  std::vector<SourceRef> srcs;
  std::vector<std::uint32_t> external_deps;  // indices into BazelGraph::externals, sorted
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
  bool starlark_rules = false;    // defs.bzl also defines my_rule (RenderDefsFile)
  double source_bytes_sigma = 0;  // ShapeOptions::source_bytes_sigma, for the workspace writer

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
  std::string ExternalLabel(std::uint32_t external) const;  // @name//:name

  std::vector<PackageEntry> PackageTargets(std::uint32_t package) const;
  // The same into `entries`, reusing its strings (the stream writer lists every package).
  void PackageTargets(std::uint32_t package, std::vector<PackageEntry>& entries) const;
};

// Rule classes used for the synthetic rules: genrule, cc_library, java_library, py_library (the
// uniform four), then those of the shape: cc_binary, cc_test, filegroup, alias, config_setting and
// my_rule (Starlark).
std::span<const std::string_view> RuleClasses();
inline constexpr std::uint8_t kGenrule = 0, kCcLibrary = 1, kJavaLibrary = 2, kCcBinary = 4, kCcTest = 5,
                              kFilegroup = 6, kAlias = 7, kConfigSetting = 8, kMyRule = 9;
inline constexpr std::uint8_t kUniformClasses = 4;
// Whether the class has a deps attribute (a genrule, filegroup and alias list theirs elsewhere).
bool HasDepsAttribute(std::uint8_t kind);
// The boolean attribute each class sets from RuleNode::flag.
std::string_view FlagAttribute(std::uint8_t kind);
// A class's implicit outputs as Bazel 4.2.3 names them ("{name}" for the rule's name).
std::span<const std::string_view> ImplicitOutputs(std::uint8_t kind);
// exp(sigma * N(0, 1)) from rng, computed without libm so fixtures are the same bytes everywhere;
// exactly 1 (and no draw) for sigma 0.
double LogNormalFactor(Rng& rng, double sigma);

// Targets every query output has whatever the graph: the default //external: repositories of
// Bazel 4.2.3, //external:WORKSPACE and the workspace's own repository.
std::int64_t FixedExternalCount();
// The sha256 a fixture's http_archive declares for one of graph.externals.
std::string ExternalSha256(const BazelGraph& graph, std::string_view name);
inline constexpr std::string_view kWorkspaceName = "perfengine_fixture";
// An http_archive(...) call for each of graph.externals, kWorkspaceRepoLines lines each: the
// repositories as a fixture's WORKSPACE and its MODULE.bazel both declare them.
std::string HttpArchiveCalls(const BazelGraph& graph);

// Deterministic in (options, seed).
BazelGraph BuildGraph(const GraphOptions& options, std::uint64_t seed);

class WiringProgress;

// BuildGraph in its two steps, so that a writer can start on the first rules while the rest are
// still being wired on another thread (WriteQueryProto's pipeline, query_proto.h). The
// constructor plans the graph: every external, package and rule (class, sources, outputs, macro
// and flag), no deps yet. Wire() then draws each rule's deps in rule order, the same draws
// BuildGraph makes, so the graph comes out the same.
class GraphBuilder {
 public:
  GraphBuilder(const GraphOptions& options, std::uint64_t seed);

  // Complete once Wire() has returned; before that, rules [0, progress.Wired()) are.
  const BazelGraph& graph() const { return graph_; }
  BazelGraph& graph() { return graph_; }

  // Wires every rule. With a progress, reports how many rules are wired as it goes, grows the
  // deps vector only under progress's exclusive lock, and stops early (returns) when it is
  // cancelled.
  void Wire(WiringProgress* progress = nullptr);

 private:
  void WireUniform(WiringProgress* progress);
  void WireShaped(WiringProgress* progress);
  // Makes room for `count` more deps at graph_.deps[at...] (under progress's lock if any).
  void Reserve(std::size_t at, std::size_t count, WiringProgress* progress);

  GraphOptions options_;
  BazelGraph graph_;
  Rng rng_;
  Rng shape_rng_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> layer_rules_;
};

// Where things sit in the generated BUILD files, so query locations match the files on disk.
inline constexpr std::uint32_t kBuildHeaderLines = 2;
inline constexpr std::uint32_t kBuildRuleLines = 9;
inline std::uint32_t RuleLine(const RuleNode& rule) { return kBuildHeaderLines + 1 + rule.index * kBuildRuleLines; }
inline constexpr std::uint32_t kWorkspaceHeaderLines = 4;
inline constexpr std::uint32_t kWorkspaceRepoLines = 6;

}  // namespace pe::gen
