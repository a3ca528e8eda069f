#include "generators/bazel_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <utility>

#include "generators/bazel_4_2_3.h"
#include "generators/rng.h"
#include "generators/sha256.h"
#include "generators/wiring_progress.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kGraphStream = 0x67726170682d7631;  // "graph-v1"
constexpr std::uint64_t kShapeStream = 0x73686170652d7631;  // "shape-v1": the shape's own draws

constexpr std::array<std::string_view, 10> kRuleClasses = {"genrule",        "cc_library", "java_library", "py_library",
                                                           "cc_binary",      "cc_test",    "filegroup",    "alias",
                                                           "config_setting", "my_rule"};
constexpr std::array<std::string_view, 10> kFlagAttributes = {"local",      "linkstatic", "neverlink", "testonly",
                                                              "linkstatic", "linkstatic", "testonly",  "testonly",
                                                              "testonly",   "local"};

// A standard normal draw from 12 uniforms (Irwin-Hall), using no libm: the fixtures must be
// the same bytes on every machine.
double Normal(Rng& rng) {
  double sum = -6;
  for (int i = 0; i < 12; ++i) sum += rng.Unit();
  return sum;
}

// Names that look like the repositories a real WORKSPACE declares (none of Bazel's defaults).
constexpr std::array<std::string_view, 8> kExternalNames = {
    "bazel_skylib", "com_google_protobuf", "io_bazel_rules_go",     "rules_python",
    "zlib",         "com_google_absl",     "com_google_googletest", "rules_foreign_cc"};

