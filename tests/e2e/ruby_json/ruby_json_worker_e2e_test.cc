// specs/ruby-json-worker.toml and specs/ruby-json/fixtures.toml (docs/ruby-json.md, "Worker
// mode"): the worker spec validates against a tiny checkout and names the process spec's 36
// benchmarks; the json_docs fixtures specs/ruby-json/worker.rb reads (a worker cannot be given a
// workload's {fixture}) are the bytes specs/ruby-json.toml gives bench.rb, so both modes measure
// the same inputs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// Runs git with `args` in `repo`, no shell; true when it exits 0.
bool RunWorkerSpecGit(const fs::path& repo, std::vector<std::string> args) {
  std::vector<std::string> argv = {
      "git", "-C", repo.string(), "-c", "user.name=t", "-c", "user.email=t@example.invalid"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunQuietly(argv, repo) == 0;
}

// The [workloads.NAME] tables of a spec file.
std::set<std::string> WorkerSpecWorkloads(const fs::path& spec) {
  std::set<std::string> names;
  const std::string text = ReadAll(spec);
  const std::regex table(R"(\n\[workloads\.([A-Za-z0-9_]+)\])");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), table); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

TEST(RubyJsonWorkerSpec, ValidatesStrictlyAndNamesTheProcessSpecsBenchmarks) {
  TempDir dir;
  const fs::path repo = dir.path() / "json";
  fs::create_directories(repo);
  ASSERT_TRUE(RunWorkerSpecGit(repo, {"init", "-q", "-b", "master"}));
  ASSERT_TRUE(RunWorkerSpecGit(repo, {"commit", "-q", "--allow-empty", "-m", "master"}));
  ASSERT_TRUE(RunWorkerSpecGit(repo, {"checkout", "-q", "-b", "pull-request"}));
  const std::string old = ::getenv("RUBY_JSON") ? ::getenv("RUBY_JSON") : "";
  ::setenv("RUBY_JSON", repo.c_str(), 1);
  const Finished f = RunPerfengine({"validate", "--strict", RUBY_JSON_WORKER_SPEC}, dir.path());
  if (old.empty()) {
    ::unsetenv("RUBY_JSON");
  } else {
    ::setenv("RUBY_JSON", old.c_str(), 1);
  }
  EXPECT_EQ(f.exit, 0) << f.err;
  EXPECT_NE(f.out.find("ok (2 contenders, 37 workloads; baseline 'baseline', candidate 'candidate')"),
            std::string::npos)
      << f.out << f.err;
  EXPECT_EQ(f.err, "");
  // The same 36 benchmarks as the process spec, by the same names (the worker's names).
  const std::set<std::string> worker = WorkerSpecWorkloads(RUBY_JSON_WORKER_SPEC);
  EXPECT_EQ(worker.size(), 36u);
  EXPECT_EQ(worker, WorkerSpecWorkloads(RUBY_JSON_SPEC));
}

TEST(RubyJsonWorkerFixtures, AreTheBytesOfTheProcessModesFixtures) {
  TempDir dir;
  // generate reads the spec's contenders but builds nothing: any directory will do for RUBY_JSON.
  const std::string old = ::getenv("RUBY_JSON") ? ::getenv("RUBY_JSON") : "";
  ::setenv("RUBY_JSON", dir.path().c_str(), 1);
  const Finished process = RunPerfengine(
      {"generate", RUBY_JSON_SPEC, "--workload", "parse_small_hash", "--workload", "parse_nested", "--workload",
       "parse_api_1k", "--workload", "parse_resumable_stream", "--out", (dir.path() / "process").string()},
      dir.path());
  if (old.empty()) {
    ::unsetenv("RUBY_JSON");
  } else {
    ::setenv("RUBY_JSON", old.c_str(), 1);
  }
  ASSERT_EQ(process.exit, 0) << process.err;
  const Finished worker =
      RunPerfengine({"generate", RUBY_JSON_FIXTURES_SPEC, "--out", (dir.path() / "worker").string()}, dir.path());
  ASSERT_EQ(worker.exit, 0) << worker.err;
  const std::vector<std::pair<std::string, std::string>> kinds = {{"small_hash", "parse_small_hash"},
                                                                  {"nested", "parse_nested"},
                                                                  {"api_1k", "parse_api_1k"},
                                                                  {"stream", "parse_resumable_stream"}};
  for (const auto& [kind, workload] : kinds) {
    const std::string bytes = ReadAll(dir.path() / "worker" / kind / "docs.jsonl");
    EXPECT_FALSE(bytes.empty()) << kind;
    EXPECT_EQ(bytes, ReadAll(dir.path() / "process" / workload / "docs.jsonl")) << kind;
  }
}

}  // namespace
}  // namespace pe::e2e
