// What `serve` answers, apart from the socket: its endpoints, their parameters and their errors,
// as upstream bazel-diff's serve (server/BazelDiffServer.kt, ImpactedTargetsService.kt). Plain
// data in and out, so tests call it without a server.
//
//   /health (any method)      200 "OK" once ready, 503 "NOT_READY" before
//   GET  /impacted_targets?from=A&to=B[&targetType=Rule,SourceFile]
//   POST /impacted_targets    a JSON body {"from": A, "to": B, "targetType"?: [...]} (the query
//                             string is not read, as upstream)
//       200 {"from": <A's commit>, "to": <B's commit>, "impactedTargets": [labels, SourceFile
//           then GeneratedFile then Rule targets, each by label]}
//   GET|POST /impacted_targets_with_distances   the same parameters, each impacted target
//       {"label": ..., "targetDistance": N, "packageDistance": N} measured over B's dependency
//       edges; 400 "distances unavailable: server started without --trackDeps" without them
//   errors: {"error": "..."}: 400 missing or malformed parameters, 400 "git error: revision 'X'
//       is missing from the local clone" (after a fetch of all remotes, then of X by name, found
//       nothing), 400 "git error: ..." when that fetch failed; 503 "service not ready"; 500 the
//       reason hashing failed; 404 another path; 405 another method
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "http_server.h"
#include "revision_cache.h"

namespace pe::refdiff {

// Decodes %XX escapes and '+' (a space, as forms send it); nothing for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text);

// {"error": "<message>"} followed by a newline.
std::string ErrorJson(std::string_view message);

class ServeRoutes {
 public:
  // `track_deps`: the server keeps dependency edges (--trackDeps), so distances can be answered.
  explicit ServeRoutes(bool track_deps = false) : track_deps_(track_deps) {}

  // From now on /health answers 200 and the queries are answered from `revisions`, which must
  // outlive every later Answer call. Before, they answer 503.
  void MarkReady(RevisionSource& revisions) { revisions_ = &revisions; }

  // Safe to call from several threads at once.
  HttpReply Answer(const HttpRequest& request) const;

 private:
  HttpReply Impacted(RevisionSource& revisions, const HttpRequest& request, std::string_view query,
                     bool distances) const;
  // Upstream's resolveBoth: both names as the clone has them; when either is missing, under one
  // lock (so a burst of requests fetches once), again, then after `git fetch --all --prune`, then
  // after fetching each still-missing name by itself; then as they are, the first missing of
  // (from, to) an error. Throws RefDiffError for a fetch that failed, MissingRevision for a name
  // still missing.
  std::pair<std::string, std::string> ResolveBoth(RevisionSource& revisions, const std::string& from,
                                                  const std::string& to) const;

  bool track_deps_;
  std::atomic<RevisionSource*> revisions_{nullptr};
  mutable std::mutex fetch_mutex_;
};

}  // namespace pe::refdiff