int Digits(std::uint64_t n) {
  int digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

// Picks `count` distinct values from [first, last) into out[0, count), sorted.
void PickDistinctInto(Rng& rng, std::uint32_t first, std::uint32_t last, std::uint32_t count, std::uint32_t* out) {
  const std::uint32_t range = last - first;
  if (count * 2 >= range) {
    // Dense pick: partial Fisher-Yates over the whole range.
    std::vector<std::uint32_t> pool(range);
    for (std::uint32_t i = 0; i < range; ++i) pool[i] = first + i;
    for (std::uint32_t i = 0; i < count; ++i) {
      std::swap(pool[i], pool[i + rng.Below(range - i)]);
      out[i] = pool[i];
    }
  } else {
    std::uint32_t picked = 0;
    while (picked < count) {
      const auto candidate = static_cast<std::uint32_t>(first + rng.Below(range));
      if (std::find(out, out + picked, candidate) == out + picked) out[picked++] = candidate;
    }
  }
  std::sort(out, out + count);
}

// The same appended to out.
void PickDistinct(Rng& rng, std::uint32_t first, std::uint32_t last, std::uint32_t count,
                  std::vector<std::uint32_t>& out) {
  const std::size_t begin = out.size();
  out.resize(begin + count);
  PickDistinctInto(rng, first, last, count, out.data() + begin);
}

// Like PickDistinct, but each draw is first + floor(range * u^skew): skew > 1 favours the first
// rules of the range (a few rules with many dependents, as real graphs have).
void PickSkewed(Rng& rng, std::uint32_t first, std::uint32_t last, std::uint32_t count, double skew,
                std::vector<std::uint32_t>& out) {
  const std::uint32_t range = last - first;
  if (count * 2 >= range || skew == 1) {
    PickDistinct(rng, first, last, count, out);
    return;
  }
  const std::size_t begin = out.size();
  while (out.size() - begin < count) {
    double u = rng.Unit();
    double power = 1;
    // u^skew for an integer part and a linear blend for the rest, again without libm.
    const int whole = static_cast<int>(skew);
    for (int i = 0; i < whole; ++i) power *= u;
    const double frac = skew - whole;
    power *= (1 - frac) + frac * u;
    const auto candidate = first + std::min(range - 1, static_cast<std::uint32_t>(range * power));
    if (std::find(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(), candidate) == out.end()) {
      out.push_back(candidate);
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end());
}

// exp(x) for |x| < ~10 by squaring a Taylor series: deterministic, no libm.
double Exp(double x) {
  int halvings = 0;
  while (x > 0.5 || x < -0.5) {
    x /= 2;
    ++halvings;
  }
  double term = 1, sum = 1;
  for (int n = 1; n < 20; ++n) {
    term *= x / n;
    sum += term;
  }
  for (int i = 0; i < halvings; ++i) sum *= sum;
  return sum;
}

}  // namespace

// The calibrated shape (docs/generators.md, "Shape"): figures of Bazel 4.2.3's own source tree
// as bench/graph_shape/shape.py measures them.
ShapeOptions CalibratedShape() {
  ShapeOptions shape;
  // bench/graph_shape/shape.py over `query '//external:all-targets + //...:all-targets'` of
  // Debian's bazel-bootstrap-source (Bazel 4.2.3's own tree, 3,398 rules; docs/generators.md).
  shape.test_fraction = 0.21;             // *_test 21.5%
  shape.binary_fraction = 0.03;           // *_binary 3.3%
  shape.filegroup_fraction = 0.20;        // filegroup 20.6%
  shape.alias_fraction = 0.035;           // alias 3.6%
  shape.config_setting_fraction = 0.012;  // config_setting 1.2%
  shape.starlark_fraction = 0.02;         // $rule_implementation_hash 1.6%
  shape.select_fraction = 0.08;           // of rules with deps: 135 select( calls in its BUILD files, 4.0 per 100 rules
  shape.external_fraction = 0.05;         // rules naming an external repository 5.3%
  shape.external_targets = 40;            // 81 repositories named, fan-in p50 1, p90 11
  shape.rules_per_package = 3;            // rules per package p50 3, p90 10, p99 77 (508 packages)
  shape.package_sigma = 1.2;
  shape.fan_in_sigma = 1.0;  // fan-out p50 2, p90 10, p99 44
  shape.deep_fraction = 0.5;
  shape.hub_skew = 4;               // fan-in p50 1, p90 6, p99 66, max 869
  shape.source_bytes = 3584;        // source size p50 3.6 KiB
  shape.source_bytes_sigma = 1.06;  // p90/p10 = 16.6 KiB / 1.1 KiB: sigma ln(15) / (2 * 1.2816)
  return shape;
}

double LogNormalFactor(Rng& rng, double sigma) { return sigma == 0 ? 1 : Exp(sigma * Normal(rng)); }

bool HasDepsAttribute(std::uint8_t kind) {
  return kind != kGenrule && kind != kFilegroup && kind != kAlias && kind != kConfigSetting;
}

GraphOptions ReadGraphOptions(ParamReader& reader, double scale, std::int64_t default_targets) {
  constexpr std::int64_t kMaxCount = std::int64_t{1} << 30;
  GraphOptions options;
  options.targets = Scaled(reader.Int("targets", default_targets, 0, kMaxCount), scale);
  options.fan_in = reader.Int("fan_in", options.fan_in, 0, 1024);
  options.layers = reader.Int("layers", options.layers, 1, 1024);
  options.srcs_per_rule = reader.Int("srcs_per_rule", options.srcs_per_rule, 0, 4096);
  options.outs_per_rule = reader.Int("outs_per_rule", options.outs_per_rule, 0, 4096);
  options.macro_fraction = reader.Fraction("macro_fraction", options.macro_fraction);
  const std::string shape = reader.String("shape", "uniform");
  ShapeOptions& s = options.shape;
  if (shape == "calibrated") {
    s = CalibratedShape();
    options.external_targets = s.external_targets;
    options.rules_per_package = s.rules_per_package;
  } else if (shape != "uniform") {
    throw ParamError("shape", fmt::format("'shape' is \"uniform\" or \"calibrated\", not \"{}\"", shape));
  }
  options.rules_per_package = reader.Int("rules_per_package", options.rules_per_package, 1, 4096);
  options.external_targets = reader.Int("external_targets", options.external_targets, 0, 100000);
  s.test_fraction = reader.Fraction("test_fraction", s.test_fraction);
  s.binary_fraction = reader.Fraction("binary_fraction", s.binary_fraction);
  s.filegroup_fraction = reader.Fraction("filegroup_fraction", s.filegroup_fraction);
  s.alias_fraction = reader.Fraction("alias_fraction", s.alias_fraction);
  s.config_setting_fraction = reader.Fraction("config_setting_fraction", s.config_setting_fraction);
  s.starlark_fraction = reader.Fraction("starlark_fraction", s.starlark_fraction);
  s.select_fraction = reader.Fraction("select_fraction", s.select_fraction);
  s.external_fraction = reader.Fraction("external_fraction", s.external_fraction);
  s.fan_in_sigma = reader.Double("fan_in_sigma", s.fan_in_sigma, 0, 3);
  s.deep_fraction = reader.Fraction("deep_fraction", s.deep_fraction);
  s.hub_skew = reader.Double("hub_skew", s.hub_skew, 1, 16);
  s.source_bytes_sigma = reader.Double("source_bytes_sigma", s.source_bytes_sigma, 0, 3);
  s.package_sigma = reader.Double("package_sigma", s.package_sigma, 0, 3);
  const double classes = s.test_fraction + s.binary_fraction + s.filegroup_fraction + s.alias_fraction +
                         s.config_setting_fraction + s.starlark_fraction;
  if (classes > 1) {
    throw ParamError("test_fraction",
                     fmt::format("the class fractions (test, binary, filegroup, alias, config_setting, starlark) "
                                 "add up to {:.3g}, more than 1",
                                 classes));
  }
  if (options.targets > kMaxCount) {
    throw ParamError("targets", fmt::format("'targets' times scale exceeds {}", kMaxCount));
  }
  return options;
}

std::span<const std::string_view> RuleClasses() { return kRuleClasses; }

std::string_view FlagAttribute(std::uint8_t kind) { return kFlagAttributes.at(kind); }

std::span<const std::string_view> ImplicitOutputs(std::uint8_t kind) {
  const std::string_view name = kRuleClasses.at(kind);
  for (const auto& recorded : bazel423::Classes()) {
    if (recorded.name == name) return recorded.implicit_outputs;
  }
  return {};
}

std::int64_t FixedExternalCount() { return static_cast<std::int64_t>(bazel423::DefaultExternals().size()) + 2; }

std::string ExternalSha256(const BazelGraph& graph, std::string_view name) {
  return Sha256Hex(fmt::format("{}:{}", graph.seed, name));
}

std::string HttpArchiveCalls(const BazelGraph& graph) {
  std::string out;
  for (const std::string& name : graph.externals) {
    fmt::format_to(std::back_inserter(out),
                   "http_archive(\n"
                   "    name = \"{0}\",\n"
                   "    urls = [\"https://example.com/{0}/{0}-1.0.tar.gz\"],\n"
                   "    strip_prefix = \"{0}-1.0\", sha256 = \"{1}\",\n"
                   ")\n\n",
                   name, ExternalSha256(graph, name));
  }
  return out;
}

std::int64_t BazelGraph::TargetCount() const {
  std::int64_t count = FixedExternalCount() + static_cast<std::int64_t>(externals.size()) + SourceFileCount();
  for (const auto& rule : rules) count += 1 + rule.outs;
  for (const auto& package : packages) count += package.has_group ? 1 : 0;
  return count;
}

std::int64_t BazelGraph::SourceFileCount() const {
  std::int64_t count = 0;
  count += static_cast<std::int64_t>(packages.size());  // BUILD
  for (const auto& rule : rules) count += static_cast<std::int64_t>(rule.srcs.size());
  return count;
}

std::pair<std::uint32_t, std::uint32_t> BazelGraph::LayerRules(std::uint32_t layer) const {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  bool seen = false;
  for (const auto& package : packages) {
    if (package.layer != layer) continue;
    if (!seen) first = package.first_rule;
    seen = true;
    last = package.first_rule + package.rule_count;
  }
  return {first, seen ? last : first};
}

// Names are built by appending, not fmt: they are made once per target of every fixture.
namespace {
void AppendNumber(std::string& out, std::uint32_t value) {
  char digits[12];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}
}  // namespace

std::string BazelGraph::RuleName(const RuleNode& rule) {
  std::string name = "mod";
  AppendNumber(name, rule.index);
  return name;
}

std::string BazelGraph::SourceName(const RuleNode& rule, const SourceRef& src) {
  std::string name = RuleName(rule);
  name += "_s";
  AppendNumber(name, src.id);
  name += ".cc";
  return name;
}

std::string BazelGraph::OutputName(const RuleNode& rule, std::uint32_t k) {
  // A java_library's implicit outputs, as Bazel names them.
  if (rule.kind == kJavaLibrary) return "lib" + RuleName(rule) + (k == 0 ? ".jar" : "-src.jar");
  if (rule.kind != kGenrule) {
    // Another class's implicit outputs, as recorded ("{name}" stands for the rule's name).
    std::string name(ImplicitOutputs(rule.kind)[k]);
    const std::size_t at = name.find("{name}");
    if (at != std::string::npos) name.replace(at, 6, RuleName(rule));
    return name;
  }
  std::string name = RuleName(rule);
  name += "_gen";
  AppendNumber(name, k);
  name += ".h";
  return name;
}

std::string BazelGraph::Label(std::uint32_t package, std::string_view name) const {
  return fmt::format("//{}:{}", packages[package].name, name);
}

std::string BazelGraph::ExternalLabel(std::uint32_t external) const {
  return fmt::format("@{0}//:{0}", externals[external]);
}

std::string BazelGraph::RuleLabel(std::uint32_t rule) const {
  return fmt::format("//{}:mod{}", packages[rules[rule].package].name, rules[rule].index);
}

std::vector<PackageEntry> BazelGraph::PackageTargets(std::uint32_t package_index) const {
  std::vector<PackageEntry> entries;
  PackageTargets(package_index, entries);
  return entries;
}

void BazelGraph::PackageTargets(std::uint32_t package_index, std::vector<PackageEntry>& entries) const {
  const PackageNode& package = packages[package_index];
  std::size_t count = 0;
  const auto add = [&](PackageEntry::Kind kind, std::uint32_t rule, std::uint32_t item) -> std::string& {
    if (count == entries.size()) entries.push_back({kind, 0, 0, {}});
    PackageEntry& entry = entries[count++];
    entry.kind = kind;
    entry.rule = rule;
    entry.item = item;
    return entry.name;
  };
  add(PackageEntry::Kind::kBuildFile, 0, 0) = "BUILD";
  if (package.has_group) add(PackageEntry::Kind::kPackageGroup, 0, 0) = kPackageGroupName;
  for (std::uint32_t r = package.first_rule; r < package.first_rule + package.rule_count; ++r) {
    const RuleNode& rule = rules[r];
    add(PackageEntry::Kind::kRule, r, 0) = RuleName(rule);
    for (std::uint32_t i = 0; i < rule.srcs.size(); ++i) {
      add(PackageEntry::Kind::kSource, r, i) = SourceName(rule, rule.srcs[i]);
    }
    for (std::uint32_t k = 0; k < rule.outs; ++k) add(PackageEntry::Kind::kOutput, r, k) = OutputName(rule, k);
  }
  entries.resize(count);
  std::sort(entries.begin(), entries.end(),
            [](const PackageEntry& a, const PackageEntry& b) { return a.name < b.name; });
}

namespace {
std::uint8_t ShapedKind(Rng& rng, const ShapeOptions& shape, std::uint8_t uniform) {
  const std::pair<double, std::uint8_t> shares[] = {{shape.test_fraction, kCcTest},
                                                    {shape.binary_fraction, kCcBinary},
                                                    {shape.filegroup_fraction, kFilegroup},
                                                    {shape.alias_fraction, kAlias},
                                                    {shape.config_setting_fraction, kConfigSetting},
                                                    {shape.starlark_fraction, kMyRule}};
  double u = rng.Unit();
  for (const auto& [share, kind] : shares) {
    if (u < share) return kind;
    u -= share;
  }
  return uniform;
}

// Rules reported wired at a time: a block of the stream writer is 512 rules.
constexpr std::uint32_t kReportEvery = 128;
}  // namespace

BazelGraph BuildGraph(const GraphOptions& options, std::uint64_t seed) {
  GraphBuilder builder(options, seed);
  builder.Wire();
  return std::move(builder.graph());
}

GraphBuilder::GraphBuilder(const GraphOptions& options, std::uint64_t seed)
    : options_(options), rng_(seed, kGraphStream), shape_rng_(seed, kShapeStream) {
  BazelGraph& graph = graph_;
  graph.seed = seed;
  Rng& rng = rng_;
  const bool shaped = options.shape.Any();
  Rng& shape_rng = shape_rng_;
  graph.starlark_rules = options.shape.starlark_fraction > 0;
  graph.source_bytes_sigma = options.shape.source_bytes_sigma;

  const std::int64_t external_count =
      std::clamp<std::int64_t>(options.targets - FixedExternalCount(), 0, options.external_targets);
  for (std::int64_t i = 0; i < external_count; ++i) {
    const auto slot = static_cast<std::size_t>(i) % kExternalNames.size();
    const auto round = static_cast<std::size_t>(i) / kExternalNames.size();
    graph.externals.push_back(round == 0 ? std::string(kExternalNames[slot])
                                         : fmt::format("{}_{}", kExternalNames[slot], round));
  }

  // Plan packages greedily against the target budget so the total comes out exact (once it
  // covers the fixed externals): every package but the last is full; the last is cut short
  // wherever the budget runs out. A genrule needs an output and a java_library has two, so
  // where the budget cannot pay for them the rule becomes a cc_library.
  std::int64_t budget = options.targets - FixedExternalCount() - external_count;
  // Planned flat: the rules of package p are planned_rules[planned[p].first_rule, planned[p + 1].first_rule).
  struct PlannedRule {
    std::uint32_t srcs, outs;
    std::uint8_t kind;
  };
  struct Planned {
    bool has_group = false;
    std::size_t first_rule = 0;
  };
  std::vector<Planned> planned;
  std::vector<PlannedRule> planned_rules;
  if (options.rules_per_package > 0 && budget > 0) {
    // A guess of the sizes (a uniform rule takes 2 + srcs_per_rule targets or more).
    const auto guess = static_cast<std::size_t>(budget / (2 + std::max<std::int64_t>(0, options.srcs_per_rule)));
    planned_rules.reserve(guess + 1);
    planned.reserve(guess / static_cast<std::size_t>(options.rules_per_package) + 1);
  }
  while (budget > 0) {
    Planned package;
    package.first_rule = planned_rules.size();
    budget -= 1;  // BUILD
    if (options.package_groups && budget > 0) {
      package.has_group = true;
      budget -= 1;
    }
    std::int64_t rules_here = options.rules_per_package;
    if (options.shape.package_sigma > 0) {
      const double drawn =
          static_cast<double>(options.rules_per_package) * LogNormalFactor(shape_rng, options.shape.package_sigma);
      rules_here = std::clamp<std::int64_t>(static_cast<std::int64_t>(drawn + 0.5), 1, 4096);
    }
    while (budget > 0 && std::cmp_less(planned_rules.size() - package.first_rule, rules_here)) {
      budget -= 1;
      auto kind = static_cast<std::uint8_t>(rng.Below(kUniformClasses));
      if (shaped) kind = ShapedKind(shape_rng, options.shape, kind);
      const bool sourceless = kind == kAlias || kind == kConfigSetting;
      const auto srcs = sourceless ? 0 : static_cast<std::uint32_t>(std::min(options.srcs_per_rule, budget));
      budget -= srcs;
      std::uint32_t outs = 0;
      if (kind == kGenrule) outs = static_cast<std::uint32_t>(std::min(options.outs_per_rule, budget));
      if (kind == kJavaLibrary && budget >= 2) outs = 2;
      if ((kind == kGenrule || kind == kJavaLibrary) && outs == 0) kind = kCcLibrary;
      if (kind == kCcBinary || kind == kCcTest) {  // cc_binary: NAME.stripped, NAME.dwp; cc_test: NAME.dwp
        outs = static_cast<std::uint32_t>(ImplicitOutputs(kind).size());
        if (outs > budget) {
          kind = kCcLibrary;
          outs = 0;
        }
      }
      budget -= outs;
      planned_rules.push_back({srcs, outs, kind});
    }
    planned.push_back(package);
  }

  const auto package_count = static_cast<std::uint64_t>(planned.size());
  graph.layers =
      static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.layers, package_count)));
  // Sized once: growing them moved every rule built so far (most of BuildGraph's own time).
  graph.rules.reserve(planned_rules.size());
  graph.packages.reserve(package_count);
  const int width = std::max(5, Digits(package_count == 0 ? 0 : package_count - 1));
  const int layer_width = std::max(2, Digits(graph.layers - 1));
  for (std::uint64_t p = 0; p < package_count; ++p) {
    PackageNode package;
    package.layer = static_cast<std::uint32_t>(p * graph.layers / package_count);
    package.name = fmt::format("src/l{:0{}}/p{:0{}}", package.layer, layer_width, p, width);
    package.has_group = planned[p].has_group;
    package.first_rule = static_cast<std::uint32_t>(graph.rules.size());
    const std::size_t planned_end = p + 1 < package_count ? planned[p + 1].first_rule : planned_rules.size();
    package.rule_count = static_cast<std::uint32_t>(planned_end - planned[p].first_rule);
    for (std::uint32_t j = 0; j < package.rule_count; ++j) {
      RuleNode rule;
      rule.package = static_cast<std::uint32_t>(p);
      rule.index = j;
      const auto [srcs, outs, kind] = planned_rules[planned[p].first_rule + j];
      rule.outs = outs;
      rule.kind = kind;
      rule.srcs.reserve(srcs);
      for (std::uint32_t s = 0; s < srcs; ++s) rule.srcs.push_back({s, 0});
      rule.next_source_id = srcs;
      rule.macro = package.has_defs && rng.Chance(options.macro_fraction);
      rule.flag = rng.Chance(0.5);
      graph.rules.push_back(std::move(rule));
    }
    graph.packages.push_back(std::move(package));
  }

  layer_rules_.resize(graph.layers);
  for (std::uint32_t l = 0; l < graph.layers; ++l) layer_rules_[l] = graph.LayerRules(l);
}

