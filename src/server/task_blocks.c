/* server: a loop's free lists of request-task memory (task_blocks.h). */
#include "server/task_blocks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { KIND_SMALL, KIND_LARGE, KIND_HEAP };

/* Before each block: where it goes back to. Its size keeps what follows
 * aligned as malloc's. */
typedef union header_u {
  struct {
    srv_task_blocks_t *owner; /* NULL: free. */
    int kind;
  } h;
  max_align_t align;
} header_t;

void srv_task_blocks_init(srv_task_blocks_t *b) { memset(b, 0, sizeof *b); }

static void release(void **kept, unsigned *count, size_t size) {
  while (*count > 0) {
    header_t *h = kept[--*count];
    UNPOISON(h + 1, size - sizeof *h);
    free(h);
  }
}

void srv_task_blocks_close(srv_task_blocks_t *b) {
  release(b->_small, &b->_small_count, SRV_TASK_BLOCK_SMALL);
  release(b->_large, &b->_large_count, SRV_TASK_BLOCK_LARGE);
  b->_closed = true;
}

void *srv_task_blocks_new(srv_task_blocks_t *b, size_t size) {
  int kind = size <= SRV_TASK_BLOCK_SMALL - sizeof(header_t)   ? KIND_SMALL
             : size <= SRV_TASK_BLOCK_LARGE - sizeof(header_t) ? KIND_LARGE
                                                               : KIND_HEAP;
  if (b == NULL || b->_closed) kind = KIND_HEAP;
  header_t *h = NULL;
  if (kind == KIND_SMALL && b->_small_count > 0)
    h = b->_small[--b->_small_count];
  else if (kind == KIND_LARGE && b->_large_count > 0)
    h = b->_large[--b->_large_count];
  if (h != NULL) {
    UNPOISON(h + 1, size);
    memset(h + 1, 0, size);
    return h + 1;
  }
  size_t whole = kind == KIND_SMALL   ? SRV_TASK_BLOCK_SMALL
                 : kind == KIND_LARGE ? SRV_TASK_BLOCK_LARGE
                                      : sizeof *h + size;
  if (whole < size) return NULL; /* Overflow. */
  h = calloc(1, whole);
  if (h == NULL) return NULL;
  h->h.owner = kind == KIND_HEAP ? NULL : b;
  h->h.kind = kind;
  return h + 1;
}

void srv_task_blocks_delete(void *block) {
  if (block == NULL) return;
  header_t *h = (header_t *)block - 1;
  srv_task_blocks_t *b = h->h.owner;
  if (b != NULL && !b->_closed) {
    if (h->h.kind == KIND_SMALL &&
        b->_small_count < SRV_TASK_BLOCKS_SMALL_KEPT) {
      POISON(block, SRV_TASK_BLOCK_SMALL - sizeof *h);
      b->_small[b->_small_count++] = h;
      return;
    }
    if (h->h.kind == KIND_LARGE &&
        b->_large_count < SRV_TASK_BLOCKS_LARGE_KEPT) {
      POISON(block, SRV_TASK_BLOCK_LARGE - sizeof *h);
      b->_large[b->_large_count++] = h;
      return;
    }
  }
  free(h);
}

unsigned srv_task_blocks_kept(const srv_task_blocks_t *b) {
  return b->_small_count + b->_large_count;
}
