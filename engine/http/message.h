// One HTTP request as a workload names it, and what came back for it.
#pragma once

#include <string>

namespace pe::http {

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
};

}  // namespace pe::http
