/* store: an open-addressing hash table of pointers, the store's index of
 * assets by id and of name groups by (kind, skeleton, name).
 *
 * Linear probing over a power-of-two array of (hash, pointer) slots, at
 * most half full, with backward-shift deletion (no tombstones), so a
 * lookup touches a couple of slots whatever the number of assets. The
 * table never allocates while it is being changed in place: growth is
 * prepared into a separate table (store__index_grown, which reads the old
 * one and may run while readers use it) and swapped in with
 * store__index_adopt, so the store's table lock is held only for pointer
 * writes. Not thread-safe by itself: the store's locks guard it. */
#ifndef ANIMD_STORE_INDEX_H
#define ANIMD_STORE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct store_index_s {
  uint64_t *hashes; /* 0: an empty slot. */
  void **items;
  size_t cap; /* A power of two, or 0. */
  size_t count;
} store_index_t;

/* A hash of len bytes, continued from h (start with STORE_HASH_SEED);
 * never 0 once finished with store__hash_finish. */
#define STORE_HASH_SEED 14695981039346656037ull
uint64_t store__hash(uint64_t h, const void *data, size_t len);
uint64_t store__hash_finish(uint64_t h);

/* The item with hash h for which match(item, key) holds, or NULL. */
void *store__index_find(const store_index_t *ix, uint64_t h,
                        bool (*match)(const void *item, const void *key),
                        const void *key);
/* Prepares room for extra more items: *out becomes a copy of ix with a
 * larger array when ix would be more than half full (else out->cap = 0).
 * Reads ix only. Returns 0 or -ENOMEM. */
int store__index_grown(const store_index_t *ix, size_t extra,
                       store_index_t *out);
/* Swaps a table prepared by store__index_grown in (when out->cap != 0);
 * *grown then holds the old arrays, for store__index_free. */
void store__index_adopt(store_index_t *ix, store_index_t *grown);
/* Inserts item under h; room must have been prepared. */
void store__index_insert(store_index_t *ix, uint64_t h, void *item);
/* Removes item (compared by pointer) stored under h, if present. */
void store__index_remove(store_index_t *ix, uint64_t h, const void *item);
void store__index_free(store_index_t *ix);

#endif
