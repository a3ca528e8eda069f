#include "engine/serve/stderr_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <system_error>

#include "engine/runner/file_tail.h"

namespace pe::serve {

using runner::Command;
using runner::FileTail;

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

std::string StderrFile::Tail(size_t max_lines, size_t max_bytes) const { return FileTail(path_, max_lines, max_bytes); }

}  // namespace pe::serve
