// The two built executables, run against a replayed bazel: same bytes from both, bazel called
// the way bazel-diff calls it, and one line plus exit 1 for every kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bazel_client.h"
#include "error.h"
#include "fixture.h"
#include "subprocess.h"

namespace pe::refdiff {
namespace {

using testing::Fixture;
using testing::GeneratedFile;
using testing::Rule;
using testing::SourceFile;

const std::string kBaseline = REFDIFF_BASELINE;
const std::string kCandidate = REFDIFF_CANDIDATE;

ProcessResult RunTool(const std::string& program, std::vector<std::string> args) {
  args.insert(args.begin(), program);
  return RunProcess({args, {}, {}});
}

// Exactly one line on stderr, starting with the program's name.
void ExpectOneLineError(const ProcessResult& result, const std::string& expected_line) {
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text, "bazel-diff-ref: " + expected_line + "\n");
}

class ContenderCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_.WriteSource("lib/lib.cc", "int lib() { return 1; }\n");
    fixture_.WriteSource("lib/defs.bzl", "def lib_macro(): pass\n");
    fixture_.WriteSource("app/main.cc", "int main() { return lib(); }\n");
    fixture_.SetTargets(Targets());
  }

  std::vector<blaze_query::Target> Targets() const {
    std::vector<blaze_query::Target> targets = {
        SourceFile("//lib:lib.cc"),
        Rule("//lib:lib", "cc_library", {"//lib:lib.cc"}, {{"srcs", "//lib:lib.cc"}}, {"lib/defs.bzl:1:5: lib_macro"}),
        SourceFile("//app:main.cc"),
        Rule("//app:app", "cc_binary", {"//app:main.cc", "//lib:lib"}, {{"deps", "//lib:lib"}}),
        Rule("//app:gen", "genrule", {"//app:app"}, {{"outs", "out.txt"}}),
        GeneratedFile("//app:out.txt", "//app:gen"),
        Rule("//external:zlib", "http_archive", {}, {{"url", "https://zlib.net/zlib.tar.gz"}}),
    };
    // Enough independent targets that the candidate really splits the work into batches.
    for (int i = 0; i < 3000; ++i) {
      std::string name = "//many:t" + std::to_string(i);
      targets.push_back(Rule(name, "filegroup", {"//lib:lib"}, {{"tag", std::to_string(i % 7)}}));
    }
    return targets;
  }

  ProcessResult Generate(const std::string& program, const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"generate-hashes", "-w", fixture_.workspace().string(), "-b",
                                     fixture_.bazel().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back((fixture_.dir() / out).string());
    return RunTool(program, args);
  }

  Fixture fixture_;
};

TEST_F(ContenderCli, VersionNamesTheFlavour) {
  EXPECT_EQ(RunTool(kBaseline, {"--version"}).stdout_text, "bazel-diff-ref baseline 0.1.0\n");
  EXPECT_EQ(RunTool(kCandidate, {"--version"}).stdout_text, "bazel-diff-ref candidate 0.1.0\n");
}

TEST_F(ContenderCli, BaselineAndCandidateWriteIdenticalBytes) {
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {}, {"--includeTargetType"}, {"--excludeExternalTargets"}, {"--threads", "3"}}) {
    ProcessResult baseline = Generate(kBaseline, "baseline.json", flags);
    ProcessResult candidate = Generate(kCandidate, "candidate.json", flags);
    ASSERT_EQ(baseline.exit_code, 0) << baseline.stderr_text;
    ASSERT_EQ(candidate.exit_code, 0) << candidate.stderr_text;
    std::string expected = fixture_.ReadFile("baseline.json");
    EXPECT_GT(expected.size(), 3000u * 100);
    EXPECT_EQ(fixture_.ReadFile("candidate.json"), expected) << "flags: " << ::testing::PrintToString(flags);
  }
}

TEST_F(ContenderCli, HashesFileHasOneEntryPerTarget) {
  ASSERT_EQ(Generate(kBaseline, "h.json", {"--excludeExternalTargets", "--includeTargetType"}).exit_code, 0);
  std::string json = fixture_.ReadFile("h.json");
  // As upstream: the type goes on the value, the key stays the label.
  EXPECT_NE(json.find("\n  \"//lib:lib.cc\": \"SourceFile#"), std::string::npos);
  EXPECT_NE(json.find("\n  \"//app:out.txt\": \"GeneratedFile#"), std::string::npos);
  EXPECT_EQ(json.find("zlib"), std::string::npos);
}

