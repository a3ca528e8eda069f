// `perfengine explain` and `perfengine compare` on results files `perfengine run --json`
// wrote: byte-identical output from one file, the figures run stored, compare's exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// Both contenders sleep `{scale}` ms in the workload, so two runs of one spec (one digest)
// can differ in speed through --scale; the baseline sleeps 40 ms more.
fs::path WriteSpec(const TempDir& dir) {
  const fs::path spec = dir.path() / "spec.toml";
  // The whole verdict at 90% over its two checks puts each at 95% (docs/statistics.md), which
  // 7 rounds can resolve.
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 1\nbootstrap_resamples = 500\nconfidence = 0.9\n\n"
                      << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER "\", \"--sleep-ms\", \"40\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER "\"]\n\n"
                      << "[workloads.work]\nargs = [\"--sleep-ms\", \"{scale}\", \"--print\", \"same\"]\n\n"
                      << "[thresholds]\nmin_speedup = 1.0\nmin_win_rate = 0.5\n";
  return spec;
}

fs::path RunSpec(const TempDir& dir, const fs::path& spec, const std::string& scale, const std::string& name) {
  const fs::path json = dir.path() / name;
  const Finished f = RunPerfengine({"run", spec.string(), "--scale", scale, "--json", json.string()}, dir.path());
  // What is read back is the file, whatever its verdict: on a loaded machine 7 rounds can leave
  // a check unresolved (exit 3), which is no fault of explain's (issue 24): any verdict but a
  // failed run (2) will do.
  EXPECT_TRUE(f.exit == 0 || f.exit == 1 || f.exit == 3) << f.exit << f.out << f.err;
  return json;
}

TEST(ExplainE2E, ExplainIsByteIdenticalAndShowsTheStoredFigures) {
  TempDir dir;
  const fs::path json = RunSpec(dir, WriteSpec(dir), "2", "results.json");
  const Finished first = RunPerfengine({"explain", json.string()}, dir.path());
  const Finished second = RunPerfengine({"explain", json.string()}, dir.path());
  ASSERT_EQ(first.exit, 0) << first.err;
  EXPECT_EQ(first.err, "");
  EXPECT_EQ(first.out, second.out);

  const auto results = nlohmann::json::parse(ReadAll(json));
  const auto& work = results["workloads"][1];
  ASSERT_EQ(work["name"], "work");
  const std::string seed = std::to_string(results["settings"]["seed"].get<std::uint64_t>());
  for (const std::string expected :
       {std::string("\n== work ==\n"), std::string("warm-up (not analysed)"),
        std::string("95% bootstrap interval, 500 resamples, seed ") + seed,
        std::string("exact two-sided sign test of the win count"), std::string("Hodges-Lehmann paired ratio"),
        std::string("  min_speedup: work: median speedup "), std::string("Rounds to resolve"),
        std::string("figures recomputed from the samples match the ones stored in the file")}) {
    EXPECT_NE(first.out.find(expected), std::string::npos) << expected << "\n" << first.out;
  }
  EXPECT_EQ(first.out.find("differs:"), std::string::npos) << first.out;
  // The stored win count, as explain words it.
  const std::string won = "the candidate won " + std::to_string(work["comparison"]["wins"].get<int>()) + " of 7 rounds";
  EXPECT_NE(first.out.find(won), std::string::npos) << first.out;

  const Finished one = RunPerfengine({"explain", json.string(), "--workload", "work"}, dir.path());
  EXPECT_EQ(one.exit, 0);
  EXPECT_EQ(one.out.find("== startup"), std::string::npos);
  const Finished typo = RunPerfengine({"explain", json.string(), "--workload", "wrok"}, dir.path());
  EXPECT_EQ(typo.exit, 2);
  EXPECT_EQ(typo.err,
            "perfengine: --workload 'wrok': no such workload in " + json.string() + " (did you mean 'work'?)\n");
}

