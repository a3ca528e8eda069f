// specs/ruby-json/fixtures.toml: the json_docs fixtures specs/ruby-json/worker.rb reads (a worker
// cannot be given a workload's {fixture}) are the bytes specs/ruby-json.toml gives bench.rb, so
// both modes measure the same inputs (docs/ruby-json.md, "Worker mode").
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

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
