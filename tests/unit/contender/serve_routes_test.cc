// serve's answers without a socket: a fake repository with scripted revisions and hashes, so
// every status and body is checked exactly.
#include "serve_routes.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "error.h"

namespace pe::refdiff {
namespace {

class FakeRevisions : public RevisionSource {
 public:
  std::optional<std::string> ResolveCommit(const std::string& rev) override {
    resolved.push_back(rev);
    auto it = commits.find(rev);
    if (it == commits.end()) return std::nullopt;
    return it->second;
  }
  std::shared_ptr<const HashEntries> Hashes(const std::string& commit) override {
    if (commit == "broken") throw RefDiffError("'bazel query' failed with exit code 7");
    if (commit == "boom") throw std::runtime_error("filesystem error: no space left");
    return std::make_shared<const HashEntries>(hashes.at(commit));
  }

  std::map<std::string, std::string> commits = {
      {"rev0", "c0"}, {"rev1", "c1"}, {"a b/c", "c1"}, {"bad", "broken"}, {"worse", "boom"}};
  std::map<std::string, HashEntries> hashes = {
      {"c0", {{"//a:a", "1~1"}, {"//b:b", "2~2"}, {"//c:c", "3~3"}}},
      {"c1", {{"//a:a", "1~1"}, {"//b:b", "9~2"}, {"//c:c", "3~8"}, {"//d:d", "4~4"}}},
  };
  std::vector<std::string> resolved;
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

TEST_F(ServeRoutesTest, NotReadyAnswers503) {
  // Upstream's bodies: NOT_READY, and "service not ready".
  ExpectReply(Get("/health"), 503, "NOT_READY\n");
  ExpectReply(Get("/impacted_targets?from=rev0&to=rev1"), 503, "{\"error\": \"service not ready\"}\n");
  EXPECT_TRUE(revisions_.resolved.empty());
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/health"), 200, "OK\n");
  EXPECT_EQ(Get("/health").content_type, "text/plain");
}

// As upstream: "from" and "to" are the commits the revisions resolved to.
TEST_F(ServeRoutesTest, ImpactedTargetsInGetImpactedTargetsOrder) {
  routes_.MarkReady(revisions_);
  HttpReply reply = Get("/impacted_targets?from=rev0&to=rev1");
  ExpectReply(reply, 200,
              "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": [\"//b:b\", \"//c:c\", \"//d:d\"]}\n");
  EXPECT_EQ(reply.content_type, "application/json");
  ExpectReply(Get("/impacted_targets?to=rev0&from=rev0"), 200,
              "{\"from\": \"c0\", \"to\": \"c0\", \"impactedTargets\": []}\n");
}

TEST_F(ServeRoutesTest, ParametersArePercentDecoded) {
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/impacted_targets?from=rev%30&to=a+b%2Fc&extra=1"), 200,
              "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": [\"//b:b\", \"//c:c\", \"//d:d\"]}\n");
  EXPECT_EQ(revisions_.resolved, (std::vector<std::string>{"rev0", "a b/c"}));
}

TEST_F(ServeRoutesTest, PostTakesAJsonBodyOrTheQueryString) {
  routes_.MarkReady(revisions_);
  const std::string expected =
      "{\"from\": \"c0\", \"to\": \"c1\", \"impactedTargets\": [\"//b:b\", \"//c:c\", \"//d:d\"]}\n";
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", R"({"from": "rev0", "to": "rev1"})"}), 200, expected);
  ExpectReply(routes_.Answer({"POST", "/impacted_targets?from=rev0&to=rev1", ""}), 200, expected);
  // The query string wins over the body for a key both name.
  ExpectReply(routes_.Answer({"POST", "/impacted_targets?from=rev0", R"({"from": "x", "to": "rev1"})"}), 200, expected);
}

TEST_F(ServeRoutesTest, BadRequestsAnswer400) {
  routes_.MarkReady(revisions_);
  const std::string missing_from =
      "{\"error\": \"missing parameter 'from' (want /impacted_targets?from=REV&to=REV)\"}\n";
  ExpectReply(Get("/impacted_targets"), 400, missing_from);
  ExpectReply(Get("/impacted_targets?to=rev1"), 400, missing_from);
  ExpectReply(Get("/impacted_targets?from=&to=rev1"), 400, missing_from);
  ExpectReply(Get("/impacted_targets?from=rev0"), 400,
              "{\"error\": \"missing parameter 'to' (want /impacted_targets?from=REV&to=REV)\"}\n");
  ExpectReply(Get("/impacted_targets?from=rev%3&to=rev1"), 400,
              "{\"error\": \"malformed %-escape in the query string\"}\n");
  ExpectReply(Get("/impacted_targets?from=rev%zz&to=rev1"), 400,
              "{\"error\": \"malformed %-escape in the query string\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", "{\"from\": "}), 400,
              "{\"error\": \"request body is not valid JSON (byte 10)\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", "[1]"}), 400,
              "{\"error\": \"request body must be a JSON object {\\\"from\\\": ..., \\\"to\\\": ...}\"}\n");
  ExpectReply(routes_.Answer({"POST", "/impacted_targets", R"({"from": 1, "to": "rev1"})"}), 400,
              "{\"error\": \"'from' in the request body must be a string\"}\n");
  EXPECT_TRUE(revisions_.resolved.empty());
}

// Upstream: a revision missing from the clone is a git error, 400.
TEST_F(ServeRoutesTest, UnknownRevisionsAnswer400GitErrorAndPaths404) {
  routes_.MarkReady(revisions_);
  ExpectReply(Get("/impacted_targets?from=nope&to=rev1"), 400,
              "{\"error\": \"git error: revision 'nope' is missing from the local clone\"}\n");
  ExpectReply(Get("/impacted_targets?from=rev0&to=%22q%22"), 400,
              "{\"error\": \"git error: revision '\\\"q\\\"' is missing from the local clone\"}\n");
  ExpectReply(Get("/impacted"), 404, "{\"error\": \"no such path '/impacted' (try /health or /impacted_targets)\"}\n");
}

TEST_F(ServeRoutesTest, OtherMethodsAnswer405WithAllow) {
  routes_.MarkReady(revisions_);
  HttpReply reply = routes_.Answer({"DELETE", "/impacted_targets?from=rev0&to=rev1", ""});
  ExpectReply(reply, 405, "{\"error\": \"method DELETE not allowed on /impacted_targets (GET or POST)\"}\n");
  EXPECT_EQ(reply.allow, "GET, POST");
  EXPECT_EQ(routes_.Answer({"POST", "/health", ""}).allow, "GET, HEAD");
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
