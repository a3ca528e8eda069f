// Serve workloads: the keys that describe a server and its requests.
#include <algorithm>

#include "engine/spec/parser.h"

namespace pe::spec::internal {

void Parser::ParseServe(const toml::table& t, Workload& w) const {
  static const std::vector<std::string> kServeKeys = {"health", "ready_timeout", "requests",    "method",
                                                      "body",   "request_count", "concurrency", "request_timeout"};
  if (auto kind = String(t, "kind")) {
    const std::vector<std::string> kinds = {"process", "serve", "worker"};
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) {
      Fail(Pos(*t.get("kind")),
           fmt::format("unknown kind '{}'{}; expected process, serve or worker", *kind, DidYouMean(*kind, kinds)));
    }
    w.serve = *kind == "serve";
  }
  if (!w.serve) {
    for (const std::string& key : kServeKeys) {
      if (t.get(key))
        Fail(Pos(*t.get(key)), fmt::format("'{}' applies to a serve workload: add kind = \"serve\"", key));
    }
    return;
  }
  if (t.get("output")) Fail(Pos(*t.get("output")), "a serve workload's output is its response bodies; remove 'output'");
  Workload::Serve& s = w.serve_options;
  if (auto v = String(t, "health")) s.health = *v;
  if (auto v = Number(t, "ready_timeout", 0, true, limits::kMaxTimeoutS)) s.ready_timeout_s = *v;
  if (auto v = String(t, "method")) s.method = *v;
  if (auto v = String(t, "body")) s.body = *v;
  if (auto v = Integer(t, "request_count", 1, limits::kMaxRequestCount)) s.request_count = static_cast<int>(*v);
  if (auto v = Integer(t, "concurrency", 1, limits::kMaxConcurrency)) s.concurrency = static_cast<int>(*v);
  if (auto v = Number(t, "request_timeout", 0, true, limits::kMaxTimeoutS)) s.request_timeout_s = *v;
  auto requests = StringArray(t, "requests", true);
  if (!requests) Fail(w.pos, fmt::format("serve workload '{}' needs 'requests', the request targets to send", w.name));
  for (const Located& r : *requests) {
    if (r.value.empty() || r.value[0] != '/')
      Fail(r.pos, fmt::format("request target '{}' must start with '/'", r.value));
    s.requests.push_back(r.value);
  }
  if (s.request_count == 0) {
    s.request_count = static_cast<int>(std::min<std::size_t>(10 * s.requests.size(), limits::kMaxRequestCount));
  }
}

}  // namespace pe::spec::internal
