// Waiting for a freshly started server to answer its health check.
#pragma once

#include <functional>
#include <string>

namespace pe::http {

struct HealthResult {
  bool healthy = false;
  double time_to_ready_s = 0;  // from the call to the first 200; set only when healthy
  int last_status = 0;         // the last answer's status, 0 if none came
  std::string error;           // why not healthy; empty when healthy
};

// GETs `path` on 127.0.0.1:port every 10 ms until one answer is 200. After every attempt it
// asks `still_running` (may be empty), so a server that died is reported at once rather than
// after the timeout, and a 200 that arrives after it died (from whoever took its port) is not
// believed. Errors read "server exited before becoming healthy" or "not healthy after 5 s: last
// answer 503" ("...: no answer (connect: Connection refused)" when the last poll got none).
HealthResult WaitUntilHealthy(int port, const std::string& path, double timeout_s, std::function<bool()> still_running);

}  // namespace pe::http
