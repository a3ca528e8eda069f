// perfengine-gbench-worker (workers/gbench/) driven as perfengine drives a worker, through
// WorkerProcess and the real spawner, over a real google/benchmark binary built from Debian's
// libbenchmark-dev (tests/stub/gbench/). Figures are checked for shape and against what the
// benchmark itself must cost (1 ms of sleep), never against another timed run. Then the
// adapter's pure parts (workers/gbench/gbench_adapter.h) on exact text.
#include "workers/gbench/gbench_adapter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/worker/worker_process.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::gbench {
namespace {

class GbenchAdapterTest : public ::testing::Test {
 protected:
  runner::Command AdapterCommand(const std::string& binary) {
    runner::Command command;
    command.argv = {GBENCH_WORKER, "--", binary};
    command.stderr_path = dir_ / "stderr";
    command.env["TMPDIR"] = (dir_ / "tmp").string();
    std::filesystem::create_directories(dir_ / "tmp");
    return command;
  }

  void StartGood(worker::WorkerProcess& worker) { ASSERT_EQ(worker.Start(AdapterCommand(GBENCH_STUB), settings_), ""); }

  // The adapter's group is gone, nothing we started is left, and its scratch directory too.
  void ExpectNothingLeft(pid_t pgid) {
    EXPECT_EQ(testing::CountInGroup(pgid), 0);
    EXPECT_EQ(testing::CountLeftOver(), 0);
    EXPECT_TRUE(std::filesystem::is_empty(dir_ / "tmp"));
  }

  testing::TempDir dir_;
  worker::WorkerSettings settings_{.start_timeout_s = 30, .request_timeout_s = 30, .quit_grace_s = 5};
};

TEST_F(GbenchAdapterTest, TheHelloNamesEveryBenchmarkOfTheBinaryInItsOrder) {
  worker::WorkerProcess worker("baseline");
  StartGood(worker);
  // BM_tmpl<int> mapped: '<' and '>' are outside the protocol's name grammar.
  EXPECT_EQ(
      worker.hello(),
      (worker::Hello{
          1, {"BM_sum", "BM_sum+", "BM_error", "BM_sleep/real_time", "BM_tmpl_int_", "BM_count", "BM_abort"}, {}}));
  const pid_t pgid = worker.pid();
  EXPECT_EQ(worker.Quit(), "");
  ExpectNothingLeft(pgid);
}

TEST_F(GbenchAdapterTest, ABatchIsTheIterationsAskedForWithPositiveTimes) {
  worker::WorkerProcess worker("baseline");
  StartGood(worker);
  const pid_t pgid = worker.pid();
  for (const std::int64_t iterations : {1, 2000}) {
    const worker::BatchResult result = worker.Run("BM_sum", iterations);
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.batch.name, "BM_sum");
    EXPECT_EQ(result.batch.iterations, iterations);
    EXPECT_GT(result.batch.thread_cpu_ns, 0);
    EXPECT_GT(result.batch.wall_ns, 0);
    // google/benchmark has one CPU clock: both CPU fields carry it.
    EXPECT_EQ(result.batch.process_cpu_ns, result.batch.thread_cpu_ns);
    EXPECT_EQ(result.batch.digest, "-");
  }
  EXPECT_EQ(worker.Quit(), "");
  ExpectNothingLeft(pgid);
}

