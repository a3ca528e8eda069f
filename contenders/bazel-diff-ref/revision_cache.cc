#include "revision_cache.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bzlmod_repos.h"
#include "digest.h"
#include "error.h"
#include "query_stream.h"
#include "target_graph.h"
#include "target_hasher.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

// Bumped whenever what a cache file holds changes, so an older server's files are not read.
constexpr const char* kCacheFormat = "bazel-diff-ref serve cache 2";

// Upstream's cache shape (HashService.serialize): the typed hashes alone, or with metadata
// (the module graph on bzlmod, the dependency edges with --trackDeps) {"hashes": ..., "metadata": ...}.
std::string FormatCacheFile(const RevisionHashes& hashes, bool track_deps) {
  std::string object = "{";
  for (std::size_t i = 0; i < hashes.hashes.size(); ++i) {
    object += i == 0 ? "\n  " : ",\n  ";
    AppendJsonString(object, hashes.hashes[i].first);
    object += ": ";
    AppendJsonString(object, hashes.hashes[i].second);
  }
  object += hashes.hashes.empty() ? "}" : "\n}";
  if (!track_deps && !hashes.module_graph_json) return object + "\n";
  std::string out = "{\"hashes\": " + object + ", \"metadata\": {";
  if (hashes.module_graph_json) {
    out += "\"moduleGraphJson\": ";
    AppendJsonString(out, *hashes.module_graph_json);
    if (track_deps) out += ", ";
  }
  if (track_deps) {
    out += "\"depEdges\": {";
    bool first = true;
    for (const auto& [label, deps] : hashes.dep_edges) {
      out += first ? "\n  " : ",\n  ";
      first = false;
      AppendJsonString(out, label);
      out += ": [";
      for (std::size_t i = 0; i < deps.size(); ++i) {
        if (i > 0) out += ", ";
        AppendJsonString(out, deps[i]);
      }
      out += ']';
    }
    out += first ? "}" : "\n}";
  }
  return out + "}}\n";
}

// Throws RefDiffError for a file that is not what FormatCacheFile writes (cut short by a crash).
RevisionHashes ParseCacheFile(const std::string& text, const std::string& source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw RefDiffError(source + ": not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (!document.is_object()) throw RefDiffError(source + ": not a JSON object");
  const nlohmann::json* hashes = &document;
  RevisionHashes out;
  if (document.contains("metadata") && document.contains("hashes")) {
    hashes = &document["hashes"];
    const nlohmann::json& metadata = document["metadata"];
    if (!metadata.is_object()) throw RefDiffError(source + ": metadata is not an object");
    if (auto it = metadata.find("moduleGraphJson"); it != metadata.end() && it->is_string()) {
      out.module_graph_json = it->get<std::string>();
    }
    if (auto it = metadata.find("depEdges"); it != metadata.end()) {
      out.dep_edges = ParseDepEdgesJson(it->dump(), source);
    }
  }
  if (!hashes->is_object()) throw RefDiffError(source + ": hashes are not an object");
  out.hashes.reserve(hashes->size());
  for (const auto& [label, value] : hashes->items()) {  // nlohmann's objects iterate sorted by key
    if (!value.is_string()) throw RefDiffError(source + ": the hash of " + label + " is not a string");
    std::string hash = value.get<std::string>();
    CheckHashValue(label, hash, source);
    out.hashes.emplace_back(label, std::move(hash));
  }
  return out;
}

}  // namespace

RevisionHashes HashWorkspace(const BazelOptions& bazel, int threads, bool track_deps) {
  QueryResult query = QueryAllTargets(bazel);
  HashOptions hashing{bazel.workspace, threads};
  TargetGraph graph(DecodeQueryResult(query, threads), threads);
  std::vector<HashedTarget> hashed = HashTargets(graph, hashing);
  // The graph is sorted by label, and these are the keys and values FormatHashesJson writes with
  // --includeTargetType, so the entries equal what ParseHashesJson would read back from that file.
  HashJsonOptions json;
  json.include_target_type = true;
  RevisionHashes out;
  out.hashes.reserve(hashed.size());
  for (const HashedTarget& target : hashed) {
    if (!IncludedInHashes(target, json)) continue;
    out.hashes.emplace_back(
        target.label, std::string(KindName(target.kind)) + "#" + ToHex(target.transitive) + "~" + ToHex(target.direct));
  }
  if (track_deps) out.dep_edges = DepEdgesOf(graph, json);
  out.module_graph_json = std::move(query.module_graph_json);
  return out;
}

