// The built executables' serve: answers equal to get-impacted-targets over generate-hashes
// files (distances too), the same bytes from both builds, the initial fetch and checkouts in -w,
// errors, a taken port, and a clean SIGTERM.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/http/fetch.h"
#include "engine/http/health.h"
#include "engine/http/load.h"
#include "serve_support.h"
#include "subprocess.h"

namespace pe::refdiff {
namespace {

using testing::Git;
using testing::GitFixture;
using testing::HeldPort;
using testing::ScratchDir;
using testing::ServeProcess;
using testing::SharedGitFixture;
using testing::WorktreeCount;

const std::string kBaseline = REFDIFF_BASELINE;
const std::string kCandidate = REFDIFF_CANDIDATE;

std::vector<std::string> ServeArgs(const GitFixture& fixture, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"serve",
                                   "--port",
                                   "0",
                                   "--port-file",
                                   "{port-file}",
                                   "-w",
                                   fixture.repo().string(),
                                   "-b",
                                   fixture.bazel().string(),
                                   "--cacheDir",
                                   "{cache-dir}"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Starts the server and waits until it is healthy; returns its port.
int StartHealthy(ServeProcess& server) {
  int port = server.WaitForPort();
  EXPECT_GT(port, 0) << server.Stderr();
  if (port <= 0) return -1;
  http::HealthResult health = http::WaitUntilHealthy(port, "/health", 10, [&] { return server.Running(); });
  EXPECT_TRUE(health.healthy) << health.error << "\n" << server.Stderr();
  return health.healthy ? port : -1;
}

std::string ServeCommit(const GitFixture& fixture, const std::string& rev) {
  std::string commit = Git(fixture.repo(), {"rev-parse", rev});
  commit.pop_back();
  return commit;
}

http::Response Get(int port, const std::string& target) { return http::Fetch(port, {"GET", target, "", ""}, 30); }

// What the command-line tools say: generate-hashes --includeTargetType (as upstream's serve
// stores hashes) with -d on each revision's checkout, then get-impacted-targets, one label per
// line, or with -d (the final revision's edges) the distances.
class CliAnswers {
 public:
  explicit CliAnswers(const GitFixture& fixture) : repo_(fixture.repo()), bazel_(fixture.bazel()) {
    for (const std::string rev : {"rev0", "rev1", "rev2"}) {
      std::filesystem::path checkout = scratch_.path() / ("checkout-" + rev);
      Git(fixture.repo(), {"worktree", "add", "--quiet", "--detach", checkout.string(), rev});
      std::string out = HashFile(rev);
      ProcessResult generated = RunProcess({{kBaseline, "generate-hashes", "-w", checkout.string(), "-b",
                                             fixture.bazel().string(), "--includeTargetType", "-d", DepsFile(rev), out},
                                            {},
                                            {}});
      EXPECT_EQ(generated.exit_code, 0) << generated.stderr_text;
      Git(fixture.repo(), {"worktree", "remove", "--force", checkout.string()});
    }
  }

  std::vector<std::string> Impacted(const std::string& from, const std::string& to) const {
    // Upstream asks bazel for the output base in -w even here (Modules.kt:66-82), so -w is the
    // repository's workspace and -b its replay bazel.
    ProcessResult impacted =
        RunProcess({{kBaseline, "get-impacted-targets", "-w", repo_.string(), "-b", bazel_.string(),
                     "--no-excludeExternalTargets", "-sh", HashFile(from), "-fh", HashFile(to)},
                    {},
                    {}});
    EXPECT_EQ(impacted.exit_code, 0) << impacted.stderr_text;
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t nl; (nl = impacted.stdout_text.find('\n', start)) != std::string::npos; start = nl + 1) {
      lines.push_back(impacted.stdout_text.substr(start, nl - start));
    }
    return lines;
  }

  nlohmann::json Distances(const std::string& from, const std::string& to) const {
    ProcessResult impacted =
        RunProcess({{kBaseline, "get-impacted-targets", "-w", repo_.string(), "-b", bazel_.string(),
                     "--no-excludeExternalTargets", "-sh", HashFile(from), "-fh", HashFile(to), "-d", DepsFile(to)},
                    {},
                    {}});
    EXPECT_EQ(impacted.exit_code, 0) << impacted.stderr_text;
    return nlohmann::json::parse(impacted.stdout_text);
  }

 private:
  std::string HashFile(const std::string& rev) const { return (scratch_.path() / (rev + ".json")).string(); }
  std::string DepsFile(const std::string& rev) const { return (scratch_.path() / (rev + ".deps.json")).string(); }

  std::filesystem::path repo_, bazel_;
  ScratchDir scratch_;
};

TEST(ServeTest, AnswersWhatGetImpactedTargetsPrints) {
  const GitFixture& fixture = SharedGitFixture();
  CliAnswers cli(fixture);
  ServeProcess server(kBaseline, ServeArgs(fixture));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"rev0", "rev1"}, {"rev1", "rev2"}, {"rev2", "rev0"}, {"rev1", "rev1"}}) {
    http::Response response = Get(port, "/impacted_targets?from=" + from + "&to=" + to);
    ASSERT_EQ(response.status, 200) << response.error << response.body;
    nlohmann::json answer = nlohmann::json::parse(response.body);
    // As upstream: the commits the revisions name.
    EXPECT_EQ(answer["from"], ServeCommit(fixture, from));
    EXPECT_EQ(answer["to"], ServeCommit(fixture, to));
    std::vector<std::string> expected = cli.Impacted(from, to);
    EXPECT_EQ(answer["impactedTargets"].get<std::vector<std::string>>(), expected) << from << ".." << to;
    if (from != to) {
      EXPECT_FALSE(expected.empty());
    }
  }
  // A commit id works as well as the tag that names it.
  std::string rev0 = Git(fixture.repo(), {"rev-parse", "rev0"});
  rev0.pop_back();
  http::Response by_id = Get(port, "/impacted_targets?from=" + rev0 + "&to=rev1");
  // Without --trackDeps, no distances, as upstream.
  EXPECT_EQ(Get(port, "/impacted_targets_with_distances?from=rev0&to=rev1").body,
            "{\"error\": \"distances unavailable: server started without --trackDeps\"}\n");
  EXPECT_EQ(by_id.status, 200);
  EXPECT_EQ(nlohmann::json::parse(by_id.body)["impactedTargets"],
            nlohmann::json::parse(Get(port, "/impacted_targets?from=rev0&to=rev1").body)["impactedTargets"]);
}

