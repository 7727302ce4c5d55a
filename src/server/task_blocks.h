/* server: a loop's bounded free lists of request-task memory. A request
 * task (http/task.h) lives from its handler to its free callback, both on
 * the loop thread; its memory comes from here and goes back here, so a
 * loop that answers request after request reuses the same few blocks
 * instead of asking malloc each time. Two block sizes (SRV_TASK_BLOCK_SMALL
 * and _LARGE bytes with the header) are kept, at most
 * SRV_TASK_BLOCKS_SMALL_KEPT and _LARGE_KEPT of each: a loop keeps at most
 * 48 KiB, whatever its load was. Larger tasks, blocks beyond the cap and
 * blocks given back after close go to malloc and free. Under
 * AddressSanitizer a kept block is poisoned: a task used after its free is
 * reported as with free. One per loop (in its srv_schedule_t); loop
 * thread only. */
#ifndef ANIMD_SERVER_TASK_BLOCKS_H
#define ANIMD_SERVER_TASK_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#define SRV_TASK_BLOCK_SMALL 1024
#define SRV_TASK_BLOCK_LARGE 8192
#define SRV_TASK_BLOCKS_SMALL_KEPT 16
#define SRV_TASK_BLOCKS_LARGE_KEPT 4

typedef struct srv_task_blocks_s {
  /* private */
  void *_small[SRV_TASK_BLOCKS_SMALL_KEPT];
  void *_large[SRV_TASK_BLOCKS_LARGE_KEPT];
  unsigned _small_count, _large_count;
  bool _closed;
} srv_task_blocks_t;

/* Empty lists. */
void srv_task_blocks_init(srv_task_blocks_t *b);
/* Frees the kept blocks; blocks given back later are freed at once. */
void srv_task_blocks_close(srv_task_blocks_t *b);

/* size bytes, zeroed, aligned as malloc's; NULL when out of memory. b may
 * be NULL (plain calloc). */
void *srv_task_blocks_new(srv_task_blocks_t *b, size_t size);
/* Gives back a srv_task_blocks_new block (NULL: nothing) to the lists it
 * came from, or to free. */
void srv_task_blocks_delete(void *block);

/* Blocks kept now (the tests'). */
unsigned srv_task_blocks_kept(const srv_task_blocks_t *b);

#endif
