#include "engine/run/scratch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "perfengine-";

bool IsScratchName(const std::string& name) {
  return name.size() == kPrefix.size() + 6 && name.compare(0, kPrefix.size(), kPrefix) == 0;
}

// True when nobody holds the directory's lock (and it has one).
bool LockIsFree(const fs::path& lock) {
  const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // releases it again if we got it
  return free;
}

}  // namespace

int ReclaimStaleScratch(const fs::path& temp, std::chrono::seconds unlocked_age) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!IsScratchName(name) || !entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    const fs::path lock = entry.path() / ".lock";
    bool stale;
    if (fs::exists(lock, ec)) {
      stale = LockIsFree(lock);
    } else {
      const auto modified = fs::last_write_time(entry.path(), ec);
      stale = !ec && fs::file_time_type::clock::now() - modified > unlocked_age;
    }
    if (stale && fs::remove_all(entry.path(), ec) > 0 && !ec) ++removed;
  }
  return removed;
}

RunScratch::RunScratch(const fs::path& temp) {
  ReclaimStaleScratch(temp);
  std::string pattern = (temp / (std::string(kPrefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a scratch directory in " + temp.string());
  }
  path_ = pattern;
  lock_fd_ = ::open((path_ / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw std::runtime_error("cannot lock the scratch directory " + path_.string());
  }
}

RunScratch::~RunScratch() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace pe::run
