// The Ruby and Python worker libraries (workers/ruby/perfengine_worker.rb,
// workers/python/perfengine_worker.py), their example workers and the ruby/json worker
// (specs/ruby-json/worker.rb), each driven through the engine's own client, WorkerProcess, and
// the real spawner. No test compares two timings: figures are checked for shape, instruction
// counts (callgrind) for their windows.
//
// The interpreters are Debian's, by absolute path: a version manager's `python3` on PATH is often
// a shell script, which valgrind would run in place of Python. A test whose interpreter (or
// valgrind) is missing is skipped, saying so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/measure/reported_profile.h"
#include "engine/worker/worker_process.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::worker {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLanguageRuby = "/usr/bin/ruby";
constexpr const char* kLanguagePython = "/usr/bin/python3";
constexpr const char* kLanguageValgrind = "/usr/bin/valgrind";

std::string LanguageSource(const std::string& relative) { return std::string(PE_SOURCE_DIR) + "/" + relative; }

std::string ReadLanguageFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A worker each test writes for itself with the library: a good benchmark, one whose body
// raises, one whose set-up raises.
constexpr const char* kRubyFailingWorker = R"(require ARGV[0]
worker = PerfEngine::Worker.new
worker.benchmark("ok") { "abc" * 3 }
worker.benchmark("boom") { raise "boom: data.json is missing" }
worker.benchmark("no_setup", setup: -> { File.read("/nonexistent/fixture.json") })
worker.serve
)";

constexpr const char* kPythonFailingWorker = R"(import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perfengine_worker
worker = perfengine_worker.Worker()
worker.benchmark("ok", lambda: "abc" * 3)
def boom():
    raise ValueError("boom: data.json is missing")
worker.benchmark("boom", boom)
worker.benchmark("no_setup", setup=lambda: open("/nonexistent/fixture.json").read())
worker.serve()
)";

struct LanguageCase {
  const char* language;     // "ruby", "python"
  const char* interpreter;  // its absolute path
  const char* example;      // the example worker, relative to the source tree
  std::vector<std::string> benchmarks;
  const char* counter;
  const char* failing_script;  // kRubyFailingWorker, kPythonFailingWorker
  std::string library_arg;     // what the failing worker's script gets as its argument
  const char* raised;          // the reason of `boom`'s failed reply
  const char* setup_raised;    // the start of `no_setup`'s reason
  const char* sort_call;       // what the example's sort_words calls once an iteration, as its profile names it
};

// Names the case in gtest's messages instead of dumping its bytes.
void PrintTo(const LanguageCase& c, std::ostream* out) { *out << c.language; }

std::vector<LanguageCase> LanguageCases() {
  return {
      {"ruby",
       kLanguageRuby,
       "workers/ruby/example_worker.rb",
       {"sort_words", "split_words", "count_words"},
       "ruby_objects",
       kRubyFailingWorker,
       LanguageSource("workers/ruby/perfengine_worker.rb"),
       "RuntimeError: boom: data.json is missing",
       "set-up: Errno::ENOENT: No such file or directory",
       "Array#sort"},
      {"python",
       kLanguagePython,
       "workers/python/example_worker.py",
       {"sort_words", "json_loads", "json_dumps"},
       "python_gc_collections",
       kPythonFailingWorker,
       LanguageSource("workers/python"),
       "ValueError: boom: data.json is missing",
       "set-up: FileNotFoundError: [Errno 2] No such file or directory",
       "builtins.sorted"},
  };
}

class LanguageWorkersTest : public ::testing::TestWithParam<LanguageCase> {
 protected:
  void SetUp() override {
    if (!fs::exists(GetParam().interpreter)) GTEST_SKIP() << GetParam().interpreter << " is not installed";
  }

  runner::Command LanguageCommand(std::vector<std::string> argv) {
    runner::Command command;
    command.argv = std::move(argv);
    command.stderr_path = dir_ / "stderr";
    return command;
  }