TEST_F(ContenderCli, OutputDefaultsToStdoutAndBazelToThePath) {
  ASSERT_EQ(Generate(kBaseline, "h.json").exit_code, 0);
  std::string path = std::string(fixture_.dir().c_str()) + ":" + getenv("PATH");
  ProcessResult result = RunProcess(
      {{"/usr/bin/env", "PATH=" + path, kBaseline, "generate-hashes", "-w", fixture_.workspace().string()}, {}, {}});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, fixture_.ReadFile("h.json"));
  ProcessResult no_bazel = RunProcess(
      {{"/usr/bin/env", "PATH=/nonexistent", kBaseline, "generate-hashes", "-w", fixture_.workspace().string()},
       {},
       {}});
  ExpectOneLineError(no_bazel, "there is no bazel on PATH (pass -b BAZEL)");
}

// On bzlmod (`mod graph` succeeds) upstream writes {"hashes": ..., "metadata": {"moduleGraphJson"}}
// and get-impacted-targets reads it back.
TEST_F(ContenderCli, BzlmodHashesCarryTheModuleGraph) {
  setenv("REFDIFF_REPLAY_BZLMOD", "1", 1);
  setenv("REFDIFF_REPLAY_MODULE_GRAPH", "{\"key\": \"<root>\", \"dependencies\": []}", 1);
  ProcessResult result = Generate(kCandidate, "bzlmod.json");
  unsetenv("REFDIFF_REPLAY_MODULE_GRAPH");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::string json = fixture_.ReadFile("bzlmod.json");
  EXPECT_TRUE(json.starts_with("{\n  \"hashes\": {\n    \"//app:app\": \"")) << json.substr(0, 80);
  EXPECT_TRUE(
      json.ends_with("\"metadata\": {\"moduleGraphJson\": \"{\\\"key\\\": \\\"<root>\\\", "
                     "\\\"dependencies\\\": []}\"}\n}\n"))
      << json.substr(json.size() - 120);
  // bzlmod: get-impacted-targets drops //external:* unless told otherwise.
  std::string start = fixture_.WriteFile("start.json", "{\"//external:x\": \"1~1\"}").string();
  std::string bzl = (fixture_.dir() / "bzlmod.json").string();
  ProcessResult diff = RunTool(kBaseline, {"get-impacted-targets", "-w", fixture_.workspace().string(), "-b",
                                           fixture_.bazel().string(), "-sh", bzl, "-fh", start});
  unsetenv("REFDIFF_REPLAY_BZLMOD");
  ASSERT_EQ(diff.exit_code, 0) << diff.stderr_text;
  EXPECT_EQ(diff.stdout_text, "");
  ProcessResult kept =
      RunTool(kBaseline, {"get-impacted-targets", "-w", fixture_.workspace().string(), "-b", fixture_.bazel().string(),
                          "--no-excludeExternalTargets", "-sh", bzl, "-fh", start});
  ASSERT_EQ(kept.exit_code, 0) << kept.stderr_text;
  EXPECT_EQ(kept.stdout_text, "//external:x\n");
}

// Upstream 37 asks for //external on bzlmod too and retries without it only when Bazel says the
// package is gone (BazelClient.kt:46-121); the warning is printed once.
TEST_F(ContenderCli, BzlmodKeepsExternalAndRetriesWithoutItWhenBazelSaysItIsGone) {
  std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  setenv("REFDIFF_REPLAY_BZLMOD", "1", 1);
  ProcessResult with_external = Generate(kBaseline, "kept.json");
  std::string calls_with_external = fixture_.ReadFile("calls.log");
  std::filesystem::remove(log);
  setenv("REFDIFF_REPLAY_NO_EXTERNAL", "1", 1);
  ProcessResult retried = Generate(kCandidate, "retried.json");
  unsetenv("REFDIFF_REPLAY_NO_EXTERNAL");
  unsetenv("REFDIFF_REPLAY_BZLMOD");
  unsetenv("REFDIFF_REPLAY_LOG");
  ASSERT_EQ(with_external.exit_code, 0) << with_external.stderr_text;
  ASSERT_EQ(retried.exit_code, 0) << retried.stderr_text;
  auto queries = [](const std::string& calls) {
    std::size_t count = 0;
    for (std::size_t at = calls.find(" query "); at != std::string::npos; at = calls.find(" query ", at + 1)) ++count;
    return count;
  };
  EXPECT_EQ(queries(calls_with_external), 1u) << calls_with_external;
  EXPECT_EQ(with_external.stderr_text, "");
  EXPECT_EQ(queries(fixture_.ReadFile("calls.log")), 2u);
  EXPECT_EQ(retried.stderr_text, kExternalUnavailableWarning);
  // The replay answers both queries with the same stream, so the hashes agree.
  EXPECT_EQ(fixture_.ReadFile("kept.json"), fixture_.ReadFile("retried.json"));
}

