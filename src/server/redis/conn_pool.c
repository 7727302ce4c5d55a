/* server: the pool of blocking Redis connections (conn_pool.h). */
#include "server/redis/conn_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct srv_redis_pool_s {
  srv_redis_opts_t o;
  pthread_mutex_t lock;
  pthread_cond_t given; /* A connection came back (or a slot freed). */
  unsigned size, open;  /* At most, and open now (idle or taken). */
  redisContext **idle;
  unsigned idle_count;
  unsigned long connects;
};

srv_redis_pool_t *srv_redis_pool_new(const srv_redis_opts_t *o, unsigned size) {
  srv_redis_pool_t *p = calloc(1, sizeof *p);
  if (p == NULL) return NULL;
  p->o = *o;
  p->size = size ? size : SRV_REDIS_POOL_SIZE;
  p->idle = calloc(p->size, sizeof *p->idle);
  if (p->idle == NULL) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->given, NULL);
  return p;
}

void srv_redis_pool_free(srv_redis_pool_t *p) {
  if (p == NULL) return;
  for (unsigned i = 0; i < p->idle_count; i++) redisFree(p->idle[i]);
  pthread_cond_destroy(&p->given);
  pthread_mutex_destroy(&p->lock);
  free(p->idle);
  free(p);
}

/* A new connection, its database selected, or NULL. */
static redisContext *connect_one(const srv_redis_opts_t *o) {
  struct timeval tv = {.tv_sec = o->timeout_ms / 1000,
                       .tv_usec = (o->timeout_ms % 1000) * 1000};
  redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
  if (c == NULL || c->err || redisSetTimeout(c, tv) != REDIS_OK) {
    if (c != NULL) redisFree(c);
    return NULL;
  }
  if (o->db != 0) {
    char db[16];
    snprintf(db, sizeof db, "%d", o->db);
    const char *select[] = {"SELECT", db};
    redisReply *r = redisCommandArgv(c, 2, select, NULL);
    bool ok = r != NULL && r->type != REDIS_REPLY_ERROR;
    if (r != NULL) freeReplyObject(r);
    if (!ok) {
      redisFree(c);
      return NULL;
    }
  }
  return c;
}

redisContext *srv_redis_pool_take(srv_redis_pool_t *p) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)p->o.timeout_ms * 1000000;
  until.tv_sec += (time_t)(ns / 1000000000);
  until.tv_nsec = (long)(ns % 1000000000);
  pthread_mutex_lock(&p->lock);
  int rc = 0;
  while (p->idle_count == 0 && p->open >= p->size && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&p->given, &p->lock, &until);
  if (p->idle_count > 0) {
    redisContext *c = p->idle[--p->idle_count];
    pthread_mutex_unlock(&p->lock);
    return c;
  }
  if (p->open >= p->size) {
    pthread_mutex_unlock(&p->lock);
    return NULL;
  }
  p->open++; /* This slot is ours while connecting. */
  p->connects++;
  pthread_mutex_unlock(&p->lock);
  redisContext *c = connect_one(&p->o);
  if (c == NULL) srv_redis_pool_give(p, NULL, true);
  return c;
}

void srv_redis_pool_give(srv_redis_pool_t *p, redisContext *c, bool broken) {
  if (c != NULL && (broken || c->err)) {
    redisFree(c);
    c = NULL;
  }
  pthread_mutex_lock(&p->lock);
  if (c != NULL)
    p->idle[p->idle_count++] = c;
  else
    p->open--;
  pthread_cond_signal(&p->given);
  pthread_mutex_unlock(&p->lock);
}

unsigned long srv_redis_pool_connects(srv_redis_pool_t *p) {
  pthread_mutex_lock(&p->lock);
  unsigned long n = p->connects;
  pthread_mutex_unlock(&p->lock);
  return n;
}
