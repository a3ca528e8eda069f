// Hardening (issue 26) of the command line and the history, end to end: the real binary on
// environment values, paths and spec text that once passed a regression, cost a whole run or
// reached the terminal raw.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string Stub() { return nlohmann::json(STUB_CONTENDER).dump(); }

// No thresholds unless given: most of these tests are about inputs, not verdicts.
fs::path WriteSpec(const TempDir& dir, const std::string& candidate_args = "\"--print\", \"same\"",
                   const std::string& extra = "") {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = [" << Stub()
                      << ", \"--print\", \"same\"]\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = [" << Stub() << ", " << candidate_args
                      << "]\n\n"
                      << "[workloads.work]\n"
                      << extra;
  return spec;
}

// A regression that does not depend on timing: the candidate's peak RSS is ~64 MiB above the
// baseline's few, against a bar of 1.5x.
fs::path WriteRegressingSpec(const TempDir& dir) {
  return WriteSpec(dir, "\"--alloc-mb\", \"64\", \"--print\", \"same\"", "\n[thresholds]\nmax_rss_ratio = 1.5\n");
}

// Sets an environment variable for one run of the binary; unset (not empty) when `value` is null.
Finished RunWithEnv(const char* name, const char* value, const std::vector<std::string>& args, const fs::path& dir) {
  if (value)
    ::setenv(name, value, 1);
  else
    ::unsetenv(name);
  Finished f = RunPerfengine(args, dir);
  ::unsetenv(name);
  return f;
}

// The GitHub expression `${{ contains(labels, 'accept') }}` is "false" without the label; that
// value once accepted every regression.
TEST(CliE2E, AcceptRegressionFalseValuesStillFailTheGate) {
  TempDir dir;
  const auto spec = WriteRegressingSpec(dir);
  for (const char* value : {"false", "False", "no", "off", "0", ""}) {
    const Finished f = RunWithEnv("PERFENGINE_ACCEPT_REGRESSION", value, {"run", spec.string(), "-q"}, dir.path());
    EXPECT_EQ(f.exit, 1) << "PERFENGINE_ACCEPT_REGRESSION=" << value << "\n" << f.out << f.err;
    EXPECT_NE(f.out.find("FAIL: 1 threshold missed"), std::string::npos) << value << "\n" << f.out;
  }
}

TEST(CliE2E, AcceptRegressionTrueValuesAccept) {
  TempDir dir;
  const auto spec = WriteRegressingSpec(dir);
  for (const char* value : {"TRUE", "yes", "On"}) {
    const Finished f = RunWithEnv("PERFENGINE_ACCEPT_REGRESSION", value, {"run", spec.string(), "-q"}, dir.path());
    EXPECT_EQ(f.exit, 0) << value << "\n" << f.out << f.err;
    EXPECT_NE(f.out.find("ACCEPTED: 1 threshold missed, accepted by PERFENGINE_ACCEPT_REGRESSION"), std::string::npos)
        << f.out;
  }
}

TEST(CliE2E, AcceptRegressionOtherValuesAreRefusedBeforeAnyRound) {
  TempDir dir;
  const auto spec = WriteRegressingSpec(dir);
  for (const char* value : {"bogus", "n"}) {
    const Finished f = RunWithEnv("PERFENGINE_ACCEPT_REGRESSION", value, {"run", spec.string(), "-q"}, dir.path());
    EXPECT_EQ(f.exit, 2) << value << "\n" << f.out << f.err;
    EXPECT_EQ(f.err, std::string("perfengine: PERFENGINE_ACCEPT_REGRESSION is '") + value +
                         "': set it to 1, true, yes or on to accept a missed threshold, or to 0, false, no, off or "
                         "nothing to gate as usual\n");
    EXPECT_EQ(f.out, "");
  }
}

// A database that cannot be opened was found only after the last round.
TEST(CliE2E, AnUnusableHistoryDatabaseFailsBeforeAnyRound) {
  TempDir dir;
  const fs::path log = dir.path() / "ran.log";
  const auto spec =
      WriteSpec(dir, "\"--log\", " + nlohmann::json(log.string()).dump() + ", \"ran\", \"--print\", \"same\"");
  std::ofstream(dir.path() / "file") << "not a directory\n";
  const std::string history = (dir.path() / "file" / "history.sqlite").string();
  const Finished f = RunPerfengine({"run", spec.string(), "-q", "--record", "--history", history}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err, "perfengine: --record: " + history + ": cannot open: unable to open database file\n");
  EXPECT_FALSE(fs::exists(log));
  EXPECT_EQ(f.out, "");
}

// Terminal control sequences in a spec's text: an OSC 52 clipboard write, a colour and a
// right-to-left override.
constexpr const char* kHostile = R"(\u001b]52;c;aGk=\u0007a\u001b[31mb\u202ec)";

TEST(CliE2E, ListPrintsSpecTextWithoutControlSequences) {
  TempDir dir;
  const auto spec = WriteSpec(dir, "\"--print\", \"same\"",
                              std::string("description = \"") + kHostile + "\"\nargs = [\"" + kHostile + "\"]\n");
  const Finished f = RunPerfengine({"list", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.out,
            "startup (not gated)\n    each contender's startup command: the fixed cost of launching it\nwork\n    "
            "?]52;c;aGk=?a?[31mb?c\n");
}

// A sweep's workload names are built from its values: they reached the terminal raw.
TEST(CliE2E, ListPrintsSweepDerivedWorkloadNamesWithoutControlSequences) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[contenders.baseline]\nargv = [\"true\"]\n\n[contenders.candidate]\nargv = [\"true\"]\n\n"
                      << "[workloads.work]\nargs = [\"{where}\"]\n\n[workloads.work.sweep]\nwhere = [\"" << kHostile
                      << "\\rd\", \"plain\"]\n";
  const Finished f = RunPerfengine({"list", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.out,
            "startup (not gated)\n    each contender's startup command: the fixed cost of launching it\n"
            "work[where=?]52;c;aGk=?a?[31mb?c?d]\nwork[where=plain]\n");
}

TEST(CliE2E, ValidatePrintsSpecTextWithoutControlSequences) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[contenders.baseline]\nargv = [\"true\"]\nstartup = [\"false\", \"" << kHostile << "\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"true\"]\nstartup = [\"true\"]\n\n"
                      << "[workloads.work]\nargs = []\n";
  const Finished f = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err, spec.string() +
                       ":3:12: contender 'baseline': its startup command 'false ?]52;c;aGk=?a?[31mb?c' exited with "
                       "status 1; set startup = [...] to a command that exits 0 quickly\n");
}

fs::path RecordOneRun(const TempDir& dir, const fs::path& spec, const fs::path& history) {
  const Finished f = RunPerfengine({"run", spec.string(), "-q", "--record", "--history", history.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  return history;
}

std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// `history` once opened the database to write: an empty file became a database.
TEST(CliE2E, HistoryNeverTurnsAFileIntoADatabase) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path db_dir = dir.path() / "db";
  fs::create_directories(db_dir);
  const fs::path empty = db_dir / "history.sqlite";
  std::ofstream{empty};
  const Finished f = RunPerfengine({"history", spec.string(), "--history", empty.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err, "perfengine: " + empty.string() +
                       ": not a perfengine history database (perfengine run SPEC --record writes one)\n");
  EXPECT_EQ(fs::file_size(empty), 0u);
  EXPECT_EQ(Listing(db_dir), std::vector<std::string>{"history.sqlite"});
}

// Reading leaves the database file as it was and takes no lock file.
TEST(CliE2E, HistoryReadsWithoutWriting) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path db = RecordOneRun(dir, spec, dir.path() / "db" / "history.sqlite");
  fs::remove(dir.path() / "db" / "history.sqlite.open-lock");
  struct stat before {};
  ASSERT_EQ(::stat(db.c_str(), &before), 0);
  const std::string bytes = ReadAll(db);
  const Finished f = RunPerfengine({"history", spec.string(), "--history", db.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  struct stat after {};
  ASSERT_EQ(::stat(db.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(ReadAll(db), bytes);
  EXPECT_FALSE(fs::exists(dir.path() / "db" / "history.sqlite.open-lock"));
}

// Opening a FIFO blocks until something writes into it: `history --history FIFO` hung. Each
// command gets 10 s, then is killed (a hang fails the test instead of stopping the suite).
TEST(CliE2E, AHistoryDatabaseThatIsAFifoIsRefusedAtOnce) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path fifo = dir.path() / "history.sqlite";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string refused =
      fifo.string() + ": is a FIFO, not a regular file; give the path of a history database file\n";
  for (const auto& [args, err] :
       {std::pair{std::vector<std::string>{"history", spec.string(), "--history", fifo.string()},
                  "perfengine: " + refused},
        std::pair{std::vector<std::string>{"run", spec.string(), "-q", "--record", "--history", fifo.string()},
                  "perfengine: --record: " + refused}}) {
    Running command(args, dir.path());
    for (int i = 0; i < 200 && IsAlive(command.pid()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (IsAlive(command.pid())) ::kill(command.pid(), SIGKILL);
    const Finished f = command.Wait();
    EXPECT_EQ(f.exit, 2) << args[0] << "\n" << f.out << f.err;
    EXPECT_EQ(f.err, err) << args[0];
    EXPECT_EQ(f.out, "") << args[0];
  }
  EXPECT_EQ(Listing(dir.path()),
            (std::vector<std::string>{"history.sqlite", "perfengine.err", "perfengine.out", "spec.toml"}));
}

TEST(CliE2E, HistoryRefusesAnUnknownFigureWithASuggestion) {
  TempDir dir;
  // Both contenders work 20 ms after start-up: the recorded figures, which the refusal lists in
  // full, then include the CPU-time ratios and the startup-adjusted speed-up in every run. A stub
  // that only prints records the startup-adjusted figures only when its work happens to clear the
  // start-up noise (engine/analysis LogicFloor), so its list varied; a full ctest once failed on it.
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = [" << Stub() << ", \"--busy-ms\", \"20\"]\n\n"
                      << "[contenders.candidate]\nargv = [" << Stub() << ", \"--busy-ms\", \"20\"]\n\n"
                      << "[workloads.work]\n";
  const fs::path db = RecordOneRun(dir, spec, dir.path() / "history.sqlite");
  Finished f = RunPerfengine({"history", spec.string(), "--history", db.string(), "--figure", "speedpu"}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err,
            "perfengine: --figure: no run recorded 'speedpu' (did you mean 'speedup'?); recorded: speedup, win_rate, "
            "rss_ratio, cpu_ratio, median_round_speedup, median_round_cpu_ratio, baseline.median_wall_s, "
            "baseline.median_cpu_s, baseline.median_max_rss_kib, "
            "candidate.median_wall_s, candidate.median_cpu_s, candidate.median_max_rss_kib, logic_speedup, "
            "median_round_logic_speedup\n");
  EXPECT_EQ(f.out, "");
  f = RunPerfengine({"history", spec.string(), "--history", db.string(), "--figure", "bogus"}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err.rfind("perfengine: --figure: no run recorded 'bogus'; recorded: speedup, ", 0), 0u) << f.err;
}

// Counts in the history's lines agree with their nouns.
TEST(CliE2E, HistorySaysOneRunNotOneRuns) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path db = RecordOneRun(dir, spec, dir.path() / "history.sqlite");
  const Finished f = RunPerfengine({"history", spec.string(), "--history", db.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.out.rfind(spec.string() + ": 1 run recorded in " + db.string() +
                            "\n\nfigures: by default those the recorded runs' gates checked on each workload, else "
                            "the speed-up (--figure traces another)\n\nstartup: median_round_speedup over 1 run\n",
                        0),
            0u)
      << f.out;
}

// Issue 42, item 6: history traced the wall-time speed-up whatever the gate checked, and said
// "no change point" after two runs without saying a change point needs four. A spec gated on
// peak RSS alone is traced by its RSS ratio, the threshold that checked it is named, and the
// ungated startup workload falls back to the speed-up and says it is not gated.
TEST(CliE2E, HistoryTracesTheFigureTheRecordedGateCheckedAndSaysHowManyRunsAChangePointNeeds) {
  TempDir dir;
  const auto spec = WriteSpec(dir, "\"--print\", \"same\"", "\n[thresholds]\nmax_rss_ratio = 100\n");
  const fs::path db = dir.path() / "history.sqlite";
  RecordOneRun(dir, spec, db);
  RecordOneRun(dir, spec, db);
  const Finished f = RunPerfengine({"history", spec.string(), "--history", db.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("startup: median_round_speedup over 2 runs\n"
                       "  figure: median per-round speed-up, baseline / candidate wall time: what min_speedup reads; "
                       "higher is better\n"
                       "  not gated: no recorded run checked a threshold on this workload\n"),
            std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("work: rss_ratio over 2 runs\n"
                       "  figure: peak RSS ratio, candidate / baseline: what max_rss_ratio reads; higher is worse\n"
                       "  gated: max_rss_ratio checked it in 2 of 2 runs\n"),
            std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("  no change point sought: 2 runs recorded, and a change point needs at least 4 (2 either "
                       "side)\n"),
            std::string::npos)
      << f.out;
  EXPECT_EQ(f.out.find("work: median_round_speedup"), std::string::npos) << f.out;
}

TEST(CliE2E, QuietRecordsSilently) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path db = dir.path() / "history.sqlite";
  const Finished f = RunPerfengine({"run", spec.string(), "-q", "--record", "--history", db.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.err, "");
  EXPECT_TRUE(fs::exists(db));
}

TEST(CliE2E, AStdoutThatCannotBeWrittenIsExitTwo) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"validate", spec.string()}, {"list", spec.string()}, {"run", spec.string(), "-q"}, {"--help"}}) {
    const Finished f = Running(args, dir.path(), "/dev/full").Wait();  // writes succeed into a buffer, the flush fails
    EXPECT_EQ(f.exit, 2) << args[0] << "\n" << f.err;
    // validate may warn first (this spec gates nothing); the last line is the failed write.
    EXPECT_TRUE(f.err.ends_with("perfengine: standard output: write failed; the output is incomplete\n"))
        << args[0] << "\n"
        << f.err;
  }
}

// A FIFO nobody reads would block or fail the report at the end of the run.
TEST(CliE2E, AReportOntoAFifoIsRefusedBeforeAnyRound) {
  TempDir dir;
  const fs::path log = dir.path() / "ran.log";
  const auto spec =
      WriteSpec(dir, "\"--log\", " + nlohmann::json(log.string()).dump() + ", \"ran\", \"--print\", \"same\"");
  const fs::path fifo = dir.path() / "results.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const Finished f = RunPerfengine({"run", spec.string(), "-q", "--json", fifo.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err, "perfengine: --json " + fifo.string() + ": is a FIFO; give a file path\n");
  EXPECT_FALSE(fs::exists(log));
}

// The exit code said 2 while the table and the Markdown still said PASS.
TEST(CliE2E, AReportLostAtTheEndMakesTheReportsSayTheRunFailed) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  const fs::path md = dir.path() / "report.md";
  const Finished f =
      RunPerfengine({"run", spec.string(), "-q", "--json", "/dev/full", "--markdown", md.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  const std::string why = "--json not written: /dev/full: write failed: No space left on device";
  EXPECT_EQ(f.err, "perfengine: " + why + "\n");
  EXPECT_EQ(f.out.find("PASS"), std::string::npos) << f.out;
  // The lost report is named, then the run's minutes (docs/report.md), then the verdict.
  const std::size_t named = f.out.find("\n  " + why + "\n\n");
  EXPECT_NE(named, std::string::npos) << f.out;
  EXPECT_NE(f.out.find("\nRUN FAILED\n", named), std::string::npos) << f.out;
  const std::string markdown = ReadAll(md);
  EXPECT_EQ(markdown.rfind("### perfengine: RUN FAILED\n", 0), 0u) << markdown;
  EXPECT_NE(markdown.find("**Failing:**\n\n- --json not written: /dev/full: write failed: No space left on device\n"),
            std::string::npos)
      << markdown;
}

TEST(CliE2E, ADirectoryGivenAsTheSpecIsNamedAsOne) {
  TempDir dir;
  for (const std::string command : {"run", "validate", "list"}) {
    const Finished f = RunPerfengine({command, dir.path().string()}, dir.path());
    EXPECT_EQ(f.exit, 2) << command << "\n" << f.out << f.err;
    EXPECT_EQ(f.err, "perfengine: " + dir.path().string() + ": is a directory; give a spec file (TOML)\n") << command;
  }
}

TEST(CliE2E, AShardOutOfRangeSaysWhichNumber) {
  TempDir dir;
  const auto spec = WriteSpec(dir);
  Finished f = RunPerfengine({"run", spec.string(), "--shard", "99999999999999999999/2"}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err,
            "perfengine: --shard: '99999999999999999999/2': K must be a whole number from 1 to 2, not "
            "'99999999999999999999'\n");
  f = RunPerfengine({"run", spec.string(), "--shard", "1/99999999999999999999"}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_EQ(f.err,
            "perfengine: --shard: '1/99999999999999999999': N must be a whole number from 1 to 2147483647, "
            "not '99999999999999999999'\n");
}

}  // namespace
}  // namespace pe::e2e
