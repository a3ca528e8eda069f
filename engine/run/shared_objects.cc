#include "engine/run/shared_objects.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <system_error>

namespace pe::run {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kDeleted = " (deleted)";

// The file as the kernel named it, without the mark of one removed since it was mapped.
fs::path FileOf(const std::string& mapped) {
  std::string_view path = mapped;
  if (path.ends_with(kDeleted)) path.remove_suffix(kDeleted.size());
  return fs::path(path).lexically_normal();
}

fs::path Folder(const fs::path& dir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  return (ec ? dir : canonical).lexically_normal();
}

bool Under(const fs::path& file, const fs::path& dir) {
  const fs::path relative = file.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

std::vector<std::string> IsolationProblems(const std::vector<runner::MappedFile>& mapped, const std::string& contender,
                                           const std::vector<ObjectOwner>& owners) {
  std::vector<fs::path> own;
  std::vector<std::pair<std::string, fs::path>> others;
  for (const ObjectOwner& owner : owners) {
    for (const fs::path& dir : owner.dirs) {
      if (owner.contender == contender) {
        own.push_back(Folder(dir));
      } else {
        others.emplace_back(owner.contender, Folder(dir));
      }
    }
  }
  std::vector<std::string> problems;
  // Per process: each name (the last component) and the first path it was seen at.
  std::map<std::pair<int, std::string>, fs::path> seen;
  for (const runner::MappedFile& m : mapped) {
    const fs::path file = FileOf(m.path);
    const bool mine = std::any_of(own.begin(), own.end(), [&](const fs::path& dir) { return Under(file, dir); });
    if (!mine) {
      for (const auto& [other, dir] : others) {
        if (!Under(file, dir)) continue;
        problems.push_back(fmt::format("process {} mapped {}, which is contender '{}''s ({})", m.pid, file.string(),
                                       other, dir.string()));
        break;
      }
    }
    const auto [it, first] = seen.emplace(std::make_pair(m.pid, file.filename().string()), file);
    if (!first && it->second != file && !SameFile(it->second, file)) {
      problems.push_back(fmt::format("process {} mapped two copies of {}: {} and {}", m.pid, file.filename().string(),
                                     it->second.string(), file.string()));
    }
  }
  return problems;
}

std::string IsolationMessage(const std::vector<std::string>& problems) {
  constexpr std::size_t kShown = 4;
  std::vector<std::string> shown(problems.begin(), problems.begin() + std::min(problems.size(), kShown));
  std::string more = problems.size() > kShown ? fmt::format("; and {} more", problems.size() - kShown) : "";
  return fmt::format(
      "is not isolated (isolated = true): {}{}. Each contender must load only its own build's shared objects, or "
      "its figures are partly another build's",
      fmt::join(shown, "; "), more);
}

}  // namespace pe::run
