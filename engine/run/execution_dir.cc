#include "engine/run/execution_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

bool IsDot(std::string_view name) { return name == "." || name == ".."; }

// The names in `dir` other than . and .., or nullopt when it cannot be read; fills *types
// with each entry's d_type, DT_UNKNOWN where the filesystem does not say.
std::optional<std::vector<std::string>> Entries(const fs::path& dir, std::vector<unsigned char>* types) {
  std::vector<std::string> names;
  DIR* stream = ::opendir(dir.c_str());
  if (stream == nullptr) return std::nullopt;
  while (const dirent* entry = ::readdir(stream)) {
    if (IsDot(entry->d_name)) continue;
    names.emplace_back(entry->d_name);
    if (types != nullptr) types->push_back(entry->d_type);
  }
  ::closedir(stream);
  return names;
}

// A writable regular file with one link: not one a contender turned into a way to write
// elsewhere (a symlink, a hard link to a file it should not touch), nor one it made unwritable.
bool IsCapture(const fs::path& file) {
  struct stat info = {};
  return ::lstat(file.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_nlink == 1 &&
         (info.st_mode & S_IWUSR) != 0;
}

bool IsRealDirectory(const fs::path& path, unsigned char type) {
  if (type == DT_DIR) return true;
  if (type != DT_UNKNOWN) return false;
  struct stat info = {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

void ResetExecutionDir(const fs::path& dir) {
  const fs::path work = dir / "work";
  std::vector<unsigned char> types;
  const auto names = Entries(dir, &types);
  std::error_code ec;
  if (!names) {
    // Not there yet (the first execution), or made unreadable by the last one.
    fs::remove_all(dir, ec);
    fs::create_directories(work);
    return;
  }
  bool work_ok = false;
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    const fs::path path = dir / name;
    if (name == "work" && IsRealDirectory(path, types[i])) {
      const auto inside = Entries(work, nullptr);
      work_ok = inside.has_value();
      for (const std::string& left : inside.value_or(std::vector<std::string>{})) fs::remove_all(work / left, ec);
      if (work_ok) continue;
    }
    if ((name == "stdout" || name == "stderr") && IsCapture(path)) continue;
    fs::remove_all(path, ec);
  }
  if (!work_ok) fs::create_directories(work);
}

void ReleaseExecutionDir(const fs::path& dir) {
  ResetExecutionDir(dir);
  for (const char* capture : {"stdout", "stderr"}) {
    // Never through a link: what is left here is a capture ResetExecutionDir kept.
    const int fd = ::open((dir / capture).c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace pe::run
