// serve's answers without a socket: a fake repository with scripted revisions and hashes, so
// every status and body is checked exactly.
#include "serve_routes.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "error.h"

namespace pe::refdiff {
namespace {

class FakeRevisions : public RevisionSource {
 public:
  std::optional<std::string> ResolveCommit(const std::string& rev) override {
    std::lock_guard<std::mutex> lock(mutex);
    resolved.push_back(rev);
    auto it = commits.find(rev);
    if (it == commits.end()) return std::nullopt;
    return it->second;
  }
  void FetchAll() override {
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back("fetch --all");
    if (fetch_fails) throw RefDiffError("git fetch --all --prune failed (exit 1)");
    commits.insert(after_fetch.begin(), after_fetch.end());
  }
  bool FetchRevision(const std::string& rev) override {
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back("fetch " + rev);
    auto it = by_name.find(rev);
    if (it == by_name.end()) return false;
    commits.insert(*it);
    return true;
  }
  std::shared_ptr<const RevisionHashes> Hashes(const std::string& commit) override {
    if (commit == "broken") throw RefDiffError("'bazel query' failed with exit code 7");
    if (commit == "boom") throw std::runtime_error("filesystem error: no space left");
    return std::make_shared<const RevisionHashes>(hashes.at(commit));
  }

  std::mutex mutex;
  std::map<std::string, std::string> commits = {
      {"rev0", "c0"}, {"rev1", "c1"}, {"a b/c", "c1"}, {"bad", "broken"}, {"worse", "boom"}};
  std::map<std::string, std::string> after_fetch;  // what `git fetch --all` brings
  std::map<std::string, std::string> by_name;      // what fetching a name by itself brings
  bool fetch_fails = false;
  // Typed, as serve stores them: the answer lists SourceFile, then GeneratedFile, then Rule.
  std::map<std::string, RevisionHashes> hashes = {
      {"c0",
       {{{"//a:a", "Rule#1~1"}, {"//b:b", "Rule#2~2"}, {"//c:c", "Rule#3~3"}, {"//z:src", "SourceFile#5~5"}}, {}, {}}},
      {"c1",
       {{{"//a:a", "Rule#1~1"},
         {"//b:b", "Rule#9~2"},
         {"//c:c", "Rule#3~8"},
         {"//d:d", "Rule#4~4"},
         {"//z:src", "SourceFile#6~6"}},
        {{"//b:b", {"//c:c", "//z:src"}}, {"//c:c", {}}, {"//d:d", {"//b:b"}}},
        {}}},
  };
  std::vector<std::string> resolved;
  std::vector<std::string> calls;
};

class ServeRoutesTest : public ::testing::Test {
 protected:
  HttpReply Get(const std::string& target) { return routes_.Answer({"GET", target, ""}); }