TEST_F(ContenderCli, CallsBazelTheWayBazelDiffDoes) {
  std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  setenv("REFDIFF_REPLAY_VERSION", "8.2.0", 1);
  ProcessResult result = Generate(kCandidate, "h.json", {"--bazelStartupOptions=--host_jvm_args=-Xmx1g --batch"});
  unsetenv("REFDIFF_REPLAY_VERSION");
  unsetenv("REFDIFF_REPLAY_LOG");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::ifstream in(log);
  std::vector<std::string> calls;
  for (std::string line; std::getline(in, line);) calls.push_back(line);
  ASSERT_EQ(calls.size(), 4u);
  std::string prefix = "[" + fixture_.workspace().string() + "] --host_jvm_args=-Xmx1g --batch ";
  EXPECT_EQ(calls[0], prefix + "info output_base");
  // Upstream runs `version` without the startup options (BazelQueryService.kt:47-56).
  EXPECT_EQ(calls[1], "[" + fixture_.workspace().string() + "] version");
  EXPECT_EQ(calls[2], prefix + "mod graph");
  EXPECT_TRUE(calls[3].starts_with(prefix + "query --output streamed_proto --order_output=no "
                                            "--proto:instantiation_stack --query_file "))
      << calls[3];
  EXPECT_NE(calls[3].find(" --output_file /"), std::string::npos) << calls[3];
}

// --output_file exists from Bazel 8.2.0 (upstream's threshold); 7.x refuses it, and so does the
// replay bazel, so passing it too early fails here as it would against real Bazel.
TEST_F(ContenderCli, BazelBefore8Point2PrintsTheResultToStdout) {
  std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  ProcessResult old_bazel = Generate(kBaseline, "old.json");  // the replay says 7.4.1
  unsetenv("REFDIFF_REPLAY_LOG");
  ASSERT_EQ(old_bazel.exit_code, 0) << old_bazel.stderr_text;
  EXPECT_EQ(fixture_.ReadFile("calls.log").find("--output_file"), std::string::npos);
  setenv("REFDIFF_REPLAY_VERSION", "8.2.0", 1);
  ProcessResult new_bazel = Generate(kBaseline, "new.json");
  unsetenv("REFDIFF_REPLAY_VERSION");
  ASSERT_EQ(new_bazel.exit_code, 0) << new_bazel.stderr_text;
  EXPECT_EQ(fixture_.ReadFile("old.json"), fixture_.ReadFile("new.json"));

  std::string query_file = fixture_.WriteFile("q.txt", "//...").string();
  ProcessResult refused = RunProcess({{fixture_.bazel().string(), "query", "--output", "streamed_proto", "--query_file",
                                       query_file, "--output_file=/dev/null"},
                                      {},
                                      {}});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.stderr_text, "ERROR: Unrecognized option: --output_file=/dev/null\n");
}

TEST_F(ContenderCli, PerturbChangesExactlyOneHash) {
  ASSERT_EQ(Generate(kCandidate, "good.json").exit_code, 0);
  ASSERT_EQ(Generate(kCandidate, "bad.json", {"--perturb", "//many:t42"}).exit_code, 0);
  ProcessResult diff = RunTool(
      kBaseline, {"get-impacted-targets", "-w", fixture_.workspace().string(), "-b", fixture_.bazel().string(), "-sh",
                  (fixture_.dir() / "good.json").string(), "-fh", (fixture_.dir() / "bad.json").string()});
  EXPECT_EQ(diff.exit_code, 0) << diff.stderr_text;
  EXPECT_EQ(diff.stdout_text, "//many:t42\n");
}

