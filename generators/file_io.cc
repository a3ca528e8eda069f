#include "generators/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pe::gen {
namespace {

[[noreturn]] void ThrowErrno(std::string_view what, const std::filesystem::path& path) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

// False (errno set) when a write fails.
bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void WriteAll(int fd, std::string_view data, const std::filesystem::path& path) {
  if (!WriteAll(fd, data)) ThrowErrno("cannot write", path);
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& path, int mode) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd_ < 0) ThrowErrno("cannot create", path);
  // The umask must not decide whether the shim is executable.
  if ((mode & 0111) != 0 && ::fchmod(fd_, static_cast<mode_t>(mode)) != 0) {
    ThrowErrno("cannot chmod", path);
  }
  buffer_.reserve(kFlushBytes + (kFlushBytes >> 3));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::Flush() {
  WriteAll(fd_, buffer_, path_);
  written_ += buffer_.size();
  buffer_.clear();
}

void OutputFile::Write(std::string_view bytes) {
  if (!buffer_.empty()) Flush();
  WriteAll(fd_, bytes, path_);
  written_ += bytes.size();
}

void OutputFile::Close() {
  if (fd_ < 0) return;
  Flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) ThrowErrno("cannot close", path_);
}

void WriteFile(const std::filesystem::path& path, std::string_view data, int mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) ThrowErrno("cannot create", path);
  try {
    if ((mode & 0111) != 0 && ::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
      ThrowErrno("cannot chmod", path);
    }
    WriteAll(fd, data, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) ThrowErrno("cannot close", path);
}

OpenDirectory::OpenDirectory(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) ThrowErrno("cannot open", path);
}

OpenDirectory::~OpenDirectory() { ::close(fd_); }

void OpenDirectory::WriteFile(std::string_view name, std::string_view data, int mode) const {
  char buffer[256];
  std::string long_name;
  const char* c_name = buffer;
  if (name.size() < sizeof buffer) {
    std::memcpy(buffer, name.data(), name.size());
    buffer[name.size()] = '\0';
  } else {
    long_name.assign(name);
    c_name = long_name.c_str();
  }
  const int fd = ::openat(fd_, c_name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) ThrowErrno("cannot create", path_ / name);
  const char* failed = nullptr;
  if ((mode & 0111) != 0 && ::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
    failed = "cannot chmod";
  } else if (!WriteAll(fd, data)) {
    failed = "cannot write";
  }
  if (failed != nullptr) {
    const int error = errno;
    ::close(fd);
    errno = error;
    ThrowErrno(failed, path_ / name);
  }
  if (::close(fd) != 0) ThrowErrno("cannot close", path_ / name);
}

std::string ReadFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowErrno("cannot read", path);
  std::string data;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) data.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      ThrowErrno("cannot read", path);
    }
    data.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return data;
}

}  // namespace pe::gen
