/* server: the Redis store backend (backend.h) of a fleet of daemons:
 * every asset lives in Redis as its canonical native JSON; the node's own
 * memory store is its bounded cache.
 *
 * Uploads are written by one Lua script (all of an upload or nothing;
 * name conflicts decided in Redis, so two nodes racing on one name give
 * one winner and one 409). A miss loads the asset (and a clip's or mesh's
 * skeleton) with one script, decodes it on the worker pool once however
 * many requests wait for it, and adopts it into the cache. Deletes and
 * names that stop being unique are published; every node drops what it
 * cached, and a node whose subscription was lost empties its cache when it
 * comes back. A load under way when its asset is dropped does not keep
 * it: it is looked up again (a drop epoch, store_backend.c). A cache that would
 * pass memory_limit evicts its least recently used assets (store/cache.h)
 * before the next asset is adopted. Loop thread only. */
#ifndef ANIMD_SERVER_REDIS_STORE_BACKEND_H
#define ANIMD_SERVER_REDIS_STORE_BACKEND_H

#include <uv.h>

#include "server/backend.h"
#include "server/pool.h"
#include "store/store.h"

typedef struct srv_redis_backend_s srv_redis_backend_t;

/* How the backend uses Redis. */
typedef struct srv_redis_backend_limits_s {
  unsigned timeout_ms;  /* A command may go unanswered (client.h; 0: its
                           default). */
  unsigned pool_size;   /* Connections of the worker threads' loads
                           (conn_pool.h; 0: its default). */
  unsigned miss_ttl_ms; /* A miss is remembered (miss_cache.h; 0: not). */
} srv_redis_backend_limits_t;

/* Starts the backend for url ("redis://host:port/db") over store, the
 * node's cache (max_bytes: its memory_limit, 0 none), with limits.
 * Returns 0, or -1 with err (a bad url). */
int srv_redis_backend_open(uv_loop_t *loop, const char *url, store_t *store,
                           srv_pool_t *pool, size_t max_bytes,
                           const srv_redis_backend_limits_t *limits,
                           srv_redis_backend_t **out, char *err,
                           size_t err_len);
/* The backend.h view of it. */
const srv_backend_t *srv_redis_backend(srv_redis_backend_t *b);
/* Disconnects (loads and writes in flight answer unavailable) and frees
 * it once its jobs are done. */
void srv_redis_backend_close(srv_redis_backend_t *b);

typedef struct srv_redis_backend_stats_s {
  unsigned long loads;     /* Assets loaded from Redis into the cache. */
  unsigned long shared;    /* Requests that waited on a load in flight. */
  unsigned long drops;     /* Cached assets dropped on published changes. */
  unsigned long flushes;   /* Cache emptied (back after a loss). */
  unsigned long evictions; /* Assets evicted to stay under the limit. */
  unsigned long stale;     /* Loads dropped while under way, looked up
                              again. */
  unsigned long misses_remembered; /* Not-found answered from the miss
                                      cache, without Redis. */
  unsigned long pool_connects;     /* Connections the worker threads'
                                      loads opened. */
  unsigned long connects, losses;
} srv_redis_backend_stats_t;

void srv_redis_backend_stats(const srv_redis_backend_t *b,
                             srv_redis_backend_stats_t *out);

#endif
