// The graph's shape options (docs/generators.md, "Shape"): each does what it says, the target
// count stays exact, and every edge is one real Bazel accepts (a select() keys on a
// config_setting of a lower layer, an alias names one rule). The bytes against real Bazel are
// tests/e2e/real_bazel's; the uniform graph's pinned digests are bazel_workspace_test's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "generators/bazel_graph.h"
#include "generators/generator.h"
#include "generators/source_tree.h"

namespace pe::gen {
namespace {

GraphOptions Calibrated(std::int64_t targets) {
  GraphOptions options;
  options.targets = targets;
  options.shape = CalibratedShape();
  return options;
}

std::uint32_t LayerOf(const BazelGraph& graph, std::uint32_t rule) {
  return graph.packages[graph.rules[rule].package].layer;
}

TEST(GraphShape, TheUniformGraphDrawsNothingFromTheShape) {
  GraphOptions uniform;
  uniform.targets = 3000;
  EXPECT_FALSE(uniform.shape.Any());
  const BazelGraph graph = BuildGraph(uniform, 5);
  for (const RuleNode& rule : graph.rules) {
    EXPECT_LT(rule.kind, kUniformClasses);
    EXPECT_FALSE(rule.select);
    EXPECT_TRUE(rule.external_deps.empty());
  }
  EXPECT_FALSE(graph.starlark_rules);
}

TEST(GraphShape, TargetCountStaysExact) {
  for (std::int64_t targets : {32, 33, 100, 257, 4800, 24000}) {
    EXPECT_EQ(BuildGraph(Calibrated(targets), 1).TargetCount(), targets) << targets;
  }
}

TEST(GraphShape, CalibratedGraphHasEveryClassInItsShare) {
  const BazelGraph graph = BuildGraph(Calibrated(24000), 3);
  const ShapeOptions shape = CalibratedShape();
  std::map<std::uint8_t, double> count;
  for (const RuleNode& rule : graph.rules) count[rule.kind] += 1;
  const auto n = static_cast<double>(graph.rules.size());
  // Binomial shares of ~3,000 rules: within 3 points of the asked share. (An alias with nothing
  // to alias, in layer 0, becomes a filegroup; a cc_binary the budget cannot pay for, a cc_library.)
  EXPECT_NEAR(count[kCcTest] / n, shape.test_fraction, 0.03);
  EXPECT_NEAR(count[kCcBinary] / n, shape.binary_fraction, 0.03);
  EXPECT_NEAR(count[kMyRule] / n, shape.starlark_fraction, 0.03);
  EXPECT_NEAR(count[kConfigSetting] / n, shape.config_setting_fraction, 0.03);
  EXPECT_GT(count[kAlias], 0);
  EXPECT_GT(count[kFilegroup], 0);
  for (std::uint8_t kind = 0; kind < kUniformClasses; ++kind) EXPECT_GT(count[kind], 0) << int{kind};
  EXPECT_TRUE(graph.starlark_rules);
}

TEST(GraphShape, EdgesAreOnesBazelAccepts) {
  const BazelGraph graph = BuildGraph(Calibrated(24000), 4);
  int selects = 0, with_externals = 0, deep = 0, edges = 0;
  for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
    const RuleNode& rule = graph.rules[r];
    const auto deps = graph.DepsOf(r);
    EXPECT_TRUE(std::is_sorted(deps.begin(), deps.end()));
    EXPECT_EQ(std::set<std::uint32_t>(deps.begin(), deps.end()).size(), deps.size());
    for (std::uint32_t dep : deps) {
      EXPECT_LT(LayerOf(graph, dep), LayerOf(graph, r));
      deep += LayerOf(graph, dep) + 1 < LayerOf(graph, r) ? 1 : 0;
      ++edges;
    }
    if (rule.kind == kAlias) EXPECT_EQ(deps.size(), 1u);
    if (rule.kind == kConfigSetting) EXPECT_TRUE(deps.empty());
    if (rule.kind == kAlias || rule.kind == kConfigSetting) EXPECT_TRUE(rule.srcs.empty());
    if (rule.select) {
      ++selects;
      ASSERT_LT(rule.select_key, deps.size());
      EXPECT_EQ(graph.rules[deps[rule.select_key]].kind, kConfigSetting);
      EXPECT_TRUE(HasDepsAttribute(rule.kind));
    }
    if (!rule.external_deps.empty()) {
      ++with_externals;
      EXPECT_LE(rule.external_deps.size(), 2u);
      for (std::size_t i = 1; i < rule.external_deps.size(); ++i) {
        EXPECT_LT(graph.ExternalLabel(rule.external_deps[i - 1]), graph.ExternalLabel(rule.external_deps[i]));
      }
    }
  }
  EXPECT_GT(selects, 0);
  EXPECT_GT(with_externals, 0);
  EXPECT_GT(deep, edges / 5);  // deep_fraction 0.5 of the deps of layers 2 and up
}

TEST(GraphShape, SkewMakesHubsAndLeaves) {
  // Fan-in: with hub_skew the most depended-on rule has many times the median's dependents.
  const BazelGraph graph = BuildGraph(Calibrated(24000), 6);
  std::vector<int> fan_in(graph.rules.size());
  for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
    for (std::uint32_t dep : graph.DepsOf(r)) ++fan_in[dep];
  }
  std::sort(fan_in.begin(), fan_in.end());
  const int median = fan_in[fan_in.size() / 2];
  EXPECT_GT(fan_in.back(), 10 * std::max(median, 1));
  // Fan-out: log-normal, so some rules have none and some many times fan_in.
  std::size_t most = 0;
  for (std::uint32_t r = 0; r < graph.rules.size(); ++r) most = std::max(most, graph.DepsOf(r).size());
  EXPECT_GE(most, 4u * 4);
}

