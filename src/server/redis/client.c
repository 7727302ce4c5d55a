/* server: the Redis client of the HTTP loop (client.h). */
#include "server/redis/client.h"

#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/async.h>
#include <hiredis/adapters/libuv.h>

/* One connection: for commands, or subscribed. */
typedef struct link_s {
  srv_redis_t *owner;
  bool subscriber;
  redisAsyncContext *ac; /* NULL while down. */
  bool up;               /* Redis has answered on this connection. */
  bool ever_up;
  uint64_t connected_ms; /* When the connect finished (0: not yet). */
  unsigned backoff_ms;
  uv_timer_t retry;
} link_t;

/* A command in flight, in the order sent (Redis answers in that order). */
typedef struct pending_s {
  srv_redis_t *owner;
  struct pending_s *prev, *next;
  uint64_t sent_ms;
  void (*cb)(void *arg, redisReply *reply);
  void *arg;
} pending_t;

struct srv_redis_s {
  uv_loop_t *loop;
  srv_redis_opts_t o;
  link_t cmd, sub;
  pending_t *oldest, *newest; /* Commands in flight on cmd. */
  uint64_t last_reply_ms;
  uv_timer_t watch; /* Command timeouts and idle pings. */
  bool closing;
  int handles; /* Open timers, closed on srv_redis_close. */
  unsigned long connects, losses, timeouts;
};

int srv_redis_parse_url(const char *url, srv_redis_opts_t *o, char *err,
                        size_t err_len) {
  const char *p = url;
  if (strncmp(p, "redis://", 8) != 0) {
    snprintf(err, err_len, "store: '%s' is not redis://host:port/db", url);
    return -1;
  }
  p += 8;
  char host[256];
  size_t n = strcspn(p, ":/");
  if (n == 0 || n >= sizeof host) {
    snprintf(err, err_len, "store: '%s' names no host", url);
    return -1;
  }
  memcpy(host, p, n);
  host[n] = '\0';
  p += n;
  long port = 6379, db = 0;
  char *end;
  if (*p == ':') {
    port = strtol(p + 1, &end, 10);
    if (end == p + 1 || port < 1 || port > 65535) {
      snprintf(err, err_len, "store: bad port in '%s'", url);
      return -1;
    }
    p = end;
  }
  if (*p == '/' && p[1] != '\0') {
    db = strtol(p + 1, &end, 10);
    if (end == p + 1 || *end != '\0' || db < 0 || db > 1000000) {
      snprintf(err, err_len, "store: bad database number in '%s'", url);
      return -1;
    }
  } else if (*p != '\0' && strcmp(p, "/") != 0) {
    snprintf(err, err_len, "store: '%s' is not redis://host:port/db", url);
    return -1;
  }
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
  int rc = getaddrinfo(host, NULL, &hints, &ai);
  if (rc != 0 || ai == NULL) {
    snprintf(err, err_len, "store: cannot resolve %s: %s", host,
             gai_strerror(rc));
    return -1;
  }
  rc = getnameinfo(ai->ai_addr, ai->ai_addrlen, o->host, sizeof o->host, NULL,
                   0, NI_NUMERICHOST);
  freeaddrinfo(ai);
  if (rc != 0) {
    snprintf(err, err_len, "store: cannot resolve %s", host);
    return -1;
  }
  o->port = (int)port;
  o->db = (int)db;
  return 0;
}

static void link_connect(uv_timer_t *t);

static void schedule_retry(link_t *l) {
  if (l->owner->closing) return;
  uv_timer_start(&l->retry, link_connect, l->backoff_ms, 0);
  l->backoff_ms *= 2;
  if (l->backoff_ms > SRV_REDIS_BACKOFF_MAX_MS)
    l->backoff_ms = SRV_REDIS_BACKOFF_MAX_MS;
}

/* Redis answered on l for the first time since it connected: the link is
 * up, and the back-off starts again from the first delay. */
static void link_answered(link_t *l) {
  if (l->up) return;
  srv_redis_t *o = l->owner;
  bool again = l->ever_up;
  l->up = true;
  l->ever_up = true;
  l->backoff_ms = SRV_REDIS_BACKOFF_FIRST_MS;
  o->connects++;
  if (l->subscriber && again && o->o.on_resubscribed)
    o->o.on_resubscribed(o->o.arg);
}

static int link_send(srv_redis_t *r, void (*cb)(void *arg, redisReply *reply),
                     void *arg, int argc, const char **argv,
                     const size_t *argvlen);

static void on_ping(void *arg, redisReply *reply) {
  link_t *l = arg;
  if (reply != NULL && reply->type != REDIS_REPLY_ERROR) link_answered(l);
}

