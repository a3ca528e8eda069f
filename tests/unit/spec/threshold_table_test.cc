// The threshold table (engine/model/threshold_table.h) against everything that must agree with
// it: the model's bars, the parser's keys and bounds, the merge of [thresholds] with a
// workload's own, and the reference table in docs/spec.md.
#include "engine/model/threshold_table.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/model/fields.h"
#include "engine/spec/spec.h"

namespace pe::spec {
namespace {

using model::kThresholdRows;
using model::ThresholdRow;
using model::Thresholds;

// Rounds enough for any bar below to be resolvable (the parser checks that too).
constexpr const char* kThresholdTableContenders = R"(
[run]
rounds = 1000

[contenders.baseline]
argv = ["true"]

[contenders.candidate]
argv = ["true"]

[workloads.w]
args = ["x"]
)";

// The keys of the `## [thresholds]` table of docs/spec.md, in its order.
std::vector<std::string> DocumentedKeys() {
  std::ifstream in(PERFENGINE_SPEC_DOC);
  EXPECT_TRUE(in) << PERFENGINE_SPEC_DOC;
  std::vector<std::string> keys;
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## `[thresholds]`";
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    keys.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  return keys;
}

TEST(ThresholdTable, TheDocsReferenceListsEveryKeyInTheTablesOrder) {
  std::vector<std::string> expected;
  for (const ThresholdRow& row : kThresholdRows) expected.emplace_back(row.key);
  expected.emplace_back(model::kRssRunsKey);
  expected.emplace_back(model::kCheckConfidenceKey);
  expected.emplace_back(model::kCountersKey);
  EXPECT_EQ(DocumentedKeys(), expected)
      << "docs/spec.md's [thresholds] table must list every row of "
         "engine/model/threshold_table.h, then rss_runs, per_check_confidence and counters";
}

TEST(ThresholdTable, EveryBarOfTheModelIsOneRowUnderItsOwnName) {
  // Each optional bar of model::Thresholds, as the results file names it, has exactly one row
  // that reads that very member; rss_runs and confidence are the two settings.
  std::set<std::string> seen;
  std::apply(
      [&](const auto&... field) {
        (
            [&] {
              if constexpr (std::is_same_v<std::remove_cvref_t<decltype(field.member)>,
                                           std::optional<double> model::Thresholds::*>) {
                const ThresholdRow* row = model::FindThresholdRow(field.name);
                ASSERT_NE(row, nullptr) << field.name << " has no row in kThresholdRows";
                EXPECT_EQ(row->bar, field.member) << field.name;
                seen.insert(std::string(field.name));
              } else {
                EXPECT_TRUE(field.name == model::kRssRunsKey || field.name == model::kConfidenceKey) << field.name;
              }
            }(),
            ...);
      },
      fields::FieldsOf(fields::Tag<model::Thresholds>{}));
  EXPECT_EQ(seen.size(), std::size(kThresholdRows));
}

TEST(ThresholdTable, EveryRowIsParsedAndMergedWorkloadFirst) {
  for (const ThresholdRow& row : kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    // 0.75 and 0.5 lie within every row's bounds (win rates are 0 to 1).
    const std::string text = fmt::format(
        "[thresholds]\n{0} = 0.75\n{1}\nthresholds = {{ {0} = 0.5 }}\n"
        "[workloads.v]\nargs = [\"y\"]\n",
        row.key, kThresholdTableContenders);
    const Spec spec = ParseSpecText(text, "t.toml");
    const Thresholds own = EffectiveThresholds(spec, *spec.FindWorkload("w"));
    const Thresholds global = EffectiveThresholds(spec, *spec.FindWorkload("v"));
    EXPECT_EQ(own.*row.bar, 0.5);
    EXPECT_EQ(global.*row.bar, 0.75);
    for (const ThresholdRow& other : kThresholdRows) {
      if (other.bar != row.bar) EXPECT_FALSE((own.*other.bar).has_value()) << other.key;
    }
  }
}

TEST(ThresholdTable, EveryRowRejectsAValueBelowItsBound) {
  for (const ThresholdRow& row : kThresholdRows) {
    const std::string text = fmt::format("[thresholds]\n{} = -1\n{}", row.key, kThresholdTableContenders);
    const std::string expected = fmt::format("t.toml:2:{}: '{}' must be {} 0, not -1", row.key.size() + 4, row.key,
                                             row.exclusive_min ? "greater than" : "at least");
    try {
      ParseSpecText(text, "t.toml");
      ADD_FAILURE() << row.key << " = -1 was accepted";
    } catch (const SpecError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

}  // namespace
}  // namespace pe::spec