TEST_F(ContenderCli, ImpactedTargetsAfterASourceEdit) {
  ASSERT_EQ(Generate(kCandidate, "start.json").exit_code, 0);
  fixture_.WriteSource("app/main.cc", "int main() { return lib() + 1; }\n");
  ASSERT_EQ(Generate(kCandidate, "final.json", {"-d", (fixture_.dir() / "edges.json").string()}).exit_code, 0);
  std::string start = (fixture_.dir() / "start.json").string(), final_path = (fixture_.dir() / "final.json").string();
  std::string out = (fixture_.dir() / "impacted.txt").string();

  std::string ws = fixture_.workspace().string(), bazel = fixture_.bazel().string();
  ProcessResult lines =
      RunTool(kBaseline, {"get-impacted-targets", "-w", ws, "-b", bazel, "-sh", start, "-fh", final_path, "-o", out});
  ASSERT_EQ(lines.exit_code, 0) << lines.stderr_text;
  EXPECT_EQ(fixture_.ReadFile("impacted.txt"), "//app:app\n//app:gen\n//app:main.cc\n//app:out.txt\n");

  // Upstream's edges: rules list the rules and generated files they depend on, not sources.
  EXPECT_NE(fixture_.ReadFile("edges.json").find("\"//app:app\": [\"//lib:lib\"]"), std::string::npos);
  EXPECT_EQ(fixture_.ReadFile("edges.json").find("\"//app:main.cc\":"), std::string::npos);
  ProcessResult distances = RunTool(kCandidate, {"get-impacted-targets", "-w", ws, "-b", bazel, "-sh", start, "-fh",
                                                 final_path, "-d", (fixture_.dir() / "edges.json").string()});
  ASSERT_EQ(distances.exit_code, 0) << distances.stderr_text;
  // //app:app lists main.cc itself, so its direct hash changed: 0, as upstream reports it.
  EXPECT_EQ(distances.stdout_text,
            "[\n"
            "  {\"label\": \"//app:app\", \"targetDistance\": 0, \"packageDistance\": 0},\n"
            "  {\"label\": \"//app:gen\", \"targetDistance\": 1, \"packageDistance\": 0},\n"
            "  {\"label\": \"//app:main.cc\", \"targetDistance\": 0, \"packageDistance\": 0},\n"
            "  {\"label\": \"//app:out.txt\", \"targetDistance\": 2, \"packageDistance\": 0}\n"
            "]\n");
}

// The candidate reads hashes files flat (flat_hashes.h), the baseline as JSON documents: the
// same answers, warnings and errors, byte for byte, whatever the options.
TEST_F(ContenderCli, BothBuildsAnswerGetImpactedTargetsAlike) {
  std::string edges = (fixture_.dir() / "edges.json").string();
  ASSERT_EQ(Generate(kBaseline, "start.json", {"--includeTargetType"}).exit_code, 0);
  fixture_.WriteSource("lib/lib.cc", "int lib() { return 2; }\n");
  ASSERT_EQ(Generate(kBaseline, "final.json", {"--includeTargetType", "-d", edges}).exit_code, 0);
  std::string start = (fixture_.dir() / "start.json").string(), final_path = (fixture_.dir() / "final.json").string();
  fixture_.WriteFile("bad.json", "{\"//a:b\": \"1~1\", \"//a:c\": \"T2\"}");
  std::string bad = (fixture_.dir() / "bad.json").string();
  std::vector<std::string> base = {"get-impacted-targets", "-w", fixture_.workspace().string(), "-b",
                                   fixture_.bazel().string()};
  std::vector<ProcessResult> answers;
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"-sh", start, "-fh", final_path},
           {"-sh", start, "-fh", final_path, "-tt", "Rule,GeneratedFile", "--excludeExternalTargets"},
           {"-sh", start, "-fh", final_path, "-d", edges},
           {"-sh", bad, "-fh", final_path},
           {"-sh", start, "-fh", bad, "-b", "/nonexistent/bazel"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), flags.begin(), flags.end());
    ProcessResult baseline = RunTool(kBaseline, args);
    ProcessResult candidate = RunTool(kCandidate, args);
    answers.push_back(baseline);
    EXPECT_EQ(candidate.exit_code, baseline.exit_code) << ::testing::PrintToString(flags);
    EXPECT_EQ(candidate.stdout_text, baseline.stdout_text) << ::testing::PrintToString(flags);
    EXPECT_EQ(candidate.stderr_text, baseline.stderr_text) << ::testing::PrintToString(flags);
  }
  // The judge: these runs really answered (lines, JSON) and really failed.
  ASSERT_EQ(answers.size(), 5u);
  EXPECT_GT(std::count(answers[0].stdout_text.begin(), answers[0].stdout_text.end(), '\n'), 3000);
  EXPECT_TRUE(answers[2].stdout_text.starts_with("[\n  {\"label\": ")) << answers[2].stdout_text.substr(0, 80);
  EXPECT_EQ(answers[3].stderr_text, "bazel-diff-ref: " + bad +
                                        ": the hash of //a:c is 'T2', not '[Type#]<hash>~<direct hash>' as "
                                        "generate-hashes writes it\n");
  EXPECT_EQ(answers[4].exit_code, 1);
}

