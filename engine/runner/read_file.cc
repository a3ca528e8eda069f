#include "engine/runner/read_file.h"

#include <fstream>
#include <sstream>

namespace pe::runner {

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace pe::runner