// With --trackDeps: upstream's {"label", "targetDistance", "packageDistance"} per target, as
// get-impacted-targets -d computes them over the final revision's edges.
TEST(ServeTest, DistancesAreWhatGetImpactedTargetsComputes) {
  const GitFixture& fixture = SharedGitFixture();
  CliAnswers cli(fixture);
  ServeProcess server(kCandidate, ServeArgs(fixture, {"--trackDeps"}));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  bool some_indirect = false;
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"rev0", "rev1"}, {"rev1", "rev2"}, {"rev2", "rev0"}, {"rev0", "rev2"}}) {
    http::Response response = Get(port, "/impacted_targets_with_distances?from=" + from + "&to=" + to);
    ASSERT_EQ(response.status, 200) << response.error << response.body;
    nlohmann::json answer = nlohmann::json::parse(response.body);
    EXPECT_EQ(answer["from"], ServeCommit(fixture, from));
    EXPECT_EQ(answer["to"], ServeCommit(fixture, to));
    nlohmann::json expected = cli.Distances(from, to);
    EXPECT_EQ(answer["impactedTargets"], expected) << from << ".." << to;
    for (const auto& target : expected) some_indirect |= target["targetDistance"].get<int>() > 0;
    // The plain endpoint lists the same labels in the same order.
    nlohmann::json labels = nlohmann::json::parse(Get(port, "/impacted_targets?from=" + from + "&to=" + to).body);
    ASSERT_EQ(labels["impactedTargets"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(labels["impactedTargets"][i], expected[i]["label"]);
  }
  EXPECT_TRUE(some_indirect);  // the fixture's changes reach other targets through edges
}

// The server fetches before it reports healthy, and checks revisions out in -w itself.
TEST(ServeTest, FetchesAtStartAndChecksOutInTheClone) {
  const GitFixture& fixture = SharedGitFixture();
  ScratchDir scratch;
  std::filesystem::path origin = scratch.path() / "origin", clone = scratch.path() / "clone";
  Git(scratch.path(), {"clone", "--quiet", "--shared", fixture.repo().string(), origin.string()});
  Git(scratch.path(), {"clone", "--quiet", origin.string(), clone.string()});
  Git(origin, {"branch", "landed", "rev1"});
  ServeProcess server(kBaseline, {"serve", "--port", "0", "--port-file", "{port-file}", "-w", clone.string(), "-b",
                                  fixture.bazel().string(), "--cacheDir", "{cache-dir}"});
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  // Fetched before ready: origin/landed is there before any request asked for it.
  EXPECT_EQ(Git(clone, {"rev-parse", "origin/landed"}), Git(origin, {"rev-parse", "rev1"}));
  EXPECT_EQ(Get(port, "/impacted_targets?from=rev0&to=origin/landed").status, 200);
  EXPECT_EQ(Git(clone, {"rev-parse", "HEAD"}), Git(origin, {"rev-parse", "rev1"}));  // the last one hashed
  EXPECT_EQ(WorktreeCount(clone), 1);
  // A branch that lands later is fetched when a request names it.
  Git(origin, {"branch", "later", "rev2"});
  EXPECT_EQ(Get(port, "/impacted_targets?from=rev0&to=origin/later").status, 200);
  EXPECT_EQ(Git(clone, {"rev-parse", "HEAD"}), Git(origin, {"rev-parse", "rev2"}));
}

// --no-initial-fetch skips it; a failed initial fetch leaves the server up and never healthy.
TEST(ServeTest, AFailedInitialFetchIsALameDuck) {
  const GitFixture& fixture = SharedGitFixture();
  ScratchDir scratch;
  std::filesystem::path clone = scratch.path() / "clone";
  Git(scratch.path(), {"clone", "--quiet", "--shared", fixture.repo().string(), clone.string()});
  Git(clone, {"remote", "set-url", "origin", (scratch.path() / "gone").string()});
  {
    ServeProcess server(kBaseline, ServeArgs(fixture, {"-w", clone.string()}));
    int port = server.WaitForPort();
    ASSERT_GT(port, 0);
    http::HealthResult health = http::WaitUntilHealthy(port, "/health", 3, [&] { return server.Running(); });
    EXPECT_FALSE(health.healthy);
    EXPECT_TRUE(server.Running());
    EXPECT_EQ(Get(port, "/health").status, 503);
    EXPECT_EQ(Get(port, "/impacted_targets?from=rev0&to=rev1").body, "{\"error\": \"service not ready\"}\n");
    const std::string stderr_text = server.Stderr();
    EXPECT_NE(stderr_text.find("bazel-diff-ref: initial git fetch failed; the server stays up but not ready (/health "
                               "answers 503): git fetch --all --prune failed (exit 128)\n"),
              std::string::npos)
        << stderr_text;
  }
  ServeProcess server(kBaseline, ServeArgs(fixture, {"-w", clone.string(), "--no-initial-fetch"}));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  EXPECT_EQ(Get(port, "/impacted_targets?from=rev0&to=rev1").status, 200);
}

// --warmupRevision: hashed (so checked out) before ready; one that fails is a warning only.
TEST(ServeTest, WarmUpRevisionsAreHashedBeforeReady) {
  const GitFixture& fixture = SharedGitFixture();
  ScratchDir scratch;
  std::filesystem::path clone = scratch.path() / "clone";
  Git(scratch.path(), {"clone", "--quiet", "--shared", fixture.repo().string(), clone.string()});
  ServeProcess server(kBaseline, ServeArgs(fixture, {"-w", clone.string(), "--warmupRevision", "nope, rev1"}));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  EXPECT_EQ(Git(clone, {"rev-parse", "HEAD"}), Git(clone, {"rev-parse", "rev1"}));
  EXPECT_EQ(server.Stderr(),
            "bazel-diff-ref: warning: warm-up of revision 'nope' failed; it will be hashed on demand: revision 'nope' "
            "is missing from the local clone\n");
}

TEST(ServeTest, BaselineAndCandidateAnswerIdenticalBytes) {
  const GitFixture& fixture = SharedGitFixture();
  std::vector<http::Request> requests = {
      {"GET", "/impacted_targets?from=rev0&to=rev1", "", ""},
      {"GET", "/impacted_targets?from=rev0&to=rev2", "", ""},
      {"POST", "/impacted_targets", R"({"from": "rev2", "to": "rev1"})", "application/json"},
      {"GET", "/impacted_targets?from=rev0&to=rev1", "", ""},
      {"GET", "/impacted_targets?from=main&to=nope", "", ""},
      {"GET", "/impacted_targets?from=rev0", "", ""},
      {"GET", "/health", "", ""},
      {"GET", "/impacted_targets_with_distances?from=rev0&to=rev2", "", ""},
      {"POST", "/impacted_targets_with_distances", R"({"from": "rev2", "to": "rev1"})", "application/json"},
  };
  std::vector<std::vector<http::Response>> answers;
  for (const std::string& program : {kBaseline, kCandidate}) {
    ServeProcess server(program, ServeArgs(fixture, {"--trackDeps"}));
    int port = StartHealthy(server);
    ASSERT_GT(port, 0);
    http::LoadResult load = http::FireRequests(port, requests, 3, 30, true);
    ASSERT_EQ(load.error, "");
    answers.push_back(load.responses);
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(answers[0][i].status, answers[1][i].status) << requests[i].target;
    EXPECT_EQ(answers[0][i].body, answers[1][i].body) << requests[i].target;
  }
  EXPECT_EQ(answers[0][0].status, 200);
  EXPECT_EQ(answers[0][4].status, 400);  // a git error, as upstream answers it
  EXPECT_EQ(answers[0][5].status, 400);
  EXPECT_EQ(answers[0][7].status, 200);
  EXPECT_EQ(answers[0][8].status, 200);
}

TEST(ServeTest, KeepAliveConnectionsCarryManyRequests) {
  const GitFixture& fixture = SharedGitFixture();
  ServeProcess server(kCandidate, ServeArgs(fixture, {"--threads", "3"}));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  // All at once on a cold cache: the requests for one commit wait for one computation.
  std::vector<http::Request> requests(24, {"GET", "/impacted_targets?from=rev0&to=rev2", "", ""});
  http::LoadResult load = http::FireRequests(port, requests, 3, 30, true);
  ASSERT_EQ(load.error, "");
  EXPECT_EQ(load.connections_opened, 3);
  for (const http::Response& response : load.responses) {
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, load.responses[0].body);
  }
}

