// Family-wise confidence end to end (docs/statistics.md, "Family-wise confidence"): [run]
// confidence is the whole verdict's, split across every check of the spec that reads an
// interval. An identical pair over many checks passes; a large planted regression still fails at
// the split level; every report names the family and says what each passing check could have seen.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

constexpr int kWorkloads = 8;

std::string FamilywiseStub() { return nlohmann::json(STUB_CONTENDER).dump(); }

// kWorkloads workloads, each gated by max_slowdown (CPU time, a generous bar: no identical pair
// shows 30% more CPU time, however loaded the machine); the candidate burns `candidate_ms` of CPU
// where the baseline burns 5.
fs::path WriteFamilywiseSpec(const TempDir& dir, int candidate_ms) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream out(spec);
  out << "[run]\nrounds = 12\nmax_rounds = 16\nwarmup_rounds = 0\n\n"
      << "[contenders.baseline]\nargv = [" << FamilywiseStub() << ", \"--busy-ms\", \"5\", \"--print\", \"same\"]\n\n"
      << "[contenders.candidate]\nargv = [" << FamilywiseStub() << ", \"--busy-ms\", \"" << candidate_ms
      << "\", \"--print\", \"same\"]\n\n";
  for (int i = 0; i < kWorkloads; ++i) out << "[workloads.w" << i << "]\n\n";
  out << "[thresholds]\nmax_slowdown = 1.3\n";
  return spec;
}

void ExpectFamily(const nlohmann::json& results) {
  const nlohmann::json& s = results["settings"];
  EXPECT_EQ(s["confidence"], 0.95);
  EXPECT_EQ(s["family_checks"], kWorkloads);
  EXPECT_DOUBLE_EQ(s["check_confidence"].get<double>(), 1 - 0.05 / kWorkloads);
  EXPECT_DOUBLE_EQ(s["family_confidence"].get<double>(), 0.95);
  // The gate's own checks that read an interval are the family the spec counted, each at its level.
  int with_interval = 0;
  for (const nlohmann::json& c : results["verdict"]["checks"]) {
    if (!c.contains("interval") || c["interval"].is_null()) continue;
    ++with_interval;
    EXPECT_DOUBLE_EQ(c["interval"]["level"].get<double>(), 1 - 0.05 / kWorkloads) << c.dump();
  }
  EXPECT_EQ(with_interval, kWorkloads);
}

constexpr char kFamilyLine[] =
    "confidence: 95% for the whole verdict ([run] confidence), split across 8 checks that read an interval: each at "
    "99.38% (union bound, docs/statistics.md)";

TEST(FamilywiseE2E, AnIdenticalPairOverManyChecksPassesAndEveryReportNamesTheFamily) {
  TempDir dir;
  const fs::path spec = WriteFamilywiseSpec(dir, 5);
  const fs::path json = dir.path() / "results.json", md = dir.path() / "report.md", html = dir.path() / "report.html";
  const Finished f = RunPerfengine(
      {"run", spec.string(), "-q", "--json", json.string(), "--markdown", md.string(), "--html", html.string()},
      dir.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find(kFamilyLine), std::string::npos) << f.out;
  // The power line: a figure, or, when this machine's noise left nothing meaningful to see, the
  // plain form (docs/statistics.md, "Power in every report"); both at the split level.
  const bool figure = f.out.find("w0: paired CPU-time ratio: would have shown a regression of ") != std::string::npos;
  const bool plain = f.out.find("w0: paired CPU-time ratio: could not have shown a regression ") != std::string::npos;
  EXPECT_TRUE(figure || plain) << f.out;
  EXPECT_NE(f.out.find(figure ? "or more with 80% power at 99.38% confidence in these " : "at 99.38% confidence ("),
            std::string::npos)
      << f.out;
  // Markdown escapes the brackets of "[run]"; the rest of the line is as the terminal prints it.
  EXPECT_NE(ReadAll(md).find("split across 8 checks that read an interval: each at 99.38% (union bound"),
            std::string::npos)
      << ReadAll(md);
  EXPECT_NE(ReadAll(html).find(kFamilyLine), std::string::npos);
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  ExpectFamily(results);
  for (const nlohmann::json& c : results["verdict"]["checks"]) {
    EXPECT_TRUE(c.contains("noise") && c["noise"].is_number()) << c.dump();
  }
  // explain shows the same family line and the same power figure as the report.
  const Finished e = RunPerfengine({"explain", json.string(), "--workload", "w0"}, dir.path());
  ASSERT_EQ(e.exit, 0) << e.err;
  EXPECT_NE(e.out.find(kFamilyLine), std::string::npos) << e.out;
  const std::size_t at = f.out.find(figure ? "w0: paired CPU-time ratio: would have shown"
                                           : "w0: paired CPU-time ratio: could not have shown");
  ASSERT_NE(at, std::string::npos);
  const std::string power = f.out.substr(at, f.out.find('\n', at) - at);
  EXPECT_NE(e.out.find("could see: " + power), std::string::npos) << power << "\n" << e.out;
  EXPECT_EQ(e.out.find("used by the gate"), std::string::npos) << e.out;
}

TEST(FamilywiseE2E, APlantedLargeRegressionStillFailsAtTheSplitLevel) {
  TempDir dir;
  const fs::path spec = WriteFamilywiseSpec(dir, 25);
  const fs::path json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run", spec.string(), "-q", "--json", json.string()}, dir.path());
  ASSERT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("FAIL: 8 thresholds missed"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("w0: paired CPU-time ratio "), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("(99.38% confidence sequence "), std::string::npos) << f.out;
  EXPECT_NE(f.out.find(kFamilyLine), std::string::npos) << f.out;
  ExpectFamily(nlohmann::json::parse(ReadAll(json)));
}

TEST(FamilywiseE2E, APerCheckOverrideIsNamedAsOne) {
  TempDir dir;
  const fs::path spec = WriteFamilywiseSpec(dir, 5);
  { std::ofstream(spec, std::ios::app) << "\n[workloads.w3.thresholds]\nper_check_confidence = 0.99\n"; }
  // The [workloads.w3] table above already exists: a second one is a TOML error, so rewrite it.
  std::string text = ReadAll(spec);
  text.erase(text.find("[workloads.w3]\n\n"), 16);
  std::ofstream(spec) << text;
  const Finished f = RunPerfengine({"run", spec.string(), "-q"}, dir.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("; per-check override (per_check_confidence) on w3: 99%; with the overrides the checks hold "
                       "together at 94.6%"),
            std::string::npos)
      << f.out;
}

TEST(FamilywiseE2E, ConfidenceInAThresholdsTableIsAnErrorThatSaysWhereItWent) {
  TempDir dir;
  const fs::path spec = WriteFamilywiseSpec(dir, 5);
  std::ofstream(spec, std::ios::app) << "confidence = 0.99\n";
  const Finished f = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_NE(f.err.find(":30:14: 'confidence' is the whole verdict's and belongs in [run]"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace pe::e2e
