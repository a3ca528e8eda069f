#include "engine/run/scratch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/measure/scratch_dir.h"
#include "engine/model/atomic_file.h"
#include "engine/units/units.h"

namespace pe::run {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "perfengine-";

// Exactly what mkdtemp puts in place of XXXXXX: six letters or digits.
bool IsScratchName(const std::string& name) {
  if (name.size() != kPrefix.size() + 6 || name.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// True when `fd` is a `type` (S_IFDIR, S_IFREG) that `owner` owns.
bool OwnedBy(int fd, mode_t type, uid_t owner) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type && st.st_uid == owner;
}

// True when the directory (opened without following a symlink) holds our marker: a regular
// file of ours, not a symlink, with exactly the marker's text.
bool CarriesMarker(int dir, uid_t owner) {
  Fd marker{::openat(dir, std::string(kScratchMarker).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
  if (marker.fd < 0 || !OwnedBy(marker.fd, S_IFREG, owner)) return false;
  std::string text(kScratchMarkerText.size() + 1, '\0');
  const ssize_t n = ::read(marker.fd, text.data(), text.size());
  return n == static_cast<ssize_t>(kScratchMarkerText.size()) && text.compare(0, n, kScratchMarkerText) == 0;
}

}  // namespace

fs::path ScratchParent() {
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir == nullptr || *tmpdir == '\0') return "/tmp";
  std::error_code ec;
  const auto status = fs::status(tmpdir, ec);
  if (!fs::exists(status)) throw std::runtime_error("TMPDIR '" + std::string(tmpdir) + "' does not exist");
  if (!fs::is_directory(status)) throw std::runtime_error("TMPDIR '" + std::string(tmpdir) + "' is not a directory");
  return tmpdir;
}

int ReclaimStaleScratch(const fs::path& temp) { return ReclaimStaleScratch(temp, ::geteuid()); }

int ReclaimStaleScratch(const fs::path& temp, uid_t owner) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!IsScratchName(name)) continue;
    // O_NOFOLLOW: a symlink named like a scratch directory is never followed, let alone removed.
    Fd dir{::open(entry.path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    if (dir.fd < 0 || !OwnedBy(dir.fd, S_IFDIR, owner) || !CarriesMarker(dir.fd, owner)) continue;
    Fd lock{::openat(dir.fd, ".lock", O_RDWR | O_CLOEXEC | O_NOFOLLOW)};
    // Held while removing, so the directory cannot look free to anyone else meanwhile.
    if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) continue;
    if (fs::remove_all(entry.path(), ec) > 0 && !ec) ++removed;
  }
  return removed;
}

std::optional<std::string> ScratchOutOfSpace(const fs::path& scratch, const std::string& what) {
  struct statvfs fs_info {};
  if (::statvfs(scratch.c_str(), &fs_info) != 0) return std::nullopt;
  // Root may write into the blocks reserved for it; others may not.
  const std::uint64_t blocks = ::geteuid() == 0 ? fs_info.f_bfree : fs_info.f_bavail;
  const std::uint64_t free_bytes = blocks * fs_info.f_frsize;
  constexpr std::uint64_t kFull = 64 * 1024;  // less than a page or two of output: ENOSPC territory
  const bool no_inodes = fs_info.f_files != 0 && fs_info.f_favail == 0;  // some report no inode counts
  if (free_bytes >= kFull && !no_inodes) return std::nullopt;
  return "the scratch directory " + scratch.string() + " is out of space (" +
         units::FormatKiB(static_cast<std::int64_t>(free_bytes / 1024)) + " free on its filesystem): " + what +
         " while it was full, which says nothing about the contender. Free space in " + scratch.parent_path().string() +
         " or point TMPDIR at a larger filesystem";
}

RunScratch::RunScratch(const fs::path& temp) {
  ReclaimStaleScratch(temp);
  std::optional<fs::path> made = measure::MakePrivateDirectory(temp, kPrefix);
  if (!made) throw std::runtime_error("cannot create a scratch directory in " + temp.string());
  path_ = std::move(*made);
  lock_fd_ = ::open((path_ / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  try {
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      throw std::runtime_error("cannot lock the scratch directory " + path_.string());
    }
    // Only now, with the lock held: a directory with the marker and a free lock is stale.
    model::WriteFileAtomically(path_ / std::string(kScratchMarker), kScratchMarkerText);
  } catch (...) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw;
  }
}

RunScratch::~RunScratch() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace pe::run