// Upstream's shapes: a revision git cannot resolve to a commit is 400 "git error: ...".
TEST(ServeTest, ErrorsAnswer400AndUnknownPaths404) {
  const GitFixture& fixture = SharedGitFixture();
  ServeProcess server(kBaseline, ServeArgs(fixture));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  http::Response unknown = Get(port, "/impacted_targets?from=rev0&to=rev9");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.body, "{\"error\": \"git error: revision 'rev9' is missing from the local clone\"}\n");
  // Never read as an option of git's.
  EXPECT_EQ(Get(port, "/impacted_targets?from=--all&to=rev1").body,
            "{\"error\": \"git error: revision '--all' is missing from the local clone\"}\n");
  // A tree is not a commit.
  EXPECT_EQ(Get(port, "/impacted_targets?from=rev0%5E%7Btree%7D&to=rev1").status, 400);
  http::Response missing = Get(port, "/impacted_targets?to=rev1");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, "{\"error\": \"missing required query parameters 'from' and 'to'\"}\n");
  EXPECT_EQ(Get(port, "/nothing").status, 404);
}

TEST(ServeTest, UsageErrorsAreOneLine) {
  const GitFixture& fixture = SharedGitFixture();
  const std::string repo = fixture.repo().string(), bazel = fixture.bazel().string();
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), kBaseline);
    ProcessResult result = RunProcess({args, {}, {}});
    EXPECT_EQ(result.exit_code, 1);
    return result.stderr_text;
  };
  ScratchDir cache;
  const std::string dir = cache.path().string();
  EXPECT_EQ(run({"serve", "--port", "70000", "-w", repo, "-b", bazel, "--cacheDir", dir}),
            "bazel-diff-ref: --port wants a port number from 0 to 65535 (0 = any free port), not '70000'\n");
  EXPECT_EQ(run({"serve", "--port=0", "-b", bazel, "--cacheDir", dir}),
            "bazel-diff-ref: serve needs -w REPO (the git repository)\n");
  // Upstream requires --cacheDir.
  EXPECT_EQ(run({"serve", "--port=0", "-w", repo, "-b", bazel}),
            "bazel-diff-ref: serve needs --cacheDir DIR (hashes kept per commit)\n");
  EXPECT_EQ(run({"serve", "--port=0", "-w", repo, "-b", "/nonexistent/bazel", "--cacheDir", dir}),
            "bazel-diff-ref: bazel /nonexistent/bazel is not an executable file\n");
  EXPECT_EQ(run({"serve", "--port=0", "-w", repo, "-b", bazel, "--cacheDir", dir, "--color"}),
            "bazel-diff-ref: unknown option '--color' for serve (see --help)\n");
  EXPECT_EQ(run({"serve", "--port=0", "-w", repo, "-b", bazel, "--cacheDir", dir, "--host", "localhost"}),
            "bazel-diff-ref: cannot listen on localhost:0: 'localhost' is not an IP address\n");
}

