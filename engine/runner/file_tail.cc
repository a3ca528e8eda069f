#include "engine/runner/file_tail.h"

#include <fstream>

namespace pe::runner {

std::string FileTail(const std::filesystem::path& path, std::size_t max_lines, std::size_t max_bytes) {
  if (path.empty() || max_lines == 0) return "";
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from =
      size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // Count lines back from the end.
  std::size_t start = text.size();
  for (std::size_t lines = 0; lines < max_lines && start != std::string::npos; ++lines) {
    start = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
  }
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace pe::runner
