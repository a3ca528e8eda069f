#include "engine/run/normalise.h"

#include <gtest/gtest.h>

#include "engine/run/order.h"

namespace pe::run {
namespace {

using spec::Normaliser;

TEST(Normalise, SortedLinesIgnoresOrderAndLineEndings) {
  EXPECT_EQ(Normalise("b\r\na\n", Normaliser::kSortedLines), Normalise("a\nb", Normaliser::kSortedLines));
}

TEST(Normalise, JsonIsCanonical) {
  EXPECT_EQ(Normalise(R"({"b": 1, "a": [1, 2]})", Normaliser::kJson),
            Normalise(R"({"a":[1,2],"b":1})", Normaliser::kJson));
  EXPECT_NE(Normalise(R"({"a":[2,1]})", Normaliser::kJson), Normalise(R"({"a":[1,2]})", Normaliser::kJson));
  EXPECT_THROW(Normalise("{", Normaliser::kJson), std::runtime_error);
  EXPECT_THROW(Normalise("[1]", Normaliser::kJsonMap), std::runtime_error);
}

// 842.0 and 842 are one JSON number (RFC 8259 has a single number type).
TEST(Normalise, JsonNumbersCompareByValueNotSpelling) {
  for (const Normaliser normaliser : {Normaliser::kJson, Normaliser::kJsonMap}) {
    EXPECT_EQ(Normalise(R"({"n": 842.0, "m": [1e2, -0.0, 8.42e2]})", normaliser),
              Normalise(R"({"n": 842, "m": [100, 0, 842]})", normaliser));
    EXPECT_NE(Normalise(R"({"n": 842.5})", normaliser), Normalise(R"({"n": 842})", normaliser));
    EXPECT_NE(Normalise(R"({"n": "842"})", normaliser), Normalise(R"({"n": 842})", normaliser));
  }
  EXPECT_EQ(Normalise(R"({"n": 842.0})", Normaliser::kJson), "{\n \"n\": 842\n}\n");
  // Exact parity stays exact: the bytes differ.
  EXPECT_NE(Normalise("842.0\n", Normaliser::kExact), Normalise("842\n", Normaliser::kExact));
}

TEST(Normalise, JsonMapShowsDifferingAndMissingKeys) {
  const auto a = Normalise(R"({"//a": "1", "//b": "2", "//c": "3"})", Normaliser::kJsonMap);
  const auto b = Normalise(R"({"//a": "1", "//b": "X", "//d": "4"})", Normaliser::kJsonMap);
  EXPECT_EQ(*FirstDifference(a, b, Normaliser::kJsonMap, "baseline", "candidate"),
            "3 of 3 keys differ\n"
            "  key \"//b\": baseline has \"2\", candidate has \"X\"\n"
            "  key \"//c\" only in baseline\n"
            "  key \"//d\" only in candidate");
  EXPECT_FALSE(FirstDifference(a, a, Normaliser::kJsonMap, "x", "y").has_value());
}

TEST(Normalise, LineDifferenceWhenOneSideIsShorter) {
  EXPECT_EQ(*FirstDifference("a\n", "a\nb\n", Normaliser::kExact, "baseline", "candidate"),
            "first difference at line 2 of 1 vs 2:\n  baseline: <no line>\n  candidate: b");
}

TEST(Order, AlternateRotates) {
  EXPECT_EQ(RoundOrder("alternate", 0, 2, 0), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(RoundOrder("alternate", 1, 2, 0), (std::vector<size_t>{1, 0}));
  EXPECT_EQ(RoundOrder("alternate", 4, 3, 0), (std::vector<size_t>{1, 2, 0}));
}

TEST(Order, RandomIsAPermutationFixedBySeed) {
  for (int round = 0; round < 20; ++round) {
    auto order = RoundOrder("random", round, 5, 99);
    EXPECT_EQ(order, RoundOrder("random", round, 5, 99));
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  }
  bool differs = false;
  for (int round = 0; round < 20; ++round)
    differs |= RoundOrder("random", round, 5, 99) != RoundOrder("random", round, 5, 100);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace pe::run