// A results file is data: a missed threshold edited into a pass (figures, checks and verdict)
// is still shown as missed, since explain judges the file's samples again. The file is the
// crafted missed.json (fixed samples), so nothing here depends on timing.
TEST(ExplainE2E, AnEditedResultsFileIsJudgedFromItsSamples) {
  TempDir dir;
  auto results = nlohmann::json::parse(ReadAll(fs::path(RESULTS_DATA) / "missed.json"));
  auto& work = results["workloads"][1];
  ASSERT_EQ(work["name"], "work");
  work["comparison"]["speedup"] = 2.5;
  for (const char* end : {"estimate", "low", "high"}) work["comparison"]["speedup_cs"][end] = 2.5;
  for (auto& check : results["verdict"]["checks"]) {
    check["passed"] = true;
    check["state"] = "pass";
  }
  results["verdict"]["exit"] = "pass";
  results["verdict"]["lines"] = nlohmann::json::array();
  const fs::path edited = dir.path() / "edited.json";
  std::ofstream(edited) << results.dump();

  const Finished f = RunPerfengine({"explain", edited.string(), "--workload", "work"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.err;
  for (const std::string expected :
       // Every claim the samples leave is unresolved (none is shown worse): exit 3, not 1.
       {"recorded verdict: pass (exit 0)\nverdict from the samples: unresolved (exit 3); NOT the recorded one",
        "  decided by: min_speedup (margin -16%), min_speedup_ci (margin -7%), min_logic_speedup (margin -22%) "
        "unresolved (not shown either way)\n",
        "  differs: speedup: the file says 2.5, recomputed 1.6",
        "\n== verdict lines (from the samples) ==\n  work: median speedup 1.68x (95% confidence sequence 1.60x to "
        "2.50x, 10 rounds) is not shown to meet the required 2.00x"}) {
    EXPECT_NE(f.out.find(expected), std::string::npos) << expected << "\n" << f.out;
  }
}

TEST(ExplainE2E, UnreadableFilesAreOneLineAndExitTwo) {
  TempDir dir;
  const fs::path missing = dir.path() / "missing.json";
  Finished f = RunPerfengine({"explain", missing.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err, "perfengine: " + missing.string() + ": cannot read: No such file or directory\n");
  const fs::path other = dir.path() / "other.json";
  std::ofstream(other) << "{\"format\": \"something-else/3\"}\n";
  f = RunPerfengine({"explain", other.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: " + other.string() +
                ": unsupported results format \"something-else/3\" (this perfengine reads \"perfengine-results/1\")\n");
  const fs::path text = dir.path() / "text.json";
  std::ofstream(text) << "not json\n";
  f = RunPerfengine({"explain", text.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err.rfind("perfengine: " + text.string() + ": not valid JSON: ", 0), 0u) << f.err;
  EXPECT_EQ(std::count(f.err.begin(), f.err.end(), '\n'), 1);
}

TEST(ExplainE2E, CompareTwoRunsBothWays) {
  TempDir dir;
  const fs::path spec = WriteSpec(dir);
  // 300 ms, not 60: the two runs are timed apart, and with 60 ms this test failed once on a
  // runner at load 15-22; the verdicts below need every slow run slower than every fast one.
  const fs::path slow = RunSpec(dir, spec, "300", "slow.json");
  const fs::path fast = RunSpec(dir, spec, "1", "fast.json");
  // The candidate went from about 300 ms to about 1 ms: NEW is faster.
  Finished f = RunPerfengine({"compare", slow.string(), fast.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("work: median speed-up over OLD (per-round ratios to the baseline) "), std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("\nPASS\n"), std::string::npos) << f.out;
  const Finished again = RunPerfengine({"compare", slow.string(), fast.string()}, dir.path());
  EXPECT_EQ(f.out, again.out);
  // The other way round it is a regression, with the gate's line.
  f = RunPerfengine({"compare", fast.string(), slow.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  // The speed-up claim is shown missed, on the per-round ratios the gate reads.
  EXPECT_NE(f.out.find("work: median speed-up over OLD (per-round ratios to the baseline) "), std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("is shown below the required 1.00x"), std::string::npos) << f.out;
}

// Issue 24: compare once passed over max_instructions_ratio, max_allocations_ratio and
// max_p99_ratio. NEW's `work` is gated by those three alone, at 0.001.
TEST(ExplainE2E, CompareJudgesTheCountThresholdsOrNamesThemSkipped) {
  TempDir dir;
  const fs::path run = RunSpec(dir, WriteSpec(dir), "1", "run.json");
  auto write = [&](const std::string& name, bool tight, std::optional<int> instructions) {
    auto results = nlohmann::json::parse(ReadAll(run));
    auto& work = results["workloads"][1];
    if (tight) {
      work["thresholds"] = {{"max_instructions_ratio", 0.001},
                            {"max_allocations_ratio", 0.001},
                            {"max_p99_ratio", 0.001},
                            {"confidence", 0.95},
                            {"rss_runs", 0}};
    }
    for (auto& summary : work["summaries"]) {
      if (instructions && summary["contender"] == "candidate") summary["instructions"] = *instructions;
    }
    const fs::path path = dir.path() / name;
    std::ofstream(path) << results.dump();
    return path.string();
  };
  Finished f = RunPerfengine({"compare", write("old.json", false, std::nullopt), write("new.json", true, std::nullopt)},
                             dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  for (const std::string line : {
           "  work: p99 latency ratio NEW/OLD not checked against 0.001x: not a serve workload\n",
           "  work: instruction count ratio NEW/OLD not checked against 0.001x: OLD has no instruction count of "
           "'candidate'\n",
           "  work: allocation count ratio NEW/OLD not checked against 0.001x: OLD has no allocation count of "
           "'candidate'\n",
       }) {
    EXPECT_NE(f.out.find(line), std::string::npos) << line << f.out;
  }
  f = RunPerfengine({"compare", write("old.json", false, 1000), write("new.json", true, 1200)}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("  work: instruction count ratio NEW/OLD 1.200x is above the allowed 0.001x (over by 119900%)"),
            std::string::npos)
      << f.out;
}

TEST(ExplainE2E, CompareRefusesDifferentSpecsUnlessAllowed) {
  TempDir dir;
  const fs::path first = RunSpec(dir, WriteSpec(dir), "1", "first.json");
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec, std::ios::app) << "# edited\n";
  const fs::path second = RunSpec(dir, spec, "1", "second.json");
  Finished f = RunPerfengine({"compare", first.string(), second.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.out, "");
  EXPECT_NE(f.err.find("OLD and NEW are results of different specs"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("pass --allow-different-spec to compare them anyway\n"), std::string::npos) << f.err;
  f = RunPerfengine({"compare", first.string(), second.string(), "--allow-different-spec"}, dir.path());
  EXPECT_NE(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("specs differ (--allow-different-spec)"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace pe::e2e
