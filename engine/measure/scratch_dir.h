// A private temporary directory for one measurement's output files, removed afterwards.
#pragma once

#include <filesystem>
#include <string>

namespace pe::measure {

class ScratchDir {
 public:
  // Creates `<temp>/<prefix>XXXXXX`; throws std::filesystem::filesystem_error on failure.
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pe::measure
