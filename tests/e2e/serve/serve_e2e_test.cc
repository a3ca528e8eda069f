// Serve workloads end to end: the real perfengine against stub-http-server, whose readiness,
// latency, answers and crashes each test controls. After every run no server is left.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string Argv(std::vector<std::string> args) {
  std::string out = "[\"" STUB_HTTP_SERVER "\"";
  for (const auto& a : args) out += ", " + nlohmann::json(a).dump();
  return out + "]";
}

class ServeE2E : public ::testing::Test {
 protected:
  // Both contenders log their pid at start, so the test can check none outlives the run.
  Finished Run(std::vector<std::string> baseline, std::vector<std::string> candidate, const std::string& extra = "",
               const std::string& thresholds = "min_speedup = 1.0\n", std::vector<std::string> flags = {}) {
    for (auto* args : {&baseline, &candidate}) {
      args->insert(args->end(), {"--log", log_.string(), args == &baseline ? "B" : "C"});
    }
    const fs::path spec = dir_.path() / "serve.toml";
    std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 1\n"
                        << "[contenders.baseline]\nwritable = [\".\"]\nargv = " << Argv(baseline)
                        << "\nstartup = [\"/bin/true\"]\n"
                        << "[contenders.candidate]\nwritable = [\".\"]\nargv = " << Argv(candidate)
                        << "\nstartup = [\"/bin/true\"]\n"
                        << "[workloads.api]\nkind = \"serve\"\nargs = [\"--port\", \"{port}\"]\n"
                        << "requests = [\"/impacted_targets?from=rev0&to=rev1\", \"/health2\"]\n"
                        << "request_count = 60\nconcurrency = 4\nready_timeout = 2\n"
                        << extra << "[thresholds]\n"
                        << thresholds;
    std::vector<std::string> args = {"run", spec.string(), "--json", json_.string()};
    args.insert(args.end(), flags.begin(), flags.end());
    return RunPerfengine(args, dir_.path());
  }

  void ExpectNoServerLeft() {
    const auto lines = ReadLog(log_);
    EXPECT_FALSE(lines.empty());
    for (const auto& l : lines) EXPECT_FALSE(IsAliveMentioning(l.pid, log_.string())) << l.tag << " " << l.pid;
  }

  TempDir dir_;
  fs::path log_ = dir_.path() / "log";
  fs::path json_ = dir_.path() / "results.json";
};

TEST_F(ServeE2E, FasterServerPassesWithLatencyFiguresAndTimeToReady) {
  const Finished f = Run({"--latency-ms", "8", "--ready-after-ms", "50"}, {"--latency-ms", "1"});
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  ExpectNoServerLeft();
  const auto results = nlohmann::json::parse(ReadAll(json_));
  const auto& api = results["workloads"][1];
  EXPECT_EQ(api["kind"], "serve");
  const auto& base = api["summaries"][0]["serve"];
  EXPECT_GE(base["p50_s"].get<double>(), 0.008);
  EXPECT_GE(base["time_to_ready_s"].get<double>(), 0.05);
  EXPECT_EQ(base["requests"], 60);
  EXPECT_GT(api["comparison"]["speedup"].get<double>(), 1.5);
  EXPECT_NE(f.out.find("time-to-ready"), std::string::npos) << f.out;
}

TEST_F(ServeE2E, SlowerServerMissesTheGate) {
  // 30 ms against 1 ms: a loaded runner once put the baseline's p99 at 11 ms, under 1.5x of 8 ms.
  const Finished f = Run({"--latency-ms", "1"}, {"--latency-ms", "30"}, "", "min_speedup = 1.0\nmax_p99_ratio = 1.5\n");
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("api: median speedup 0."), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("api: p99 latency ratio"), std::string::npos) << f.out;
  ExpectNoServerLeft();
}

