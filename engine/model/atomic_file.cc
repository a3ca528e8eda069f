#include "engine/model/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace pe {
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

}  // namespace

void WriteFileAtomically(const std::filesystem::path& path, std::string_view content) {
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

}  // namespace pe
