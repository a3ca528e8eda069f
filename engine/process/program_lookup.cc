#include "engine/process/program_lookup.h"

#include <unistd.h>

#include <boost/process/search_path.hpp>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace pe::process {
namespace {

std::vector<boost::filesystem::path> SplitPath(const std::string& path_variable) {
  std::vector<boost::filesystem::path> directories;
  std::string::size_type start = 0;
  while (start <= path_variable.size()) {
    auto end = path_variable.find(':', start);
    if (end == std::string::npos) end = path_variable.size();
    // An empty entry means "the current directory" to execvp, a legacy trap; skip it.
    if (end > start) directories.emplace_back(path_variable.substr(start, end - start));
    start = end + 1;
  }
  return directories;
}

}  // namespace

ResolvedProgram ResolveProgram(const std::string& name, const std::filesystem::path& cwd,
                               const std::string& path_variable) {
  if (name.empty()) return {{}, "program not found: (empty argv[0])"};
  if (name.find('/') == std::string::npos) {
    auto found = boost::process::search_path(name, SplitPath(path_variable));
    if (found.empty()) return {{}, "program not found: " + name};
    std::error_code ec;  // error_code overloads throughout: a lookup reports, never throws
    std::filesystem::path absolute = std::filesystem::absolute(found.string(), ec);
    return {ec ? std::filesystem::path(found.string()) : absolute, {}};
  }
  std::error_code ec;
  std::filesystem::path path = name;
  if (path.is_relative() && !cwd.empty()) path = cwd / path;
  if (std::filesystem::path absolute = std::filesystem::absolute(path, ec); !ec) path = absolute;
  auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return {{}, "program not found: " + name};
  if (!std::filesystem::is_regular_file(status) || ::access(path.c_str(), X_OK) != 0) {
    return {{}, "not executable: " + name};
  }
  return {path, {}};
}

std::string EnginePathVariable() {
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

}  // namespace pe::process
