// One HTTP request as a workload names it, and what came back for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace pe::http {

// The most of one answer's body a client keeps by default (parity compares bodies whole);
// larger ones fail with Response::Fault::kTooLarge rather than fill memory.
inline constexpr std::uint64_t kMaxKeptBodyBytes = std::uint64_t{256} << 20;

// Where an answer's body goes when the caller reads it as it arrives instead of keeping it
// whole: parity digests a body as a stream (engine/run/serve_workload.cc), so a large answer
// costs a read buffer, not its size. Write gets each piece in order; Finish, the end of a body
// that arrived whole (never called for one cut short).
class BodySink {
 public:
  virtual ~BodySink() = default;
  virtual void Write(const char* data, std::size_t size) = 0;
  virtual void Finish() = 0;
};
// Makes the sink of one answer's body.
using BodySinkFactory = std::function<std::shared_ptr<BodySink>()>;

// With a sink, Response.body keeps only the body's first bytes, to quote in a message.
inline constexpr std::size_t kSinkHeadBytes = 1024;

struct Request {
  std::string method = "GET";
  std::string target;        // origin form: "/impacted_targets?from=a&to=b"
  std::string body;          // sent with Content-Length when not empty
  std::string content_type;  // Content-Type header, omitted when empty
};

struct Response {
  int status = 0;        // 0 when no answer arrived (see error)
  std::string body;      // empty unless bodies were asked for; with a sink, its first kSinkHeadBytes
  std::shared_ptr<BodySink> sink;  // with a sink factory: where the body went
  double latency_s = 0;  // send start to the last byte of the response (steady clock)
  std::string error;     // transport failure ("connect: Connection refused"); empty on an answer
  // What kind of failure `error` is: the connection failing, an answer that is not HTTP, or
  // a body over the most the caller keeps of one.
  enum class Fault { kNone, kTransport, kMalformed, kTooLarge };
  Fault fault = Fault::kNone;
};

}  // namespace pe::http
