// The run's scratch directory, <temp>/perfengine-XXXXXX, and reclaiming the ones that runs
// killed without a chance to clean up (SIGKILL, a power cut) left behind. Each live run holds
// an flock on <dir>/.lock for as long as it runs; the kernel drops the lock when the process
// dies, however it dies, so a lock that can be taken marks a directory nobody is using.
#pragma once

#include <chrono>
#include <filesystem>

namespace pe::run {

class RunScratch {
 public:
  // Reclaims stale directories in `temp`, then creates and locks a new one. Throws
  // std::runtime_error when it cannot.
  explicit RunScratch(const std::filesystem::path& temp);
  ~RunScratch();  // removes the directory and releases the lock
  RunScratch(const RunScratch&) = delete;
  RunScratch& operator=(const RunScratch&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_fd_ = -1;
};

// Removes every <temp>/perfengine-XXXXXX directory (exactly six characters after the dash)
// whose .lock is not held, and those without a .lock (from engines before the lock) last
// modified more than `unlocked_age` ago. Returns how many it removed.
int ReclaimStaleScratch(const std::filesystem::path& temp, std::chrono::seconds unlocked_age = std::chrono::hours(24));

}  // namespace pe::run
