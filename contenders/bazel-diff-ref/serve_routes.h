// What `serve` answers, apart from the socket: /health and /impacted_targets, their parameters
// and their errors. Plain data in and out, so tests call it without a server.
//
// The shapes are upstream bazel-diff's (BazelDiffServer):
//   GET /health                      200 "OK" once ready, 503 "NOT_READY" before
//   GET|POST /impacted_targets?from=A&to=B   (POST may send {"from": A, "to": B} instead)
//       200 {"from": <A's commit>, "to": <B's commit>, "impactedTargets": [labels in
//           get-impacted-targets' order]}
//       400 missing or malformed parameters, or "git error: revision 'X' is missing from the
//           local clone"; 503 "service not ready"; 500 hashing failed; every error body is
//           {"error": "..."}
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>

#include "http_server.h"
#include "revision_cache.h"

namespace pe::refdiff {

// Decodes %XX escapes and '+' (a space, as forms send it); nothing for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text);

// {"error": "<message>"} followed by a newline.
std::string ErrorJson(std::string_view message);

class ServeRoutes {
 public:
  // From now on /health answers 200 and /impacted_targets is answered from `revisions`, which
  // must outlive every later Answer call. Before, both answer 503.
  void MarkReady(RevisionSource& revisions) { revisions_ = &revisions; }

  // Safe to call from several threads at once.
  HttpReply Answer(const HttpRequest& request) const;

 private:
  HttpReply ImpactedTargets(RevisionSource& revisions, const HttpRequest& request, std::string_view query) const;

  std::atomic<RevisionSource*> revisions_{nullptr};
};

}  // namespace pe::refdiff
