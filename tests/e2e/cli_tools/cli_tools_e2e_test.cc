// Issue 25's smaller gaps, end to end: `man` and `completion` in --help, the man page's EXAMPLES
// and ENVIRONMENT (every PERFENGINE_* variable in the sources), `generate` on a spec without
// contenders, prepare/cleanup hooks around every execution, and parameter lists (a spec's
// `parameters`, and -L with --quick and init).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string Q(const std::string& s) { return nlohmann::json(s).dump(); }
std::string Stub() { return Q(STUB_CONTENDER); }

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CliToolsE2E, HelpListsManAndCompletion) {
  TempDir dir;
  const Finished f = RunPerfengine({"--help"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.err;
  EXPECT_TRUE(std::regex_search(f.out, std::regex("\n +man +Print the man page"))) << f.out;
  EXPECT_TRUE(std::regex_search(f.out, std::regex("\n +completion +Print shell completion"))) << f.out;
  const Finished bash = RunPerfengine({"completion", "bash"}, dir.path());
  EXPECT_TRUE(Has(bash.out, " man ") || Has(bash.out, " man\"")) << bash.out;
}

// Every PERFENGINE_* name the engine's sources mention (but the build's version macro).
std::set<std::string> VariablesInSources() {
  std::set<std::string> names;
  const std::regex name("PERFENGINE_[A-Z_]+");
  for (const char* folder : {"engine", "generators"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(PERFENGINE_SOURCE_DIR) / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h") continue;
      const std::string text = ReadAll(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
        if (it->str() != "PERFENGINE_VERSION") names.insert(it->str());
      }
    }
  }
  return names;
}

TEST(CliToolsE2E, TheManPageNamesEveryEnvironmentVariableAndGivesExamplesThatParse) {
  TempDir dir;
  const Finished man = RunPerfengine({"man"}, dir.path());
  ASSERT_EQ(man.exit, 0) << man.err;
  const std::size_t env = man.out.find("\n.SH ENVIRONMENT\n");
  const std::size_t examples = man.out.find("\n.SH EXAMPLES\n");
  ASSERT_NE(env, std::string::npos) << man.out;
  ASSERT_NE(examples, std::string::npos) << man.out;
  const std::set<std::string> names = VariablesInSources();
  ASSERT_GE(names.size(), 8u);  // the scan itself works: ACCEPT_REGRESSION, CACHE, HISTORY, ...
  for (const std::string& n : names) {
    EXPECT_TRUE(Has(man.out.substr(env), ".TP\n.B " + n + "\n"))
        << n << " is read by perfengine but not in ENVIRONMENT";
  }
  EXPECT_TRUE(Has(man.out.substr(env), ".B TMPDIR\n"));
  // Each example names a real command (its --help works) and only flags that command takes.
  const std::regex example("\n\\.B perfengine ([a-z-]+)([^\n]*)");
  int seen = 0;
  const std::string text = man.out.substr(examples);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), example); it != std::sregex_iterator(); ++it, ++seen) {
    const std::string command = (*it)[1];
    const Finished help = RunPerfengine({command, "--help"}, dir.path());
    EXPECT_EQ(help.exit, 0) << command;
    // Flags outside the quoted commands: '\-' is roff's hyphen.
    const std::string rest = std::regex_replace(std::regex_replace(std::string((*it)[2]), std::regex("\\\\-"), "-"),
                                                std::regex("'[^']*'"), "");
    const std::regex flag(" (-[A-Za-z]|--[a-z-]+)");
    for (auto f = std::sregex_iterator(rest.begin(), rest.end(), flag); f != std::sregex_iterator(); ++f) {
      EXPECT_TRUE(Has(help.out, (*f)[1].str())) << command << " does not take " << (*f)[1];
    }
  }
  EXPECT_GE(seen, 6);
}

constexpr const char* kFixturesOnly =
    "[workloads.lines]\nargs = [\"{fixture}\"]\nfixture = { generator = \"text_lines\", lines = 50 }\n";

TEST(CliToolsE2E, GenerateWritesTheFixturesOfASpecWithoutContenders) {
  TempDir dir;
  const fs::path spec = dir.path() / "fixtures.toml";
  std::ofstream(spec) << kFixturesOnly;
  const Finished g = RunPerfengine({"generate", spec.string(), "--out", (dir.path() / "out").string()}, dir.path());
  EXPECT_EQ(g.exit, 0) << g.err;
  EXPECT_TRUE(Has(g.out, "lines: 1 file")) << g.out;
  EXPECT_FALSE(fs::is_empty(dir.path() / "out" / "lines"));
  // run and validate still need contenders, and say so.
  for (const char* command : {"validate", "run"}) {
    const Finished f = RunPerfengine({command, spec.string()}, dir.path());
    EXPECT_EQ(f.exit, 2) << command;
    EXPECT_EQ(f.err, spec.string() +
                         ":1:1: the spec declares no contenders: add [contenders.NAME] tables (only perfengine "
                         "generate reads a spec without them)\n")
        << command;
  }
}

