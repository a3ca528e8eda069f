#include "engine/measure/elf_linkage.h"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace pe::measure {
namespace {

// Reads the program headers of one ELF class and reports whether any is PT_INTERP.
template <class Ehdr, class Phdr>
Linkage ScanProgramHeaders(std::ifstream& in) {
  Ehdr header;
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return Linkage::kNotElf;
  if (header.e_phentsize != sizeof(Phdr)) return Linkage::kNotElf;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Phdr program_header;
    in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof(Phdr)));
    if (!in.read(reinterpret_cast<char*>(&program_header), sizeof program_header)) {
      return Linkage::kNotElf;
    }
    if (program_header.p_type == PT_INTERP) return Linkage::kDynamic;
  }
  return Linkage::kStatic;
}

}  // namespace

Linkage ReadLinkage(const std::filesystem::path& program) {
  std::ifstream in(program, std::ios::binary);
  unsigned char ident[EI_NIDENT];
  if (!in.read(reinterpret_cast<char*>(ident), sizeof ident)) return Linkage::kNotElf;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return Linkage::kNotElf;
  // Headers are read in host byte order; a foreign-endian ELF would not run here anyway.
  if (ident[EI_CLASS] == ELFCLASS64) return ScanProgramHeaders<Elf64_Ehdr, Elf64_Phdr>(in);
  if (ident[EI_CLASS] == ELFCLASS32) return ScanProgramHeaders<Elf32_Ehdr, Elf32_Phdr>(in);
  return Linkage::kNotElf;
}

}  // namespace pe::measure