TEST_F(GbenchAdapterTest, MillisecondFiguresAreGivenInNanoseconds) {
  worker::WorkerProcess worker("baseline");
  StartGood(worker);
  // 1 ms of sleep per iteration, reported by google/benchmark in ms: 20 iterations are at
  // least 20 ms of wall time, whatever the machine's load.
  const worker::BatchResult result = worker.Run("BM_sleep/real_time", 20);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.batch.iterations, 20);
  EXPECT_GE(result.batch.wall_ns, 20'000'000);
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(GbenchAdapterTest, WithoutAnIterationCountABatchOfOneIsTheFiguresOfALongerRun) {
  // google/benchmark 1.7.1 takes no count: the adapter asks for a run of at least 10 ms and
  // replies with its per-iteration figures. BM_count logs each run's count; the last is the
  // run reported, thousands of iterations of about a microsecond, not one.
  runner::Command command = AdapterCommand(GBENCH_STUB);
  command.env["GBENCH_STUB_LOG"] = (dir_ / "counts").string();
  worker::WorkerProcess worker("baseline");
  ASSERT_EQ(worker.Start(command, settings_), "");
  const worker::BatchResult result = worker.Run("BM_count", 1);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.batch.iterations, 1);
  EXPECT_LT(result.batch.thread_cpu_ns, 5'000'000);  // one iteration's share, not the run's 10 ms
  std::ifstream log(dir_ / "counts");
  std::int64_t count = 0;
  std::int64_t last = 0;
  while (log >> count) last = count;
  EXPECT_GE(last, 100);
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(GbenchAdapterTest, ANameWithARegexMetacharacterSelectsThatBenchmarkAlone) {
  worker::WorkerProcess worker("baseline");
  StartGood(worker);
  // Unescaped, the filter ^BM_sum+$ selects BM_sum, and the JSON has no run of BM_sum+.
  const worker::BatchResult result = worker.Run("BM_sum+", 10);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.batch.iterations, 10);
  // A mapped name runs the benchmark it came from.
  const worker::BatchResult mapped = worker.Run("BM_tmpl_int_", 10);
  ASSERT_TRUE(mapped.ok()) << mapped.error;
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(GbenchAdapterTest, ABenchmarkThatReportsAnErrorIsAFailedReplyAndTheAdapterStaysUp) {
  worker::WorkerProcess worker("candidate");
  StartGood(worker);
  EXPECT_EQ(worker.Run("BM_error", 5).error,
            "worker 'candidate', benchmark 'BM_error': the benchmark failed: 'fixture missing: data.json'");
  EXPECT_TRUE(worker.alive());
  const worker::BatchResult after = worker.Run("BM_sum", 10);
  EXPECT_TRUE(after.ok()) << after.error;
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(GbenchAdapterTest, ABinaryThatDiesIsAFailedReplyAndTheAdapterStaysUp) {
  worker::WorkerProcess worker("candidate");
  StartGood(worker);
  const pid_t pgid = worker.pid();
  const std::string error = worker.Run("BM_abort", 1).error;
  EXPECT_EQ(error.rfind("worker 'candidate', benchmark 'BM_abort': the benchmark failed: 'the benchmark binary was "
                        "killed by SIGABRT; its stderr ends: ",
                        0),
            0u)
      << error;
  EXPECT_TRUE(worker.alive());
  const worker::BatchResult after = worker.Run("BM_sum", 10);
  EXPECT_TRUE(after.ok()) << after.error;
  EXPECT_EQ(worker.Quit(), "");
  ExpectNothingLeft(pgid);
}

TEST_F(GbenchAdapterTest, AMissingBinaryIsAClearStartError) {
  worker::WorkerProcess worker("baseline");
  EXPECT_EQ(worker.Start(AdapterCommand((dir_ / "no_such_benchmarks").string()), settings_),
            "worker 'baseline', at start: exited with status 2 before its hello; its stderr ends: "
            "perfengine-gbench-worker: cannot run '" +
                (dir_ / "no_such_benchmarks").string() + "': No such file or directory");
  EXPECT_EQ(testing::CountLeftOver(), 0);
}

TEST_F(GbenchAdapterTest, NoBinaryAfterTheSeparatorIsAUsageError) {
  worker::WorkerProcess worker("baseline");
  runner::Command command = AdapterCommand(GBENCH_STUB);
  command.argv = {GBENCH_WORKER, "--"};
  EXPECT_EQ(worker.Start(command, settings_),
            "worker 'baseline', at start: exited with status 2 before its hello; its stderr ends: "
            "perfengine-gbench-worker: no benchmark binary after '--' (usage: perfengine-gbench-worker [--list] -- "
            "BENCHMARK_BINARY [ITS FLAGS...])");
}

TEST_F(GbenchAdapterTest, ABinaryThatTakesAnIterationCountRunsExactlyN) {
  // google/benchmark 1.8+ takes --benchmark_min_time=Nx: the fake reports 1 us of CPU and 2 us
  // of real time per iteration, so the figures are exact.
  worker::WorkerProcess worker("baseline");
  ASSERT_EQ(worker.Start(AdapterCommand(FAKE_GBENCH_NX), settings_), "");
  EXPECT_EQ(worker.hello(), (worker::Hello{1, {"BM_exact", "BM_short"}, {}}));
  const worker::BatchResult result = worker.Run("BM_exact", 1000);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.batch.iterations, 1000);
  EXPECT_EQ(result.batch.thread_cpu_ns, 1'000'000);
  EXPECT_EQ(result.batch.process_cpu_ns, 1'000'000);
  EXPECT_EQ(result.batch.wall_ns, 2'000'000);
  // A binary that ran another count is a failed reply, not figures for N.
  EXPECT_EQ(worker.Run("BM_short", 10).error,
            "worker 'baseline', benchmark 'BM_short': the benchmark failed: 'google/benchmark ran 9 iterations, asked "
            "for 10'");
  EXPECT_TRUE(worker.Run("BM_exact", 1).ok());
  EXPECT_EQ(worker.Quit(), "");
}

TEST(GbenchAdapter, ProtocolNameMapsEachByteOutsideTheGrammarToAnUnderscore) {
  EXPECT_EQ(ProtocolName("BM_compress/64"), "BM_compress/64");
  EXPECT_EQ(ProtocolName("BM_x/threads:2/real_time"), "BM_x/threads:2/real_time");
  EXPECT_EQ(ProtocolName("BM_tmpl<int, 2>"), "BM_tmpl_int__2_");
}

