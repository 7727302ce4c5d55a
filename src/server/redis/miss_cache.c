/* server: misses remembered briefly (miss_cache.h). */
#include "server/redis/miss_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct slot_s {
  uint64_t hash, generation, until_ms;
  char *key; /* NULL: empty. */
  size_t len;
} slot_t;

struct srv_miss_cache_s {
  pthread_mutex_t lock;
  unsigned ttl_ms;
  uint64_t generation; /* Bumped by each clear. */
  unsigned long hits;
  slot_t slots[SRV_MISS_CACHE_SLOTS];
};

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t key_hash(const char *key, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
  return h;
}

srv_miss_cache_t *srv_miss_cache_new(unsigned ttl_ms) {
  srv_miss_cache_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  pthread_mutex_init(&c->lock, NULL);
  c->ttl_ms = ttl_ms;
  c->generation = 1;
  return c;
}

void srv_miss_cache_free(srv_miss_cache_t *c) {
  if (c == NULL) return;
  for (size_t i = 0; i < SRV_MISS_CACHE_SLOTS; i++) free(c->slots[i].key);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

bool srv_miss_cache_has(srv_miss_cache_t *c, const char *key, size_t len) {
  if (c->ttl_ms == 0) return false;
  uint64_t h = key_hash(key, len), now = now_ms();
  pthread_mutex_lock(&c->lock);
  const slot_t *s = &c->slots[h % SRV_MISS_CACHE_SLOTS];
  bool hit = s->key != NULL && s->hash == h && s->len == len &&
             s->generation == c->generation && now < s->until_ms &&
             memcmp(s->key, key, len) == 0;
  if (hit) c->hits++;
  pthread_mutex_unlock(&c->lock);
  return hit;
}

uint64_t srv_miss_cache_generation(srv_miss_cache_t *c) {
  pthread_mutex_lock(&c->lock);
  uint64_t g = c->generation;
  pthread_mutex_unlock(&c->lock);
  return g;
}

void srv_miss_cache_add(srv_miss_cache_t *c, const char *key, size_t len,
                        uint64_t generation) {
  if (c->ttl_ms == 0) return;
  char *copy = malloc(len ? len : 1);
  if (copy == NULL) return;
  memcpy(copy, key, len);
  uint64_t h = key_hash(key, len);
  pthread_mutex_lock(&c->lock);
  if (generation == c->generation) {
    slot_t *s = &c->slots[h % SRV_MISS_CACHE_SLOTS];
    free(s->key);
    *s = (slot_t){.hash = h,
                  .generation = generation,
                  .until_ms = now_ms() + c->ttl_ms,
                  .key = copy,
                  .len = len};
    copy = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  free(copy);
}

void srv_miss_cache_clear(srv_miss_cache_t *c) {
  pthread_mutex_lock(&c->lock);
  c->generation++;
  pthread_mutex_unlock(&c->lock);
}

unsigned long srv_miss_cache_hits(srv_miss_cache_t *c) {
  pthread_mutex_lock(&c->lock);
  unsigned long n = c->hits;
  pthread_mutex_unlock(&c->lock);
  return n;
}
