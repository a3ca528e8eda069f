// `perfengine run` end to end: the real binary, real child processes (the stub contender),
// and the exit codes, lines and files a user sees.
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string RunQuoted(const std::vector<std::string>& args) {
  std::string out = "[\"" STUB_CONTENDER "\"";
  for (const auto& a : args) out += ", " + nlohmann::json(a).dump();
  return out + "]";
}

// A two-contender spec; each contender's behaviour is entirely in its stub argv.
fs::path WriteRunSpec(const TempDir& dir, const std::vector<std::string>& baseline,
                      const std::vector<std::string>& candidate, const std::string& run_extra = "",
                      const std::string& thresholds = "min_speedup = 1.0\nmin_win_rate = 0.5\n") {
  const fs::path spec = dir.path() / "spec.toml";
  // confidence 0.9 for the whole verdict: each of the default two checks at 95%, so 7 rounds
  // can resolve them (docs/statistics.md, "Family-wise confidence").
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 1\nconfidence = 0.9\n"
                      << run_extra << "\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = " << RunQuoted(baseline) << "\n"
                      << "description = \"the original\"\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = " << RunQuoted(candidate) << "\n\n"
                      << "[workloads.work]\ndescription = \"does the work\"\n\n"
                      << "[thresholds]\n"
                      << thresholds;
  return spec;
}

TEST(RunE2E, FasterCandidatePasses) {
  TempDir dir;
  const auto spec =
      WriteRunSpec(dir, {"--sleep-ms", "120", "--print", "same"}, {"--sleep-ms", "20", "--print", "same"});
  const auto json = dir.path() / "results.json";
  const auto md = dir.path() / "report.md";
  const auto html = dir.path() / "report.html";
  const Finished f = RunPerfengine(
      {"run", spec.string(), "--json", json.string(), "--markdown", md.string(), "--html", html.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("PASS"), std::string::npos) << f.out;
  // The results file is the full model: every sample, warm-ups included, and the verdict.
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["format"], "perfengine-results/1");
  EXPECT_EQ(results["complete"], true);
  ASSERT_EQ(results["workloads"].size(), 2u);
  EXPECT_EQ(results["workloads"][1]["samples"].size(), 16u);  // (1 + 7 rounds) x 2 contenders
  EXPECT_NE(ReadAll(md).find("| work |"), std::string::npos) << ReadAll(md);
  EXPECT_NE(ReadAll(html).find("<svg class=\"chart box-plot\""), std::string::npos);
}

// A spec with no threshold gates nothing: exit 0, and every output says that nothing was gated
// rather than a bare PASS, which a CI gate whose [thresholds] were lost would show as green.
TEST(RunE2E, ASpecThatGatesNothingSaysSoWhereItWouldSayPass) {
  TempDir dir;
  const auto spec = WriteRunSpec(dir, {"--print", "same"}, {"--print", "same"}, "", "");
  const auto md = dir.path() / "report.md";
  const auto json = dir.path() / "results.json";
  const Finished f =
      RunPerfengine({"run", spec.string(), "--markdown", md.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  const std::string said = "no threshold applies, so nothing was gated";
  EXPECT_NE(f.out.find("\nPASS: " + said + "\n"), std::string::npos) << f.out;
  EXPECT_NE(ReadAll(md).find("### perfengine: PASS: " + said), std::string::npos) << ReadAll(md);
  const Finished explain = RunPerfengine({"explain", json.string()}, dir.path());
  EXPECT_NE(explain.out.find("recorded verdict: pass (exit 0): " + said + "\n"), std::string::npos) << explain.out;
  const Finished compare = RunPerfengine({"compare", json.string(), json.string()}, dir.path());
  EXPECT_EQ(compare.exit, 0) << compare.out << compare.err;
  EXPECT_NE(compare.out.find("\nPASS: " + said + "\n"), std::string::npos) << compare.out;
}

TEST(RunE2E, SlowerCandidateMissesTheGateWithANamedLine) {
  TempDir dir;
  const auto spec =
      WriteRunSpec(dir, {"--sleep-ms", "20", "--print", "same"}, {"--sleep-ms", "120", "--print", "same"});
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_TRUE(std::regex_search(
      f.out, std::regex(R"(work: median speedup 0\.\d\dx \(95% confidence sequence 0\.\d\dx to 0\.\d\dx, 7 rounds\) )"
                        R"(is shown below the required 1\.00x \(short by \d+%\))")))
      << f.out;
  EXPECT_TRUE(std::regex_search(
      f.out, std::regex(R"(work: win rate 0% \(95% confidence sequence 0% to \d+%, 7 rounds; 0 of 7 rounds, sign test )"
                        R"(p = 0\.0156\) is shown below the required 50% \(short by 50 points\))")))
      << f.out;
}

// A candidate that is neither faster nor slower cannot show a speed-up: the run adds rounds up
// to max_rounds, then reports the claim unresolved (exit 3, not 1: it was not shown slower).
// Two identical programs would lean on timing noise (one loaded run showed a 5 ms stub "slower"
// than itself in 7 rounds of 7); the candidate instead sleeps 2 ms and 40 ms on alternate
// executions against a steady 12 ms (the stub's --sleep-ms-alternating), so its per-round ratios
// swing far both ways and the median's sequence straddles 1.0 whatever the machine's load.
TEST(RunE2E, AClaimNoRoundCanSettleAddsRoundsUpToTheCapAndStaysUnresolved) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  const std::string counter = (dir.path() / "candidate-executions").string();
  const auto spec = WriteRunSpec(dir, {"--sleep-ms", "12", "--print", "same"},
                                 {"--sleep-ms-alternating", "2", "40", counter, "--print", "same"}, "max_rounds = 12",
                                 "min_speedup = 1.0\n");
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 3) << f.out << f.err;
  // One check: it reads its sequence at the whole verdict's 90% (WriteRunSpec's [run] confidence).
  // A figure near its bar prints a third or a fourth decimal (engine/units: 0.9997x against
  // 1.0000x in one clean-clone run), so every form is right.
  EXPECT_TRUE(
      std::regex_search(f.out, std::regex(R"(work: median speedup \d\.\d{2,4}x \(90% confidence sequence .* 12 )"
                                          R"(rounds\) is not shown to meet the required 1\.0{2,4}x: unresolved; )")))
      << f.out;
  EXPECT_NE(f.out.find("work: still unresolved after 12 rounds, the most [run] max_rounds allows"), std::string::npos)
      << f.out;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["workloads"][1]["samples"].size(), 26u);  // (1 + 12 rounds) x 2 contenders
  EXPECT_EQ(results["verdict"]["checks"][0]["state"], "unresolved");
}