TEST(ServeTest, TakenPortExits98WithOneLine) {
  const GitFixture& fixture = SharedGitFixture();
  HeldPort held;
  ScratchDir cache;
  ServeProcess server(kBaseline, {"serve", "--port", std::to_string(held.port()), "-w", fixture.repo().string(), "-b",
                                  fixture.bazel().string(), "--cacheDir", cache.path().string()});
  EXPECT_EQ(server.Wait(10), 98);
  EXPECT_EQ(server.Stderr(), "bazel-diff-ref: address already in use: 127.0.0.1:" + std::to_string(held.port()) + "\n");
}

TEST(ServeTest, NotARepositoryExitsOneBeforeReady) {
  const GitFixture& fixture = SharedGitFixture();
  ScratchDir not_a_repo;
  ServeProcess server(kBaseline, {"serve", "--port", "0", "-w", not_a_repo.path().string(), "-b",
                                  fixture.bazel().string(), "--cacheDir", (not_a_repo.path() / "cache").string()});
  EXPECT_EQ(server.Wait(10), 1);
  std::string expected = "bazel-diff-ref: " + not_a_repo.path().string() + " is not a git repository: ";
  const std::string stderr_text = server.Stderr();
  EXPECT_EQ(stderr_text.substr(0, expected.size()), expected);
  EXPECT_EQ(std::count(stderr_text.begin(), stderr_text.end(), '\n'), 1) << stderr_text;
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` and reads until `until` has arrived (or the connection ends); returns all read.
std::string Exchange(int fd, const std::string& request, const std::string& until) {
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) return {};
  std::string answer;
  char buffer[256];
  while (answer.find(until) == std::string::npos) {
    ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(got));
  }
  return answer;
}

TEST(ServeTest, HeadAnswersWithoutABodyAndKeepsTheConnection) {
  const GitFixture& fixture = SharedGitFixture();
  ServeProcess server(kBaseline, ServeArgs(fixture));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  int fd = Connect(port);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(Exchange(fd, "HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "\r\n\r\n"),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(Exchange(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "OK\n"),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nOK\n");
  close(fd);
}

// An open keep-alive connection that has had its answer: SIGTERM must not wait for it.
int OpenIdleConnection(int port) {
  int fd = Connect(port);
  if (fd < 0) return -1;
  std::string answer = Exchange(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "\r\n\r\nOK\n");
  if (answer.find("\r\n\r\nOK\n") == std::string::npos) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(ServeTest, SigtermExitsZeroAndLeavesNothingBehind) {
  const GitFixture& fixture = SharedGitFixture();
  ServeProcess server(kBaseline, ServeArgs(fixture));
  int port = StartHealthy(server);
  ASSERT_GT(port, 0);
  EXPECT_EQ(Get(port, "/impacted_targets?from=rev0&to=rev1").status, 200);
  int idle = OpenIdleConnection(port);
  ASSERT_GE(idle, 0);

  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(10), 0) << server.Stderr();
  EXPECT_EQ(server.Stderr(), "");
  // The idle connection was closed by the server, not left hanging.
  char byte;
  EXPECT_LE(read(idle, &byte, 1), 0);
  close(idle);
  EXPECT_FALSE(server.GroupAlive());
  EXPECT_TRUE(std::filesystem::is_empty(server.tmpdir()));
  EXPECT_EQ(WorktreeCount(fixture.repo()), 1);
}

}  // namespace
}  // namespace pe::refdiff