TEST_F(ContenderCli, TruncatedStreamIsOneLine) {
  std::string stream = fixture_.ReadFile("query.pb");
  fixture_.SetStreamBytes(stream.substr(0, stream.size() - 5));
  for (const std::string& program : {kBaseline, kCandidate}) {
    ProcessResult result = Generate(program, "h.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_TRUE(result.stderr_text.starts_with("bazel-diff-ref: query output is truncated at byte "))
        << result.stderr_text;
    EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1);
  }
}

TEST_F(ContenderCli, FailingBazelIsOneLine) {
  setenv("REFDIFF_REPLAY_FAIL", "query", 1);
  ProcessResult result = Generate(kCandidate, "h.json");
  unsetenv("REFDIFF_REPLAY_FAIL");
  ExpectOneLineError(result, "'bazel query' failed with exit code 7: ERROR: query failed (REFDIFF_REPLAY_FAIL)");
}

TEST_F(ContenderCli, MissingBazelIsOneLine) {
  ProcessResult result = RunTool(kBaseline, {"generate-hashes", "-w", fixture_.workspace().string(), "-b",
                                             "/nonexistent/bazel", (fixture_.dir() / "h.json").string()});
  ExpectOneLineError(result, "cannot run /nonexistent/bazel: No such file or directory");
}

TEST_F(ContenderCli, MissingWorkspaceIsOneLine) {
  ProcessResult result = RunTool(kBaseline, {"generate-hashes", "-w", "/nonexistent/ws", "-b",
                                             fixture_.bazel().string(), (fixture_.dir() / "h.json").string()});
  ExpectOneLineError(result, "workspace /nonexistent/ws is not a directory");
}

TEST_F(ContenderCli, BadJsonIsOneLine) {
  std::filesystem::path good = fixture_.WriteFile("good.json", "{\"//a:b\": \"1~1\"}");
  std::filesystem::path bad = fixture_.WriteFile("bad.json", "{\"//a:b\": \"1~1\",");
  std::string ws = fixture_.workspace().string();
  ProcessResult result = RunTool(kCandidate, {"get-impacted-targets", "-w", ws, "-b", fixture_.bazel().string(),
                                              "--excludeExternalTargets", "-sh", good.string(), "-fh", bad.string()});
  ExpectOneLineError(result, bad.string() + ": not valid JSON (byte 17)");

  std::filesystem::path list = fixture_.WriteFile("list.json", "[1, 2]");
  result = RunTool(kCandidate, {"get-impacted-targets", "-w", ws, "-b", fixture_.bazel().string(),
                                "--excludeExternalTargets", "-sh", good.string(), "-fh", list.string()});
  ExpectOneLineError(result, list.string() + ": expected a JSON object of label -> hash");
}

TEST_F(ContenderCli, MissingInputFileIsOneLine) {
  std::filesystem::path good = fixture_.WriteFile("good.json", "{}");
  std::string missing = (fixture_.dir() / "missing.json").string();
  ProcessResult result = RunTool(kBaseline, {"get-impacted-targets", "-w", fixture_.workspace().string(), "-b",
                                             fixture_.bazel().string(), "-sh", missing, "-fh", good.string()});
  ExpectOneLineError(result, "cannot open " + missing + ": No such file or directory");
}

// The replay bazel's log of the calls one run of the reference made.
std::vector<std::string> Calls(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::vector<std::string> calls;
  for (std::string line; std::getline(in, line);) calls.push_back(line);
  std::filesystem::remove(log);
  return calls;
}

