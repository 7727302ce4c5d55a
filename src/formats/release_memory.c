/* formats: malloc_trim after large frees (release_memory.h). */
#include "formats/release_memory.h"

#include <stdlib.h> /* Defines __GLIBC__ on glibc. */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void fmt_release_memory(size_t freed_bytes) {
  if (freed_bytes < FMT_RELEASE_THRESHOLD) return;
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