// A clearly faster candidate resolves in the minimum rounds: no round is added.
TEST(RunE2E, AResolvedRunStopsAtItsMinimumRounds) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  // 300 ms against 5 ms: the candidate loses a round only if a 5 ms sleep is delayed by more
  // than 295 ms, which a loaded runner does not do (60 ms lost one round in a run at load 17).
  const auto spec = WriteRunSpec(dir, {"--sleep-ms", "300", "--print", "same"}, {"--sleep-ms", "5", "--print", "same"},
                                 "max_rounds = 30");
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("work: every check resolved after 7 rounds (between 7 and 30 allowed)"), std::string::npos)
      << f.out;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["workloads"][1]["samples"].size(), 16u);
}

// A miss no round can undo (an exact counter, one object more per run) beside a claim no round
// can settle (the alternating candidate above): the run exits 1 whatever the claim shows, so the
// rounds stop at the minimum and the report says why; --keep-measuring adds them to the cap.
TEST(RunE2E, ASettledMissStopsTheRoundsAtTheMinimumUnlessKeepMeasuring) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  const std::string counter = (dir.path() / "candidate-executions").string();
  const auto spec = WriteRunSpec(
      dir, {"--sleep-ms", "12", "--print", "same", "--write-env", "PERFENGINE_COUNTERS", "objects 1000 objects"},
      {"--sleep-ms-alternating", "2", "40", counter, "--print", "same", "--write-env", "PERFENGINE_COUNTERS",
       "objects 1001 objects"},
      "max_rounds = 12",
      "min_speedup = 1.0\n\n[counters.objects]\nunit = \"objects\"\nexact = true\n\n[thresholds.counters]\n"
      "objects = 1.0\n");
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("rounds stopped after 7 of up to 12, as a miss no round can undo fixes the exit code at 1 "
                       "whatever the unresolved checks show (work: objects ratio 1.001x (candidate 1001 objects, "
                       "baseline 1000 objects) is above the allowed 1.000x (over by 0.1%)); --keep-measuring measures "
                       "them to max_rounds"),
            std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("work: still unresolved after 7 rounds of up to 12; more could not change the exit code"),
            std::string::npos)
      << f.out;
  auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["workloads"][1]["samples"].size(), 16u);  // (1 + 7 rounds) x 2 contenders
  EXPECT_NE(results["rounds_stopped"], "");

  const Finished kept = RunPerfengine({"run", spec.string(), "--keep-measuring", "--json", json.string()}, dir.path());
  EXPECT_EQ(kept.exit, 1) << kept.out << kept.err;
  EXPECT_EQ(kept.out.find("rounds stopped"), std::string::npos) << kept.out;
  EXPECT_NE(kept.out.find("work: still unresolved after 12 rounds, the most [run] max_rounds allows"),
            std::string::npos)
      << kept.out;
  results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["workloads"][1]["samples"].size(), 26u);  // (1 + 12 rounds) x 2 contenders
  EXPECT_EQ(results["rounds_stopped"], "");
}

