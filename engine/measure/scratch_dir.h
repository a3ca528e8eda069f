// Private temporary directories: the one helper every scratch site of the engine makes its
// directory with (the run's scratch, parity executions, measurements, bisect's state,
// validate's and init --quick's). mkdtemp gives a directory of mode 0700 under a name that
// did not exist, so nothing another user or a contender planted (a symlink to somewhere it
// could read later) is ever used as one; docs/threat-model.md relies on that.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pe::measure {

// Creates `<parent>/<prefix>XXXXXX` (mkdtemp: six letters or digits). nullopt, with errno
// set, when it cannot; the caller says what failed in its own words.
std::optional<std::filesystem::path> MakePrivateDirectory(const std::filesystem::path& parent, std::string_view prefix);

// A private directory removed with everything in it when this goes out of scope.
class ScratchDir {
 public:
  // Creates `<temp>/<prefix>XXXXXX`; throws std::filesystem::filesystem_error on failure.
  explicit ScratchDir(const std::string& prefix);
  // Creates `<parent>/<prefix>XXXXXX`; on failure throws std::runtime_error(`error`).
  ScratchDir(const std::filesystem::path& parent, const std::string& prefix, const std::string& error);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pe::measure
