// Writing fixture files with few, large write(2) calls: generators append to an in-memory
// buffer that is flushed in multi-megabyte chunks, so the bytes per syscall stay high.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pe::gen {

class OutputFile {
 public:
  static constexpr std::size_t kFlushBytes = std::size_t{8} << 20;

  // Creates or truncates path. Throws std::runtime_error on failure.
  explicit OutputFile(const std::filesystem::path& path, int mode = 0644);
  ~OutputFile();  // closes without reporting errors; call Close() to see them
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The pending buffer: append to it, then call MaybeFlush().
  std::string& buffer() { return buffer_; }
  void Append(std::string_view bytes) {
    buffer_.append(bytes);
    MaybeFlush();
  }
  void MaybeFlush() {
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  // Writes what is pending, then `bytes` straight from the caller's memory (one large write).
  void Write(std::string_view bytes);
  void Flush();
  void Close();
  std::size_t bytes_written() const { return written_ + buffer_.size(); }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::string buffer_;
  std::size_t written_ = 0;
};

// Writes data as the whole content of path (one or a few write calls).
void WriteFile(const std::filesystem::path& path, std::string_view data, int mode = 0644);

// A directory held open, so that the many small files of a fixture are created relative to it
// (openat): one open, one write and one close each, without walking the whole path again.
class OpenDirectory {
 public:
  // Opens an existing directory. Throws std::runtime_error on failure.
  explicit OpenDirectory(const std::filesystem::path& path);
  ~OpenDirectory();
  OpenDirectory(const OpenDirectory&) = delete;
  OpenDirectory& operator=(const OpenDirectory&) = delete;

  // Writes data as the whole content of `name`, a file directly in this directory.
  void WriteFile(std::string_view name, std::string_view data, int mode = 0644) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// Reads a whole file. Throws std::runtime_error on failure.
std::string ReadFile(const std::filesystem::path& path);

}  // namespace pe::gen
