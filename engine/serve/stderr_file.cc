#include "engine/serve/stderr_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <system_error>

namespace pe::serve {

StderrFile::StderrFile(Command* command) {
  if (!command->stderr_path.empty()) {
    path_ = command->stderr_path;
    return;
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string name = (dir / "perfengine-serve-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  // Without a file the server's stderr goes to /dev/null; failures then quote nothing.
  if (fd < 0) return;
  ::close(fd);
  path_ = name;
  temporary_ = true;
  command->stderr_path = path_;
}

StderrFile::~StderrFile() {
  if (!temporary_) return;
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

std::string StderrFile::Tail(size_t max_lines, size_t max_bytes) const {
  if (path_.empty()) return "";
  std::ifstream in(path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max_bytes)
                                  ? size - static_cast<std::streamoff>(max_bytes)
                                  : 0;
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  // Count lines back from the end; a cut first line is kept as it is.
  size_t start = text.size();
  for (size_t lines = 0; lines < max_lines && start != std::string::npos;) {
    start = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
    ++lines;
  }
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace pe::serve
