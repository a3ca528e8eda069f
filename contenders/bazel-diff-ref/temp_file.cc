#include "temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "error.h"

namespace pe::refdiff {
namespace {

std::string SystemError(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

}  // namespace

TempFile::TempFile(std::string_view purpose) {
  std::error_code error;
  std::filesystem::path directory = std::filesystem::temp_directory_path(error);
  if (error) directory = "/tmp";
  std::string pattern = (directory / ("bazel-diff-ref-" + std::string(purpose) + "-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw RefDiffError(SystemError("cannot create a temporary file like", pattern));
  close(fd);
  path_ = name.data();
}

TempFile::~TempFile() { unlink(path_.c_str()); }

std::string ReadFile(const std::filesystem::path& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw RefDiffError(SystemError("cannot open", path));
  std::string bytes;
  struct stat info;
  if (fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    close(fd);
    throw RefDiffError("cannot read " + path.string() + ": it is a directory");
  }
  if (fstat(fd, &info) == 0 && info.st_size > 0) bytes.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      close(fd);
      errno = saved;
      throw RefDiffError(SystemError("cannot read", path));
    }
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  close(fd);
  return bytes;
}

void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw RefDiffError(SystemError("cannot write", path));
  while (!bytes.empty()) {
    ssize_t put = write(fd, bytes.data(), bytes.size());
    if (put < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      close(fd);
      errno = saved;
      throw RefDiffError(SystemError("cannot write", path));
    }
    bytes.remove_prefix(static_cast<std::size_t>(put));
  }
  if (close(fd) != 0) throw RefDiffError(SystemError("cannot write", path));
}

}  // namespace pe::refdiff