  FakeRevisions revisions_;
  ServeRoutes routes_;
};

void ExpectReply(const HttpReply& reply, int status, const std::string& body) {
  EXPECT_EQ(reply.status, status);
  EXPECT_EQ(reply.body, body);
}

const std::string kRev0ToRev1 =
    "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": [\"//z:src\", \"//b:b\", \"//c:c\", \"//d:d\"]}\n";

TEST_F(ServeRoutesTest, NotReadyAnswers503) {
  // Upstream's bodies: NOT_READY, and "service not ready".
  ExpectReply(Get("/health"), 503, "NOT_READY\n");
  ExpectReply(Get("/impacted_targets?from=rev0&to=rev1"), 503, "{\"error\": \"service not ready\"}\n");
  ExpectReply(Get("/impacted_targets_with_distances?from=rev0&to=rev1"), 503, "{\"error\": \"service not ready\"}\n");
  EXPECT_TRUE(revisions_.resolved.empty());
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/health"), 200, "OK\n");
  EXPECT_EQ(Get("/health").content_type, "text/plain");
  // Upstream's /health answers whatever the method.
  ExpectReply(routes_.Answer({"POST", "/health", ""}), 200, "OK\n");
}

// As upstream: "from" and "to" are the commits the revisions resolved to; the order is
// get-impacted-targets' over typed hashes (source files, generated files, rules; each by label).
TEST_F(ServeRoutesTest, ImpactedTargetsInGetImpactedTargetsOrder) {
  routes_.MarkReady(revisions_);
  HttpReply reply = Get("/impacted_targets?from=rev0&to=rev1");
  ExpectReply(reply, 200, kRev0ToRev1);
  EXPECT_EQ(reply.content_type, "application/json");
  ExpectReply(Get("/impacted_targets?to=rev0&from=rev0"), 200,
              "{\"from\": \"c0\", \"to\": \"c0\", \"impactedTargets\": []}\n");
  EXPECT_TRUE(revisions_.calls.empty());  // nothing was missing: no fetch
}

TEST_F(ServeRoutesTest, TargetTypeFiltersAsUpstreamReadsIt) {
  routes_.MarkReady(revisions_);
  const std::string rules =
      "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": [\"//b:b\", \"//c:c\", \"//d:d\"]}\n";
  ExpectReply(Get("/impacted_targets?from=rev0&to=rev1&targetType=Rule"), 200, rules);
  ExpectReply(Get("/impacted_targets?from=rev0&to=rev1&targetType=+Rule+,SourceFile"), 200, kRev0ToRev1);
  // GET: present but empty is an empty set, which nothing passes.
  ExpectReply(Get("/impacted_targets?from=rev0&to=rev1&targetType="), 200,
              "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": []}\n");
  ExpectReply(
      routes_.Answer({"POST", "/impacted_targets", R"({"from": "rev0", "to": "rev1", "targetType": ["Rule"]})"}), 200,
      rules);
  // POST: an empty or blank list is no filter.
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", R"({"from": "rev0", "to": "rev1", "targetType": [" "]})"}),
              200, kRev0ToRev1);
}

// Upstream's ImpactedTargetWithDistance over the final revision's edges.
TEST_F(ServeRoutesTest, DistancesOverTheFinalRevisionsEdges) {
  ServeRoutes routes(true);
  routes.MarkReady(revisions_);
  HttpReply reply = routes.Answer({"GET", "/impacted_targets_with_distances?from=rev0&to=rev1", ""});
  ExpectReply(reply, 200,
              "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": ["
              "{\"label\": \"//z:src\", \"targetDistance\": 0, \"packageDistance\": 0}, "
              "{\"label\": \"//b:b\", \"targetDistance\": 1, \"packageDistance\": 1}, "
              "{\"label\": \"//c:c\", \"targetDistance\": 0, \"packageDistance\": 0}, "
              "{\"label\": \"//d:d\", \"targetDistance\": 0, \"packageDistance\": 0}]}\n");
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(routes.Answer({"POST", "/impacted_targets_with_distances", R"({"from": "rev0", "to": "rev1"})"}).body,
            reply.body);
  // The plain endpoint is unchanged by --trackDeps.
  ExpectReply(routes.Answer({"GET", "/impacted_targets?from=rev0&to=rev1", ""}), 200, kRev0ToRev1);
}

TEST_F(ServeRoutesTest, DistancesNeedTrackDeps) {
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/impacted_targets_with_distances?from=rev0&to=rev1"), 400,
              "{\"error\": \"distances unavailable: server started without --trackDeps\"}\n");
  // Parameters are read first, as upstream reads them.
  ExpectReply(Get("/impacted_targets_with_distances?from=rev0"), 400,
              "{\"error\": \"missing required query parameters 'from' and 'to'\"}\n");
  EXPECT_TRUE(revisions_.resolved.empty());
}

TEST_F(ServeRoutesTest, ParametersArePercentDecoded) {
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/impacted_targets?from=rev%30&to=a+b%2Fc&extra=1&flag"), 200, kRev0ToRev1);
  EXPECT_EQ(revisions_.resolved, (std::vector<std::string>{"rev0", "a b/c"}));
  // A repeated key keeps its last value, as upstream's toMap.
  ExpectReply(Get("/impacted_targets?from=nope&from=rev0&to=rev1"), 200, kRev0ToRev1);
}

// Upstream's POST reads its body only.
TEST_F(ServeRoutesTest, PostTakesAJsonBody) {
  routes_.MarkReady(revisions_);
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", R"({"from": "rev0", "to": "rev1", "profile": true})"}), 200,
              kRev0ToRev1);
  ExpectReply(routes_.Answer({"POST", "/impacted_targets?from=rev0&to=rev1", ""}), 400,
              "{\"error\": \"missing JSON body with 'from' and 'to'\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets?from=rev0", R"({"to": "rev1"})"}), 400,
              "{\"error\": \"missing required fields 'from' and 'to'\"}\n");
}

