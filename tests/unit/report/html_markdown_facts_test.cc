// The HTML report carries everything the Markdown report does (issue 42 item 2): for a run with
// instruction and allocation counts, declared counters, a profile of a regression, a server,
// notes and power lines, every figure and name the Markdown prints is in the HTML page's text
// too. The facts are read from the two outputs themselves (markup stripped, entities decoded),
// not from the helpers that wrote them.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "engine/report/html_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {
namespace {

using model::Check;
using model::RunResult;
using model::WorkloadResult;

RunResult CountedProfiledRun() {
  RunResult r = testing::SampleResult();
  WorkloadResult& w = r.workloads[3];  // large_graph: it missed, so it was profiled
  w.summaries[0].instructions = 4644092;
  w.summaries[1].instructions = 9444130;
  w.summaries[0].instructions_source = w.summaries[1].instructions_source = "perf_event_open";
  w.summaries[0].allocation_calls = 412;
  w.summaries[1].allocation_calls = 977;
  w.comparison->instructions_ratio = 9444130.0 / 4644092;
  w.comparison->allocations_ratio = 977.0 / 412;
  w.thresholds.max_instructions_ratio = 1.02;
  w.counters = {{"objects", "objects", true, 1.10}, {"gc_runs", "", false, std::nullopt}};
  w.comparison->counters = {
      {"gc_runs", 31, 37, std::nullopt, std::nullopt, std::nullopt, "", std::nullopt},
      {"objects", 120034, 187311, 187311.0 / 120034, std::nullopt, std::nullopt, "", std::nullopt}};
  w.profile = {{"graph::Resolve", 1200000, 5400000, 0.26, 0.57, "self", "", ""},
               {"hash_combine", 800000, 1900000, 0.17, 0.2, "self", "", ""},
               {"rb_ary_push", 2048, 99123, 0, 0, "inclusive", "parser.so", "of which rb_str_dup 77001"}};
  w.profile_note = "valgrind callgrind, self cost";
  w.notes = {"contender 'bazel-diff-rs': wrote 3 files into its fixture"};
  Check instructions = testing::CheckOf("large_graph", "max_instructions_ratio", "instruction count ratio",
                                        *w.comparison->instructions_ratio, 1.02);
  instructions.higher_is_better = false;
  instructions.passed = false;
  instructions.state = Check::State::kFail;
  Check objects = testing::CheckOf("large_graph", "counters.objects", "objects ratio", 187311.0 / 120034, 1.10);
  objects.higher_is_better = false;
  objects.passed = false;
  objects.state = Check::State::kFail;
  r.verdict.checks.push_back(instructions);
  r.verdict.checks.push_back(objects);
  // A no-regression check that passed: its power line is a note.
  Check cpu = testing::CheckOf("medium_graph", "max_slowdown", "paired CPU-time ratio", 1.01, 1.05);
  cpu.higher_is_better = false;
  cpu.burden = Check::Burden::kShowMissed;
  cpu.passed = true;
  cpu.interval = model::Interval{1.01, 0.98, 1.03, 0.99, "confidence sequence"};
  cpu.rounds = 10;
  cpu.detectable = 1.034;
  cpu.noise = 0.021;
  r.workloads[2].thresholds.max_slowdown = 1.05;
  r.workloads[2].summaries[0].median_cpu_s = 1.93;
  r.workloads[2].summaries[1].median_cpu_s = 0.0981;
  r.verdict.checks.push_back(cpu);
  r.verdict.lines.push_back("large_graph: instruction count ratio 2.03x is above the allowed 1.02x");
  // A server.
  WorkloadResult serve = testing::MeasuredWorkload("serve-small", "a server", 0.030, 0.0208, 10);
  serve.kind = WorkloadResult::Kind::kServe;
  serve.summaries[0].serve = model::ServeFigures{600, 0.030, 0.0329, 1.01, 1.24, 29, 0.0247};
  serve.summaries[1].serve = model::ServeFigures{600, 0.0208, 0.0241, 0.98, 1.21, 33, 0.0246};
  serve.notes = {"contender 'bazel-diff': server ignored SIGTERM and was killed with SIGKILL after 5 s"};
  r.workloads.push_back(serve);
  r.settings.family_checks = 3;
  r.settings.check_confidence = 1 - 0.05 / 3;
  r.settings.confidence = r.settings.family_confidence = 0.95;
  return r;
}

std::string Replace(std::string text, const std::string& pattern, const std::string& with) {
  return std::regex_replace(text, std::regex(pattern), with);
}

// Words of a text that carry a figure or a name: those with a digit, a '_' or a "::", trimmed
// of the punctuation around them.
std::set<std::string> Facts(const std::string& text) {
  std::set<std::string> facts;
  static const std::regex word("[^\\s]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it) {
    std::string w = it->str();
    const std::string trim = ",;:.()[]{}*`'\"|";
    while (!w.empty() && trim.find(w.back()) != std::string::npos) w.pop_back();
    while (!w.empty() && trim.find(w.front()) != std::string::npos) w.erase(0, 1);
    if (w.find_first_of("0123456789_") != std::string::npos || w.find("::") != std::string::npos) facts.insert(w);
  }
  return facts;
}

std::string MarkdownText(const std::string& md) {
  std::string text = Replace(md, "\\\\([\\\\`*_{}\\[\\]()#+\\-.!|<>~])", "$1");  // escapes
  return Replace(text, "</?(details|summary)>", " ");
}

std::string HtmlText(const std::string& html) {
  std::string text = Replace(html, "<style>[\\s\\S]*?</style>", " ");
  text = Replace(text, "<svg[\\s\\S]*?</svg>", " ");  // the charts are not where a fact is read
  text = Replace(text, "<[^>]*>", " ");
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
    text = Replace(text, entity, c);
  }
  return text;
}

TEST(HtmlMarkdownFacts, TheHtmlReportCarriesEveryFactTheMarkdownReportDoes) {
  const RunResult r = CountedProfiledRun();
  const std::string md = MarkdownText(MarkdownReport(r));
  const std::string html = HtmlText(HtmlReport(r));
  const std::set<std::string> in_html = Facts(html);
  std::vector<std::string> missing;
  for (const std::string& fact : Facts(md)) {
    if (!in_html.contains(fact)) missing.push_back(fact);
  }
  EXPECT_TRUE(missing.empty()) << "in the Markdown, not in the HTML: " << ::testing::PrintToString(missing);
  // The facts the issue names, in both: counts, counters, the profile, notes, power.
  for (const std::string& fact : {"4644092", "9444130", "120034", "187311", "gc_runs", "graph::Resolve", "rb_ary_push",
                                  "77001", "SIGKILL", "3.4%", "98.3%"}) {
    EXPECT_NE(md.find(fact), std::string::npos) << fact;
    EXPECT_TRUE(in_html.contains(fact) || html.find(fact) != std::string::npos) << fact;
  }
}

}  // namespace
}  // namespace pe::report
