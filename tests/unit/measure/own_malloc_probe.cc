// A program that defines malloc itself (as one linking an allocator statically does): the
// dynamic loader binds every malloc call to it, so a preloaded counter sees none of them.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace {

alignas(64) char arena[8 << 20];
size_t used = 0;

void* Bump(size_t size, size_t alignment) {
  size_t start = (used + alignment - 1) & ~(alignment - 1);
  if (start + size + 16 > sizeof arena) return nullptr;
  memcpy(arena + start, &size, sizeof size);
  used = start + 16 + size;
  return arena + start + 16;
}

}  // namespace

extern "C" {
void* malloc(size_t size) { return Bump(size, 16); }
void free(void*) {}
void* calloc(size_t count, size_t size) { return Bump(count * size, 16); }  // arena is zero
void* realloc(void* old, size_t size) {
  void* p = Bump(size, 16);
  if (p != nullptr && old != nullptr) {
    size_t old_size;
    memcpy(&old_size, static_cast<char*>(old) - 16, sizeof old_size);
    memcpy(p, old, old_size < size ? old_size : size);
  }
  return p;
}
void* aligned_alloc(size_t alignment, size_t size) { return Bump(size, alignment < 16 ? 16 : alignment); }
int posix_memalign(void** out, size_t alignment, size_t size) {
  *out = aligned_alloc(alignment, size);
  return *out != nullptr ? 0 : ENOMEM;
}
}

void* volatile block;

int main() {
  for (int i = 0; i < 100; ++i) block = malloc(64);
  return 0;
}
