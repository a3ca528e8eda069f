#include "generators/huge_pages.h"

#include <sys/mman.h>

#include <new>

namespace pe::gen {

RawBytes AllocateRawBytes(std::size_t& capacity) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (capacity < kHuge) {
    RawBytes bytes(static_cast<char*>(std::malloc(capacity)));
    if (bytes == nullptr) throw std::bad_alloc();
    return bytes;
  }
  capacity = (capacity + kHuge - 1) / kHuge * kHuge;
  RawBytes bytes(static_cast<char*>(std::aligned_alloc(kHuge, capacity)));
  if (bytes == nullptr) throw std::bad_alloc();
  // Advice only: where it is refused the pages are ordinary ones.
  (void)::madvise(bytes.get(), capacity, MADV_HUGEPAGE);
  return bytes;
}

}  // namespace pe::gen
