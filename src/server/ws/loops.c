/* server: the stream loops (see ws/loops.h).
 *
 * Key design choice: a loop shares nothing with the others or with the
 * HTTP loop but the store (thread-safe) and one mutex per loop guarding
 * its inbox of handed-off sockets, its drain request and its published
 * counters; the HTTP thread posts under the mutex and wakes the loop with
 * uv_async_send. The client count per loop is atomic, so picking the
 * least busy loop and the connection limit never take a lock. */
#include "server/ws/loops.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/ws/socket.h"

/* A socket on its way to a loop. */
typedef struct handoff_s {
  struct handoff_s *next;
  uv_os_sock_t fd;
  srv_ws_credential_t credential;
  size_t head_len, in_len;
  char bytes[]; /* head, then in. */
} handoff_t;

typedef struct stream_loop_s {
  struct srv_ws_loops_s *owner;
  pthread_t thread;
  bool started;
  uv_loop_t loop;
  uv_async_t wake;
  uv_prepare_t publish;
  srv_ws_hub_t *hub;
  srv_pool_inbox_t returns; /* Prefetched frames come back here. */
  bool has_returns;
  bool closed; /* The loop's own handles are closing. */
  uint64_t close_timeout_ms;
  srv_access_log_t *log; /* Not owned. */
  atomic_uint clients;   /* Handed off and not yet gone. */
  bool shut;             /* Loop thread: the hub was shut down. */
  pthread_mutex_t lock;  /* Guards the fields below. */
  handoff_t *inbox;
  bool drain;
  bool revoke; /* Check the clients' credentials with revoke_valid. */
  srv_ws_credential_valid_cb revoke_valid;
  void *revoke_arg;
  uint16_t code;
  char reason[64];
  srv_ws_hub_stats_t published;
} stream_loop_t;

struct srv_ws_loops_s {
  stream_loop_t *loops;
  unsigned count;
  atomic_bool drained; /* Read by every HTTP loop. */
  /* Revocations so far; the check of the last one, set before the count
   * goes up (and read after it is read). */
  atomic_uint epoch;
  srv_ws_credential_valid_cb valid;
  void *valid_arg;
};

/* ---- on a stream loop ------------------------------------------------------
 */

static void publish(stream_loop_t *l) {
  srv_ws_hub_stats_t st;
  srv_ws_hub_stats(l->hub, &st);
  pthread_mutex_lock(&l->lock);
  l->published = st;
  pthread_mutex_unlock(&l->lock);
}

/* The loop ends once drained and empty: the hub goes, then, once the
 * pool has brought back every frame computed for it, the last handles. */
static void maybe_finish(stream_loop_t *l) {
  if (!l->shut || atomic_load(&l->clients) > 0) return;
  if (l->hub != NULL) {
    publish(l);
    srv_ws_hub_free(l->hub);
    l->hub = NULL;
    uv_close((uv_handle_t *)&l->wake, NULL);
  }
  if (l->closed || (l->has_returns && srv_pool_inbox_pending(&l->returns) > 0))
    return; /* Checked again on every loop iteration (on_publish). */
  l->closed = true;
  if (l->has_returns) srv_pool_inbox_close(&l->returns);
  uv_close((uv_handle_t *)&l->publish, NULL);
}

static void on_publish(uv_prepare_t *h) {
  stream_loop_t *l = h->data;
  if (l->hub != NULL)
    publish(l);
  else
    maybe_finish(l);
}

static void on_socket_gone(void *arg) {
  stream_loop_t *l = arg;
  atomic_fetch_sub(&l->clients, 1);
  maybe_finish(l);
}

/* Whether a credential admitted before the last revocation is no longer
 * in force (that revocation's check may have run before it arrived). */
static bool revoked_meanwhile(const srv_ws_loops_t *ls,
                              const srv_ws_credential_t *cred) {
  if (!cred->set) return false;
  unsigned epoch = atomic_load_explicit(&ls->epoch, memory_order_acquire);
  return epoch != cred->epoch && ls->valid != NULL &&
         !ls->valid(ls->valid_arg, cred->hash);
}