std::string CacheFileName(const std::string& commit, const RevisionCacheOptions& options) {
  std::string canonical = std::string("format=") + kCacheFormat + "\nbazelStartupOptions=";
  for (std::size_t i = 0; i < options.startup_options.size(); ++i) {
    canonical += (i > 0 ? " " : "") + options.startup_options[i];
  }
  canonical += std::string("\ntrackDeps=") + (options.track_deps ? "true" : "false") + "\n";
  return commit + "." + ToHex(Sha256Of(canonical)).substr(0, 12) + ".json";
}

RevisionCache::RevisionCache(const GitRepo& repo, RevisionCacheOptions options, int threads)
    : repo_(repo), options_(std::move(options)), threads_(threads) {}

std::optional<std::string> RevisionCache::ResolveCommit(const std::string& rev) { return repo_.ResolveCommit(rev); }

void RevisionCache::FetchAll() { repo_.Fetch(); }

bool RevisionCache::FetchRevision(const std::string& rev) { return repo_.FetchRevision(rev); }

std::shared_ptr<const RevisionHashes> RevisionCache::Hashes(const std::string& commit) {
  using Result = std::shared_ptr<const RevisionHashes>;
  std::shared_future<Result> future;
  std::promise<Result> promise;
  bool computes = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hashes_.find(commit);
    if (it != hashes_.end()) {
      future = it->second;
    } else {
      future = promise.get_future().share();
      hashes_.emplace(commit, future);
      ++computations_;
      computes = true;
    }
  }
  if (computes) {
    try {
      promise.set_value(LoadOrCompute(commit));
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::lock_guard<std::mutex> lock(mutex_);
      hashes_.erase(commit);
    }
  }
  return future.get();
}

int RevisionCache::computations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computations_;
}

int RevisionCache::checkouts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return checkouts_;
}

std::shared_ptr<const RevisionHashes> RevisionCache::LoadOrCompute(const std::string& commit) {
  if (options_.cache_dir.empty()) return Compute(commit);
  std::filesystem::path cached = options_.cache_dir / CacheFileName(commit, options_);
  std::error_code error;
  if (std::filesystem::is_regular_file(cached, error)) {
    try {
      return std::make_shared<const RevisionHashes>(ParseCacheFile(ReadFile(cached), cached.string()));
    } catch (const RefDiffError&) {
      // A file cut short by a crash: compute again and replace it.
    }
  }
  std::shared_ptr<const RevisionHashes> hashes = Compute(commit);
  // Written beside its final name, then renamed: another server sharing the directory never
  // reads half a file.
  std::filesystem::path partial = cached;
  partial += ".partial-" + std::to_string(::getpid());
  WriteFile(partial, FormatCacheFile(*hashes, options_.track_deps));
  std::filesystem::rename(partial, cached, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw RefDiffError("cannot write " + cached.string() + ": " + error.message());
  }
  return hashes;
}

std::shared_ptr<const RevisionHashes> RevisionCache::Compute(const std::string& commit) {
  // The clone is shared by every request: its checkout must not change while bazel reads it.
  std::lock_guard<std::mutex> workspace(workspace_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++checkouts_;
  }
  repo_.Checkout(commit);
  BazelOptions bazel;
  bazel.bazel = options_.bazel;
  bazel.startup_options = options_.startup_options;
  bazel.workspace = repo_.repo();
  return std::make_shared<const RevisionHashes>(HashWorkspace(bazel, threads_, options_.track_deps));
}

}  // namespace pe::refdiff
