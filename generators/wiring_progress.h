// How far a graph's wiring has got, between the thread that wires it (GraphBuilder::Wire) and
// threads that read its first rules meanwhile (WriteQueryProto's pipeline, query_proto.h).
// Rules [0, rules) reported wired have their deps, kind and external repositories for good; a
// reader follows their deps while holding Await's shared lock, and the builder moves the deps
// vector (grows or shrinks it) only under the exclusive one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>

namespace pe::gen {

// What Await throws when the wiring ended before reaching the rules asked for (it failed, or a
// reader cancelled it); whoever started the wiring reports the cause.
class WiringStopped : public std::runtime_error {
 public:
  WiringStopped() : std::runtime_error("the graph's wiring stopped early") {}
};

class WiringProgress {
 public:
  // Reader: waits until rules [0, rules) are wired; hold the lock while reading their deps.
  std::shared_lock<std::shared_mutex> Await(std::uint32_t rules);
  // Reader: the builder stops at its next report (a writer failed and nothing more is read).
  void Cancel();

  // Builder: rules [0, wired) are wired. False once cancelled: stop wiring.
  bool Report(std::uint32_t wired);
  // Builder: the wiring ended, done or not; wakes every reader.
  void Finish();
  // Builder: held while the deps vector moves.
  std::unique_lock<std::shared_mutex> Exclusive() { return std::unique_lock(deps_); }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint32_t wired_ = 0;
  bool finished_ = false;
  bool cancelled_ = false;
  std::shared_mutex deps_;
};

}  // namespace pe::gen