  runner::Command Example() { return LanguageCommand({GetParam().interpreter, LanguageSource(GetParam().example)}); }

  runner::Command FailingWorker() {
    const fs::path script =
        dir_ / (std::string("failing.") + (GetParam().language == std::string("ruby") ? "rb" : "py"));
    std::ofstream(script) << GetParam().failing_script;
    return LanguageCommand({GetParam().interpreter, script.string(), GetParam().library_arg});
  }

  // Runs `command` under callgrind with the markers as the engine will (docs/workers.md).
  runner::Command UnderCallgrind(runner::Command command) {
    std::vector<std::string> argv = {kLanguageValgrind, "--tool=callgrind", "--zero-before=getppid",
                                     "--dump-before=getppid", "--callgrind-out-file=" + (dir_ / "cg.out").string()};
    argv.insert(argv.end(), command.argv.begin(), command.argv.end());
    command.argv = argv;
    return command;
  }

  // The callgrind dumps of a run: dump number k -> its instruction total.
  std::map<int, long long> Dumps() {
    std::map<int, long long> dumps;
    const std::regex numbered(R"(cg\.out\.(\d+))");
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (!std::regex_match(name, m, numbered)) continue;
      std::smatch total;
      const std::string text = ReadLanguageFile(entry.path());
      const std::regex summary(R"(\nsummary: (\d+))");
      dumps[std::stoi(m[1])] = std::regex_search(text, total, summary) ? std::stoll(total[1]) : -1;
    }
    return dumps;
  }

  testing::TempDir dir_;
  WorkerSettings settings_{.start_timeout_s = 120, .request_timeout_s = 120, .quit_grace_s = 10};
};

TEST_P(LanguageWorkersTest, TheExampleGreetsRunsBatchesWithItsCounterAndQuits) {
  WorkerProcess worker(GetParam().language);
  ASSERT_EQ(worker.Start(Example(), settings_), "");
  EXPECT_EQ(worker.hello(), (Hello{1, GetParam().benchmarks, {GetParam().counter}}));
  const pid_t pgid = worker.pid();
  std::string digest;
  for (const std::string& name : GetParam().benchmarks) {
    for (const std::int64_t iterations : {1, 50}) {
      const BatchResult result = worker.Run(name, iterations);
      ASSERT_TRUE(result.ok()) << result.error;
      EXPECT_EQ(result.batch.name, name);
      EXPECT_EQ(result.batch.iterations, iterations);
      EXPECT_GT(result.batch.thread_cpu_ns, 0) << name;
      EXPECT_GT(result.batch.process_cpu_ns, 0) << name;
      EXPECT_GT(result.batch.wall_ns, 0) << name;
      ASSERT_EQ(result.batch.counters.count(GetParam().counter), 1u) << name;
      EXPECT_GE(result.batch.counters.at(GetParam().counter), 0) << name;
      // A digest of one iteration's result: the same for any count.
      EXPECT_EQ(result.batch.digest.size(), 32u) << result.batch.digest;
      if (iterations == 1) {
        digest = result.batch.digest;
      } else {
        EXPECT_EQ(result.batch.digest, digest) << name;
      }
    }
  }
  // The benchmarks compute different things, so their digests differ.
  EXPECT_NE(worker.Run(GetParam().benchmarks[0], 1).batch.digest, worker.Run(GetParam().benchmarks[1], 1).batch.digest);
  EXPECT_EQ(worker.Quit(), "");
  EXPECT_TRUE(worker.outcome().ok());
  EXPECT_EQ(::pe::testing::CountInGroup(pgid), 0);
}

