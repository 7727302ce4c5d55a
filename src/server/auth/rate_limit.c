/* server/auth: token buckets in a bounded LRU table (rate_limit.h). */
#include "server/auth/rate_limit.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define NONE UINT32_MAX

typedef struct bucket_s {
  double tokens;
  uint64_t stamp_ns; /* When tokens was last brought up to date. */
} bucket_t;

typedef struct entry_s {
  srv_addr_t key;
  bucket_t buckets[SRV_LIMIT_KINDS_];
  uint32_t chain;        /* Next entry of the same hash slot. */
  uint32_t newer, older; /* The LRU list. */
} entry_t;

struct srv_limiter_s {
  entry_t *entries;
  unsigned cap, used;
  uint32_t *slots; /* Hash slots: first entry of each chain. */
  uint32_t slot_mask;
  uint32_t newest, oldest;
  uint64_t seed[2];
  uint64_t evictions;
  /* Every HTTP loop takes tokens: one lock around the table (a take is a
   * hash probe and a few stores, far shorter than the request). */
  pthread_mutex_t lock;
};

int srv_limiter_new(unsigned cap, srv_limiter_t **out) {
  if (cap == 0) cap = 1;
  srv_limiter_t *l = calloc(1, sizeof *l);
  if (l == NULL) return -ENOMEM;
  pthread_mutex_init(&l->lock, NULL);
  uint32_t nslots = 1;
  while (nslots < cap && nslots < (1u << 31)) nslots <<= 1;
  l->entries = malloc((size_t)cap * sizeof *l->entries);
  l->slots = malloc((size_t)nslots * sizeof *l->slots);
  if (l->entries == NULL || l->slots == NULL) {
    srv_limiter_free(l);
    return -ENOMEM;
  }
  memset(l->slots, 0xff, (size_t)nslots * sizeof *l->slots);
  l->cap = cap;
  l->slot_mask = nslots - 1;
  l->newest = l->oldest = NONE;
  /* A seed no client can guess, so no one can aim addresses at one
   * chain. */
  if (getrandom(l->seed, sizeof l->seed, GRND_NONBLOCK) !=
      (ssize_t)sizeof l->seed) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    l->seed[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull;
    l->seed[1] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)l;
  }
  *out = l;
  return 0;
}

void srv_limiter_free(srv_limiter_t *l) {
  if (l == NULL) return;
  free(l->entries);
  free(l->slots);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint32_t slot_of(const srv_limiter_t *l, const srv_addr_t *key) {
  uint64_t w[2];
  memcpy(w, key->b, sizeof w);
  return (uint32_t)mix(mix(w[0] ^ l->seed[0]) ^ w[1] ^ l->seed[1]) &
         l->slot_mask;
}

/* ---- the LRU list -------------------------------------------------------- */

static void lru_unlink(srv_limiter_t *l, uint32_t i) {
  entry_t *e = &l->entries[i];
  if (e->newer != NONE)
    l->entries[e->newer].older = e->older;
  else
    l->newest = e->older;
  if (e->older != NONE)
    l->entries[e->older].newer = e->newer;
  else
    l->oldest = e->newer;
}

static void lru_push(srv_limiter_t *l, uint32_t i) {
  entry_t *e = &l->entries[i];
  e->newer = NONE;
  e->older = l->newest;
  if (l->newest != NONE) l->entries[l->newest].newer = i;
  l->newest = i;
  if (l->oldest == NONE) l->oldest = i;
}

/* ---- the table ----------------------------------------------------------- */

static void chain_remove(srv_limiter_t *l, uint32_t i) {
  uint32_t *p = &l->slots[slot_of(l, &l->entries[i].key)];
  while (*p != i) p = &l->entries[*p].chain;
  *p = l->entries[i].chain;
}

/* The entry of key, made the newest; a new one (full buckets) when key
 * is not there, in place of the oldest when the table is full. */
static entry_t *find_or_add(srv_limiter_t *l, const srv_addr_t *key,
                            uint64_t now_ns) {
  uint32_t slot = slot_of(l, key);
  for (uint32_t i = l->slots[slot]; i != NONE; i = l->entries[i].chain) {
    if (memcmp(&l->entries[i].key, key, sizeof *key) == 0) {
      lru_unlink(l, i);
      lru_push(l, i);
      return &l->entries[i];
    }
  }
  uint32_t i;
  if (l->used < l->cap) {
    i = l->used++;
  } else {
    i = l->oldest;
    lru_unlink(l, i);
    chain_remove(l, i);
    l->evictions++;
  }
  entry_t *e = &l->entries[i];
  e->key = *key;
  for (int k = 0; k < SRV_LIMIT_KINDS_; k++)
    e->buckets[k] = (bucket_t){.tokens = -1, .stamp_ns = now_ns};
  e->chain = l->slots[slot];
  l->slots[slot] = i;
  lru_push(l, i);
  return e;
}

static uint64_t take_locked(srv_limiter_t *l, srv_limit_kind kind,
                            const srv_rate_t *rate, const srv_addr_t *key,
                            uint64_t now_ns) {
  double burst = rate->burst >= 1 ? rate->burst : 1;
  bucket_t *b = &find_or_add(l, key, now_ns)->buckets[kind];
  if (b->tokens < 0) {
    b->tokens = burst; /* First seen (or forgotten): a full bucket. */
  } else if (now_ns > b->stamp_ns) {
    b->tokens += (double)(now_ns - b->stamp_ns) * 1e-9 * rate->per_s;
    if (b->tokens > burst) b->tokens = burst;
  }
  b->stamp_ns = now_ns > b->stamp_ns ? now_ns : b->stamp_ns;
  if (b->tokens >= 1) {
    b->tokens -= 1;
    return 0;
  }
  double wait = (1 - b->tokens) / rate->per_s * 1e9;
  return wait < 1 ? 1 : (uint64_t)wait + 1;
}

uint64_t srv_limiter_take(srv_limiter_t *l, srv_limit_kind kind,
                          const srv_rate_t *rate, const srv_addr_t *key,
                          uint64_t now_ns) {
  if (rate->per_s <= 0 || (unsigned)kind >= SRV_LIMIT_KINDS_) return 0;
  pthread_mutex_lock(&l->lock);
  uint64_t wait = take_locked(l, kind, rate, key, now_ns);
  pthread_mutex_unlock(&l->lock);
  return wait;
}

unsigned srv_limiter_size(srv_limiter_t *l) {
  pthread_mutex_lock(&l->lock);
  unsigned n = l->used;
  pthread_mutex_unlock(&l->lock);
  return n;
}

uint64_t srv_limiter_evictions(srv_limiter_t *l) {
  pthread_mutex_lock(&l->lock);
  uint64_t n = l->evictions;
  pthread_mutex_unlock(&l->lock);
  return n;
}