static void on_wake(uv_async_t *h) {
  stream_loop_t *l = h->data;
  pthread_mutex_lock(&l->lock);
  handoff_t *posted = l->inbox;
  l->inbox = NULL;
  bool drain = l->drain;
  bool revoke = l->revoke;
  srv_ws_credential_valid_cb valid = l->revoke_valid;
  void *valid_arg = l->revoke_arg;
  l->revoke = false;
  pthread_mutex_unlock(&l->lock);
  /* Posted newest first: served oldest first. */
  handoff_t *items = NULL;
  while (posted != NULL) {
    handoff_t *next = posted->next;
    posted->next = items;
    items = posted;
    posted = next;
  }
  while (items != NULL) {
    handoff_t *next = items->next;
    int rc = UV_ESHUTDOWN;
    if (!l->shut && revoked_meanwhile(l->owner, &items->credential)) {
      close(items->fd);
      rc = UV_EPERM;
    } else if (!l->shut) {
      srv_ws_socket_opts_t o = {
          .head = items->bytes,
          .head_len = items->head_len,
          .in = items->bytes + items->head_len,
          .in_len = items->in_len,
          .close_timeout_ms = l->close_timeout_ms,
          .on_gone = on_socket_gone,
          .log = l->log,
          .arg = l,
          .credential = &items->credential,
      };
      rc = srv_ws_socket_open(&l->loop, l->hub, items->fd, &o);
    } else {
      close(items->fd);
    }
    if (rc != 0) atomic_fetch_sub(&l->clients, 1);
    free(items);
    items = next;
  }
  if (revoke && !l->shut) srv_ws_hub_revoke(l->hub, valid, valid_arg);
  if (drain && !l->shut) {
    l->shut = true;
    srv_ws_hub_shutdown(l->hub, l->code, l->reason);
  }
  maybe_finish(l);
}