static void on_sub_message(redisAsyncContext *ac, void *reply, void *priv) {
  link_t *l = priv;
  redisReply *r = reply;
  if (r == NULL || r->type != REDIS_REPLY_ARRAY || r->elements != 3) return;
  redisReply *kind = r->element[0], *payload = r->element[2];
  if (kind->type != REDIS_REPLY_STRING) return;
  srv_redis_t *o = l->owner;
  if (strcmp(kind->str, "subscribe") == 0) {
    link_answered(l); /* Confirmed: messages flow from now on. */
    return;
  }
  if (strcmp(kind->str, "message") != 0 || payload->type != REDIS_REPLY_STRING)
    return;
  if (o->o.on_message) o->o.on_message(o->o.arg, payload->str, payload->len);
}

static void on_connect(const redisAsyncContext *ac, int status) {
  link_t *l = ac->data;
  srv_redis_t *o = l->owner;
  uv_timer_stop(&l->retry); /* The connect timeout. */
  if (status != REDIS_OK) { /* hiredis frees the context. */
    l->ac = NULL;
    schedule_retry(l);
    return;
  }
  l->connected_ms = uv_now(o->loop);
  if (l->subscriber) {
    const char *argv[] = {"SUBSCRIBE", o->o.channel};
    redisAsyncCommandArgv(l->ac, on_sub_message, l, 2, argv, NULL);
    return;
  }
  if (o->o.db != 0) {
    char db[16];
    snprintf(db, sizeof db, "%d", o->o.db);
    const char *argv[] = {"SELECT", db};
    redisAsyncCommandArgv(l->ac, NULL, NULL, 2, argv, NULL);
  }
  const char *ping[] = {"PING"};
  link_send(o, on_ping, l, 1, ping, NULL);
}

static void on_disconnect(const redisAsyncContext *ac, int status) {
  link_t *l = ac->data;
  if (l->up) l->owner->losses++;
  l->up = false;
  l->ac = NULL;
  l->connected_ms = 0;
  schedule_retry(l);
}

/* Drops the command connection (Redis does not answer): commands in
 * flight get no reply, and it is made again after its back-off. The
 * subscribed connection goes too only when its subscription was never
 * confirmed: one that is subscribed has lost no message (a Redis that is
 * slow or stopped sends them once it goes on; one that went away closes
 * it), and dropping it would make the node empty its cache for nothing. */
static void drop_links(srv_redis_t *r) {
  r->timeouts++;
  link_t *links[] = {&r->cmd, &r->sub};
  for (int i = 0; i < 2; i++) {
    link_t *l = links[i];
    if (l->subscriber && l->up) continue;
    uv_timer_stop(&l->retry);
    redisAsyncContext *ac = l->ac;
    if (ac == NULL) {
      schedule_retry(l);
      continue;
    }
    if (l->up) r->losses++;
    l->up = false;
    l->ac = NULL;
    l->connected_ms = 0;
    redisAsyncSetDisconnectCallback(ac, NULL);
    redisAsyncFree(ac); /* Answers the commands in flight with NULL. */
    schedule_retry(l);
  }
}

/* Every quarter of the timeout: a command, a ping or a subscription left
 * unanswered longer than the timeout drops the connections; an idle
 * command connection is pinged so that a Redis that stopped answering is
 * seen even without traffic. */
static void on_watch(uv_timer_t *t) {
  link_t *cmd = t->data;
  srv_redis_t *r = cmd->owner;
  if (r->closing) return;
  uint64_t now = uv_now(r->loop), limit = r->o.timeout_ms;
  bool late = (r->oldest != NULL && now - r->oldest->sent_ms > limit);
  link_t *links[] = {&r->cmd, &r->sub};
  for (int i = 0; i < 2; i++)
    if (links[i]->ac != NULL && !links[i]->up && links[i]->connected_ms != 0 &&
        now - links[i]->connected_ms > limit)
      late = true;
  if (late) {
    drop_links(r);
    return;
  }
  if (r->cmd.up && r->oldest == NULL && now - r->last_reply_ms > limit / 2) {
    const char *ping[] = {"PING"};
    link_send(r, on_ping, &r->cmd, 1, ping, NULL);
  }
}

/* A connect that has not finished in time is abandoned and retried. The
 * libuv adapter of hiredis 0.14 ignores a poll error, which is how libuv
 * reports a refused non-blocking connect: without this, a connect to a
 * Redis that is down would never end. */
static void on_connect_timeout(uv_timer_t *t) {
  link_t *l = t->data;
  if (l->up || l->ac == NULL) return;
  redisAsyncContext *ac = l->ac;
  l->ac = NULL;
  redisAsyncFree(ac);
  schedule_retry(l);
}

