#include "engine/model/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/model/names.h"
#include "tests/unit/model/expect_same.h"
#include "tests/unit/model/full_result.h"

namespace pe::model {
namespace {

using nlohmann::json;

RunResult ThroughText(const RunResult& result) { return RunResultFromJson(json::parse(ToJsonText(result))); }

std::string ErrorFrom(const json& input) {
  try {
    RunResultFromJson(input);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(JsonTest, FullResultRoundTripsFieldByField) {
  RunResult original = testing::FullResult();
  testing::Same(original, ThroughText(original));
}

TEST(JsonTest, FullResultSetsEveryFieldUnlikeItsDefault) {
  // Else a round trip of it cannot show that a field is written and read back.
  EXPECT_EQ(testing::FieldsLeftAtDefault(testing::FullResult()), std::vector<std::string>{});
}

TEST(JsonTest, DefaultResultRoundTrips) {
  RunResult original;
  testing::Same(original, ThroughText(original));
}

TEST(JsonTest, WritesTheFormatTag) { EXPECT_EQ(ToJson(RunResult{})["format"], "perfengine-results/1"); }

TEST(JsonTest, LeavesEmptyOptionalsOut) {
  json out = ToJson(testing::FullResult());
  const json& bare = out["workloads"][1]["comparison"];
  EXPECT_FALSE(bare.contains("logic_speedup"));
  EXPECT_FALSE(bare.contains("speedup_ci"));
  EXPECT_FALSE(bare.contains("rounds_to_resolve"));
  EXPECT_EQ(bare["logic_note"], "startup-bound: too little left");
  EXPECT_FALSE(out["workloads"][1]["thresholds"].contains("min_speedup"));
  EXPECT_EQ(out["workloads"][0]["comparison"]["rounds_to_resolve"], 7);
}

TEST(JsonTest, ReadsNullAsAnEmptyOptional) {
  json in = ToJson(testing::FullResult());
  in["workloads"][0]["comparison"]["logic_speedup"] = nullptr;
  in["workloads"][0]["comparison"]["speedup_ci"] = nullptr;
  RunResult back = RunResultFromJson(in);
  EXPECT_FALSE(back.workloads[0].comparison->logic_speedup.has_value());
  EXPECT_FALSE(back.workloads[0].comparison->speedup_ci.has_value());
  EXPECT_TRUE(back.workloads[0].comparison->logic_speedup_ci.has_value());
}

TEST(JsonTest, WritesEnumsAsStrings) {
  json out = ToJson(testing::FullResult());
  EXPECT_EQ(out["verdict"]["exit"], "threshold_missed");
  EXPECT_EQ(out["failures"][0]["kind"], "timeout");
  EXPECT_EQ(out["workloads"][0]["failures"][0]["kind"], "parity");
}

TEST(JsonTest, EveryEnumValueRoundTrips) {
  for (ExitCode code : {ExitCode::kPass, ExitCode::kThresholdMissed, ExitCode::kRunFailed, ExitCode::kUnresolved,
                        ExitCode::kInterrupted}) {
    RunResult original;
    original.verdict.exit = code;
    EXPECT_EQ(ThroughText(original).verdict.exit, code) << ExitCodeName(code);
  }
  using K = Failure::Kind;
  for (K kind : {K::kSpec, K::kFixture, K::kSpawn, K::kExit, K::kSignal, K::kTimeout, K::kParity, K::kInterrupted}) {
    RunResult original;
    original.failures.push_back({kind, "", "", "m", ""});
    EXPECT_EQ(ThroughText(original).failures[0].kind, kind) << FailureKindName(kind);
  }
}

TEST(JsonTest, ChecksFromFilesWithoutUnitsTakeTheUnitOfTheirThreshold) {
  RunResult r;
  for (const char* key : {"min_speedup", "min_win_rate", "min_scaling_efficiency", "max_cost_exponent"}) {
    Check c;
    c.threshold = key;
    r.verdict.checks.push_back(c);
  }
  r.verdict.checks[1].unit = Check::Unit::kRate;
  json in = ToJson(r);
  EXPECT_EQ(in["verdict"]["checks"][1]["unit"], "rate");
  for (json& check : in["verdict"]["checks"]) check.erase("unit");
  const RunResult back = RunResultFromJson(in);
  EXPECT_EQ(back.verdict.checks[0].unit, Check::Unit::kRatio);
  EXPECT_EQ(back.verdict.checks[1].unit, Check::Unit::kRate);
  EXPECT_EQ(back.verdict.checks[2].unit, Check::Unit::kRate);
  EXPECT_EQ(back.verdict.checks[3].unit, Check::Unit::kNumber);
}

TEST(JsonTest, EnumNames) {
  EXPECT_EQ(ExitCodeName(ExitCode::kRunFailed), "run_failed");
  EXPECT_EQ(FailureKindName(Failure::Kind::kSignal), "signal");
  EXPECT_EQ(ParseExitCode("interrupted"), ExitCode::kInterrupted);
  EXPECT_EQ(ParseFailureKind("spawn"), Failure::Kind::kSpawn);
  EXPECT_FALSE(ParseExitCode("PASS").has_value());
}

TEST(JsonTest, NonFiniteDoublesRoundTripAsStrings) {
  RunResult original;
  original.settings.scale = std::numeric_limits<double>::infinity();
  original.settings.timeout_s = -std::numeric_limits<double>::infinity();
  original.settings.confidence = std::numeric_limits<double>::quiet_NaN();
  json out = ToJson(original);
  EXPECT_EQ(out["settings"]["scale"], "Infinity");
  EXPECT_EQ(out["settings"]["timeout_s"], "-Infinity");
  EXPECT_EQ(out["settings"]["confidence"], "NaN");
  RunResult back = RunResultFromJson(out);
  EXPECT_EQ(back.settings.scale, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.settings.timeout_s, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(back.settings.confidence));
}

TEST(JsonTest, AcceptsAnIntegerWhereADoubleIsExpected) {
  json in = ToJson(RunResult{});
  in["settings"]["scale"] = 3;
  EXPECT_EQ(RunResultFromJson(in).settings.scale, 3.0);
}

TEST(JsonTest, IgnoresUnknownFields) {
  json in = ToJson(testing::FullResult());
  in["added_later"] = {1, 2};
  in["workloads"][0]["also_new"] = "x";
  testing::Same(testing::FullResult(), RunResultFromJson(in));
}

TEST(JsonTest, TextIsIndentedAndEndsWithANewline) {
  std::string text = ToJsonText(RunResult{});
  EXPECT_EQ(text.substr(0, 4), "{\n  ");
  EXPECT_EQ(text.back(), '\n');
}

TEST(JsonTest, TextReplacesInvalidUtf8) {
  RunResult result;
  result.failures.push_back({Failure::Kind::kExit, "", "", "m", "bad \xff byte"});
  RunResult back = ThroughText(result);
  EXPECT_EQ(back.failures[0].detail, "bad \xef\xbf\xbd byte");
}

TEST(JsonTest, ReadsFilesWrittenBeforeLaterFieldsExisted) {
  json in = ToJson(testing::FullResult());
  in.erase("sweeps");
  in["workloads"][0].erase("kind");
  in["workloads"][0].erase("profile");
  in["contenders"][1].erase("git");
  in["verdict"].erase("accepted");
  const RunResult back = RunResultFromJson(in);
  EXPECT_TRUE(back.sweeps.empty());
  EXPECT_EQ(back.workloads[0].kind, WorkloadResult::Kind::kProcess);
  EXPECT_TRUE(back.workloads[0].profile.empty());
  EXPECT_EQ(back.contenders[1].git, "");
  EXPECT_FALSE(back.verdict.accepted);
  EXPECT_EQ(back.workloads[0].elements, 192000);  // what is there still reads
}

TEST(JsonErrorTest, MissingField) {
  json in = ToJson(testing::FullResult());
  in["workloads"][0]["summaries"][1].erase("median_wall_s");
  EXPECT_EQ(ErrorFrom(in), "missing field \"workloads[0].summaries[1].median_wall_s\"");
}

TEST(JsonErrorTest, MissingTopLevelField) {
  json in = ToJson(RunResult{});
  in.erase("verdict");
  EXPECT_EQ(ErrorFrom(in), "missing field \"verdict\"");
}

TEST(JsonErrorTest, MistypedString) {
  json in = ToJson(testing::FullResult());
  in["workloads"][0]["name"] = 5;
  EXPECT_EQ(ErrorFrom(in), "field \"workloads[0].name\" must be a string, not a number");
}

TEST(JsonErrorTest, MistypedOptional) {
  json in = ToJson(testing::FullResult());
  in["workloads"][0]["comparison"]["logic_speedup"] = "fast";
  EXPECT_EQ(ErrorFrom(in), "field \"workloads[0].comparison.logic_speedup\" must be a number, not a string");
}

TEST(JsonErrorTest, MistypedContainers) {
  json in = ToJson(testing::FullResult());
  in["workloads"][0]["samples"] = json::object();
  EXPECT_EQ(ErrorFrom(in), "field \"workloads[0].samples\" must be an array, not an object");
  in = ToJson(testing::FullResult());
  in["machine"] = json::array();
  EXPECT_EQ(ErrorFrom(in), "field \"machine\" must be an object, not an array");
  in = ToJson(testing::FullResult());
  in["complete"] = "yes";
  EXPECT_EQ(ErrorFrom(in), "field \"complete\" must be a boolean, not a string");
}

TEST(JsonErrorTest, UnknownEnumName) {
  json in = ToJson(RunResult{});
  in["verdict"]["exit"] = "passed";
  EXPECT_EQ(ErrorFrom(in),
            "field \"verdict.exit\" must be one of \"pass\", \"threshold_missed\", "
            "\"run_failed\", \"unresolved\", \"interrupted\", not \"passed\"");
}

TEST(JsonErrorTest, FractionWhereAnIntegerIsExpected) {
  json in = ToJson(RunResult{});
  in["settings"]["rounds"] = 2.5;
  EXPECT_EQ(ErrorFrom(in), "field \"settings.rounds\" must be an integer, not 2.5");
}

TEST(JsonErrorTest, IntegerOutOfRange) {
  json in = ToJson(RunResult{});
  in["settings"]["rounds"] = 3000000000;
  EXPECT_EQ(ErrorFrom(in),
            "field \"settings.rounds\" must be an integer from -2147483648 to 2147483647, "
            "not 3000000000");
  in = ToJson(RunResult{});
  in["settings"]["seed"] = -1;
  EXPECT_EQ(ErrorFrom(in), "field \"settings.seed\" must be an integer from 0 to 18446744073709551615, not -1");
}

TEST(JsonErrorTest, WrongFormat) {
  json in = ToJson(RunResult{});
  in["format"] = "perfengine-results/2";
  EXPECT_EQ(ErrorFrom(in),
            "unsupported results format \"perfengine-results/2\" "
            "(this perfengine reads \"perfengine-results/1\")");
}

TEST(JsonErrorTest, MissingFormat) {
  json in = ToJson(RunResult{});
  in.erase("format");
  EXPECT_EQ(ErrorFrom(in), "not a perfengine results file: missing field \"format\"");
}

TEST(JsonErrorTest, NotAnObject) {
  EXPECT_EQ(ErrorFrom(json::array()), "not a perfengine results file: expected a JSON object, not an array");
}

}  // namespace
}  // namespace pe::model
