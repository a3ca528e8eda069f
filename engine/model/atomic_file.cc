#include "engine/model/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace pe::model {
namespace {

[[noreturn]] void Fail(const std::filesystem::path& path, std::string_view step, int error) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path.string(), step, std::strerror(error)));
}

bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

enum class Mode { kReplace, kWriteThrough };

// How a write to `target` (symlinks already followed) goes, or the refusal.
Mode ModeFor(const std::filesystem::path& path, const std::filesystem::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return Mode::kReplace;
    Fail(path, "cannot inspect it", errno);
  }
  if (S_ISREG(st.st_mode)) return Mode::kReplace;
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return Mode::kWriteThrough;
  const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device" : "a socket";
  throw std::runtime_error(fmt::format("{}: is {}; give a file path", path.string(), what));
}

// Opens a device or FIFO for writing without creating or truncating anything. A FIFO with
// no reader fails at once (ENXIO) instead of blocking the run forever.
int OpenThrough(const std::filesystem::path& path, const std::filesystem::path& target) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) Fail(path, errno == ENXIO ? "nothing is reading the FIFO" : "cannot open it for writing", errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

void WriteThrough(const std::filesystem::path& path, const std::filesystem::path& target, std::string_view content) {
  const int fd = OpenThrough(path, target);
  const bool ok = WriteAll(fd, content);
  const int error = errno;
  ::close(fd);
  if (!ok) Fail(path, "write failed", error);
}

}  // namespace

std::filesystem::path WriteTarget(const std::filesystem::path& path) {
  std::filesystem::path target = path;
  // As the kernel does, give up after 40 links (a loop).
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(target, ec))) return target;
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec) return target;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  throw std::runtime_error(fmt::format("{}: too many levels of symbolic links", path.string()));
}

void CheckWritable(const std::filesystem::path& path) {
  const std::filesystem::path target = WriteTarget(path);
  if (ModeFor(path, target) == Mode::kWriteThrough) {
    if (::access(target.c_str(), W_OK) != 0) Fail(path, "cannot write to it", errno);
    return;
  }
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string probe = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) Fail(path, fmt::format("cannot create a file in {}", dir.string()), errno);
  ::close(fd);
  ::unlink(probe.c_str());
}

void WriteFileAtomically(const std::filesystem::path& requested, std::string_view content) {
  const std::filesystem::path path = WriteTarget(requested);
  if (ModeFor(requested, path) == Mode::kWriteThrough) return WriteThrough(requested, path, content);
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  // Hidden, so a glob for results files never picks up a half-written one.
  std::string pattern = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> temp_name(pattern.begin(), pattern.end());
  temp_name.push_back('\0');

  int fd = ::mkstemp(temp_name.data());
  if (fd < 0) Fail(path, fmt::format("cannot create a temporary file in {}", dir.string()), errno);
  const char* temp = temp_name.data();
  auto fail_and_clean = [&](std::string_view step, int error, bool close_fd) {
    if (close_fd) ::close(fd);
    ::unlink(temp);
    Fail(path, step, error);
  };

  // mkstemp creates 0600; a results file is meant to be read by others.
  if (::fchmod(fd, 0644) != 0) fail_and_clean("cannot set permissions", errno, true);
  if (!WriteAll(fd, content)) fail_and_clean("write failed", errno, true);
  if (::fsync(fd) != 0) fail_and_clean("fsync failed", errno, true);
  if (::close(fd) != 0) fail_and_clean("close failed", errno, false);
  if (::rename(temp, path.c_str()) != 0) fail_and_clean("rename failed", errno, false);

  // Makes the rename itself durable. The new content is already in place, so a failure
  // here is not reported: the caller could do nothing about it.
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace pe::model
