#include "generators/bazel_graph.h"

#include <gtest/gtest.h>

#include <set>

namespace pe::gen {
namespace {

GraphOptions Options(std::int64_t targets, std::int64_t fan_in = 4) {
  GraphOptions options;
  options.targets = targets;
  options.fan_in = fan_in;
  return options;
}

TEST(BazelGraph, TargetCountIsExactForAnyBudgetThatCoversBazelsOwnTargets) {
  // Real Bazel 4.2.3 lists 30 default repositories, //external:WORKSPACE and the workspace's own.
  ASSERT_EQ(FixedExternalCount(), 32);
  for (std::int64_t targets = 0; targets < 250; ++targets) {
    EXPECT_EQ(BuildGraph(Options(targets), 1).TargetCount(), std::max<std::int64_t>(targets, 32)) << targets;
  }
}

TEST(BazelGraph, FlagshipSizes) {
  // The sizes docs/generators.md promises for the flagship spec, at scale 1.
  EXPECT_EQ(BuildGraph(Options(4800), 0).TargetCount(), 4800);
  EXPECT_EQ(BuildGraph(Options(24000), 0).TargetCount(), 24000);
  const BazelGraph dense = BuildGraph(Options(192000, 12), 0);
  EXPECT_EQ(dense.TargetCount(), 192000);
  EXPECT_EQ(dense.layers, 8u);
  std::int64_t edges = 0;
  for (std::uint32_t r = 0; r < dense.rules.size(); ++r) edges += dense.DepsOf(r).size();
  const auto [first, last] = dense.LayerRules(0);
  EXPECT_EQ(edges, static_cast<std::int64_t>(dense.rules.size() - (last - first)) * 12);
}

TEST(BazelGraph, DepsOnlyReachTheLayerBelowWithFanIn) {
  const BazelGraph graph = BuildGraph(Options(3000, 5), 3);
  ASSERT_EQ(graph.layers, 8u);
  for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
    const std::uint32_t layer = graph.packages[graph.rules[r].package].layer;
    const auto deps = graph.DepsOf(r);
    if (layer == 0) {
      EXPECT_TRUE(deps.empty());
      continue;
    }
    const auto [first, last] = graph.LayerRules(layer - 1);
    EXPECT_EQ(deps.size(), std::min<std::size_t>(5, last - first));
    std::set<std::uint32_t> distinct(deps.begin(), deps.end());
    EXPECT_EQ(distinct.size(), deps.size());
    for (std::uint32_t dep : deps) {
      EXPECT_EQ(graph.packages[graph.rules[dep].package].layer, layer - 1);
    }
  }
}

TEST(BazelGraph, SeedChangesWiringNotShape) {
  const BazelGraph a = BuildGraph(Options(2000), 1);
  const BazelGraph b = BuildGraph(Options(2000), 2);
  const BazelGraph a2 = BuildGraph(Options(2000), 1);
  EXPECT_EQ(a.TargetCount(), b.TargetCount());
  EXPECT_EQ(a.deps, a2.deps);
  EXPECT_NE(a.deps, b.deps);
}

TEST(BazelGraph, PackageTargetsAreSortedAndComplete) {
  const BazelGraph graph = BuildGraph(Options(500), 1);
  std::int64_t listed = FixedExternalCount() + static_cast<std::int64_t>(graph.externals.size());
  for (std::uint32_t p = 0; p < graph.packages.size(); ++p) {
    const auto entries = graph.PackageTargets(p);
    listed += static_cast<std::int64_t>(entries.size());
    for (std::size_t i = 1; i < entries.size(); ++i) EXPECT_LT(entries[i - 1].name, entries[i].name);
    if (p > 0) {
      EXPECT_LT(graph.packages[p - 1].name, graph.packages[p].name);
    }
  }
  EXPECT_EQ(listed, 500);
  EXPECT_EQ(graph.packages[0].name, "src/l00/p00000");
  EXPECT_EQ(graph.RuleLabel(0), "//src/l00/p00000:mod0");
}

}  // namespace
}  // namespace pe::gen
