#include "engine/run/serve_workload.h"

#include <fmt/format.h>

#include "engine/run/normalise.h"
#include "engine/run/output_digest.h"

namespace pe::run {

using model::Sample;
using model::ServeFigures;

namespace {

// A parity body, digested as it arrives. The digest ends with the body, so its thread and
// socket pair go then, not at the end of the round: one at a time, however many requests.
// A parse error is kept for Kept(), after the round: it is not the server's failure.
class DigestedBody final : public http::BodySink {
 public:
  DigestedBody(spec::Normaliser normaliser, bool sort_lists) : digest_(normaliser, sort_lists) {}
  void Write(const char* data, std::size_t size) override { digest_.Write(data, size); }
  void Finish() override {
    try {
      kept_ = digest_.Finish();
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  KeptOutput Kept() {
    if (!kept_ && error_.empty()) Finish();  // a body Beast never finished (a HEAD answer)
    if (!error_.empty()) throw std::runtime_error(error_);
    return *kept_;
  }

 private:
  StreamingDigest digest_;
  std::optional<KeptOutput> kept_;
  std::string error_;
};

}  // namespace

serve::ServeRequestSpec ServeRequests(const spec::Workload& w, const ServeOverrides& overrides, bool parity) {
  const auto& o = w.serve_options;
  serve::ServeRequestSpec spec;
  for (const std::string& target : o.requests) {
    http::Request r;
    r.method = o.method;
    r.target = target;
    r.body = o.body;
    if (!r.body.empty()) r.content_type = "application/json";
    spec.requests.push_back(std::move(r));
  }
  spec.count = parity ? static_cast<int>(o.requests.size()) : overrides.requests.value_or(o.request_count);
  spec.concurrency = parity ? 1 : overrides.concurrency.value_or(o.concurrency);
  spec.request_timeout_s = o.request_timeout_s;
  return spec;
}

serve::ServeRoundOptions ServeOptions(const spec::Workload& w, bool parity) {
  serve::ServeRoundOptions options;
  options.health_path = w.serve_options.health;
  options.ready_timeout_s = w.serve_options.ready_timeout_s;
  options.keep_bodies = parity;
  if (parity && w.normaliser != spec::Normaliser::kNone) {
    options.body_sink = [normaliser = w.normaliser, sort_lists = w.sort_lists] {
      return std::make_shared<DigestedBody>(normaliser, sort_lists);
    };
  }
  return options;
}

Sample ServeSample(const serve::ServeRoundResult& round) {
  Sample s;
  s.wall_s = round.p50;
  s.user_s = round.server.user_s;
  s.sys_s = round.server.sys_s;
  s.max_rss_kib = round.server.max_rss_kib;
  ServeFigures f;
  f.requests = static_cast<int>(round.latencies_s.size());
  f.p50_s = round.p50;
  f.p90_s = round.p90;
  f.p99_s = round.p99;
  f.max_s = round.max;
  f.throughput_rps = round.throughput_rps;
  f.time_to_ready_s = round.time_to_ready_s;
  s.serve = f;
  return s;
}

std::vector<KeptOutput> KeptBodies(const serve::ServeRequestSpec& requests, serve::ServeRoundResult& round) {
  std::vector<KeptOutput> kept;
  kept.reserve(round.sinks.size());
  for (size_t i = 0; i < round.sinks.size(); ++i) {
    auto* body = dynamic_cast<DigestedBody*>(round.sinks[i].get());
    if (body == nullptr) throw std::logic_error("a parity round's answer was not digested");
    try {
      kept.push_back(body->Kept());
    } catch (const std::exception& e) {
      const http::Request& r = requests.requests[i % requests.requests.size()];
      throw std::runtime_error(fmt::format("request {}: {} {}: {}", i, r.method, r.target, e.what()));
    }
    round.sinks[i].reset();  // its digest thread and socket go now
  }
  return kept;
}

std::optional<std::string> FirstBodyDifference(const spec::Workload& w, const serve::ServeRequestSpec& requests,
                                               const std::vector<KeptOutput>& baseline,
                                               const std::vector<KeptOutput>& other, const std::string& baseline_name,
                                               const std::string& other_name) {
  for (size_t i = 0; i < baseline.size() && i < other.size(); ++i) {
    // Digests judge, as for process outputs: they compare integers past 64 bits exactly.
    if (baseline[i].digest == other[i].digest) continue;
    const http::Request& r = requests.requests[i % requests.requests.size()];
    std::string diff;
    if (baseline[i].bytes && other[i].bytes) {
      const std::string a = Normalise(*baseline[i].bytes, w.normaliser, w.sort_lists);
      const std::string b = Normalise(*other[i].bytes, w.normaliser, w.sort_lists);
      diff = FirstDifference(a, b, w.normaliser, baseline_name, other_name)
                 .value_or("normalised outputs differ (in a number too large to show exactly)");
    } else {
      diff = fmt::format("normalised answers differ ({}: {} bytes, {}: {} bytes; too large to show where)",
                         baseline_name, baseline[i].size, other_name, other[i].size);
    }
    return fmt::format("request {}: {} {}\n{}", i, r.method, r.target, diff);
  }
  return std::nullopt;
}

}  // namespace pe::run
