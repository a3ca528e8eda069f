// A loopback port a test holds for the whole test, so a test running in parallel can never
// take it: listening (connections are accepted but never answered) or bound only
// (connections are refused).
#pragma once

namespace pe::testing {

class HeldPort {
 public:
  explicit HeldPort(bool listening);
  ~HeldPort();
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;

  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace pe::testing