TEST(GraphShape, PackageSizesAreSkewed) {
  // rules_per_package is the median (8 here, as GraphOptions sets it); package_sigma 1.2 spreads it.
  const BazelGraph graph = BuildGraph(Calibrated(24000), 8);
  std::vector<std::uint32_t> sizes;
  for (const PackageNode& package : graph.packages) sizes.push_back(package.rule_count);
  sizes.pop_back();  // the last package is cut short by the budget
  std::sort(sizes.begin(), sizes.end());
  const std::uint32_t median = sizes[sizes.size() / 2];
  EXPECT_GE(median, 6u);
  EXPECT_LE(median, 10u);
  EXPECT_LE(sizes.front(), 2u);
  EXPECT_GT(sizes[sizes.size() * 9 / 10], 2 * median);
}

TEST(GraphShape, SourceSizesAreLogNormalAroundTheMedianAndFixedPerFile) {
  const BazelGraph graph = BuildGraph(Calibrated(24000), 7);
  std::vector<std::int64_t> sizes;
  for (const RuleNode& rule : graph.rules) {
    for (const SourceRef& src : rule.srcs) {
      sizes.push_back(SourceBytes(graph, rule, src, 1024));
      // A new version of a file keeps its size.
      EXPECT_EQ(SourceBytes(graph, rule, {src.id, src.version + 1}, 1024), sizes.back());
    }
  }
  ASSERT_GT(sizes.size(), 5000u);
  std::sort(sizes.begin(), sizes.end());
  const auto at = [&](double q) { return sizes[static_cast<std::size_t>(q * static_cast<double>(sizes.size() - 1))]; };
  // sigma 1.2: the median is the asked size (within sampling), p90/p10 = exp(2 * 1.2816 * 1.2) ~ 21.7.
  EXPECT_NEAR(static_cast<double>(at(0.5)), 1024, 100);
  const double spread = static_cast<double>(at(0.9)) / static_cast<double>(at(0.1));
  EXPECT_GT(spread, 15);
  EXPECT_LT(spread, 30);
  GraphOptions uniform;
  uniform.targets = 500;
  const BazelGraph flat = BuildGraph(uniform, 7);
  EXPECT_EQ(SourceBytes(flat, flat.rules[0], flat.rules[0].srcs[0], 1024), 1024);
}

TEST(GraphShape, LogNormalFactorIsExpOfANormal) {
  // The libm-free exp against std::exp on the draws it makes; the normal's moments.
  Rng rng(1, 2);
  double sum = 0, squares = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const double log_factor = std::log(LogNormalFactor(rng, 1));
    sum += log_factor;
    squares += log_factor * log_factor;
  }
  const double mean = sum / kDraws;
  EXPECT_NEAR(mean, 0, 0.03);
  EXPECT_NEAR(squares / kDraws - mean * mean, 1, 0.05);
  Rng none(1, 2);
  EXPECT_EQ(LogNormalFactor(none, 0), 1);
}

std::string CheckError(const Params& params) {
  try {
    BuiltinRegistry().Create("bazel_workspace")->Check(params);
  } catch (const ParamError& e) {
    return e.key + ": " + e.what();
  }
  return "";
}

TEST(GraphShape, Parameters) {
  EXPECT_EQ(CheckError({{"shape", std::string("calibrated")}}), "");
  EXPECT_EQ(CheckError({{"shape", std::string("calibrated")}, {"select_fraction", 0.0}}), "");
  EXPECT_EQ(CheckError({{"shape", std::string("real")}}),
            "shape: 'shape' is \"uniform\" or \"calibrated\", not \"real\"");
  EXPECT_EQ(CheckError({{"test_fraction", 0.6}, {"filegroup_fraction", 0.6}}),
            "test_fraction: the class fractions (test, binary, filegroup, alias, config_setting, starlark) add up to "
            "1.2, more than 1");
  EXPECT_EQ(CheckError({{"hub_skew", 0.5}}), "hub_skew: 'hub_skew' must be in [1, 16], got 0.5");
}

}  // namespace
}  // namespace pe::gen