// PERFENGINE_WORKER_SHIFT (docs/workers.md, "Layout") moves where the set-up data lies, never what
// a batch computes or counts: the same digests and counter growth with a seed, without one, and
// with a value that is not a seed (ignored).
TEST_P(LanguageWorkersTest, AShiftedWorkerAnswersTheSameDigestsAndCounts) {
  auto answers = [&](const char* shift) {
    runner::Command command = Example();
    if (shift != nullptr) command.env["PERFENGINE_WORKER_SHIFT"] = shift;
    WorkerProcess worker(GetParam().language);
    EXPECT_EQ(worker.Start(command, settings_), "") << ReadLanguageFile(dir_ / "stderr");
    std::vector<std::string> out;
    for (const std::string& name : GetParam().benchmarks) {
      const BatchResult result = worker.Run(name, 50);
      EXPECT_TRUE(result.ok()) << result.error;
      out.push_back(result.batch.digest + " " +
                    std::to_string(result.batch.counters.count(GetParam().counter)
                                       ? result.batch.counters.at(GetParam().counter)
                                       : -1));
    }
    EXPECT_EQ(worker.Quit(), "");
    return out;
  };
  const std::vector<std::string> plain = answers(nullptr);
  EXPECT_EQ(answers("4879757019711484177"), plain);
  EXPECT_EQ(answers("12"), plain);
  EXPECT_EQ(answers("not a seed"), plain);
}

// PERFENGINE_PROFILE (docs/workers.md, "Profiles"): after each batch the file holds the calls of
// that batch's loop alone, in the format perfengine reads (docs/counters.md); without the
// variable nothing is written.
TEST_P(LanguageWorkersTest, WithPerfengineProfileEachBatchWritesItsLoopsCalls) {
  const fs::path file = dir_ / "profile";
  runner::Command command = Example();
  command.env["PERFENGINE_PROFILE"] = file.string();
  WorkerProcess worker(GetParam().language);
  ASSERT_EQ(worker.Start(command, settings_), "") << ReadLanguageFile(dir_ / "stderr");
  auto calls_of_sort = [&](std::int64_t iterations) -> std::optional<std::uint64_t> {
    EXPECT_TRUE(worker.Run("sort_words", iterations).ok());
    std::vector<measure::ReportedFunction> functions;
    const std::optional<std::string> error = measure::ParseReportedProfile(ReadLanguageFile(file), functions);
    EXPECT_FALSE(error) << *error;
    for (const measure::ReportedFunction& f : functions) {
      if (f.function == GetParam().sort_call) return f.calls;
    }
    return std::nullopt;
  };
  EXPECT_EQ(calls_of_sort(5), 5u) << ReadLanguageFile(file);
  EXPECT_EQ(calls_of_sort(3), 3u) << ReadLanguageFile(file);  // the batch's own, not a running total
  EXPECT_EQ(worker.Quit(), "");
  fs::remove(file);
  WorkerProcess plain(GetParam().language);
  ASSERT_EQ(plain.Start(Example(), settings_), "");
  EXPECT_TRUE(plain.Run("sort_words", 5).ok());
  EXPECT_EQ(plain.Quit(), "");
  EXPECT_FALSE(fs::exists(file));
}

TEST_P(LanguageWorkersTest, ABenchmarkThatRaisesIsAFailedReplyAndTheWorkerStaysUp) {
  WorkerProcess worker(GetParam().language);
  ASSERT_EQ(worker.Start(FailingWorker(), settings_), "") << ReadLanguageFile(dir_ / "stderr");
  EXPECT_EQ(worker.hello().benchmarks, (std::vector<std::string>{"ok", "boom", "no_setup"}));
  ASSERT_TRUE(worker.Run("ok", 3).ok());
  EXPECT_EQ(worker.Run("boom", 5).error, std::string("worker '") + GetParam().language +
                                             "', benchmark 'boom': the benchmark failed: '" + GetParam().raised + "'");
  EXPECT_TRUE(worker.alive());
  const std::string setup_error = worker.Run("no_setup", 1).error;
  EXPECT_NE(setup_error.find(std::string("the benchmark failed: '") + GetParam().setup_raised), std::string::npos)
      << setup_error;
  EXPECT_TRUE(worker.alive());
  const BatchResult again = worker.Run("ok", 2);
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_EQ(again.batch.iterations, 2);
  EXPECT_EQ(worker.Quit(), "");
}

