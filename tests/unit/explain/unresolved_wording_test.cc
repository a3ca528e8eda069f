// Unresolved is worded the same way in every output (issue #25 item 2, #23): one run whose only
// check is an open speed-up claim, judged by the real gate, rendered in every report format,
// by explain and by the summary line under each --unresolved policy. Each says "unresolved"
// and none calls the check missed or failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include "engine/explain/explain_text.h"
#include "engine/explain/select.h"
#include "engine/gate/gate.h"
#include "engine/gate/unresolved.h"
#include "engine/report/overview.h"
#include "engine/report/reporter.h"

namespace pe::explain {
namespace {

using model::ExitCode;
using model::RunResult;

RunResult OpenClaim() {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  r.settings.rounds = r.settings.max_rounds = 10;
  for (const char* who : {"old", "new"}) {
    model::ContenderInfo info;
    info.name = who;
    r.contenders.push_back(info);
  }
  model::WorkloadResult w;
  w.name = "work";
  w.thresholds.min_speedup = 1.0;
  for (const char* who : {"old", "new"}) {
    model::ContenderSummary s;
    s.contender = who;
    s.n = 10;
    s.median_wall_s = s.min_wall_s = s.max_wall_s = 0.1;
    w.summaries.push_back(s);
    for (int round = 0; round < 10; ++round) {
      model::Sample sample;
      sample.contender = who;
      sample.round = round;
      sample.position = (round + (who[0] == 'n' ? 1 : 0)) % 2;
      sample.wall_s = 0.1 + 0.001 * ((round * 7 + (who[0] == 'n' ? 3 : 0)) % 5);
      sample.user_s = 0.8 * sample.wall_s;
      sample.sys_s = 0.01;
      sample.max_rss_kib = 1000;
      w.samples.push_back(sample);
    }
  }
  model::Comparison c;
  c.baseline = "old";
  c.candidate = "new";
  c.speedup = 1.0;
  c.rounds = 10;
  c.wins = 5;
  c.win_rate = 0.5;
  c.speedup_cs = model::Interval{1.0, 0.95, 1.05, 0.95, "confidence sequence"};
  c.speedup_noise = 0.02;
  w.comparison = c;
  r.workloads.push_back(w);
  r.complete = true;
  r.verdict = gate::Judge(r);
  return r;
}

// What a reader sees: lower case; in HTML the text only (the style sheet names every verdict
// class whatever the run's, and class names are no wording).
std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (const auto from = text.find("<style>"); from != std::string::npos) {
    text.erase(from, text.find("</style>") - from);
  }
  return std::regex_replace(text, std::regex("<[^>]*>"), " ");
}

void ExpectUnresolvedNeverMissed(const std::string& what, const std::string& text) {
  const std::string lower = Lower(text);
  EXPECT_NE(lower.find("unresolved"), std::string::npos) << what << ":\n" << text;
  EXPECT_EQ(lower.find("missed"), std::string::npos) << what << ":\n" << text;
  EXPECT_EQ(lower.find("failed"), std::string::npos) << what << ":\n" << text;
}

TEST(UnresolvedWording, EveryFormatAndExplainSayUnresolvedAndNeverMissed) {
  const RunResult r = OpenClaim();
  ASSERT_EQ(r.verdict.exit, ExitCode::kUnresolved);
  for (const report::Format& f : report::Formats()) {
    ExpectUnresolvedNeverMissed(std::string(f.name), f.reporter->Render(r, {}));
  }
  ExpectUnresolvedNeverMissed("explain", ExplainText(r, "r.json", SelectWorkloads(r, {}, "r.json")));
  ExpectUnresolvedNeverMissed("summary", report::SummaryLine(r));
}

TEST(UnresolvedWording, TheFailPolicyCountsItAgainstTheRunWithoutCallingItMissed) {
  RunResult r = OpenClaim();
  gate::ApplyUnresolvedPolicy(r.verdict, gate::UnresolvedPolicy::kFail, "--unresolved=fail");
  ASSERT_EQ(r.verdict.exit, ExitCode::kThresholdMissed);
  EXPECT_EQ(report::SummaryLine(r),
            "FAIL: 1 check unresolved (not shown either way), counted against the run by --unresolved=fail");
  for (const report::Format& f : report::Formats()) {
    const std::string text = f.reporter->Render(r, {});
    // The results file names the exit code itself ("threshold_missed" is code 1's name); its
    // check still says what it is.
    if (f.name == "json") {
      EXPECT_NE(text.find("\"state\": \"unresolved\""), std::string::npos) << text;
      continue;
    }
    ExpectUnresolvedNeverMissed(std::string(f.name), text);
  }
  // explain names the recorded exit code (threshold_missed is code 1's name); its checks and
  // decision still say unresolved.
  const std::string explain = ExplainText(r, "r.json", SelectWorkloads(r, {}, "r.json"));
  EXPECT_NE(explain.find("decided by: min_speedup (margin "), std::string::npos) << explain;
  EXPECT_NE(explain.find(") unresolved (not shown either way)"), std::string::npos) << explain;
}

TEST(UnresolvedWording, AMissAcceptedBesideAnOpenClaimKeepsItUnresolved) {
  RunResult r = OpenClaim();
  model::WorkloadResult slow = r.workloads[0];
  slow.name = "slow";
  slow.comparison->speedup_cs = model::Interval{0.8, 0.75, 0.85, 0.95, "confidence sequence"};
  r.workloads.push_back(slow);
  r.verdict = gate::Judge(r);
  ASSERT_EQ(r.verdict.exit, ExitCode::kThresholdMissed);
  EXPECT_EQ(report::SummaryLine(r), "FAIL: 1 threshold missed; 1 check unresolved");
  gate::Accept(r.verdict, "--accept-regression");
  EXPECT_EQ(r.verdict.exit, ExitCode::kUnresolved);
  EXPECT_EQ(report::SummaryLine(r),
            "UNRESOLVED: 1 check could not be shown either way at 95% confidence (exit 3; --unresolved=fail or pass "
            "to count it otherwise); 1 threshold missed, accepted by --accept-regression");
}

}  // namespace
}  // namespace pe::explain
