#include "serve_routes.h"

#include <map>
#include <nlohmann/json.hpp>

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

// "a=1&b=2" -> {a: 1, b: 2}; a repeated key keeps its first value. Throws RefDiffError for a
// malformed escape.
std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> parameters;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    std::optional<std::string> key = PercentDecode(pair.substr(0, eq));
    std::optional<std::string> value =
        PercentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!key || !value) throw RefDiffError("malformed %-escape in the query string");
    parameters.emplace(std::move(*key), std::move(*value));
  }
  return parameters;
}

// Fills what the query string left out from a JSON body {"from": ..., "to": ...}.
void ReadJsonBody(const std::string& body, std::map<std::string, std::string>& parameters) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& error) {
    throw RefDiffError("request body is not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (!document.is_object()) throw RefDiffError("request body must be a JSON object {\"from\": ..., \"to\": ...}");
  for (const char* key : {"from", "to"}) {
    auto it = document.find(key);
    if (it == document.end()) continue;
    if (!it->is_string()) throw RefDiffError(std::string("'") + key + "' in the request body must be a string");
    parameters.emplace(key, it->get<std::string>());
  }
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

  if (path == "/health") {
    if (request.method != "GET" && request.method != "HEAD") {
      HttpReply reply = Error(405, "method " + request.method + " not allowed on /health (GET)");
      reply.allow = "GET, HEAD";
      return reply;
    }
    if (revisions == nullptr) return {503, "text/plain", "NOT_READY\n", {}};
    return {200, "text/plain", "OK\n", {}};
  }
  if (path == "/impacted_targets") {
    if (request.method != "GET" && request.method != "POST") {
      HttpReply reply = Error(405, "method " + request.method + " not allowed on /impacted_targets (GET or POST)");
      reply.allow = "GET, POST";
      return reply;
    }
    if (revisions == nullptr) return Error(503, "service not ready");
    return ImpactedTargets(*revisions, request, query);
  }
  return Error(404, "no such path '" + std::string(path) + "' (try /health or /impacted_targets)");
}

HttpReply ServeRoutes::ImpactedTargets(RevisionSource& revisions, const HttpRequest& request,
                                       std::string_view query) const {
  std::map<std::string, std::string> parameters;
  try {
    parameters = ParseQuery(query);
    if (request.method == "POST" && !request.body.empty()) ReadJsonBody(request.body, parameters);
  } catch (const RefDiffError& error) {
    return Error(400, error.what());
  }
  for (const char* key : {"from", "to"}) {
    auto it = parameters.find(key);
    if (it == parameters.end() || it->second.empty()) {
      return Error(400, std::string("missing parameter '") + key + "' (want /impacted_targets?from=REV&to=REV)");
    }
  }
  const std::string& from = parameters["from"];
  const std::string& to = parameters["to"];

  std::vector<std::string> impacted;
  std::optional<std::string> from_commit, to_commit;
  try {
    from_commit = revisions.ResolveCommit(from);
    if (!from_commit) return Error(400, "git error: revision '" + from + "' is missing from the local clone");
    to_commit = revisions.ResolveCommit(to);
    if (!to_commit) return Error(400, "git error: revision '" + to + "' is missing from the local clone");
    std::shared_ptr<const HashEntries> start = revisions.Hashes(*from_commit);
    std::shared_ptr<const HashEntries> final = revisions.Hashes(*to_commit);
    impacted = ImpactedLabels(*start, *final);
  } catch (const RefDiffError& error) {
    return Error(500, error.what());
  } catch (const std::exception& error) {
    return Error(500, std::string("internal error: ") + error.what());
  }

  // Upstream answers with the commits the revisions resolved to, not the names asked for.
  std::string body = "{\"from\": ";
  AppendJsonString(body, *from_commit);
  body += ", \"to\": ";
  AppendJsonString(body, *to_commit);
  body += ", \"impactedTargets\": [";
  for (std::size_t i = 0; i < impacted.size(); ++i) {
    if (i > 0) body += ", ";
    AppendJsonString(body, impacted[i]);
  }
  body += "]}\n";
  return {200, kJson, std::move(body), {}};
}

}  // namespace pe::refdiff