void GraphBuilder::Reserve(std::size_t at, std::size_t count, WiringProgress* progress) {
  std::vector<std::uint32_t>& deps = graph_.deps;
  if (at + count <= deps.size()) return;
  const std::size_t size = std::max(at + count, 2 * deps.size());
  if (progress == nullptr) {
    deps.resize(size);
  } else {
    const auto lock = progress->Exclusive();
    deps.resize(size);
  }
}

// Each rule's deps written in place (graph_.deps is sized first), so a reader holding
// progress's shared lock can follow the rules already reported while later ones are written.
void GraphBuilder::Wire(WiringProgress* progress) {
  if (options_.shape.Any()) {
    WireShaped(progress);
  } else {
    WireUniform(progress);
  }
  if (progress != nullptr) progress->Report(static_cast<std::uint32_t>(graph_.rules.size()));
}

// Wire each rule to fan_in distinct rules of the layer directly below.
void GraphBuilder::WireUniform(WiringProgress* progress) {
  BazelGraph& graph = graph_;
  std::size_t total = 0;  // exactly: each rule's count is known before any draw
  for (const RuleNode& rule : graph.rules) {
    const std::uint32_t layer = graph.packages[rule.package].layer;
    if (layer == 0) continue;
    const auto [first, last] = layer_rules_[layer - 1];
    total += static_cast<std::size_t>(std::min<std::int64_t>(options_.fan_in, static_cast<std::int64_t>(last - first)));
  }
  Reserve(0, total, progress);
  std::size_t at = 0;
  const auto rule_count = static_cast<std::uint32_t>(graph.rules.size());
  for (std::uint32_t r = 0; r < rule_count; ++r) {
    RuleNode& rule = graph.rules[r];
    const std::uint32_t layer = graph.packages[rule.package].layer;
    rule.dep_begin = static_cast<std::uint32_t>(at);
    if (layer > 0) {
      const auto [first, last] = layer_rules_[layer - 1];
      const auto count =
          static_cast<std::uint32_t>(std::min<std::int64_t>(options_.fan_in, static_cast<std::int64_t>(last - first)));
      PickDistinctInto(rng_, first, last, count, graph.deps.data() + at);
      rule.dep_count = count;
      at += count;
    }
    if (progress != nullptr && (r + 1) % kReportEvery == 0 && !progress->Report(r + 1)) return;
  }
}

