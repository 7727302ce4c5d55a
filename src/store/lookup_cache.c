/* store: the per-thread lookup cache (store_find_cached in store.h).
 *
 * Each thread keeps a few (kind, name or id, skeleton) → asset answers of
 * store_find, each holding a reference to its asset and the store's
 * generation it was read at. A lookup loads the generation (acquire): an
 * entry of the same generation is still the answer, since every change a
 * lookup could see bumps it under the store's lock (store__changed), so
 * it is returned, retained, without the lock. Entries of an older
 * generation are released as soon as the thread sees them. The cache is
 * the thread's own (thread-local): only its thread reads, fills and
 * releases it, so its references outlive every lookup made through it.
 *
 * The LRU clock (asset->_used) is written on a hit only when the store's
 * clock has moved since this entry last wrote it: a write per store change
 * per thread, not per request. */
#include "store/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cache_entry_s {
  store_asset_t *asset; /* Retained; NULL: the slot is free. */
  uint64_t store_uid;
  uint64_t generation;
  uint64_t touched; /* The store's clock at its last write of _used. */
  const store_asset_t *skeleton;
  uint64_t hash;
  store_kind kind;
  char key[STORE_NAME_MAX + 1];
} cache_entry_t;

typedef struct lookup_cache_s {
  cache_entry_t entries[STORE_LOOKUP_CACHE_SLOTS];
  unsigned next; /* The slot the next fill replaces when none is free. */
  uint64_t hits, misses;
} lookup_cache_t;

/* The thread's cache: a thread-local pointer (found by leak checkers),
 * and a key whose destructor releases it when the thread exits. */
static _Thread_local lookup_cache_t *thread_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void entry_clear(cache_entry_t *e) {
  store_asset_release(e->asset);
  e->asset = NULL;
}

static void cache_free(void *p) {
  lookup_cache_t *c = p;
  if (c == NULL) return;
  for (size_t i = 0; i < STORE_LOOKUP_CACHE_SLOTS; i++)
    entry_clear(&c->entries[i]);
  if (thread_cache == c) thread_cache = NULL;
  free(c);
}

static void make_key(void) { (void)pthread_key_create(&cache_key, cache_free); }

/* The calling thread's cache, made on first use; NULL when out of
 * memory (lookups then go to store_find). */
static lookup_cache_t *cache_get(void) {
  if (thread_cache != NULL) return thread_cache;
  pthread_once(&cache_key_once, make_key);
  lookup_cache_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  if (pthread_setspecific(cache_key, c) != 0) {
    free(c);
    return NULL;
  }
  thread_cache = c;
  return c;
}

static uint64_t key_hash(store_kind kind, const char *key, size_t len) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
  return h;
}

void store_find_cached(store_t *s, store_kind kind, const char *id_or_name,
                       const store_asset_t *skeleton, store_match_t *out) {
  size_t len = id_or_name != NULL ? strlen(id_or_name) : 0;
  lookup_cache_t *c =
      s != NULL && len > 0 && len <= STORE_NAME_MAX ? cache_get() : NULL;
  if (c == NULL) {
    store_find(s, kind, id_or_name, skeleton, out);
    return;
  }
  uint64_t now = atomic_load_explicit(&s->generation, memory_order_acquire);
  uint64_t h = key_hash(kind, id_or_name, len);
  cache_entry_t *free_slot = NULL;
  for (size_t i = 0; i < STORE_LOOKUP_CACHE_SLOTS; i++) {
    cache_entry_t *e = &c->entries[i];
    if (e->asset != NULL && e->store_uid == s->uid && e->generation != now)
      entry_clear(e); /* The store changed since: stale. */
    if (e->asset == NULL) {
      if (free_slot == NULL) free_slot = e;
      continue;
    }
    if (e->store_uid != s->uid || e->hash != h || e->kind != kind ||
        e->skeleton != skeleton || memcmp(e->key, id_or_name, len + 1) != 0)
      continue;
    memset(out, 0, sizeof *out);
    uint64_t clock = atomic_load_explicit(&s->clock, memory_order_relaxed);
    if (e->touched != clock) {
      store__touch(s, e->asset, clock);
      e->touched = clock;
    }
    store_asset_retain(e->asset);
    out->asset = e->asset;
    out->count = 1;
    c->hits++;
    return;
  }
  c->misses++;
  uint64_t generation;
  store__find(s, kind, id_or_name, skeleton, out, &generation);
  if (out->count != 1) return;
  cache_entry_t *e = free_slot;
  if (e == NULL) {
    e = &c->entries[c->next];
    c->next = (c->next + 1) % STORE_LOOKUP_CACHE_SLOTS;
    entry_clear(e);
  }
  store_asset_retain(out->asset);
  e->asset = out->asset;
  e->store_uid = s->uid;
  e->generation = generation;
  e->touched = atomic_load_explicit(&s->clock, memory_order_relaxed);
  e->skeleton = skeleton;
  e->hash = h;
  e->kind = kind;
  memcpy(e->key, id_or_name, len + 1);
}

void store_lookup_cache_clear(void) {
  lookup_cache_t *c = thread_cache;
  for (size_t i = 0; c != NULL && i < STORE_LOOKUP_CACHE_SLOTS; i++)
    entry_clear(&c->entries[i]);
}

void store__lookup_cache_forget(uint64_t uid) {
  lookup_cache_t *c = thread_cache;
  for (size_t i = 0; c != NULL && i < STORE_LOOKUP_CACHE_SLOTS; i++)
    if (c->entries[i].asset != NULL && c->entries[i].store_uid == uid)
      entry_clear(&c->entries[i]);
}

void store_lookup_cache_counts(uint64_t *hits, uint64_t *misses) {
  lookup_cache_t *c = thread_cache;
  *hits = c != NULL ? c->hits : 0;
  *misses = c != NULL ? c->misses : 0;
}
