/* formats: handing freed heap back to the operating system.
 *
 * glibc keeps freed memory in its arenas; after a large upload (its parse
 * tree, its scratch arrays, or a refused bundle) that can leave hundreds of
 * megabytes resident for good. fmt_release_memory calls malloc_trim(0)
 * when at least FMT_RELEASE_THRESHOLD bytes were just freed, and does
 * nothing elsewhere (other C libraries, smaller frees): trimming walks
 * every arena, which is worth it only after big frees. Called by the
 * decoders (fmt_decode, after a large body) and by the store (after a
 * deletion or a refused ingest of large assets). Thread-safe. */
#ifndef ANIMD_FORMATS_RELEASE_MEMORY_H
#define ANIMD_FORMATS_RELEASE_MEMORY_H

#include <stddef.h>

#define FMT_RELEASE_THRESHOLD ((size_t)4 << 20)

void fmt_release_memory(size_t freed_bytes);

#endif