TEST(GbenchAdapter, MapListingRefusesWhatCannotBeAHello) {
  EXPECT_EQ(MapListing("BM_a\n\nBM_b<int>\n").benchmarks,
            (std::vector<Benchmark>{{"BM_a", "BM_a"}, {"BM_b_int_", "BM_b<int>"}}));
  EXPECT_EQ(MapListing("BM_a<1>\nBM_a(1)\n").error,
            "benchmarks 'BM_a<1>' and 'BM_a(1)' both map to 'BM_a_1_' (each byte outside A-Z a-z 0-9 _ . : / + - "
            "becomes '_'); leave one out with --benchmark_filter");
  EXPECT_EQ(MapListing(std::string(129, 'x') + "\n").error,
            "benchmark '" + std::string(129, 'x') +
                "' has a name longer than the protocol's 128 bytes; leave it out with --benchmark_filter");
  EXPECT_EQ(MapListing("\n").error, "the binary lists no benchmark (is its --benchmark_filter too narrow?)");
  std::string many;
  for (int i = 0; i < 1001; ++i) many += "BM_" + std::to_string(i) + "\n";
  EXPECT_EQ(MapListing(many).error,
            "the binary lists 1001 benchmarks, more than the 1000 a worker may offer; choose some with "
            "--benchmark_filter");
}

TEST(GbenchAdapter, ExactFilterEscapesEveryExtendedRegexMetacharacter) {
  EXPECT_EQ(ExactFilter("BM_sum"), "^BM_sum$");
  EXPECT_EQ(ExactFilter("BM_a.b+c*d?e|f(g)[h]{i}^$\\"), "^BM_a\\.b\\+c\\*d\\?e\\|f\\(g\\)\\[h\\]\\{i\\}\\^\\$\\\\$");
}

constexpr const char* kRunJson = R"({"context": {"library_build_type": "debug"}, "benchmarks": [
  {"name": "BM_other", "run_type": "iteration", "threads": 1, "iterations": 7, "real_time": 1.0, "cpu_time": 1.0,
   "time_unit": "ns"},
  {"name": "BM_x", "run_type": "iteration", "threads": 1, "iterations": 100, "real_time": 2.5, "cpu_time": 2.0,
   "time_unit": "us"},
  {"name": "BM_x", "run_type": "iteration", "threads": 1, "iterations": 300, "real_time": 1.5, "cpu_time": 1.0,
   "time_unit": "us"},
  {"name": "BM_x", "run_type": "aggregate", "aggregate_name": "mean", "threads": 1, "iterations": 2,
   "real_time": 99.0, "cpu_time": 99.0, "time_unit": "us"}]})";

TEST(GbenchAdapter, ParseRunJsonPoolsRepetitionsAndConvertsTheTimeUnit) {
  const RunFigures figures = ParseRunJson(kRunJson, "BM_x");
  ASSERT_TRUE(figures.ok()) << figures.error;
  EXPECT_EQ(figures.iterations, 400);
  // (100 * 2.5 us + 300 * 1.5 us) / 400 and (100 * 2 us + 300 * 1 us) / 400; aggregates ignored.
  EXPECT_DOUBLE_EQ(figures.real_ns_per_iteration, 1750.0);
  EXPECT_DOUBLE_EQ(figures.cpu_ns_per_iteration, 1250.0);
  const RunFigures seconds =
      ParseRunJson(R"({"benchmarks": [{"name": "s", "iterations": 2, "real_time": 0.5, "cpu_time": 0.25,
                       "time_unit": "s"}]})",
                   "s");
  EXPECT_DOUBLE_EQ(seconds.real_ns_per_iteration, 5e8);
  EXPECT_DOUBLE_EQ(seconds.cpu_ns_per_iteration, 2.5e8);
}

TEST(GbenchAdapter, ParseRunJsonSaysWhyItHasNoFigures) {
  EXPECT_EQ(ParseRunJson(kRunJson, "BM_y").error, "google/benchmark reported no run of 'BM_y'");
  EXPECT_EQ(ParseRunJson("{\"benchmarks\": [", "BM_x").error,
            "its JSON output is not google/benchmark's (no \"benchmarks\" list)");
  EXPECT_EQ(ParseRunJson(R"({"benchmarks": [{"name": "e", "error_occurred": true, "error_message": "no fixture",
                             "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]})",
                         "e")
                .error,
            "no fixture");
  EXPECT_EQ(ParseRunJson(R"({"benchmarks": [{"name": "m", "iterations": 3, "real_time": 1, "cpu_time": 1,
                             "time_unit": "min"}]})",
                         "m")
                .error,
            "its JSON run of 'm' lacks iterations, real_time, cpu_time or a time_unit of ns, us, ms or s");
}

TEST(GbenchAdapter, OneLineAndTailKeepAReasonOnOneLine) {
  EXPECT_EQ(OneLine("  a\tb\nc  "), "a b c");
  EXPECT_EQ(OneLine("abcdef", 3), "abc...");
  EXPECT_EQ(Tail("one\ntwo\n\nthree\nfour\n"), "two | three | four");
  EXPECT_EQ(Tail(""), "");
}

}  // namespace
}  // namespace pe::gbench
