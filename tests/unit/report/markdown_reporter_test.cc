#include "engine/report/markdown_reporter.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/report/golden.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::RunResult;
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Cell separators a GFM table would see: pipes not preceded by a backslash.
int UnescapedPipes(const std::string& line) {
  int count = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++count;
  }
  return count;
}

TEST(MarkdownReporterTest, MatchesGolden) {
  testing::ExpectGolden("report.md", MarkdownReport(testing::SampleResult()));
}

TEST(MarkdownReporterTest, HostileTextCannotInjectMarkup) {
  RunResult result = testing::SampleResult();
  result.contenders[1].description = "| **x** <script>";
  result.workloads[2].name = "medium|graph";
  const std::string tail = "before\n```\n</details>\n<script>alert(1)</script>\n````x\nafter\n";
  result.workloads[4].failures[0].detail = tail;
  result.workloads[4].failures[0].message = "[click](http://evil) *now*";
  std::string out = MarkdownReport(result);

  // The stderr block opens with a fence longer than any backtick run inside and holds
  // the tail unchanged up to the matching fence.
  const std::string fence = "`````";
  std::size_t open = out.find("\n" + fence + "\n");
  ASSERT_NE(open, std::string::npos) << out;
  std::size_t body = open + fence.size() + 2;
  std::size_t close = out.find("\n" + fence + "\n", body - 1);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(out.substr(body, close + 1 - body), tail);

  // Outside that block, nothing hostile survives unescaped.
  std::string outside = out.substr(0, body) + out.substr(close + 1);
  EXPECT_EQ(outside.find("<script>"), std::string::npos);
  EXPECT_EQ(outside.find("</details>"), outside.rfind("</details>"));  // only our own
  EXPECT_EQ(outside.find("**x**"), std::string::npos);
  EXPECT_NE(outside.find("\\| \\*\\*x\\*\\* \\<script\\>"), std::string::npos);
  EXPECT_NE(outside.find("\\[click\\](http://evil) \\*now\\*"), std::string::npos);

  // Every table line still has 9 cell separators (8 cells).
  for (const std::string& line : Lines(outside)) {
    if (!line.empty() && line.front() == '|') {
      EXPECT_EQ(UnescapedPipes(line), 9) << line;
    }
  }
}

}  // namespace
}  // namespace pe::report
