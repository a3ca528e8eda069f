// The first-use path as a new user walks it: init (or run --quick) from two commands, validate,
// run; tools whose outputs differ by nature (parity = "none", a normalise command, a binary
// difference shown as hex); progress lines on stderr when it is not a terminal, and --quiet.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

const std::string kStub = STUB_CONTENDER;

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FirstUse, InitWritesASpecThatValidatesAndRuns) {
  TempDir dir;
  const fs::path spec = dir.path() / "perfengine.toml";
  const Finished init = RunPerfengine(
      {"init", kStub + " --sleep-ms 60 --print same", kStub + " --print same", "--out", spec.string()}, dir.path());
  ASSERT_EQ(init.exit, 0) << init.out << init.err;
  EXPECT_EQ(init.out, "wrote " + spec.string() + ": baseline 'baseline' (" + kStub +
                          " --sleep-ms 60 --print same), candidate 'candidate' (" + kStub +
                          " --print same)\nnext: perfengine run " + spec.string() +
                          " --json results.json && perfengine explain results.json\n");
  const Finished validate = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(validate.exit, 0) << validate.out << validate.err;
  EXPECT_EQ(validate.out,
            spec.string() + ": ok (2 contenders, 2 workloads; baseline 'baseline', candidate 'candidate')\n");
  const fs::path json = dir.path() / "results.json";
  const Finished run = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS"), std::string::npos) << run.out;
  const Finished explain = RunPerfengine({"explain", json.string()}, dir.path());
  EXPECT_EQ(explain.exit, 0) << explain.err;
  EXPECT_NE(explain.out.find("recorded verdict: pass (exit 0)\n"), std::string::npos) << explain.out;
  // A second init does not overwrite the spec.
  const Finished again = RunPerfengine({"init", "true", "true", "--out", spec.string()}, dir.path());
  EXPECT_EQ(again.exit, 2);
  EXPECT_EQ(again.err, "perfengine: init: " + spec.string() +
                           " exists; pass --force to replace it, or --out to write elsewhere\n");
}

