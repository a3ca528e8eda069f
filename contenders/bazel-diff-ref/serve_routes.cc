#include "serve_routes.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "error.h"
#include "impacted.h"

namespace pe::refdiff {
namespace {

constexpr const char* kJson = "application/json";

HttpReply Error(int status, std::string_view message) { return {status, kJson, ErrorJson(message), {}}; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "a=1&b=2" -> {a: 1, b: 2}, as upstream reads a query string: a pair without '=' is dropped, a
// repeated key keeps its last value. Throws RefDiffError for a malformed escape.
std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> parameters;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::optional<std::string> key = PercentDecode(pair.substr(0, eq));
    std::optional<std::string> value = PercentDecode(pair.substr(eq + 1));
    if (!key || !value) throw RefDiffError("malformed %-escape in the query string");
    parameters[std::move(*key)] = std::move(*value);
  }
  return parameters;
}

std::string Trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

// What a query asks, from either form.
struct Query {
  std::string from, to;
  std::optional<std::set<std::string, std::less<>>> target_types;  // nothing: every type
};

// GET: from, to and targetType (comma-separated) from the query string. "targetType=" is an
// empty set (nothing passes), as upstream reads it.
Query ReadGet(std::string_view query_string) {
  std::map<std::string, std::string> parameters = ParseQuery(query_string);
  Query query;
  query.from = parameters["from"];
  query.to = parameters["to"];
  if (query.from.empty() || query.to.empty()) throw RefDiffError("missing required query parameters 'from' and 'to'");
  if (auto it = parameters.find("targetType"); it != parameters.end()) {
    query.target_types.emplace();
    std::string_view rest = it->second;
    while (true) {
      std::size_t comma = rest.find(',');
      std::string type = Trim(rest.substr(0, comma));
      if (!type.empty()) query.target_types->insert(std::move(type));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return query;
}

// POST: the JSON body {"from", "to", "targetType"?: [...], "modifiedFilepaths"?, "profile"?}. An
// empty or all-blank targetType means every type, as upstream reads it. modifiedFilepaths and
// profile are accepted and not used (see docs/reference-contender.md).
Query ReadPost(const std::string& body) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& error) {
    if (Trim(body).empty()) throw RefDiffError("missing JSON body with 'from' and 'to'");
    throw RefDiffError("invalid JSON body: not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (document.is_null()) throw RefDiffError("missing JSON body with 'from' and 'to'");
  if (!document.is_object()) throw RefDiffError("invalid JSON body: expected an object");
  Query query;
  for (auto [key, field] : {std::pair{"from", &query.from}, std::pair{"to", &query.to}}) {
    auto it = document.find(key);
    if (it == document.end() || it->is_null()) continue;
    if (!it->is_string()) throw RefDiffError(std::string("invalid JSON body: '") + key + "' must be a string");
    *field = it->get<std::string>();
  }
  if (query.from.empty() || query.to.empty()) throw RefDiffError("missing required fields 'from' and 'to'");
  if (auto it = document.find("targetType"); it != document.end() && !it->is_null()) {
    if (!it->is_array()) throw RefDiffError("invalid JSON body: 'targetType' must be an array of strings");
    std::set<std::string, std::less<>> types;
    for (const auto& type : *it) {
      if (!type.is_string()) throw RefDiffError("invalid JSON body: 'targetType' must be an array of strings");
      std::string trimmed = Trim(type.get<std::string>());
      if (!trimmed.empty()) types.insert(std::move(trimmed));
    }
    if (!types.empty()) query.target_types = std::move(types);
  }
  return query;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = HexValue(text[i + 1]), low = HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string ErrorJson(std::string_view message) {
  std::string out = "{\"error\": ";
  AppendJsonString(out, message);
  out += "}\n";
  return out;
}

HttpReply ServeRoutes::Answer(const HttpRequest& request) const {
  RevisionSource* revisions = revisions_.load();
  std::string_view target = request.target;
  std::size_t question = target.find('?');
  std::string_view path = target.substr(0, question);
  std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);

  if (path == "/health") {  // any method, as upstream
    if (revisions == nullptr) return {503, "text/plain", "NOT_READY\n", {}};
    return {200, "text/plain", "OK\n", {}};
  }
  if (path == "/impacted_targets" || path == "/impacted_targets_with_distances") {
    if (request.method != "GET" && request.method != "POST") {
      HttpReply reply = Error(405, "method not allowed, use GET or POST");
      reply.allow = "GET, POST";
      return reply;
    }
    if (revisions == nullptr) return Error(503, "service not ready");
    return Impacted(*revisions, request, query, path == "/impacted_targets_with_distances");
  }
  return Error(404, "no such path '" + std::string(path) +
                        "' (try /health, /impacted_targets or /impacted_targets_with_distances)");
}

std::pair<std::string, std::string> ServeRoutes::ResolveBoth(RevisionSource& revisions, const std::string& from,
                                                             const std::string& to) const {
  auto both = [&]() -> std::optional<std::pair<std::string, std::string>> {
    std::optional<std::string> from_commit = revisions.ResolveCommit(from);
    if (!from_commit) return std::nullopt;
    std::optional<std::string> to_commit = revisions.ResolveCommit(to);
    if (!to_commit) return std::nullopt;
    return std::pair{*from_commit, *to_commit};
  };
  if (auto found = both()) return *found;
  {
    std::lock_guard<std::mutex> lock(fetch_mutex_);
    if (auto found = both()) return *found;  // another request's fetch brought them in
    revisions.FetchAll();
    if (auto found = both()) return *found;
    // A broad fetch brings only what the fetched refs reach: ask for each missing name itself.
    for (const std::string& rev : from == to ? std::vector{from} : std::vector{from, to}) {
      if (!revisions.ResolveCommit(rev)) revisions.FetchRevision(rev);
    }
  }
  std::optional<std::string> from_commit = revisions.ResolveCommit(from);
  if (!from_commit) throw RefDiffError("revision '" + from + "' is missing from the local clone");
  std::optional<std::string> to_commit = revisions.ResolveCommit(to);
  if (!to_commit) throw RefDiffError("revision '" + to + "' is missing from the local clone");
  return {*from_commit, *to_commit};
}

HttpReply ServeRoutes::Impacted(RevisionSource& revisions, const HttpRequest& request, std::string_view query_string,
                                bool distances) const {
  Query query;
  try {
    query = request.method == "POST" ? ReadPost(request.body) : ReadGet(query_string);
  } catch (const RefDiffError& error) {
    return Error(400, error.what());
  }
  if (distances && !track_deps_) return Error(400, "distances unavailable: server started without --trackDeps");

  std::pair<std::string, std::string> commits;
  try {
    commits = ResolveBoth(revisions, query.from, query.to);
  } catch (const RefDiffError& error) {
    return Error(400, std::string("git error: ") + error.what());
  } catch (const std::exception& error) {
    return Error(500, std::string("internal error: ") + error.what());
  }

  std::vector<std::string> labels;
  std::vector<ImpactedTarget> targets;
  try {
    std::shared_ptr<const RevisionHashes> start = revisions.Hashes(commits.first);
    std::shared_ptr<const RevisionHashes> final = revisions.Hashes(commits.second);
    ImpactedOptions options;
    options.target_types = query.target_types;
    // Upstream leaves //external:* out of its answers when the workspace is on bzlmod.
    options.exclude_external_targets = final->module_graph_json.has_value();
    if (distances) {
      // Over the final revision's edges, as upstream measures them.
      std::vector<std::string> warnings;
      targets = ImpactedWithDistances(start->hashes, final->hashes, final->dep_edges, options, &warnings);
      for (const std::string& warning : warnings)
        std::fprintf(stderr, "bazel-diff-ref: warning: %s\n", warning.c_str());
    } else {
      labels = ImpactedLabels(start->hashes, final->hashes, options);
    }
  } catch (const RefDiffError& error) {
    return Error(500, error.what());
  } catch (const std::exception& error) {
    return Error(500, std::string("internal error: ") + error.what());
  }

  // Upstream answers with the commits the revisions resolved to, not the names asked for.
  std::string body = "{\"from\": ";
  AppendJsonString(body, commits.first);
  body += ", \"to\": ";
  AppendJsonString(body, commits.second);
  body += ", \"impactedTargets\": [";
  if (distances) {
    for (std::size_t i = 0; i < targets.size(); ++i) {
      body += i > 0 ? ", {\"label\": " : "{\"label\": ";
      AppendJsonString(body, targets[i].label);
      body += ", \"targetDistance\": " + std::to_string(targets[i].target_distance) +
              ", \"packageDistance\": " + std::to_string(targets[i].package_distance) + "}";
    }
  } else {
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) body += ", ";
      AppendJsonString(body, labels[i]);
    }
  }
  body += "]}\n";
  return {200, kJson, std::move(body), {}};
}

}  // namespace pe::refdiff
