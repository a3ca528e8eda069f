#include "engine/run/fixture_guard.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kWrites = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                  IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;

const char* What(std::uint32_t mask) {
  if (mask & IN_CREATE) return "created";
  if (mask & (IN_DELETE | IN_DELETE_SELF)) return "removed";
  if (mask & (IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF)) return "renamed";
  if (mask & IN_ATTRIB) return "changed the attributes of";
  return "modified";
}

bool InGit(const fs::path& relative) {
  for (const auto& part : relative) {
    if (part == ".git") return true;
  }
  return false;
}

}  // namespace

FixtureGuard::FixtureGuard(const fs::path& root) : root_(root) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    complete_ = false;
    return;
  }
  Watch(root);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) Watch(it->path());
  }
  if (ec) complete_ = false;
}

FixtureGuard::~FixtureGuard() {
  if (fd_ >= 0) ::close(fd_);
}

void FixtureGuard::Watch(const fs::path& dir) {
  const int wd = ::inotify_add_watch(fd_, dir.c_str(), kWrites | IN_ONLYDIR);
  if (wd < 0) {
    complete_ = false;
    return;
  }
  dirs_[wd] = dir;
}

std::optional<std::string> FixtureGuard::Changed(bool allow_git) {
  if (fd_ < 0) return std::nullopt;
  // A content change names the file better than the chmod that made it possible.
  std::optional<std::string> first, first_attributes;
  alignas(inotify_event) std::array<char, 64 * 1024> buffer;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n <= 0) break;  // EAGAIN: drained
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & (IN_IGNORED | IN_Q_OVERFLOW)) {
        if ((event->mask & IN_Q_OVERFLOW) && !first) first = "overflowed the change queue with writes";
        continue;
      }
      const auto dir = dirs_.find(event->wd);
      if (dir == dirs_.end()) continue;
      fs::path path = dir->second;
      if (event->len > 0) path /= event->name;
      const fs::path relative = path == root_ ? fs::path(".") : path.lexically_relative(root_);
      if (allow_git && InGit(relative)) {
        // A worktree a server adds: watch no further inside it (its files are its own).
        continue;
      }
      const std::string change = std::string(What(event->mask)) + " '" + relative.string() + "'";
      if (event->mask == IN_ATTRIB || event->mask == (IN_ATTRIB | IN_ISDIR)) {
        if (!first_attributes) first_attributes = change;
      } else if (!first) {
        first = change;
      }
    }
  }
  return first ? first : first_attributes;
}

}  // namespace pe::run