TEST(FirstUse, InitRefusesAProgramThatDoesNotExist) {
  TempDir dir;
  const Finished f =
      RunPerfengine({"init", "gzipp -c x", "true", "--out", (dir.path() / "s.toml").string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err, "perfengine: init: contender 'gzipp': program 'gzipp' not found on PATH\n");
  EXPECT_FALSE(fs::exists(dir.path() / "s.toml"));
}

TEST(FirstUse, QuickRunsTwoCommandsInOneLine) {
  TempDir dir;
  const Finished f = RunPerfengine(
      {"run", "--quiet", "--quick", kStub + " --sleep-ms 60 --print same", kStub + " --print same"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("PASS"), std::string::npos) << f.out;
  EXPECT_EQ(f.err, "");
  const Finished stray = RunPerfengine({"run", "spec.toml", "--parity", "none"}, dir.path());
  EXPECT_EQ(stray.exit, 2);
  EXPECT_EQ(stray.err, "perfengine: --parity: only with --quick; a spec sets parity per workload\n");
  const Finished neither = RunPerfengine({"run"}, dir.path());
  EXPECT_EQ(neither.exit, 2);
  EXPECT_EQ(neither.err,
            "perfengine: run: give a SPEC file, or --quick 'CMD A' 'CMD B' (perfengine init writes a spec to keep)\n");
}

fs::path WriteFirstUseSpec(const TempDir& dir, const std::string& baseline, const std::string& candidate,
                           const std::string& workload) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\n\n"
                      << "[contenders.baseline]\nargv = [\"sh\", \"-c\", " << nlohmann::json(baseline).dump()
                      << "]\nstartup = [\"true\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"sh\", \"-c\", " << nlohmann::json(candidate).dump()
                      << "]\nstartup = [\"true\"]\n\n"
                      << "[workloads.compress]\n"
                      << workload;
  return spec;
}

// gzip -1 and -9 write the same stream but for one header byte (XFL): a binary difference.
const std::string kFast = "printf 'hello hello hello' | gzip -1 -n";
const std::string kBest = "printf 'hello hello hello' | gzip -9 -n";

TEST(DifferentOutputs, ABinaryDifferenceIsAnOffsetAndHexPrintedOnce) {
  TempDir dir;
  const auto spec = WriteFirstUseSpec(dir, kFast, kBest, "");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(
      f.out.find("      first difference at byte 8 (0x8); baseline: 28 bytes, candidate: 28 bytes\n"
                 "        baseline   00000000: 1f 8b 08 00 00 00 00 00  04 03 cb 48 cd c9 c9 57  |...........H...W|\n"
                 "        candidate  00000000: 1f 8b 08 00 00 00 00 00  02 03 cb 48 cd c9 c9 57  |...........H...W|\n"
                 "        baseline   00000010: c8 40 90 00 80 88 f9 e5  11 00 00 00              |.@..........|\n"
                 "        candidate  00000010: c8 40 90 00 80 88 f9 e5  11 00 00 00              |.@..........|\n"),
      std::string::npos)
      << f.out;
  EXPECT_EQ(f.out.find('\x1f'), std::string::npos) << "raw bytes reached the terminal";
  EXPECT_EQ(Count(f.out, "output differs from baseline's"), 1u) << f.out;
}

TEST(DifferentOutputs, ANormaliseCommandComparesWhatItPrints) {
  TempDir dir;
  const auto spec = WriteFirstUseSpec(dir, kFast, kBest, "normalise = [\"gzip\", \"-dc\", \"{output}\"]\n");
  const Finished f = RunPerfengine({"run", spec.string(), "--quiet"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  const auto broken =
      WriteFirstUseSpec(dir, kFast, "printf 'not gzip'", "normalise = [\"gzip\", \"-dc\", \"{output}\"]\n");
  const Finished g = RunPerfengine({"run", broken.string(), "--quiet"}, dir.path());
  EXPECT_EQ(g.exit, 2) << g.out << g.err;
  EXPECT_NE(g.out.find("  compress: contender 'candidate' output could not be normalised: /usr/bin/gzip exited with "
                       "status 1\n"),
            std::string::npos)
      << g.out;
}

TEST(DifferentOutputs, ParityNoneComparesTimeOnlyAndSaysSo) {
  TempDir dir;
  const auto spec = WriteFirstUseSpec(dir, kFast, "printf 'something else entirely'", "parity = \"none\"\n");
  const fs::path json = dir.path() / "results.json";
  const fs::path csv = dir.path() / "figures.csv";
  const Finished f =
      RunPerfengine({"run", spec.string(), "--json", json.string(), "--csv", csv.string(), "--quiet"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("\ncompress: parity = \"none\": outputs were not compared; these figures compare time only, "
                       "not the same work\n"),
            std::string::npos)
      << f.out;
  EXPECT_EQ(nlohmann::json::parse(ReadAll(json))["workloads"][1]["parity"], "none");
  // Issue 27: the report states where the run's time went and what the verdict cost, and the
  // results file keeps the split (durations are the engine's own clock; not asserted).
  EXPECT_NE(f.out.find("\nrun time "), std::string::npos) << f.out;
  EXPECT_NE(f.out.find(" runner-minutes (one runner)\n"), std::string::npos) << f.out;
  const nlohmann::json phases = nlohmann::json::parse(ReadAll(json))["phases"];
  for (const char* phase : {"build_s", "fixtures_s", "parity_s", "measuring_s", "analysis_s", "total_s"}) {
    EXPECT_GE(phases.at(phase).get<double>(), 0) << phase;
  }
  EXPECT_GT(phases.at("measuring_s").get<double>(), 0);
  // --csv: a header, then one row per workload and contender (startup included).
  const std::string table = ReadAll(csv);
  EXPECT_EQ(table.substr(0, table.find('\n')),
            "workload,contender,role,against,n,median_wall_s,min_wall_s,max_wall_s,median_user_s,median_sys_s,"
            "median_cpu_s,median_max_rss_kib,instructions,allocation_calls,per_round_speedup,per_round_speedup_low,"
            "per_round_speedup_high,ratio_of_medians,ratio_of_medians_low,ratio_of_medians_high,win_rate,"
            "logic_speedup,cpu_ratio,cpu_ratio_low,cpu_ratio_high,instructions_ratio,allocations_ratio,rss_ratio,"
            "verdict,parity,commit,ref,dirty,build,run_time_s,build_s,fixtures_s,parity_s,measuring_s,analysis_s,"
            "notes,checks");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5);
  EXPECT_NE(table.find("\ncompress,candidate,candidate,baseline,3,"), std::string::npos) << table;
  // parity, then the contender's revision (not built from git: empty) and the run's six timings.
  EXPECT_NE(table.find(",none,,,,,"), std::string::npos) << table;
  const Finished explain = RunPerfengine({"explain", json.string(), "--workload", "compress"}, dir.path());
  EXPECT_NE(explain.out.find("\nparity: none: outputs were not compared; the figures compare time only\n"),
            std::string::npos)
      << explain.out;
}

TEST(Progress, OffATerminalFixturesAreAnnouncedAndQuietSilencesIt) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 1\n\n"
                      << "[contenders.baseline]\nargv = [\"cat\"]\nstartup = [\"true\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"cat\"]\nstartup = [\"true\"]\n\n"
                      << "[workloads.lines]\nargs = [\"{fixture}/lines.txt\"]\n"
                      << "fixture = { generator = \"text_lines\", lines = 1000 }\n";
  const std::string cache = (dir.path() / "cache").string();
  const Finished first = RunPerfengine({"run", spec.string(), "--cache-dir", cache}, dir.path());
  EXPECT_EQ(first.exit, 0) << first.out << first.err;
  EXPECT_EQ(first.err, "perfengine: generating fixture for lines (text_lines); it is cached for later runs\n");
  const Finished cached = RunPerfengine({"run", spec.string(), "--cache-dir", cache}, dir.path());
  EXPECT_EQ(cached.err, "");
  const Finished quiet =
      RunPerfengine({"run", spec.string(), "--cache-dir", (dir.path() / "cache2").string(), "-q"}, dir.path());
  EXPECT_EQ(quiet.exit, 0) << quiet.out << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

}  // namespace
}  // namespace pe::e2e
