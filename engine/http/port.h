// Loopback ports for servers under test: picking one nobody is using, and asking whether a
// server listens on one.
#pragma once

namespace pe::http {

// Binds 127.0.0.1:0, reads the port the kernel chose and closes the socket again. The port
// is free now, not reserved: another process may take it before the server binds, so callers
// retry with a new port when the server reports "address in use". Returns -1 when no socket
// can be bound at all.
int PickFreePort();

// True when a TCP connection to 127.0.0.1:port is accepted right now.
bool PortAcceptsConnections(int port);

}  // namespace pe::http
