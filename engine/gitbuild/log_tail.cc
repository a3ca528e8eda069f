#include "engine/gitbuild/log_tail.h"

#include "engine/runner/file_tail.h"

namespace pe::gitbuild {

using runner::FileTail;

std::string LogTail(const std::filesystem::path& path, int lines) {
  constexpr std::size_t kMaxRead = 64 * 1024;
  if (lines <= 0) return {};
  const std::string tail = FileTail(path, static_cast<std::size_t>(lines), kMaxRead);
  return tail.empty() ? tail : tail + "\n";
}

}  // namespace pe::gitbuild