TEST_F(ServeE2E, DifferentAnswersFailParityShowingTheRequest) {
  const Finished f =
      Run({"--body", "{{\"target\": \"{{target}}\"}}"}, {"--body", "{{\"target\": \"other\"}}"}, "parity = \"json\"\n");
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("api: contender 'candidate' answers differ from baseline's (parity: json)"), std::string::npos)
      << f.out;
  EXPECT_NE(f.out.find("request 0: GET /impacted_targets?from=rev0&to=rev1"), std::string::npos) << f.out;
  ExpectNoServerLeft();
}

TEST_F(ServeE2E, NeverReadyIsARunFailure) {
  const Finished f = Run({}, {"--ready-after-ms", "100000"});
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("api: contender 'candidate' (server) not healthy after 2 s: last answer 503"), std::string::npos)
      << f.out;
  ExpectNoServerLeft();
}

TEST_F(ServeE2E, CrashMidRunIsARunFailure) {
  const Finished f = Run({}, {"--crash-after", "30"});  // parity sends 2; a timed round 60
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("api: contender 'candidate' (server) "), std::string::npos) << f.out;
  ExpectNoServerLeft();
}

TEST_F(ServeE2E, APortLostBetweenPickAndBindIsRetriedOnANewPort) {
  // Identical servers: no speed threshold, only whether the run completes.
  const Finished f = Run({}, {"--lose-port-once", (dir_.path() / "lost").string()}, "", "");
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_TRUE(fs::exists(dir_.path() / "lost"));
  ExpectNoServerLeft();
}

TEST_F(ServeE2E, SkipServeLeavesServeWorkloadsOut) {
  const Finished f = Run({}, {"--ready-after-ms", "100000"}, "", "", {"--skip-serve"});
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(nlohmann::json::parse(ReadAll(json_))["workloads"].size(), 1u);  // startup only
}

// A candidate server that ignores SIGTERM (stub-http-server behind deaf-to-sigterm, which blocks
// it) is killed with SIGKILL after the stop grace at the end of each round. The note is part of
// the results, so the JSON, the terminal table and the Markdown report all carry it, not only
// the progress stream. One round: each one the deaf server runs costs the 5 s grace.
TEST_F(ServeE2E, AServerKilledAfterIgnoringSigtermIsNotedInTheResultsAndReports) {
  const fs::path spec = dir_.path() / "deaf.toml";
  const fs::path md = dir_.path() / "report.md";
  std::ofstream(spec) << "[run]\nrounds = 1\nwarmup_rounds = 0\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = " << Argv({"--log", log_.string(), "B"})
                      << "\nstartup = [\"/bin/true\"]\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = [\"" DEAF_TO_SIGTERM
                         "\", \"" STUB_HTTP_SERVER "\", "
                      << nlohmann::json(std::vector<std::string>{"--log", log_.string(), "C"}).dump().substr(1)
                      << "\nstartup = [\"/bin/true\"]\n"
                      << "[workloads.api]\nkind = \"serve\"\nargs = [\"--port\", \"{port}\"]\n"
                      << "requests = [\"/impacted_targets?from=rev0&to=rev1\"]\nrequest_count = 10\n";
  const Finished f =
      RunPerfengine({"run", spec.string(), "--json", json_.string(), "--markdown", md.string()}, dir_.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  ExpectNoServerLeft();
  const std::string note =
      "contender 'candidate': server ignored SIGTERM and was killed after 5 s; every round waits that long for it";
  const auto results = nlohmann::json::parse(ReadAll(json_));
  EXPECT_EQ(results["workloads"][1]["notes"], nlohmann::json::array({note})) << results["workloads"][1].dump();
  EXPECT_NE(f.out.find("api: " + note), std::string::npos) << f.out;
  EXPECT_NE(ReadAll(md).find("api: " + note), std::string::npos) << ReadAll(md);
  // The baseline stopped at SIGTERM: nothing is said of it.
  EXPECT_EQ(f.out.find("contender 'baseline': server ignored"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace pe::e2e
