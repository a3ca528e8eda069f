// Hardening (issue 14) end to end: the real binary on inputs that once wrapped, escaped the
// scratch directory, replaced files that were not reports, or lost a run's evidence.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string HardeningStub() { return nlohmann::json(STUB_CONTENDER).dump(); }

fs::path WriteHardeningSpec(const TempDir& dir, const std::string& run = "rounds = 2\nwarmup_rounds = 0\n",
                            const std::string& workloads = "[workloads.work]\nargs = [\"--print\", \"same\"]\n") {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\n"
                      << run << "\n[contenders.baseline]\nwritable = [\".\"]\nargv = [" << HardeningStub() << "]\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = [" << HardeningStub() << "]\n\n"
                      << workloads;  // no thresholds: these tests are about inputs and files, not verdicts
  return spec;
}

TEST(HardeningE2E, RoundsThatWouldWrapToZeroAreABadSpecNotAPass) {
  TempDir dir;
  const auto spec = WriteHardeningSpec(dir, "rounds = 4294967296\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err, spec.string() + ":2:10: 'rounds' must be at most 100000, not 4294967296\n");
  EXPECT_EQ(f.out, "");
}

TEST(HardeningE2E, RoundsFlagOutOfRangeIsOneClearLine) {
  TempDir dir;
  const auto spec = WriteHardeningSpec(dir);
  Finished f = RunPerfengine({"run", spec.string(), "--rounds", "0"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "--rounds: must be a whole number from 1 to 100000, not '0'\nRun with --help for more information.\n");
  f = RunPerfengine({"run", spec.string(), "--rounds", "4294967296"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(
      f.err,
      "--rounds: must be a whole number from 1 to 100000, not '4294967296'\nRun with --help for more information.\n");
  f = RunPerfengine({"run", spec.string(), "--scale", "0"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(
      f.err,
      "--scale: must be a number greater than 0 and at most 1000, not '0'\nRun with --help for more information.\n");
}

TEST(HardeningE2E, AnUnknownCommandIsNamed) {
  TempDir dir;
  Finished f = RunPerfengine({"bogus"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: unknown command 'bogus'; the commands are run, init, validate, list, generate, explain, "
            "compare, merge, report, history, bisect, calibrate, completion, man\n");
  f = RunPerfengine({"rn", "x.toml"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(
      f.err,
      "perfengine: unknown command 'rn' (did you mean 'run'?); the commands are run, init, validate, list, generate, "
      "explain, compare, merge, report, history, bisect, calibrate, completion, man\n");
}

// A sweep value of "/../../../planted" once became part of the scratch path, so the run wrote
// and deleted files outside its scratch directory.
TEST(HardeningE2E, SweepValuesNeverLeaveTheScratchDirectory) {
  TempDir dir;
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  const auto spec = WriteHardeningSpec(
      dir, "rounds = 1\nwarmup_rounds = 0\n",
      "[workloads.work]\nargs = [\"--write\", \"{workdir}/mark\", \"{where}\", \"--print\", \"same\"]\n"
      "[workloads.work.sweep]\nwhere = [\"/../../../planted\", \"..\"]\n");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(dir.path())) entries.push_back(e.path().filename().string());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"perfengine.err", "perfengine.out", "spec.toml", "tmp"}));
  EXPECT_TRUE(fs::is_empty(tmp));  // the scratch directory is gone, and nothing beside it
}

// The scratch directories are emptied between executions rather than made again: whatever
// one execution leaves in {workdir} or beside {out} is gone before the next, of either contender.
TEST(HardeningE2E, NothingAnExecutionLeavesInItsScratchReachesTheNext) {
  TempDir dir;
  const auto spec =
      WriteHardeningSpec(dir, "rounds = 3\nwarmup_rounds = 1\n",
                         "[workloads.work]\nargs = [\"--fail-if-exists\", \"{workdir}/mark\", \"--fail-if-exists\", "
                         "\"{out}.part\", \"--write\", \"{workdir}/mark\", \"x\", \"--write\", \"{out}.part\", \"x\", "
                         "\"--print\", \"same\"]\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
}

TEST(HardeningE2E, AReportOverTheSpecOrTwoReportsOnOneFileAreRefused) {
  TempDir dir;
  const auto spec = WriteHardeningSpec(dir);
  const std::string before = ReadAll(spec);
  Finished f = RunPerfengine({"run", spec.string(), "--json", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: --json " + spec.string() + " is the spec file; writing the report there would replace it\n");
  EXPECT_EQ(ReadAll(spec), before);
  const std::string out = (dir.path() / "r.json").string();
  f = RunPerfengine({"run", spec.string(), "--json", out, "--html", out}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: --json " + out + " and --html " + out + " are the same file; give each report its own path\n");
  EXPECT_FALSE(fs::exists(out));
}

// Found before the first round, not after the whole run.
TEST(HardeningE2E, AnUnwritableReportPathFailsBeforeAnyRound) {
  TempDir dir;
  const fs::path log = dir.path() / "ran.log";
  const auto spec = WriteHardeningSpec(dir, "rounds = 2\n",
                                       "[workloads.work]\nargs = [\"--log\", " + nlohmann::json(log.string()).dump() +
                                           ", \"ran\", \"--print\", \"same\"]\n");
  const std::string missing = (dir.path() / "missing" / "report.md").string();
  const Finished f = RunPerfengine({"run", spec.string(), "--markdown", missing}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err, "perfengine: --markdown " + missing + ": cannot create a file in " +
                       (dir.path() / "missing").string() + ": No such file or directory\n");
  EXPECT_FALSE(fs::exists(log));
  EXPECT_EQ(f.out, "");
}

// A write that still fails at the end (here /dev/full) costs neither the other files nor the
// terminal table; the exit is 2 because a report CI asked for is missing.
TEST(HardeningE2E, AFailedReportWriteKeepsTheOtherReportsAndTheTable) {
  TempDir dir;
  const auto spec = WriteHardeningSpec(dir);
  const fs::path json = dir.path() / "r.json";
  const fs::path html = dir.path() / "r.html";
  const Finished f = RunPerfengine(
      {"run", spec.string(), "--markdown", "/dev/full", "--json", json.string(), "--html", html.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("\nwork "), std::string::npos) << f.out;         // the table
  EXPECT_NE(f.out.find("\nRUN FAILED\n"), std::string::npos) << f.out;  // never PASS beside exit 2
  EXPECT_NE(f.err.find("perfengine: --markdown not written: /dev/full: write failed: No space left on device\n"),
            std::string::npos)
      << f.err;
  EXPECT_TRUE(fs::exists(json));
  EXPECT_TRUE(fs::exists(html));
}

TEST(HardeningE2E, ReportsOntoASymlinkOrDeviceWriteThroughAndReplaceNothing) {
  TempDir dir;
  const auto spec = WriteHardeningSpec(dir);
  fs::create_symlink("real.json", dir.path() / "link.json");
  const Finished f = RunPerfengine(
      {"run", spec.string(), "--json", (dir.path() / "link.json").string(), "--markdown", "/dev/null"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.path() / "link.json")));
  EXPECT_NE(ReadAll(dir.path() / "real.json").find("perfengine-results/1"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// `validate` once stopped at the first mistake and never ran anything, so a shell contender's
// default startup command (`sh --version`, which dash rejects) failed only at run time.
TEST(HardeningE2E, ValidateReportsEveryMistakeIncludingStartupAndGitRevisions) {
  TempDir dir;
  ASSERT_EQ(std::system(("git init -q " + dir.path().string() + " && git -C " + dir.path().string() +
                         " -c user.email=a@b -c user.name=t commit -q --allow-empty -m one")
                            .c_str()),
            0);
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[contenders.baseline]\nargv = [\"sh\", \"-c\", \"echo same\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"./tool\"]\ngit = \"no-such-revision\"\n\n"
                      << "[contenders.third]\nargv = [\"true\"]\nstartup = [\"false\"]\n\n"
                      << "[workloads.work]\nargs = []\n";
  const Finished f = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  const std::string s = spec.string();
  EXPECT_EQ(f.err, s +
                       ":2:9: contender 'baseline': its startup command 'sh --version' exited with status 2 "
                       "(sh: 0: Illegal option --); set startup = [...] to a command that exits 0 quickly\n" +
                       s + ":6:7: contender 'candidate': git revision 'no-such-revision' does not exist in " +
                       dir.path().string() + "\n" + s +
                       ":10:12: contender 'third': its startup command 'false' exited with status 1; set startup = "
                       "[...] to a command that exits 0 quickly\n");
  EXPECT_EQ(f.out, "");
}

// "Stops promptly", for a suite that must pass on a loaded 2-core runner: several times what a
// loaded machine needs, and still under what the bugs below took on a quiet one.
constexpr double kPromptly = 15.0;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A large fixture once took 22-24 s to stop on Ctrl-C: generators never look at signals.
TEST(HardeningE2E, CtrlCDuringFixtureGenerationStopsAtOnce) {
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const auto spec = WriteHardeningSpec(dir, "rounds = 1\nscale = 50\n",
                                       "[workloads.work]\nargs = [\"--print\", \"{fixture}\"]\n"
                                       "fixture = { generator = \"hash_pair\", targets = 150000 }\n");
  Running run({"run", spec.string(), "--cache-dir", cache.string()}, dir.path());
  // Wait until the generator is writing its temporary directory.
  bool started = false;
  for (int i = 0; i < 400 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache, ec))
      started |= e.path().filename().string().rfind(".tmp-", 0) == 0;
  }
  ASSERT_TRUE(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  ::kill(run.pid(), SIGINT);
  const Finished f = run.Wait();
  // The bug took 22-24 s on a quiet machine; the bound is loose enough for a loaded one (the
  // fix stops in well under a second when quiet) and still fails the old behaviour.
  EXPECT_LT(SecondsSince(start), kPromptly);
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
  EXPECT_NE(f.out.find("INTERRUPTED"), std::string::npos) << f.out;
}

// A contender once wrote its answer into {fixture} and read it back later (a persistent 7.29x
// "speed-up"). Permission bits do not stop root, nor an owner who makes the file writable again,
// so a write during the run itself stops the run and names who wrote what. The candidate here
// does what such a contender would: makes the fixture writable, plants a file, answers.
fs::path WriteFixtureWriterSpec(const TempDir& dir) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\n"
                      << "[contenders.baseline]\nargv = [\"/bin/sh\", \"-c\", \"echo same\"]\nstartup = [\"true\"]\n"
                      << "[contenders.candidate]\nargv = [\"/bin/sh\", \"-c\", "
                         "\"if ! test -f {fixture}/answer; then chmod -R u+w {fixture}; echo same > {fixture}/answer; "
                         "fi; echo same\"]\nstartup = [\"true\"]\n"
                      << "[workloads.work]\nfixture = { generator = \"hash_pair\", targets = 60 }\n";
  return spec;
}

// In its sandbox a contender cannot write into its fixture (docs/threat-model.md).
TEST(HardeningE2E, AContenderCannotWriteIntoItsFixture) {
  if (std::system("unshare --user --mount true 2>/dev/null") != 0) GTEST_SKIP() << "this kernel refuses namespaces";
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const Finished f =
      RunPerfengine({"run", WriteFixtureWriterSpec(dir).string(), "--cache-dir", cache.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  for (const auto& entry : fs::recursive_directory_iterator(cache)) {
    EXPECT_NE(entry.path().filename(), "answer") << entry.path();
  }
}

// Where the kernel refuses the sandbox, the fixture's watch still catches the writer.
TEST(HardeningE2E, AContenderThatWritesIntoItsFixtureFailsTheRunNamingTheFile) {
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const std::optional<Finished> unsandboxed = RunPerfengineUnsandboxed(
      {"run", WriteFixtureWriterSpec(dir).string(), "--cache-dir", cache.string()}, dir.path());
  if (!unsandboxed) GTEST_SKIP() << "this machine cannot refuse the sandbox for a test";
  const Finished& f = *unsandboxed;
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  const std::string all = f.out + f.err;
  EXPECT_NE(all.find("candidate"), std::string::npos) << all;
  EXPECT_NE(all.find("wrote into the fixture "), std::string::npos) << all;
  EXPECT_NE(all.find(": created 'answer'. Fixtures are read-only to contenders"), std::string::npos) << all;
  // The baseline, which only reads, ran first and was not blamed.
  EXPECT_EQ(all.find("contender 'baseline'"), std::string::npos) << all;
}

// SIGTERM during a million-resample analysis once took 53 s and then printed PASS, exit 0.
TEST(HardeningE2E, SigtermDuringTheAnalysisExits130Promptly) {
  TempDir dir;
  const fs::path log = dir.path() / "runs.log";
  const int rounds = 150;
  const auto spec = WriteHardeningSpec(
      dir, "rounds = " + std::to_string(rounds) + "\nwarmup_rounds = 0\nbootstrap_resamples = 1000000\n",
      "[workloads.work]\nargs = [\"--log\", " + nlohmann::json(log.string()).dump() +
          ", \"w\", \"--print\", \"same\"]\n");
  Running run({"run", spec.string()}, dir.path());
  const std::size_t all_runs = 2 + 2 * rounds;  // parity, then the rounds
  for (int i = 0; i < 1200 && ReadLog(log).size() < all_runs; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(ReadLog(log).size(), all_runs);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // into the bootstrap
  const auto start = std::chrono::steady_clock::now();
  ::kill(run.pid(), SIGTERM);
  const Finished f = run.Wait();
  EXPECT_LT(SecondsSince(start), kPromptly);  // the bug: 53 s on a quiet machine
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
  EXPECT_NE(f.out.find("INTERRUPTED"), std::string::npos) << f.out;
  EXPECT_EQ(f.out.find("PASS"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace pe::e2e