// Every slow phase says what the wait is for in a CI log (stderr not a terminal: plain lines, no
// redraws): the git builds, the instruction counts after the rounds, the profiles of a miss
// (issue 42: five minutes of counting printed nothing). Each step's line and ETA is rate-limited
// here; their text is ProgressTest's and the collaborators' tests'.
TEST(RunE2E, BuildsCountsAndProfilesAreAnnouncedInACiLog) {
  TempDir dir;
  const fs::path repo = dir.path() / "repo";
  fs::create_directories(repo);
  std::ofstream(repo / "README") << "a revision to build\n";
  const std::string git =
      "git -C '" + repo.string() + "' -c user.name=perfengine -c user.email=test@perfengine -c commit.gpgsign=false ";
  ASSERT_EQ(std::system((git + "init -q && " + git + "add README && " + git + "commit -q -m one").c_str()), 0);
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\ngit = \"HEAD\"\nrepo = \"repo\"\nbuild = [\"true\"]\nargv = "
                      << RunQuoted({"--print", "same"}) << "\n\n"
                      << "[contenders.candidate]\ngit = \"HEAD\"\nrepo = \"repo\"\nbuild = [\"true\"]\nargv = "
                      << RunQuoted({"--busy-ms", "30", "--print", "same"}) << "\n\n"
                      << "[workloads.work]\n\n[thresholds]\nmax_instructions_ratio = 1.01\n";
  const Finished f = RunPerfengine({"run", spec.string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.err.find("perfengine: building from git: baseline at HEAD, candidate at HEAD (each commit built once, "
                       "then cached)\n"),
            std::string::npos)
      << f.err;
  EXPECT_NE(f.err.find("perfengine: counting: instructions (2 runs, one per count, contender and workload)\n"),
            std::string::npos)
      << f.err;
  EXPECT_NE(f.err.find("perfengine: profiling: where the extra time went in work (4 runs; a callgrind run takes "
                       "many times a timed one)\n"),
            std::string::npos)
      << f.err;
  EXPECT_EQ(f.err.find('\r'), std::string::npos) << f.err;
}

TEST(RunE2E, TooFewRoundsToResolveAreRejectedBeforeAnyWork) {
  TempDir dir;
  const auto spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 5\n\n[contenders.baseline]\nargv = " << RunQuoted({"--print", "x"})
                      << "\n\n[contenders.candidate]\nargv = " << RunQuoted({"--print", "x"})
                      << "\n\n[workloads.work]\n\n[thresholds]\nmax_slowdown = 1.02\n";
  Finished f = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err, spec.string() +
                       ":13:16: max_slowdown at 95% confidence needs at least 7 rounds to be resolved either way, and "
                       "this run takes at most 5; raise [run] rounds or set [run] max_rounds\n");
  const auto ok = WriteRunSpec(dir, {"--print", "same"}, {"--print", "same"});
  f = RunPerfengine({"run", ok.string(), "--rounds", "3"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: --rounds: min_speedup at 95% confidence needs at least 7 rounds to be resolved either "
            "way, and this run takes at most 3; raise [run] rounds or set [run] max_rounds\n");
}

TEST(RunE2E, DifferentOutputsFailParityAndShowTheDifference) {
  TempDir dir;
  const auto spec = WriteRunSpec(dir, {"--print", "alpha", "--print", "beta"}, {"--print", "alpha", "--print", "BETA"});
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("work: contender 'candidate' output differs from baseline's"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("first difference at line 2 of 2 vs 2"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("candidate: BETA"), std::string::npos) << f.out;
}

TEST(RunE2E, CrashIsARunFailureWithTheStderrTail) {
  TempDir dir;
  const auto spec =
      WriteRunSpec(dir, {"--print", "same"}, {"--stderr", "parser exploded at byte 7", "--signal", "SIGSEGV"});
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("work: contender 'candidate' was killed by signal 11 (Segmentation fault)"), std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("parser exploded at byte 7"), std::string::npos) << f.out;
}

TEST(RunE2E, NonZeroExitIsARunFailure) {
  TempDir dir;
  const auto spec = WriteRunSpec(dir, {"--print", "same"}, {"--print", "same", "--exit", "3"});
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("work: contender 'candidate' exited with status 3"), std::string::npos) << f.out;
}