static void *loop_main(void *arg) {
  stream_loop_t *l = arg;
  /* Signals are the HTTP loop's business. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  uv_run(&l->loop, UV_RUN_DEFAULT);
  return NULL;
}

/* ---- on the creating thread ---------------------------------------------- */

static int loop_start(stream_loop_t *l, unsigned i, store_t *store,
                      srv_pool_t *pool, const srv_ws_limits_t *lim) {
  l->close_timeout_ms = lim->close_timeout_ms;
  atomic_init(&l->clients, 0);
  pthread_mutex_init(&l->lock, NULL);
  int rc = uv_loop_init(&l->loop);
  if (rc != 0) {
    pthread_mutex_destroy(&l->lock);
    return rc;
  }
  if (pool != NULL && srv_pool_inbox_init(&l->returns, &l->loop) == 0)
    l->has_returns = true;
  l->hub = srv_ws_hub_new(&l->loop, store, l->has_returns ? pool : NULL,
                          l->has_returns ? &l->returns : NULL, lim);
  if (l->hub == NULL) {
    if (l->has_returns) {
      srv_pool_inbox_close(&l->returns);
      uv_run(&l->loop, UV_RUN_DEFAULT);
    }
    uv_loop_close(&l->loop);
    pthread_mutex_destroy(&l->lock);
    return UV_ENOMEM;
  }
  uv_async_init(&l->loop, &l->wake, on_wake);
  l->wake.data = l;
  /* Published just before each wait for events, so what the last
   * iteration changed (closes included) is visible while the loop
   * sleeps. */
  uv_prepare_init(&l->loop, &l->publish);
  l->publish.data = l;
  uv_prepare_start(&l->publish, on_publish);
  uv_unref((uv_handle_t *)&l->publish);
  int e = pthread_create(&l->thread, NULL, loop_main, l);
  if (e != 0) {
    /* Never ran: end the loop here. */
    l->shut = true;
    maybe_finish(l);
    uv_run(&l->loop, UV_RUN_DEFAULT);
    uv_loop_close(&l->loop);
    pthread_mutex_destroy(&l->lock);
    return -e;
  }
  char name[16];
  snprintf(name, sizeof name, "animd-s%u", i % 100000u);
  pthread_setname_np(l->thread, name);
  l->started = true;
  return 0;
}

/* Joins a started loop and releases what it leaves. */
static void loop_join(stream_loop_t *l) {
  if (!l->started) return;
  pthread_join(l->thread, NULL);
  l->started = false;
  uv_loop_close(&l->loop);
  /* Sockets posted after the loop's last wake-up. */
  while (l->inbox != NULL) {
    handoff_t *next = l->inbox->next;
    close(l->inbox->fd);
    free(l->inbox);
    l->inbox = next;
  }
  pthread_mutex_destroy(&l->lock);
}

int srv_ws_loops_new(unsigned count, store_t *store, srv_pool_t *pool,
                     const srv_ws_limits_t *lim, srv_access_log_t *log,
                     srv_ws_loops_t **out) {
  srv_ws_loops_t *ls = calloc(1, sizeof *ls);
  if (ls == NULL) return UV_ENOMEM;
  ls->loops = calloc(count, sizeof *ls->loops);
  if (ls->loops == NULL) {
    free(ls);
    return UV_ENOMEM;
  }
  for (unsigned i = 0; i < count; i++) {
    ls->loops[i].log = log;
    ls->loops[i].owner = ls;
    int rc = loop_start(&ls->loops[i], i, store, pool, lim);
    if (rc != 0) {
      srv_ws_loops_free(ls);
      return rc;
    }
    ls->count++;
  }
  *out = ls;
  return 0;
}

int srv_ws_loops_hand_off(srv_ws_loops_t *ls, uv_os_sock_t fd, const void *head,
                          size_t head_len, const void *in, size_t in_len,
                          const srv_ws_credential_t *cred) {
  if (ls->drained) {
    close(fd);
    return UV_ESHUTDOWN;
  }
  handoff_t *h = malloc(sizeof *h + head_len + in_len);
  if (h == NULL) {
    close(fd);
    return UV_ENOMEM;
  }
  h->fd = fd;
  if (cred != NULL)
    h->credential = *cred;
  else
    memset(&h->credential, 0, sizeof h->credential);
  h->head_len = head_len;
  h->in_len = in_len;
  if (head_len > 0) memcpy(h->bytes, head, head_len);
  if (in_len > 0) memcpy(h->bytes + head_len, in, in_len);
  stream_loop_t *best = &ls->loops[0];
  for (unsigned i = 1; i < ls->count; i++)
    if (atomic_load(&ls->loops[i].clients) < atomic_load(&best->clients))
      best = &ls->loops[i];
  atomic_fetch_add(&best->clients, 1);
  pthread_mutex_lock(&best->lock);
  h->next = best->inbox;
  best->inbox = h;
  pthread_mutex_unlock(&best->lock);
  uv_async_send(&best->wake);
  return 0;
}

unsigned srv_ws_loops_clients(const srv_ws_loops_t *ls) {
  unsigned n = 0;
  for (unsigned i = 0; i < ls->count; i++)
    n += atomic_load(&ls->loops[i].clients);
  return n;
}

void srv_ws_loops_stats(srv_ws_loops_t *ls, srv_ws_hub_stats_t *sum) {
  for (unsigned i = 0; i < ls->count; i++) {
    stream_loop_t *l = &ls->loops[i];
    pthread_mutex_lock(&l->lock);
    srv_ws_hub_stats_t st = l->published;
    pthread_mutex_unlock(&l->lock);
    srv_ws_hub_stats_add(sum, &st);
  }
}

unsigned srv_ws_loops_epoch(const srv_ws_loops_t *ls) {
  return atomic_load_explicit(&ls->epoch, memory_order_acquire);
}

void srv_ws_loops_revoke(srv_ws_loops_t *ls, srv_ws_credential_valid_cb valid,
                         void *arg) {
  /* One checker for the daemon's life: the first call's, set before the
   * epoch that makes loops read it, never written again. */
  if (ls->valid == NULL) {
    ls->valid = valid;
    ls->valid_arg = arg;
  }
  atomic_fetch_add_explicit(&ls->epoch, 1, memory_order_release);
  for (unsigned i = 0; i < ls->count; i++) {
    stream_loop_t *l = &ls->loops[i];
    pthread_mutex_lock(&l->lock);
    l->revoke = true;
    l->revoke_valid = valid;
    l->revoke_arg = arg;
    pthread_mutex_unlock(&l->lock);
    uv_async_send(&l->wake);
  }
}

void srv_ws_loops_drain(srv_ws_loops_t *ls, uint16_t code, const char *reason) {
  if (ls->drained) return;
  ls->drained = true;
  for (unsigned i = 0; i < ls->count; i++) {
    stream_loop_t *l = &ls->loops[i];
    pthread_mutex_lock(&l->lock);
    l->drain = true;
    l->code = code;
    snprintf(l->reason, sizeof l->reason, "%s", reason);
    pthread_mutex_unlock(&l->lock);
    uv_async_send(&l->wake);
  }
}

void srv_ws_loops_free(srv_ws_loops_t *ls) {
  if (ls == NULL) return;
  srv_ws_loops_drain(ls, 1001, "server shutting down");
  for (unsigned i = 0; i < ls->count; i++) loop_join(&ls->loops[i]);
  free(ls->loops);
  free(ls);
}
