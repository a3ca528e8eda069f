// A single request on a fresh connection, for health polling and one-off queries.
#pragma once

#include "engine/http/message.h"

namespace pe::http {

// Connects to 127.0.0.1:port, sends `request` with "Connection: close", reads the whole
// response (body kept) and closes. Connecting, sending and reading together take at most
// `timeout_s`; past that the response carries error "timed out after X s". Never throws.
Response Fetch(int port, const Request& request, double timeout_s);

}  // namespace pe::http