// The markers (docs/workers.md): one getppid call just before a batch's start clocks and one just
// after its stop clocks, none otherwise, so callgrind's --dump-before=getppid writes two dumps per
// batch (the second holding the batch alone) and one final file. A batch that raises still makes
// its two calls.
TEST_P(LanguageWorkersTest, TheMarkersAreCalledExactlyTwicePerBatch) {
  if (!fs::exists(kLanguageValgrind)) GTEST_SKIP() << kLanguageValgrind << " is not installed";
  WorkerProcess worker(GetParam().language);
  ASSERT_EQ(worker.Start(UnderCallgrind(FailingWorker()), settings_), "") << ReadLanguageFile(dir_ / "stderr");
  ASSERT_TRUE(worker.Run("ok", 1).ok());
  ASSERT_TRUE(worker.Run("ok", 2000).ok());
  EXPECT_FALSE(worker.Run("boom", 1).ok());
  ASSERT_TRUE(worker.Run("ok", 1).ok());
  EXPECT_EQ(worker.Quit(), "") << ReadLanguageFile(dir_ / "stderr");
  const std::map<int, long long> dumps = Dumps();
  ASSERT_EQ(dumps.size(), 8u) << "4 batches, 2 dumps each";
  EXPECT_EQ(dumps.begin()->first, 1);
  EXPECT_EQ(dumps.rbegin()->first, 8);
  EXPECT_TRUE(fs::exists(dir_ / "cg.out")) << "the final dump";
  // Dump 2k is batch k: 2000 iterations count many times the instructions of one, and the two
  // one-iteration batches are close (nothing but the loop is inside the window).
  ASSERT_GT(dumps.at(2), 0);
  EXPECT_GT(dumps.at(4), 100 * dumps.at(2)) << dumps.at(4) << " vs " << dumps.at(2);
  EXPECT_LT(dumps.at(8), 3 * dumps.at(2)) << dumps.at(8) << " vs " << dumps.at(2);
}

INSTANTIATE_TEST_SUITE_P(Languages, LanguageWorkersTest, ::testing::ValuesIn(LanguageCases()),
                         [](const ::testing::TestParamInfo<LanguageCase>& info) {
                           return std::string(info.param.language);
                         });

// specs/ruby-json/worker.rb measures only the build of the worktree it runs in: where no pe-lib/
// holds that build, `require "json"` finds Ruby's bundled json and the worker refuses before its
// hello (exit 3), as bench.rb does.
TEST(RubyJsonWorker, RefusesToServeAJsonThatIsNotTheWorktreesBuild) {
  if (!fs::exists(kLanguageRuby)) GTEST_SKIP() << kLanguageRuby << " is not installed";
  testing::TempDir dir;
  runner::Command command;
  command.argv = {kLanguageRuby, "--disable-gems", "-Ipe-lib", "-Ilib", LanguageSource("specs/ruby-json/worker.rb")};
  command.cwd = dir.path();
  command.stderr_path = dir / "stderr";
  WorkerProcess worker("baseline");
  const std::string error = worker.Start(command, WorkerSettings{.start_timeout_s = 60});
  // The one line names the exit and the tail of the refusal (cut to its last 400 bytes): Ruby's
  // bundled json, loaded instead of the worktree's.
  EXPECT_EQ(error.rfind("worker 'baseline', at start: exited with status 3 before its hello; its stderr ends: ", 0), 0u)
      << error;
  EXPECT_NE(error.find("foreign [\"/usr/lib/ruby/"), std::string::npos) << error;
  const std::string stderr_text = ReadLanguageFile(dir / "stderr");
  EXPECT_EQ(stderr_text.rfind("worker.rb: not the build of " + fs::canonical(dir.path()).string() + ": missing [\"" +
                                  fs::canonical(dir.path()).string() + "/pe-lib/json/ext/parser.so\"",
                              0),
            0u)
      << stderr_text;
  EXPECT_FALSE(worker.alive());
}