TEST(RunE2E, HangTimesOutAndLeavesNoProcessBehind) {
  TempDir dir;
  const auto log = dir.path() / "log";
  const auto pidfile = dir.path() / "grandchild.pid";
  const auto spec = WriteRunSpec(dir, {"--print", "same"},
                                 {"--log", log.string(), "hanger", "--spawn-child-hang", pidfile.string(), "--hang"},
                                 "timeout = 0.5");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("work: contender 'candidate' timed out after 0.5 s; its process group was killed"),
            std::string::npos)
      << f.out;
  const auto lines = ReadLog(log);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(IsAliveMentioning(lines[0].pid, log.string()));
  const pid_t grandchild = std::stoi(ReadAll(pidfile));
  EXPECT_FALSE(IsAliveMentioning(grandchild, log.string())) << "grandchild " << grandchild << " outlived the run";
}

TEST(RunE2E, TheFirstRunnerAlternates) {
  TempDir dir;
  const auto log = dir.path() / "log";
  const auto spec = WriteRunSpec(dir, {"--log", log.string(), "B", "--print", "same"},
                                 {"--log", log.string(), "C", "--print", "same"}, "", "");
  const Finished f = RunPerfengine({"run", spec.string(), "--rounds", "4", "--warmup-rounds", "1"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  // Only the workload runs log (startup runs print the version): parity B C, then 5 rounds.
  std::string order;
  for (const auto& l : ReadLog(log)) order += l.tag;
  EXPECT_EQ(order,
            "BC"
            "BC"
            "CB"
            "BC"
            "CB"
            "BC");
}

TEST(RunE2E, InterruptKillsChildrenMarksResultsIncompleteAndExits130) {
  TempDir dir;
  const auto log = dir.path() / "log";
  const auto json = dir.path() / "results.json";
  const auto spec = WriteRunSpec(dir, {"--log", log.string(), "B", "--sleep-ms", "400", "--print", "same"},
                                 {"--log", log.string(), "C", "--sleep-ms", "400", "--print", "same"});
  Running run({"run", spec.string(), "--json", json.string()}, dir.path());
  // Interrupt once the timed rounds are under way (parity logged two lines).
  for (int i = 0; i < 1200 && ReadLog(log).size() < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(ReadLog(log).size(), 4u);
  ::kill(run.pid(), SIGINT);
  const Finished f = run.Wait();
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
  EXPECT_NE(f.out.find("INTERRUPTED"), std::string::npos) << f.out;
  for (const auto& l : ReadLog(log)) EXPECT_FALSE(IsAliveMentioning(l.pid, log.string())) << l.tag << " " << l.pid;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["complete"], false);
  EXPECT_EQ(results["verdict"]["exit"], "interrupted");
}

TEST(RunE2E, SpecErrorsArePositionedAndExitTwo) {
  TempDir dir;
  const auto spec = dir.path() / "bad.toml";
  std::ofstream(spec) << "[run]\nroundz = 3\n";
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  // Every mistake, in file order: this file also lacks contenders and workloads.
  EXPECT_EQ(f.err, spec.string() +
                       ":1:1: the spec declares no contenders: add [contenders.NAME] tables (only "
                       "perfengine generate reads a spec without them)\n" +
                       spec.string() + ":1:1: the spec declares no workloads: add [workloads.NAME] tables\n" +
                       spec.string() + ":2:1: unknown key 'roundz' in [run] (did you mean 'rounds'?)\n");
  EXPECT_EQ(f.out, "");
}

TEST(RunE2E, ContenderOverrideReplacesTheProgram) {
  TempDir dir;
  const auto spec = WriteRunSpec(dir, {"--print", "same"}, {"--print", "same"});
  const Finished f = RunPerfengine({"run", spec.string(), "--contender", "candidate=/no/such/bazel-diff"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(
      f.err,
      "perfengine: --contender candidate: program '/no/such/bazel-diff' not found (looked for /no/such/bazel-diff)\n");
}

TEST(RunE2E, ValidateAndListAndHelp) {
  TempDir dir;
  const auto spec = WriteRunSpec(dir, {"--print", "same"}, {"--print", "same"});
  Finished f = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.err;
  EXPECT_EQ(f.out, spec.string() + ": ok (2 contenders, 2 workloads; baseline 'baseline', candidate 'candidate')\n");
  f = RunPerfengine({"list", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.err;
  EXPECT_NE(f.out.find("work\n    does the work\n"), std::string::npos) << f.out;
  for (const char* sub : {"run", "validate", "list", "generate"}) {
    f = RunPerfengine({sub, "--help"}, dir.path());
    EXPECT_EQ(f.exit, 0) << sub;
    EXPECT_NE(f.out.find("Usage:"), std::string::npos) << sub << f.out;
  }
  f = RunPerfengine({"run"}, dir.path());
  EXPECT_EQ(f.exit, 2);
}

}  // namespace
}  // namespace pe::e2e
