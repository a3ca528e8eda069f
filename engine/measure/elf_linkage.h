// Whether a program is dynamically linked, read from its ELF headers: an LD_PRELOAD
// interposer reaches only programs the dynamic loader starts.
#pragma once

#include <filesystem>

namespace pe::measure {

enum class Linkage {
  kDynamic,  // has a PT_INTERP program header: ld.so loads it and honours LD_PRELOAD
  kStatic,   // ELF without PT_INTERP (static, static-pie): LD_PRELOAD has no effect
  kNotElf,   // a script, unreadable or truncated: the caller cannot tell from the file
};

Linkage ReadLinkage(const std::filesystem::path& program);

}  // namespace pe::measure
