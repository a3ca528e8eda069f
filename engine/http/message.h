// One HTTP request as a workload names it, and what came back for it.
#pragma once

#include <cstdint>
#include <string>

namespace pe::http {

// The most of one answer's body a client keeps by default (parity compares bodies whole);
// larger ones fail with Response::Fault::kTooLarge rather than fill memory.
inline constexpr std::uint64_t kMaxKeptBodyBytes = std::uint64_t{256} << 20;

struct Request {
  std::string method = "GET";
  std::string target;        // origin form: "/impacted_targets?from=a&to=b"
  std::string body;          // sent with Content-Length when not empty
  std::string content_type;  // Content-Type header, omitted when empty
};

struct Response {
  int status = 0;        // 0 when no answer arrived (see error)
  std::string body;      // empty unless bodies were asked for
  double latency_s = 0;  // send start to the last byte of the response (steady clock)
  std::string error;     // transport failure ("connect: Connection refused"); empty on an answer
  // What kind of failure `error` is: the connection failing, an answer that is not HTTP, or
  // a body over the most the caller keeps of one.
  enum class Fault { kNone, kTransport, kMalformed, kTooLarge };
  Fault fault = Fault::kNone;
};

}  // namespace pe::http
