#include "generators/params.h"

#include <gtest/gtest.h>

#include "generators/generator.h"
#include "generators/rng.h"

namespace pe::gen {
namespace {

// The error a generator's Check reports for params, as "key: message".
std::string ParamsCheckError(std::string_view generator, const Params& params) {
  try {
    BuiltinRegistry().Create(generator)->Check(params);
  } catch (const ParamError& e) {
    return e.key + ": " + e.what();
  }
  return "";
}

TEST(Registry, HoldsTheBuiltinGeneratorsSorted) {
  EXPECT_EQ(BuiltinRegistry().Names(),
            (std::vector<std::string>{"bazel_shim", "bazel_workspace", "git_workspace", "hash_pair", "json_docs",
                                      "random_bytes", "streamed_proto", "text_lines", "workspace"}));
  EXPECT_EQ(BuiltinRegistry().Create("streamed-protp"), nullptr);
  for (const auto& name : BuiltinRegistry().Names()) {
    auto generator = BuiltinRegistry().Create(name);
    ASSERT_NE(generator, nullptr);
    EXPECT_EQ(generator->Name(), name);
    EXPECT_FALSE(generator->Description().empty());
    EXPECT_NO_THROW(generator->Check({})) << name << " must work with defaults alone";
  }
}

TEST(Registry, AddAndCreate) {
  Registry registry;
  registry.Add("b", [] { return BuiltinRegistry().Create("hash_pair"); });
  registry.Add("a", [] { return BuiltinRegistry().Create("workspace"); });
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(registry.Create("a")->Name(), "workspace");
  EXPECT_EQ(registry.Create("c"), nullptr);
}

TEST(Params, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(ParamsCheckError("bazel_workspace", {{"fanin", std::int64_t{3}}}),
            "fanin: unknown parameter 'fanin' for generator 'bazel_workspace' "
            "(did you mean 'fan_in'?)");
  EXPECT_EQ(ParamsCheckError("hash_pair", {{"zzzzzzzz", true}}),
            "zzzzzzzz: unknown parameter 'zzzzzzzz' for generator 'hash_pair'");
}

TEST(Params, RangesAndTypes) {
  EXPECT_EQ(ParamsCheckError("streamed_proto", {{"targets", std::int64_t{-1}}}),
            "targets: 'targets' must be in [0, 1073741824], got -1");
  EXPECT_EQ(ParamsCheckError("hash_pair", {{"changed", 1.5}}), "changed: 'changed' must be in [0, 1], got 1.5");
  EXPECT_EQ(ParamsCheckError("hash_pair", {{"added", -0.01}}), "added: 'added' must be in [0, 1], got -0.01");
  EXPECT_EQ(ParamsCheckError("workspace", {{"source_bytes", std::string("big")}}),
            "source_bytes: 'source_bytes' must be an integer, not a string");
  EXPECT_EQ(ParamsCheckError("bazel_shim", {{"bzlmod", std::int64_t{1}}}),
            "bzlmod: 'bzlmod' must be true or false, not an integer");
  EXPECT_EQ(ParamsCheckError("hash_pair", {{"changed", 0.9}, {"removed", 0.2}}),
            "removed: 'changed' + 'removed' must not exceed 1");
  // An integer is accepted where a float is expected.
  EXPECT_EQ(ParamsCheckError("hash_pair", {{"changed", std::int64_t{1}}, {"removed", std::int64_t{0}}}), "");
  EXPECT_EQ(ParamsCheckError("bazel_workspace", {{"targets", std::int64_t{10}},
                                                 {"bazel_version", std::string("6.4.0")},
                                                 {"bzlmod", true},
                                                 {"macro_fraction", 0.5}}),
            "");
}

// The suggestion is engine/base's, as for spec keys (tests/unit/base/suggest_test.cc): a swap
// of neighbours is one typo.
TEST(Params, UnknownKeySuggestsThroughTheSharedHelper) {
  EXPECT_EQ(ParamsCheckError("bazel_workspace", {{"fna_in", std::int64_t{3}}}),
            "fna_in: unknown parameter 'fna_in' for generator 'bazel_workspace' "
            "(did you mean 'fan_in'?)");
}

TEST(Params, Scaled) {
  EXPECT_EQ(Scaled(4800, 0.5), 2400);
  EXPECT_EQ(Scaled(3, 0.5), 2);  // rounds half away from zero
}

TEST(Rng, SequenceIsPinned) {
  // Pinned so a change to the generator (which would change every fixture) cannot go unseen.
  Rng rng(42);
  const std::uint64_t first = rng.Next();
  const std::uint64_t second = rng.Next();
  EXPECT_EQ(first, 1865750160070900731u);  // checked against a Python transcription
  EXPECT_EQ(second, 6791145067590612263u);
  EXPECT_NE(Rng(42, 1).Next(), Rng(42, 2).Next());
  Rng bounded(7);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_LT(bounded.Below(3), 3u);
    const double unit = bounded.Unit();
    EXPECT_GE(unit, 0.0);
    EXPECT_LT(unit, 1.0);
  }
}

}  // namespace
}  // namespace pe::gen
