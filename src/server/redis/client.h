/* server: a Redis client on the HTTP loop (hiredis's asynchronous API and
 * its libuv adapter): one connection for commands, one subscribed to a
 * channel, each reconnecting on its own with back-off.
 *
 * Never blocks the loop: the address is numeric (resolved once, at
 * start), connects are non-blocking, and a command sent while the
 * connection is down fails at once. A connection lost with commands in
 * flight answers each of them with no reply (reply NULL).
 *
 * A Redis that accepts but does not answer (stopped, swapping, stuck in a
 * long script) is caught by the command timeout: a connection counts as
 * up only once Redis has answered on it (PING, or the subscription's
 * confirmation), an idle command connection is pinged, and when the
 * oldest command in flight (replies come in order) has waited longer than
 * the timeout, the command connection is dropped (every command in flight
 * gets no reply) and made again with back-off, which grows until Redis
 * answers. The subscribed connection stays while its subscription holds
 * (a slow Redis loses no message: the node's cache is kept); it is made
 * again when Redis closes it or never confirmed the subscription. Loop
 * thread only. */
#ifndef ANIMD_SERVER_REDIS_CLIENT_H
#define ANIMD_SERVER_REDIS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis/hiredis.h>
#include <uv.h>

typedef struct srv_redis_s srv_redis_t;

/* Back-off between reconnection attempts: doubles from the first to the
 * last, and starts again from the first once connected. */
#define SRV_REDIS_BACKOFF_FIRST_MS 100
#define SRV_REDIS_BACKOFF_MAX_MS 2000
/* A connect not done by then is abandoned and retried. */
#define SRV_REDIS_CONNECT_TIMEOUT_MS 500
/* The default command timeout. */
#define SRV_REDIS_TIMEOUT_MS 2000

typedef struct srv_redis_opts_s {
  char host[256]; /* Numeric address. */
  int port;
  int db;
  /* A command unanswered this long drops the connections (0: the
   * default). */
  unsigned timeout_ms;
  const char *channel; /* Subscribed to. */
  /* A message of the channel. */
  void (*on_message)(void *arg, const char *payload, size_t len);
  /* The subscription came back after being lost: messages may have been
   * missed meanwhile. */
  void (*on_resubscribed)(void *arg);
  void *arg;
} srv_redis_opts_t;

/* Parses "redis://host:port/db" (port 6379 and db 0 when left out; host
 * resolved to a numeric address now). Returns 0, or -1 with err. */
int srv_redis_parse_url(const char *url, srv_redis_opts_t *o, char *err,
                        size_t err_len);

/* Starts connecting (failures are retried; this does not wait). */
int srv_redis_open(uv_loop_t *loop, const srv_redis_opts_t *o,
                   srv_redis_t **out);
/* Disconnects (commands in flight get no reply) and frees the client once
 * its handles are closed. */
void srv_redis_close(srv_redis_t *r);

/* True while both connections are up. */
bool srv_redis_up(const srv_redis_t *r);
/* Connections made since open (the first one included) and lost, and
 * how many times a command timed out. */
unsigned long srv_redis_connects(const srv_redis_t *r);
unsigned long srv_redis_losses(const srv_redis_t *r);
unsigned long srv_redis_timeouts(const srv_redis_t *r);

/* Sends one command; cb(arg, reply) runs once with the reply, or NULL when
 * the connection was lost first. Returns 0, or UV_ENOTCONN when down (cb
 * will not run). */
int srv_redis_command(srv_redis_t *r, void (*cb)(void *arg, redisReply *reply),
                      void *arg, int argc, const char **argv,
                      const size_t *argvlen);

#endif
