// A temporary file that removes itself.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pe::refdiff {

class TempFile {
 public:
  // Creates an empty file named bazel-diff-ref-<purpose>-XXXXXX in the temp directory.
  explicit TempFile(std::string_view purpose);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Whole-file helpers; errors throw RefDiffError naming the path.
std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, std::string_view bytes);

}  // namespace pe::refdiff