// The shaped graph's edges: a log-normal number of deps per rule, some from deeper layers,
// favouring a layer's first rules; an alias has one dep, a config_setting none; select() on a
// config_setting of a lower layer; external repositories named with a skewed (1/rank) choice.
void GraphBuilder::WireShaped(WiringProgress* progress) {
  BazelGraph& graph = graph_;
  const GraphOptions& options = options_;
  Rng& rng = shape_rng_;
  const ShapeOptions& shape = options.shape;
  std::vector<std::uint32_t> configs;  // config_setting rules, in order (so by layer)
  double harmonic = 0;
  for (std::size_t i = 0; i < graph.externals.size(); ++i) harmonic += 1.0 / static_cast<double>(i + 1);
  std::vector<std::uint32_t> picked;
  // A guess of the total (a rule's count is drawn as it is wired), grown when short: fan_in
  // times the mean of the log-normal factor, exp(sigma^2 / 2), and a tenth more.
  const double per_rule =
      static_cast<double>(options.fan_in) * Exp(shape.fan_in_sigma * shape.fan_in_sigma / 2) * 1.1 + 2;
  Reserve(0, static_cast<std::size_t>(static_cast<double>(graph.rules.size()) * per_rule), progress);
  std::size_t at = 0;
  const auto rule_count = static_cast<std::uint32_t>(graph.rules.size());
  for (std::uint32_t r = 0; r < rule_count; ++r) {
    RuleNode& rule = graph.rules[r];
    const std::uint32_t layer = graph.packages[rule.package].layer;
    rule.dep_begin = static_cast<std::uint32_t>(at);
    const double factor = LogNormalFactor(rng, shape.fan_in_sigma);
    if (layer > 0 && rule.kind != kConfigSetting) {
      const auto [first, last] = layer_rules_[layer - 1];
      auto want = static_cast<std::int64_t>(static_cast<double>(options.fan_in) * factor + 0.5);
      if (rule.kind == kAlias) want = 1;
      std::uint32_t deep = 0;
      for (std::int64_t i = 0; i < want; ++i) deep += rng.Chance(shape.deep_fraction) ? 1 : 0;
      deep = std::min(deep, first);  // rules of every layer below the one directly below
      const auto near =
          static_cast<std::uint32_t>(std::min<std::int64_t>(want - deep, static_cast<std::int64_t>(last - first)));
      picked.clear();
      PickSkewed(rng, 0, first, deep, shape.hub_skew, picked);
      PickSkewed(rng, first, last, near, shape.hub_skew, picked);
      // select() keys on a config_setting of a lower layer, not already a dep.
      if (HasDepsAttribute(rule.kind) && !picked.empty() && rng.Chance(shape.select_fraction)) {
        const auto below = std::lower_bound(configs.begin(), configs.end(), last);
        const auto usable = static_cast<std::uint32_t>(below - configs.begin());
        if (usable > 0) {
          const std::uint32_t key = configs[rng.Below(usable)];
          if (std::find(picked.begin(), picked.end(), key) == picked.end()) {
            picked.insert(std::lower_bound(picked.begin(), picked.end(), key), key);
            rule.select = true;
            rule.select_key =
                static_cast<std::uint32_t>(std::lower_bound(picked.begin(), picked.end(), key) - picked.begin());
          }
        }
      }
      Reserve(at, picked.size(), progress);
      std::copy(picked.begin(), picked.end(), graph.deps.begin() + static_cast<std::ptrdiff_t>(at));
      at += picked.size();
      rule.dep_count = static_cast<std::uint32_t>(picked.size());
    }
    if (rule.kind == kAlias && rule.dep_count == 0) rule.kind = kFilegroup;  // nothing to alias
    if (rule.kind == kConfigSetting) configs.push_back(r);
    const bool can_name = rule.kind != kAlias && rule.kind != kConfigSetting;
    if (can_name && !graph.externals.empty() && rng.Chance(shape.external_fraction)) {
      const int count = rng.Chance(0.3) ? 2 : 1;
      for (int i = 0; i < count; ++i) {
        // Repository k with probability (1/k) / H(n): a few repositories carry most edges.
        double u = rng.Unit() * harmonic;
        std::uint32_t k = 0;
        while (k + 1 < graph.externals.size() && u >= 1.0 / (k + 1)) u -= 1.0 / (k++ + 1);
        if (std::find(rule.external_deps.begin(), rule.external_deps.end(), k) == rule.external_deps.end()) {
          rule.external_deps.push_back(k);
        }
      }
      // Sorted by label, as Bazel lists them.
      std::sort(rule.external_deps.begin(), rule.external_deps.end(),
                [&](std::uint32_t a, std::uint32_t b) { return graph.externals[a] < graph.externals[b]; });
    }
    if (progress != nullptr && (r + 1) % kReportEvery == 0 && !progress->Report(r + 1)) return;
  }
  // Down to what was drawn (a shrink keeps the storage where it is, but the vector changes).
  if (progress == nullptr) {
    graph.deps.resize(at);
  } else {
    const auto lock = progress->Exclusive();
    graph.deps.resize(at);
  }
}

}  // namespace pe::gen
