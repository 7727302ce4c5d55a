/* server: a bounded pool of blocking Redis connections shared by the
 * worker threads that load assets for the stream loops (store_backend.h,
 * load_blocking): at most `size` connections are ever open, each one kept
 * for the next load rather than closed, so a burst of misses opens no new
 * connection per miss. A connection that failed is closed and made again
 * on its next use. Thread-safe. */
#ifndef ANIMD_SERVER_REDIS_CONN_POOL_H
#define ANIMD_SERVER_REDIS_CONN_POOL_H

#include <stdbool.h>

#include <hiredis/hiredis.h>

#include "server/redis/client.h"

typedef struct srv_redis_pool_s srv_redis_pool_t;

/* The default number of connections. */
#define SRV_REDIS_POOL_SIZE 4

/* A pool of at most size connections (0: SRV_REDIS_POOL_SIZE) to o's
 * Redis (its host, port, db and timeout_ms). NULL on ENOMEM. */
srv_redis_pool_t *srv_redis_pool_new(const srv_redis_opts_t *o, unsigned size);
/* Closes the idle connections and frees the pool; none may be taken. */
void srv_redis_pool_free(srv_redis_pool_t *p);

/* A connection for the calling thread alone: an idle one, a new one
 * while fewer than size are open, or the first one given back within the
 * timeout. NULL when none came in time or Redis cannot be reached. */
redisContext *srv_redis_pool_take(srv_redis_pool_t *p);
/* Gives a taken connection back; broken (a command failed on it, or its
 * reply was not read): it is closed instead of kept. */
void srv_redis_pool_give(srv_redis_pool_t *p, redisContext *c, bool broken);

/* Connections opened since the pool was made. */
unsigned long srv_redis_pool_connects(srv_redis_pool_t *p);

#endif
