/* server/auth: rate limits per client address: token buckets (one per
 * kind of event: new connections, write requests) kept in a table of
 * bounded size.
 *
 * A bucket holds up to burst tokens and refills at per_s tokens a second;
 * an event takes one token or is refused with the time until one is back.
 * Key choice: the table never grows past its capacity. A new address past
 * it takes the place of the least recently seen one (a doubly linked LRU
 * list over a preallocated array, found through a hash keyed with a random
 * seed), so a flood from many addresses costs a fixed amount of memory;
 * an address forgotten that way comes back with a full bucket, the same as
 * one that stayed quiet long enough to refill. Thread-safe: every HTTP
 * loop takes from the one table, so a limit holds per daemon. */
#ifndef ANIMD_SERVER_AUTH_RATE_LIMIT_H
#define ANIMD_SERVER_AUTH_RATE_LIMIT_H

#include <stdint.h>

#include "server/auth/address.h"

typedef enum srv_limit_kind {
  SRV_LIMIT_CONNECTION = 0,
  SRV_LIMIT_WRITE,
  SRV_LIMIT_KINDS_
} srv_limit_kind;

typedef struct srv_rate_s {
  double per_s; /* Tokens a second; 0: no limit. */
  double burst; /* Bucket size, at least 1. */
} srv_rate_t;

typedef struct srv_limiter_s srv_limiter_t;

/* A table of at most cap addresses (at least 1). Returns 0 and *out, or
 * -ENOMEM. */
int srv_limiter_new(unsigned cap, srv_limiter_t **out);
void srv_limiter_free(srv_limiter_t *l);

/* One event of kind from key at now_ns (a monotonic clock): returns 0
 * when rate allows it (a token is taken), else the nanoseconds until a
 * token is back (at least 1). */
uint64_t srv_limiter_take(srv_limiter_t *l, srv_limit_kind kind,
                          const srv_rate_t *rate, const srv_addr_t *key,
                          uint64_t now_ns);

/* Addresses remembered now, and forgotten to make room since the start. */
unsigned srv_limiter_size(srv_limiter_t *l);
uint64_t srv_limiter_evictions(srv_limiter_t *l);

#endif
