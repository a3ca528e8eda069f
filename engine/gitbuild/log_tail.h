// The last lines of a build log, for error messages.
#pragma once

#include <filesystem>
#include <string>

namespace pe::gitbuild {

// At most `lines` last lines of the file (fewer if it is shorter), each ending in '\n';
// empty when the file is empty or unreadable. Reads only the file's last 64 KiB.
std::string LogTail(const std::filesystem::path& path, int lines);

}  // namespace pe::gitbuild
