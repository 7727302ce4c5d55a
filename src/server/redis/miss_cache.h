/* server: misses remembered briefly, so that requests naming an asset the
 * shared store does not have (a typo in a client's loop, a stream asking
 * every frame) answer 404 without asking Redis each time, over HTTP and
 * WebSocket alike (store_backend.h keeps one).
 *
 * A miss is a kind, an id or name, and a skeleton id or "" (the key of a
 * load). It is remembered for ttl_ms, in one of a fixed number of slots
 * (a newer miss takes the slot of an older one whose key hashes alike),
 * and forgotten at once, all together, when something is published
 * (srv_miss_cache_clear). A miss found by a lookup that was sent before
 * the last clear is not remembered (it may be stale already). Thread-safe. */
#ifndef ANIMD_SERVER_REDIS_MISS_CACHE_H
#define ANIMD_SERVER_REDIS_MISS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_miss_cache_s srv_miss_cache_t;

/* The slots of a cache. */
#define SRV_MISS_CACHE_SLOTS 4096

/* A cache keeping misses for ttl_ms (0: none are kept). NULL on ENOMEM. */
srv_miss_cache_t *srv_miss_cache_new(unsigned ttl_ms);
void srv_miss_cache_free(srv_miss_cache_t *c);

/* True when key (len bytes) missed less than ttl_ms ago and nothing was
 * published since. */
bool srv_miss_cache_has(srv_miss_cache_t *c, const char *key, size_t len);
/* The generation to pass to add: read it before asking the store. */
uint64_t srv_miss_cache_generation(srv_miss_cache_t *c);
/* Remembers that key missed, unless a clear came after generation. */
void srv_miss_cache_add(srv_miss_cache_t *c, const char *key, size_t len,
                        uint64_t generation);
/* Forgets every miss (something was published): O(1). */
void srv_miss_cache_clear(srv_miss_cache_t *c);

/* Answers served from the cache since it was made. */
unsigned long srv_miss_cache_hits(srv_miss_cache_t *c);

#endif