// Upstream's get-impacted-targets builds its hasher module, which runs `info output_base`
// whatever the options (GetImpactedTargetsCommand.kt:130-147, Modules.kt:66-82), then asks
// `mod graph` only when --[no-]excludeExternalTargets is not given (:156-163).
TEST_F(ContenderCli, GetImpactedTargetsAsksForTheOutputBaseAsUpstreamDoes) {
  ASSERT_EQ(Generate(kCandidate, "h.json").exit_code, 0);
  const std::string hashes = (fixture_.dir() / "h.json").string();
  const std::string ws = fixture_.workspace().string();
  const std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  for (const std::string& program : {kBaseline, kCandidate}) {
    ProcessResult plain = RunTool(
        program, {"get-impacted-targets", "-w", ws, "-b", fixture_.bazel().string(), "-sh", hashes, "-fh", hashes});
    EXPECT_EQ(plain.exit_code, 0) << plain.stderr_text;
    EXPECT_EQ(Calls(log), (std::vector<std::string>{"[" + ws + "] info output_base", "[" + ws + "] mod graph"}));
    ProcessResult told = RunTool(program, {"get-impacted-targets", "-w", ws, "-b", fixture_.bazel().string(), "-sh",
                                           hashes, "-fh", hashes, "--excludeExternalTargets"});
    EXPECT_EQ(told.exit_code, 0) << told.stderr_text;
    EXPECT_EQ(Calls(log), (std::vector<std::string>{"[" + ws + "] info output_base"}));
  }
  unsetenv("REFDIFF_REPLAY_LOG");
}

// -so as upstream's OptionsConverter splits it (OptionsConverter.kt:6-8): on single spaces, so
// two spaces make an empty word, a tab stays inside a word, trailing empty words are dropped.
TEST_F(ContenderCli, StartupOptionsAreSplitAsUpstreamSplitsThem) {
  const std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  ProcessResult result = Generate(kBaseline, "h.json", {"-so", "--batch  --a\t--b  "});
  unsetenv("REFDIFF_REPLAY_LOG");
  // The replay bazel takes the empty word for its command and refuses it; what counts is the argv.
  EXPECT_EQ(result.exit_code, 1);
  const std::vector<std::string> calls = Calls(log);
  ASSERT_FALSE(calls.empty());
  // The log joins the argv with single spaces: "--batch", "", "--a\t--b".
  EXPECT_EQ(calls[0], "[" + fixture_.workspace().string() + "] --batch  --a\t--b info output_base");
}

// Upstream's picocli takes -v/--verbose (the top command's, inherited) and -h/--help on every
// subcommand; help prints the usage on stdout and exits 0 even without the required options.
TEST_F(ContenderCli, VerboseAndHelpAreAcceptedAsUpstreamAcceptsThem) {
  ASSERT_EQ(Generate(kBaseline, "plain.json").exit_code, 0);
  ProcessResult verbose = Generate(kBaseline, "verbose.json", {"-v"});
  ASSERT_EQ(verbose.exit_code, 0) << verbose.stderr_text;
  EXPECT_EQ(fixture_.ReadFile("verbose.json"), fixture_.ReadFile("plain.json"));
  ProcessResult first = RunTool(kBaseline, {"--verbose", "generate-hashes", "-w", fixture_.workspace().string(), "-b",
                                            fixture_.bazel().string(), (fixture_.dir() / "first.json").string()});
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  EXPECT_EQ(fixture_.ReadFile("first.json"), fixture_.ReadFile("plain.json"));
  const std::string usage = RunTool(kBaseline, {"--help"}).stdout_text;
  ASSERT_TRUE(usage.starts_with("usage: bazel-diff-ref")) << usage;
  for (const char* command : {"generate-hashes", "get-impacted-targets", "serve"}) {
    for (const char* help : {"-h", "--help"}) {
      ProcessResult result = RunTool(kCandidate, {command, help});
      EXPECT_EQ(result.exit_code, 0) << command << " " << help << ": " << result.stderr_text;
      EXPECT_EQ(result.stdout_text, usage) << command << " " << help;
    }
  }
}

