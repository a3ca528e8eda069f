#include "engine/report/json_reporter.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/model/json.h"
#include "engine/report/reporter.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::ReadResultsFile;
using model::RunResult;
using model::ToJson;
namespace {

namespace fs = std::filesystem;

TEST(JsonReporterTest, WritesTheModelPrettyPrintedAndReadableBack) {
  std::string pattern = (fs::path(::testing::TempDir()) / "pe_report_XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  fs::path path = fs::path(pattern) / "results.json";
  RunResult result = testing::SampleResult();

  WriteReport("json", result, path);

  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), ToJson(result).dump(2) + "\n");
  RunResult back = ReadResultsFile(path);
  EXPECT_EQ(back.workloads.size(), result.workloads.size());
  EXPECT_EQ(back.workloads[4].failures[0].detail, result.workloads[4].failures[0].detail);
  EXPECT_EQ(back.verdict.lines, result.verdict.lines);
  fs::remove_all(pattern);
}

}  // namespace
}  // namespace pe::report
