#include "engine/gitbuild/log_tail.h"

#include <fstream>

namespace pe::gitbuild {

std::string LogTail(const std::filesystem::path& path, int lines) {
  constexpr std::streamoff kMaxRead = 64 * 1024;
  if (lines <= 0) return {};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  std::streamoff start = size > kMaxRead ? size - kMaxRead : 0;
  in.seekg(start);
  std::string text(static_cast<std::size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.empty()) return {};
  if (text.back() != '\n') text += '\n';
  // Walk back over `lines` newlines (the final one ends the last line).
  std::size_t begin = text.size() - 1;
  int seen = 0;
  while (begin > 0) {
    if (text[begin - 1] == '\n' && ++seen == lines) break;
    --begin;
  }
  return text.substr(begin);
}

}  // namespace pe::gitbuild
