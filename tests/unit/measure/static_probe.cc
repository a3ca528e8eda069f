// A statically linked program that allocates: LD_PRELOAD cannot reach it.
#include <stdlib.h>

void* volatile block;

int main() {
  block = malloc(64);
  free(block);
  return 0;
}
