// Large scratch buffers backed by transparent huge pages where the kernel offers them
// (/sys/kernel/mm/transparent_hugepage/enabled: "madvise" here). On this project's VM a fresh
// 4 KiB page costs a fault each time a buffer is first written; a 2 MiB page is one fault for
// 512 of them. The stream writer's block buffers are a few MiB each and written once per run.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace pe::gen {

struct FreeBytes {
  void operator()(char* bytes) const { std::free(bytes); }
};
using RawBytes = std::unique_ptr<char[], FreeBytes>;

// At least `capacity` uninitialised bytes; `capacity` comes back as what was allocated. From
// 2 MiB on, the block is 2 MiB-aligned and advised as huge pages (MADV_HUGEPAGE; a kernel
// without transparent huge pages ignores the advice). Throws std::bad_alloc.
RawBytes AllocateRawBytes(std::size_t& capacity);

}  // namespace pe::gen
