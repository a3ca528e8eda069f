#include "generators/wiring_progress.h"

namespace pe::gen {

std::shared_lock<std::shared_mutex> WiringProgress::Await(std::uint32_t rules) {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return wired_ >= rules || finished_ || cancelled_; });
    if (wired_ < rules) throw WiringStopped();
  }
  return std::shared_lock(deps_);
}

void WiringProgress::Cancel() {
  const std::lock_guard lock(mutex_);
  cancelled_ = true;
  changed_.notify_all();
}

bool WiringProgress::Report(std::uint32_t wired) {
  const std::lock_guard lock(mutex_);
  wired_ = wired;
  changed_.notify_all();
  return !cancelled_;
}

void WiringProgress::Finish() {
  const std::lock_guard lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

}  // namespace pe::gen
