// Writing a file so that readers see either the old content or the new, never a part.
#pragma once

#include <filesystem>
#include <string_view>

namespace pe {

// Writes `content` to a temporary file in the same directory, fsyncs it, renames it over
// `path` and fsyncs the directory. On any failure the temporary file is removed, `path` is
// left as it was, and std::runtime_error says which step failed on which path and why.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace pe
