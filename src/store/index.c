/* store: the open-addressing pointer table behind the store's indexes
 * (index.h): linear probing, at most half full, backward-shift deletion. */
#include "store/index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits. */
uint64_t store__hash(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t store__hash_finish(uint64_t h) {
  /* Mix the high bits down (slots are taken from the low ones). */
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h ? h : 1;
}

void *store__index_find(const store_index_t *ix, uint64_t h,
                        bool (*match)(const void *item, const void *key),
                        const void *key) {
  if (ix->cap == 0) return NULL;
  size_t mask = ix->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (ix->hashes[i] == 0) return NULL;
    if (ix->hashes[i] == h && match(ix->items[i], key)) return ix->items[i];
  }
}

static void put(store_index_t *ix, uint64_t h, void *item) {
  size_t mask = ix->cap - 1;
  size_t i = h & mask;
  while (ix->hashes[i] != 0) i = (i + 1) & mask;
  ix->hashes[i] = h;
  ix->items[i] = item;
  ix->count++;
}

int store__index_grown(const store_index_t *ix, size_t extra,
                       store_index_t *out) {
  memset(out, 0, sizeof *out);
  size_t need = ix->count + extra;
  if (ix->cap != 0 && need <= ix->cap / 2) return 0;
  size_t cap = ix->cap ? ix->cap : 64;
  while (need > cap / 2) cap *= 2;
  out->hashes = calloc(cap, sizeof *out->hashes);
  out->items = calloc(cap, sizeof *out->items);
  if (out->hashes == NULL || out->items == NULL) {
    store__index_free(out);
    return -ENOMEM;
  }
  out->cap = cap;
  for (size_t i = 0; i < ix->cap; i++)
    if (ix->hashes[i] != 0) put(out, ix->hashes[i], ix->items[i]);
  return 0;
}

void store__index_adopt(store_index_t *ix, store_index_t *grown) {
  if (grown->cap == 0) return;
  store_index_t old = *ix;
  *ix = *grown;
  *grown = old;
}

void store__index_insert(store_index_t *ix, uint64_t h, void *item) {
  put(ix, h, item);
}

void store__index_remove(store_index_t *ix, uint64_t h, const void *item) {
  if (ix->cap == 0) return;
  size_t mask = ix->cap - 1;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    if (ix->hashes[i] == 0) return;
    if (ix->items[i] == item) break;
  }
  /* Backward shift: pull later entries of the run into the hole when
   * their home slot does not lie between the hole and them. */
  size_t hole = i;
  for (size_t j = (i + 1) & mask; ix->hashes[j] != 0; j = (j + 1) & mask) {
    size_t home = ix->hashes[j] & mask;
    bool stays =
        hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (stays) continue;
    ix->hashes[hole] = ix->hashes[j];
    ix->items[hole] = ix->items[j];
    hole = j;
  }
  ix->hashes[hole] = 0;
  ix->items[hole] = NULL;
  ix->count--;
}

void store__index_free(store_index_t *ix) {
  free(ix->hashes);
  free(ix->items);
  memset(ix, 0, sizeof *ix);
}
