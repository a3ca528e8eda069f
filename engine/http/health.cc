#include "engine/http/health.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "engine/http/fetch.h"

namespace pe::http {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A starting server may accept a connection and then stall; one poll must not eat the whole
// budget, or a server that died meanwhile would go unnoticed until the timeout.
constexpr double kMaxPollSeconds = 1.0;
constexpr auto kPollInterval = std::chrono::milliseconds(10);

}  // namespace

HealthResult WaitUntilHealthy(int port, const std::string& path, double timeout_s,
                              std::function<bool()> still_running) {
  const auto start = Clock::now();
  HealthResult result;
  std::string last_error;
  Request request;
  request.target = path;
  for (;;) {
    // Whole milliseconds, so a poll that timed out says "after 0.3 s", not "after 0.299999 s".
    const double left = std::round((timeout_s - SecondsSince(start)) * 1000) / 1000;
    const Response response = Fetch(port, request, std::clamp(left, 0.001, kMaxPollSeconds));
    // A 200 while our server has already exited came from whoever took its port.
    if (response.status == 200 && (!still_running || still_running())) {
      result.healthy = true;
      result.time_to_ready_s = SecondsSince(start);
      result.last_status = 200;
      return result;
    }
    // A poll the overall deadline cut short (its budget was what was left, less than a whole
    // poll) says nothing new about a server that answered before; one that stalls for a whole
    // poll does, and is reported instead of the old status. Judged by the budget, not by the
    // clock after it: on a loaded machine a poll of 2 ms can end just before the deadline.
    const bool cut_short = left < kMaxPollSeconds;
    if (response.status != 0) {
      result.last_status = response.status;
      last_error.clear();
    } else if (!cut_short || (result.last_status == 0 && last_error.empty())) {
      last_error = response.error;
    }
    if (still_running && !still_running()) {
      result.error = "server exited before becoming healthy";
      return result;
    }
    if (SecondsSince(start) >= timeout_s) {
      result.error = last_error.empty()
                         ? fmt::format("not healthy after {:g} s: last answer {}", timeout_s, result.last_status)
                         : fmt::format("not healthy after {:g} s: no answer ({})", timeout_s, last_error);
      return result;
    }
    const auto remaining =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s - SecondsSince(start)));
    std::this_thread::sleep_for(std::min<Clock::duration>(kPollInterval, remaining));
  }
}

}  // namespace pe::http