// Against a real ruby/json build: PERFENGINE_TEST_RUBY_JSON names a worktree of a ruby/json
// checkout with pe-lib/json/ext/{parser,generator}.so built (docs/ruby-json.md, "Worker mode",
// says how). The worker's digests are judged against bench.rb's own (the process mode), run here
// on the same worktree; a benchmark whose fixture is not given fails and the worker stays up.
TEST(RubyJsonWorker, ServesTheThirtySixBenchmarksWithBenchRbsDigests) {
  const char* worktree = ::getenv("PERFENGINE_TEST_RUBY_JSON");
  if (!worktree || !fs::exists(kLanguageRuby)) {
    GTEST_SKIP() << "set PERFENGINE_TEST_RUBY_JSON to a ruby/json worktree with pe-lib/ built (docs/ruby-json.md)";
  }
  testing::TempDir dir;
  const std::vector<std::string> ruby = {kLanguageRuby, "--disable-gems", "-Ipe-lib", "-Ilib"};
  runner::Command command;
  command.argv = ruby;
  command.argv.push_back(LanguageSource("specs/ruby-json/worker.rb"));
  command.cwd = worktree;
  command.stderr_path = dir / "stderr";
  // One fixture kind, found through RUBY_JSON_FIXTURES; the others are not given.
  fs::create_directories(dir / "fixtures" / "api_1k");
  std::ofstream(dir / "fixtures" / "api_1k" / "docs.jsonl") << "{\"id\":7,\"tags\":[\"a\",\"b\"],\"n\":null}\n";
  command.env["RUBY_JSON_FIXTURES"] = (dir / "fixtures").string();
  WorkerProcess worker("baseline");
  ASSERT_EQ(worker.Start(command, WorkerSettings{.start_timeout_s = 120, .request_timeout_s = 120}), "");
  ASSERT_EQ(worker.hello().benchmarks.size(), 36u);
  EXPECT_EQ(worker.hello().benchmarks.front(), "parse_twitter");
  EXPECT_EQ(worker.hello().benchmarks.back(), "generate_date");
  EXPECT_EQ(worker.hello().counters, std::vector<std::string>{"ruby_objects"});

  for (const std::string name :
       {"parse_twitter", "parse_twitter_symbolize", "generate_escaped_strings", "parse_api_1k"}) {
    const BatchResult one = worker.Run(name, 1);
    ASSERT_TRUE(one.ok()) << one.error;
    const BatchResult three = worker.Run(name, 3);
    ASSERT_TRUE(three.ok()) << three.error;
    EXPECT_EQ(three.batch.digest, one.batch.digest) << name;
    EXPECT_GT(three.batch.counters.at("ruby_objects"), 0) << name;
    EXPECT_GT(three.batch.thread_cpu_ns, 0) << name;
    // bench.rb's OUT: "NAME SHA256 SIZE".
    runner::Command bench;
    bench.argv = ruby;
    bench.argv.insert(bench.argv.end(), {LanguageSource("specs/ruby-json/bench.rb"), name, (dir / "out").string()});
    if (name == "parse_api_1k") bench.argv.push_back((dir / "fixtures" / "api_1k").string());
    bench.cwd = worktree;
    bench.stderr_path = dir / "bench.stderr";
    ASSERT_TRUE(runner::MakeSystemProcessRunner()->Run(bench).ok()) << ReadLanguageFile(dir / "bench.stderr");
    EXPECT_EQ(ReadLanguageFile(dir / "out").substr(0, name.size() + 65), name + " " + one.batch.digest) << name;
  }
  const BatchResult missing = worker.Run("parse_small_hash", 10);
  EXPECT_NE(missing.error.find("the benchmark failed: 'set-up: ArgumentError: fixture missing: small_hash=DIR"),
            std::string::npos)
      << missing.error;
  EXPECT_TRUE(worker.alive());
  EXPECT_EQ(worker.Quit(), "");
}

}  // namespace
}  // namespace pe::worker
