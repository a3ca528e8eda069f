// The run's scratch directory, <temp>/perfengine-XXXXXX, and reclaiming the ones that runs
// killed without a chance to clean up (SIGKILL, a power cut) left behind. Each live run holds
// an flock on <dir>/.lock for as long as it runs; the kernel drops the lock when the process
// dies, however it dies, so a lock that can be taken marks a directory nobody is using.
//
// $TMPDIR is shared with the user and, as root, with every user: a directory is reclaimed only
// when it is provably one of ours (issue 26: a passing run once deleted the user's
// $TMPDIR/perfengine-master with its sources). See ReclaimStaleScratch.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pe::run {

// The file every scratch directory carries from the moment its lock is held, and its exact
// content: what tells a perfengine scratch directory from anything else named like one.
inline constexpr std::string_view kScratchMarker = ".perfengine-scratch";
inline constexpr std::string_view kScratchMarkerText =
    "perfengine run scratch directory: removed when its run ends, or by a later run once its .lock is free\n";

// Where scratch directories go: $TMPDIR, else /tmp. Throws std::runtime_error naming $TMPDIR
// when it is set but missing or not a directory ("TMPDIR '/nope' does not exist").
std::filesystem::path ScratchParent();

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

// Removes the <temp>/perfengine-XXXXXX directories (six letters or digits, as mkdtemp makes)
// that are real directories (not symlinks) owned by this user, carry the marker file with its
// exact text, and whose .lock nobody holds. Anything else is left alone, however old: the
// engine cannot prove it made it. Returns how many it removed.
int ReclaimStaleScratch(const std::filesystem::path& temp);
// The same for an engine running as `owner`: what is not owner's is another user's. Lets a test
// show, without root, that another user's directory is never taken.
int ReclaimStaleScratch(const std::filesystem::path& temp, uid_t owner);

// A contender that fails while the scratch directory's filesystem is full (under 64 KiB or no
// inode left to this user) failed writing its output there: the engine's problem, not the
// contender's. Returns the run's failure message naming the directory and `what` ("contender
// 'c' exited with status 1"), or nullopt when there is room.
std::optional<std::string> ScratchOutOfSpace(const std::filesystem::path& scratch, const std::string& what);

}  // namespace pe::run
