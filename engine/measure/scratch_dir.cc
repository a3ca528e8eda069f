#include "engine/measure/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <system_error>

namespace pe::measure {

ScratchDir::ScratchDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::filesystem::filesystem_error("cannot create a temporary directory", pattern,
                                            std::error_code(errno, std::system_category()));
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pe::measure
