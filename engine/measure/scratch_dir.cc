#include "engine/measure/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace pe::measure {

std::optional<std::filesystem::path> MakePrivateDirectory(const std::filesystem::path& parent,
                                                          std::string_view prefix) {
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return std::nullopt;
  return std::filesystem::path(pattern);
}

ScratchDir::ScratchDir(const std::string& prefix) {
  const std::filesystem::path temp = std::filesystem::temp_directory_path();
  auto made = MakePrivateDirectory(temp, prefix);
  if (!made) {
    throw std::filesystem::filesystem_error("cannot create a temporary directory", temp / (prefix + "XXXXXX"),
                                            std::error_code(errno, std::system_category()));
  }
  path_ = std::move(*made);
}

ScratchDir::ScratchDir(const std::filesystem::path& parent, const std::string& prefix, const std::string& error) {
  auto made = MakePrivateDirectory(parent, prefix);
  if (!made) throw std::runtime_error(error);
  path_ = std::move(*made);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pe::measure