TEST_F(ContenderCli, UsageErrorsAreOneLine) {
  ExpectOneLineError(RunTool(kBaseline, {"generate-hashes", "--bogus"}),
                     "unknown option '--bogus' for generate-hashes (see --help)");
  ExpectOneLineError(RunTool(kBaseline, {"generate-hashes", "-b", "/bin/true"}), "generate-hashes needs -w WORKSPACE");
  // Upstream requires -w here since 17.0.1.
  ExpectOneLineError(RunTool(kBaseline, {"get-impacted-targets", "-sh", "a.json", "-fh", "b.json"}),
                     "get-impacted-targets needs -w WORKSPACE");
  ExpectOneLineError(RunTool(kBaseline, {"get-impacted-targets", "--noexcludeExternalTargets"}),
                     "unknown option '--noexcludeExternalTargets' for get-impacted-targets (see --help)");
  ExpectOneLineError(RunTool(kBaseline, {"get-impacted-targets", "-sh"}), "option -sh needs a value");
  ExpectOneLineError(RunTool(kBaseline, {}), "no command given (try --help)");
}

// Upstream reads `bazel version` as BazelQueryService.determineBazelVersion does
// (BazelQueryService.kt:46-81, Tinder/bazel-diff 37.0.0): the first line starting "Build label: ",
// else one starting "bazel ", cut at its first '-', each of three '.'-separated parts read from its
// leading digits. A label it cannot read (empty, as a development build prints it) fails the run.
TEST(BazelVersion, IsReadAsUpstreamReadsIt) {
  EXPECT_EQ(ParseBazelVersion("Build label: 7.4.1\nBuild target: x\n"), (std::vector<int>{7, 4, 1}));
  EXPECT_EQ(ParseBazelVersion("Build label:  8.6.0rc1 \n"), (std::vector<int>{8, 6, 0}));
  EXPECT_EQ(ParseBazelVersion("Build label: 9.0.0-pre.20250101.1\n"), (std::vector<int>{9, 0, 0}));
  EXPECT_EQ(ParseBazelVersion("Build label: 6.5.0.4\n"), (std::vector<int>{6, 5, 0}));
  EXPECT_EQ(ParseBazelVersion("WARNING: x\nbazel 7.1.2\n"), (std::vector<int>{7, 1, 2}));
  EXPECT_EQ(ParseBazelVersion("Build label: 8.2.0\r\nbazel 7.1.2\n"), (std::vector<int>{8, 2, 0}));
  auto error = [](const std::string& output) -> std::string {
    try {
      ParseBazelVersion(output);
      return "(no error)";
    } catch (const RefDiffError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(error("Build label: \nBuild target: x\n"),
            "'bazel version' printed an empty build label (a development build); bazel-diff needs X.Y.Z");
  EXPECT_EQ(error("Build label:\n"), "'bazel version' printed neither 'Build label: X.Y.Z' nor 'bazel X.Y.Z'");
  EXPECT_EQ(error(""), "'bazel version' printed neither 'Build label: X.Y.Z' nor 'bazel X.Y.Z'");
  EXPECT_EQ(error("Build label: 7.4\n"), "'bazel version' printed the build label '7.4', not X.Y.Z");
  EXPECT_EQ(error("Build label: 7.x.1\n"), "'bazel version' printed the build label '7.x.1', not X.Y.Z");
  EXPECT_EQ(error("Build label: 6.5.0.x\n"), "'bazel version' printed the build label '6.5.0.x', not X.Y.Z");
  EXPECT_EQ(error("Build label: 99999999999.0.0\n"),
            "'bazel version' printed the build label '99999999999.0.0', not X.Y.Z");
}

TEST_F(ContenderCli, AnEmptyBuildLabelFailsGenerateHashesAsUpstream) {
  setenv("REFDIFF_REPLAY_VERSION", "", 1);  // the replay prints "Build label: "
  for (const std::string& program : {kBaseline, kCandidate}) {
    ExpectOneLineError(Generate(program, "h.json"),
                       "'bazel version' printed an empty build label (a development build); bazel-diff needs X.Y.Z");
  }
  unsetenv("REFDIFF_REPLAY_VERSION");
  EXPECT_FALSE(std::filesystem::exists(fixture_.dir() / "h.json"));
}

// Upstream's get-impacted-targets parses --[no-]noBazelrc and passes it nowhere
// (GetImpactedTargetsCommand.kt:98-103, 130-147): bazel is called without --bazelrc=/dev/null.
TEST_F(ContenderCli, GetImpactedTargetsParsesNoBazelrcAndIgnoresItAsUpstreamDoes) {
  ASSERT_EQ(Generate(kCandidate, "h.json").exit_code, 0);
  const std::string hashes = (fixture_.dir() / "h.json").string();
  const std::string ws = fixture_.workspace().string();
  const std::filesystem::path log = fixture_.dir() / "calls.log";
  setenv("REFDIFF_REPLAY_LOG", log.c_str(), 1);
  for (const std::string& program : {kBaseline, kCandidate}) {
    for (const char* flag : {"--noBazelrc", "--no-noBazelrc"}) {
      ProcessResult result = RunTool(program, {"get-impacted-targets", "-w", ws, "-b", fixture_.bazel().string(), "-so",
                                               "--batch", flag, "-sh", hashes, "-fh", hashes});
      EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
      EXPECT_EQ(Calls(log),
                (std::vector<std::string>{"[" + ws + "] --batch info output_base", "[" + ws + "] --batch mod graph"}))
          << program << " " << flag;
    }
  }
  unsetenv("REFDIFF_REPLAY_LOG");
}

// Upstream takes the output base as the one line `info output_base` prints
// (Modules.kt:66-83: `result.output.single()`, lines as Java's readLine splits them) and does not
// look at its exit status; any other number of lines fails generate-hashes and get-impacted-targets.
TEST_F(ContenderCli, TheOutputBaseMustBeOneLineAsUpstreamReadsIt) {
  ASSERT_EQ(Generate(kCandidate, "h.json").exit_code, 0);
  const std::string hashes = (fixture_.dir() / "h.json").string();
  const std::string ws = fixture_.workspace().string();
  // A bazel whose `info output_base` prints $OUTPUT_BASE_ANSWER and exits $OUTPUT_BASE_STATUS;
  // every other command goes to the fixture's replay bazel.
  const std::filesystem::path wrapper =
      fixture_.WriteFile("info-bazel",
                         "#!/bin/sh\n"
                         "for a in \"$@\"; do case \"$a\" in -*) ;; info) printf '%b' \"$OUTPUT_BASE_ANSWER\"; "
                         "exit \"$OUTPUT_BASE_STATUS\";; *) break;; esac; done\n"
                         "exec '" +
                             fixture_.bazel().string() + "' \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  struct Case {
    std::string answer, status, error;  // error "" = runs
  };
  const std::vector<Case> cases = {
      {"/base\\n", "0", ""},
      {"/base", "0", ""},
      {"/base\\r\\n", "0", ""},
      {"\\n", "0", ""},  // one empty line: still one line for upstream
      {"/base\\n", "3", ""},
      {"", "0", "'bazel info output_base' printed no line, not the one line of an output base"},
      {"/a\\n/b\\n", "0", "'bazel info output_base' printed 2 lines, not the one line of an output base"},
      {"/base\\n\\n", "0", "'bazel info output_base' printed 2 lines, not the one line of an output base"},
      {"/a\\r/b", "0", "'bazel info output_base' printed 2 lines, not the one line of an output base"},
      {"", "3", "'bazel info output_base' failed with exit code 3"},
  };
  for (const Case& c : cases) {
    setenv("OUTPUT_BASE_ANSWER", c.answer.c_str(), 1);
    setenv("OUTPUT_BASE_STATUS", c.status.c_str(), 1);
    for (const std::string& program : {kBaseline, kCandidate}) {
      const ProcessResult generated = RunTool(program, {"generate-hashes", "-w", ws, "-b", wrapper.string()});
      const ProcessResult impacted =
          RunTool(program, {"get-impacted-targets", "-w", ws, "-b", wrapper.string(), "-sh", hashes, "-fh", hashes});
      const std::string label = program + " '" + c.answer + "' exit " + c.status;
      if (c.error.empty()) {
        EXPECT_EQ(generated.exit_code, 0) << label << ": " << generated.stderr_text;
        EXPECT_EQ(impacted.exit_code, 0) << label << ": " << impacted.stderr_text;
      } else {
        SCOPED_TRACE(label);
        ExpectOneLineError(generated, c.error);
        ExpectOneLineError(impacted, c.error);
      }
    }
  }
  unsetenv("OUTPUT_BASE_ANSWER");
  unsetenv("OUTPUT_BASE_STATUS");
}

}  // namespace
}  // namespace pe::refdiff