// A workload whose contenders need a file that only its prepare makes, in the execution's own
// {workdir}; every step logs itself (the stub's --log: tag, pid, time).
fs::path WriteHookSpec(const TempDir& dir, const std::string& prepare) {
  const fs::path spec = dir.path() / "hooks.toml";
  const std::string log = (dir.path() / "log").string();
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 1\n\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = [" << Stub() << "]\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = [" << Stub() << "]\ncleanup = [" << Stub()
                      << ", \"--log\", " << Q(log) << ", \"cleanup-{contender}\"]\n\n"
                      << "[workloads.work]\nargs = [\"--copy\", \"{workdir}/in\", \"{out}\", \"--log\", " << Q(log)
                      << ", \"run-{contender}\"]\noutput = \"{out}\"\nprepare = " << prepare << "\n";
  return spec;
}

TEST(CliToolsE2E, HooksRunAroundEveryExecutionInItsOwnWorkdir) {
  TempDir dir;
  const std::string log = (dir.path() / "log").string();
  const fs::path spec = WriteHookSpec(dir, "[" + Stub() + ", \"--write\", \"{workdir}/in\", \"answer\", \"--log\", " +
                                               Q(log) + ", \"prepare-{contender}\"]");
  const Finished f = RunPerfengine({"run", spec.string(), "-q"}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  std::vector<std::string> tags;
  for (const LogLine& l : ReadLog(log)) {
    tags.push_back(l.tag);
    EXPECT_FALSE(IsAliveMentioning(l.pid, log)) << l.tag;  // nothing outlives its execution, hooks included
  }
  // parity, a warm-up and two rounds: 4 executions of `work` per contender, each prepared first;
  // the candidate's own cleanup after each of its executions (the startup workload's too).
  int baseline = 0, candidate = 0;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (tags[i] == "run-baseline") {
      ++baseline;
      ASSERT_GE(i, 1u);
      EXPECT_EQ(tags[i - 1], "prepare-baseline");
    }
    if (tags[i] == "run-candidate") {
      ++candidate;
      ASSERT_GE(i, 1u);
      EXPECT_EQ(tags[i - 1], "prepare-candidate");
      ASSERT_LT(i + 1, tags.size());
      EXPECT_EQ(tags[i + 1], "cleanup-candidate");
    }
  }
  EXPECT_EQ(baseline, 4);
  EXPECT_EQ(candidate, 4);
  EXPECT_EQ(std::count(tags.begin(), tags.end(), "cleanup-candidate"),
            4 + 1 + 3);  // + startup: parity, warm-up, 2 rounds
}

TEST(CliToolsE2E, AFailingPrepareIsExitTwoNamingContenderWorkloadCommandAndStderr) {
  TempDir dir;
  const fs::path spec = WriteHookSpec(dir, "[\"sh\", \"-c\", \"echo 'no input here' >&2; exit 4\"]");
  const Finished f = RunPerfengine({"run", spec.string(), "-q"}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_TRUE(Has(f.out,
                  "work: contender 'baseline' prepare command 'sh -c echo 'no input here' >&2; exit 4' "
                  "([workloads.work] prepare, run before each execution) exited with status 4 (no input here)"))
      << f.out;
  EXPECT_FALSE(Has(ReadAll(dir.path() / "log"), "run-"));  // no contender ran on `work`
}

TEST(CliToolsE2E, ASpecsParametersMakeOneWorkloadPerValue) {
  TempDir dir;
  const fs::path spec = dir.path() / "params.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = [" << Stub() << ", \"--print\", \"{word}\"]\n\n"
                      << "[contenders.candidate]\nargv = [" << Stub()
                      << ", \"--print\", \"{word}\", \"--print\", \"again\"]\n\n"
                      << "[workloads.say]\nparameters = { word = [\"hello\", \"world\"] }\n";
  // The candidate prints one line more: parity fails on purpose, naming the point.
  const Finished bad = RunPerfengine({"run", spec.string(), "-q"}, dir.path());
  EXPECT_EQ(bad.exit, 2);
  EXPECT_TRUE(Has(bad.out, "say[word=hello]: contender 'candidate' output differs")) << bad.out;
  std::ofstream(spec, std::ios::trunc) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                                       << "[contenders.baseline]\nargv = [" << Stub()
                                       << ", \"--print\", \"{word}\"]\n\n"
                                       << "[contenders.candidate]\nargv = [" << Stub()
                                       << ", \"--print\", \"{word}\"]\n\n"
                                       << "[workloads.say]\nparameters = { word = [\"hello\", \"world\"] }\n";
  const fs::path json = dir.path() / "r.json";
  const Finished ok = RunPerfengine({"run", spec.string(), "-q", "--json", json.string()}, dir.path());
  EXPECT_EQ(ok.exit, 0) << ok.out << ok.err;
  std::vector<std::string> names;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));  // kept: the loop reads into it
  for (const auto& w : results["workloads"]) names.push_back(w["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "say[word=hello]", "say[word=world]"}));
  // A typo in a placeholder is positioned, with the parameter suggested.
  std::ofstream(spec, std::ios::app) << "args = [\"{wrod}\"]\n";
  const Finished typo = RunPerfengine({"validate", spec.string()}, dir.path());
  EXPECT_EQ(typo.exit, 2);
  EXPECT_EQ(typo.err, spec.string() + ":13:9: unknown placeholder '{wrod}' (did you mean '{word}'?)\n");
}

TEST(CliToolsE2E, InitAndQuickTakeParameterListsAsHyperfinesMinusL) {
  TempDir dir;
  const std::string a = std::string(STUB_CONTENDER) + " --print {word}";
  const std::string b = std::string(STUB_CONTENDER) + " --print {word}";
  const fs::path spec = dir.path() / "init.toml";
  const Finished init = RunPerfengine({"init", a, b, "-L", "word", "hello,world", "--out", spec.string()}, dir.path());
  ASSERT_EQ(init.exit, 0) << init.err;
  const std::string text = ReadAll(spec);
  EXPECT_TRUE(Has(text, "\n[workloads.command]\n")) << text;
  EXPECT_TRUE(Has(text, "\nparameters = { word = [\"hello\", \"world\"] }")) << text;
  EXPECT_TRUE(Has(text, "\"--print\", \"{word}\"]")) << text;  // an argv, not sh -c: braces are not the shell's here
  const Finished list = RunPerfengine({"list", spec.string()}, dir.path());
  EXPECT_TRUE(Has(list.out, "command[word=hello]")) << list.out;
  EXPECT_TRUE(Has(list.out, "command[word=world]")) << list.out;
}

TEST(CliToolsE2E, QuickRunsEachValueOfMinusL) {
  TempDir dir;
  const fs::path json = dir.path() / "r.json";
  const Finished f =
      RunPerfengine({"run", "--quick", std::string(STUB_CONTENDER) + " --busy-ms 100 --print {n}",
                     std::string(STUB_CONTENDER) + " --print {n}", "-L", "n", "1,2", "--json", json.string(), "-q"},
                    dir.path());
  ASSERT_TRUE(fs::exists(json)) << f.out << f.err;
  std::vector<std::string> names;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));  // kept: the loop reads into it
  for (const auto& w : results["workloads"]) names.push_back(w["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "command[n=1]", "command[n=2]"}));
  EXPECT_EQ(f.exit, 0) << f.out;  // 100 ms of CPU against none: a speed-up any machine shows
}

TEST(CliToolsE2E, MinusLMistakesAreOneClearErrorEach) {
  TempDir dir;
  const std::string stub = STUB_CONTENDER;
  auto err = [&](std::vector<std::string> args) {
    const Finished f = RunPerfengine(args, dir.path());
    EXPECT_EQ(f.exit, 2) << f.err;
    return f.err;
  };
  EXPECT_EQ(err({"run", "-L", "n", "1,2", (dir.path() / "none.toml").string()}),
            "perfengine: -L: only with --quick; a spec lists a workload's values as parameters = { NAME = [...] }\n");
  EXPECT_EQ(err({"run", "--quick", stub + " --print {levle}", stub + " --print {level}", "-L", "level", "1,3"}),
            "perfengine: '" + stub +
                " --print {levle}' uses {levle}, which no -L declares (did you mean '{level}'?); add -L levle VALUES, "
                "or write {{levle}} for literal braces\n");
  EXPECT_EQ(err({"run", "--quick", stub + " --print 1", stub + " --print 2", "-L", "level", "1,3"}),
            "perfengine: -L level: no command uses {level}; put it where the value goes, e.g. 'zstd -{level} FILE'\n");
  EXPECT_EQ(err({"init", stub + " --print {n}", stub + " --print {n}", "-L", "n", "1,,3"}),
            "perfengine: -L n '1,,3': a value is empty; separate values with single commas, e.g. -L n 1,3,9\n");
  EXPECT_EQ(err({"init", stub + " --print {seed}", stub, "-L", "seed", "1"}),
            "perfengine: -L seed: the name would hide the {seed} placeholder; choose another name\n");
}

}  // namespace
}  // namespace pe::e2e