static void link_connect(uv_timer_t *t) {
  link_t *l = t->data;
  srv_redis_t *o = l->owner;
  if (o->closing || l->ac != NULL) return;
  redisAsyncContext *ac = redisAsyncConnect(o->o.host, o->o.port);
  if (ac == NULL) {
    schedule_retry(l);
    return;
  }
  if (ac->err) {
    redisAsyncFree(ac);
    schedule_retry(l);
    return;
  }
  ac->data = l;
  if (redisLibuvAttach(ac, o->loop) != REDIS_OK) {
    redisAsyncFree(ac);
    schedule_retry(l);
    return;
  }
  l->ac = ac;
  redisAsyncSetConnectCallback(ac, on_connect);
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
  uv_timer_start(&l->retry, on_connect_timeout, SRV_REDIS_CONNECT_TIMEOUT_MS,
                 0);
}

static void link_init(srv_redis_t *r, link_t *l, bool subscriber) {
  l->owner = r;
  l->subscriber = subscriber;
  l->backoff_ms = SRV_REDIS_BACKOFF_FIRST_MS;
  uv_timer_init(r->loop, &l->retry);
  l->retry.data = l;
  r->handles++;
}

int srv_redis_open(uv_loop_t *loop, const srv_redis_opts_t *o,
                   srv_redis_t **out) {
  srv_redis_t *r = calloc(1, sizeof *r);
  if (r == NULL) return UV_ENOMEM;
  r->loop = loop;
  r->o = *o;
  if (r->o.timeout_ms == 0) r->o.timeout_ms = SRV_REDIS_TIMEOUT_MS;
  link_init(r, &r->cmd, false);
  link_init(r, &r->sub, true);
  uv_timer_init(loop, &r->watch);
  r->watch.data = &r->cmd; /* on_timer_closed finds the owner through it. */
  r->handles++;
  uint64_t period = r->o.timeout_ms / 4 ? r->o.timeout_ms / 4 : 1;
  uv_timer_start(&r->watch, on_watch, period, period);
  link_connect(&r->cmd.retry);
  link_connect(&r->sub.retry);
  *out = r;
  return 0;
}

static void on_timer_closed(uv_handle_t *h) {
  link_t *l = h->data;
  srv_redis_t *r = l->owner;
  if (--r->handles == 0) free(r);
}

void srv_redis_close(srv_redis_t *r) {
  if (r == NULL) return;
  r->closing = true;
  link_t *links[] = {&r->cmd, &r->sub};
  for (int i = 0; i < 2; i++) {
    link_t *l = links[i];
    uv_timer_stop(&l->retry);
    if (l->ac != NULL) {
      redisAsyncContext *ac = l->ac;
      l->ac = NULL;
      l->up = false;
      ac->data = l;
      redisAsyncSetDisconnectCallback(ac, NULL);
      redisAsyncFree(ac);
    }
    uv_close((uv_handle_t *)&l->retry, on_timer_closed);
  }
  uv_timer_stop(&r->watch);
  uv_close((uv_handle_t *)&r->watch, on_timer_closed);
}

bool srv_redis_up(const srv_redis_t *r) { return r->cmd.up && r->sub.up; }
unsigned long srv_redis_connects(const srv_redis_t *r) { return r->connects; }
unsigned long srv_redis_losses(const srv_redis_t *r) { return r->losses; }
unsigned long srv_redis_timeouts(const srv_redis_t *r) { return r->timeouts; }

static void on_reply(redisAsyncContext *ac, void *reply, void *priv) {
  pending_t *p = priv;
  srv_redis_t *r = p->owner;
  if (p->prev)
    p->prev->next = p->next;
  else
    r->oldest = p->next;
  if (p->next)
    p->next->prev = p->prev;
  else
    r->newest = p->prev;
  if (reply != NULL) r->last_reply_ms = uv_now(r->loop);
  p->cb(p->arg, reply);
  free(p);
}

static int link_send(srv_redis_t *r, void (*cb)(void *arg, redisReply *reply),
                     void *arg, int argc, const char **argv,
                     const size_t *argvlen) {
  pending_t *p = calloc(1, sizeof *p);
  if (p == NULL) return UV_ENOMEM;
  p->owner = r;
  p->sent_ms = uv_now(r->loop);
  p->cb = cb;
  p->arg = arg;
  if (redisAsyncCommandArgv(r->cmd.ac, on_reply, p, argc, argv, argvlen) !=
      REDIS_OK) {
    free(p);
    return UV_ENOTCONN;
  }
  p->prev = r->newest;
  if (r->newest)
    r->newest->next = p;
  else
    r->oldest = p;
  r->newest = p;
  return 0;
}

int srv_redis_command(srv_redis_t *r, void (*cb)(void *arg, redisReply *reply),
                      void *arg, int argc, const char **argv,
                      const size_t *argvlen) {
  if (r->closing || !r->cmd.up || r->cmd.ac == NULL) return UV_ENOTCONN;
  return link_send(r, cb, arg, argc, argv, argvlen);
}