TEST_F(ServeRoutesTest, BadRequestsAnswer400) {
  routes_.MarkReady(revisions_);
  const std::string missing = "{\"error\": \"missing required query parameters 'from' and 'to'\"}\n";
  ExpectReply(Get("/impacted_targets"), 400, missing);
  ExpectReply(Get("/impacted_targets?to=rev1"), 400, missing);
  ExpectReply(Get("/impacted_targets?from=&to=rev1"), 400, missing);
  ExpectReply(Get("/impacted_targets?from=rev0"), 400, missing);
  ExpectReply(Get("/impacted_targets?from=rev%3&to=rev1"), 400,
              "{\"error\": \"malformed %-escape in the query string\"}\n");
  ExpectReply(Get("/impacted_targets?from=rev%zz&to=rev1"), 400,
              "{\"error\": \"malformed %-escape in the query string\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", "{\"from\": "}), 400,
              "{\"error\": \"invalid JSON body: not valid JSON (byte 10)\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", "null"}), 400,
              "{\"error\": \"missing JSON body with 'from' and 'to'\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", "[1]"}), 400,
              "{\"error\": \"invalid JSON body: expected an object\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", R"({"from": 1, "to": "rev1"})"}), 400,
              "{\"error\": \"invalid JSON body: 'from' must be a string\"}\n");
  EXPECT_TRUE(revisions_.resolved.empty());
}

// Upstream's resolveBoth: a missing name is looked for again after `git fetch --all --prune`, then
// after fetching it by name; only then is it a git error, 400.
TEST_F(ServeRoutesTest, AMissingRevisionIsFetchedBeforeItIsAnError) {
  routes_.MarkReady(revisions_);
  revisions_.after_fetch = {{"landed", "c1"}};
  revisions_.by_name = {{"pr-head", "c1"}};
  ExpectReply(Get("/impacted_targets?from=rev0&to=landed"), 200, kRev0ToRev1);
  EXPECT_EQ(revisions_.calls, (std::vector<std::string>{"fetch --all"}));
  revisions_.calls.clear();
  ExpectReply(Get("/impacted_targets?from=rev0&to=pr-head"), 200, kRev0ToRev1);
  EXPECT_EQ(revisions_.calls, (std::vector<std::string>{"fetch --all", "fetch pr-head"}));
  revisions_.calls.clear();
  ExpectReply(Get("/impacted_targets?from=nope&to=rev1"), 400,
              "{\"error\": \"git error: revision 'nope' is missing from the local clone\"}\n");
  EXPECT_EQ(revisions_.calls, (std::vector<std::string>{"fetch --all", "fetch nope"}));
  ExpectReply(Get("/impacted_targets?from=rev0&to=%22q%22"), 400,
              "{\"error\": \"git error: revision '\\\"q\\\"' is missing from the local clone\"}\n");
  // Both missing: from is named.
  ExpectReply(Get("/impacted_targets?from=x&to=y"), 400,
              "{\"error\": \"git error: revision 'x' is missing from the local clone\"}\n");
  revisions_.fetch_fails = true;
  ExpectReply(Get("/impacted_targets?from=rev0&to=later"), 400,
              "{\"error\": \"git error: git fetch --all --prune failed (exit 1)\"}\n");
  ExpectReply(Get("/impacted"), 404,
              "{\"error\": \"no such path '/impacted' (try /health, /impacted_targets or "
              "/impacted_targets_with_distances)\"}\n");
}

TEST_F(ServeRoutesTest, OtherMethodsAnswer405WithAllow) {
  routes_.MarkReady(revisions_);
  for (const char* path : {"/impacted_targets?from=rev0&to=rev1", "/impacted_targets_with_distances"}) {
    HttpReply reply = routes_.Answer({"DELETE", path, ""});
    ExpectReply(reply, 405, "{\"error\": \"method not allowed, use GET or POST\"}\n");
    EXPECT_EQ(reply.allow, "GET, POST");
  }
}

TEST_F(ServeRoutesTest, HashingFailureAnswers500WithTheReason) {
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/impacted_targets?from=bad&to=rev1"), 500,
              "{\"error\": \"'bazel query' failed with exit code 7\"}\n");
  ExpectReply(Get("/impacted_targets?from=rev0&to=worse"), 500,
              "{\"error\": \"internal error: filesystem error: no space left\"}\n");
}

TEST(PercentDecode, EscapesPlusAndMalformedInput) {
  EXPECT_EQ(PercentDecode("a%2Fb+c%7e"), "a/b c~");
  EXPECT_EQ(PercentDecode(""), "");
  EXPECT_EQ(PercentDecode("%"), std::nullopt);
  EXPECT_EQ(PercentDecode("%4"), std::nullopt);
  EXPECT_EQ(PercentDecode("%g0"), std::nullopt);
}

}  // namespace
}  // namespace pe::refdiff
