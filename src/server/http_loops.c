/* server: the HTTP loops: the daemon's own event loop and, beside it, one
 * thread per further loop, each listening on the shared port (net/
 * listen_group.h), accepting and serving its connections to the end with
 * its own sessions' host and scheduling (internal.h).
 *
 * Key choice: a connection lives and dies on the loop that accepted it,
 * so pipelined answers keep their order without any cross-thread step.
 * Per request and per connection a loop writes only its own state: its
 * metrics and connection count (read by /metrics and by the connection
 * limit, which adds every loop's up), and its access log lines (written
 * with one call per loop iteration, before it polls). What must hold per
 * daemon is shared and thread-safe: rate limits and access rules
 * (auth.h), the store, the pool (each loop's jobs come back through its
 * own inbox).
 *
 * Drain: the daemon's thread asks every other loop (an atomic flag and a
 * wake-up); such a loop closes its listeners, closes idle connections,
 * lets busy ones finish until the drain deadline, cuts the rest then,
 * waits for its pool jobs to come back, closes its handles and ends; its
 * thread tells the daemon's loop (loop_ended), which finishes the drain
 * once every loop has ended (server.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/api/router.h"
#include "server/auth/address.h"
#include "server/errors.h"
#include "server/internal.h"
#include "server/net/listen_group.h"
#include "server/net/socket_close.h"
#include "server/ws/upgrade.h"

/* How often a draining loop whose connections are gone looks again for
 * pool jobs still out. */
#define JOBS_POLL_MS 10

/* ---- requests and connections, on any loop ----------------------------- */

static void request_done(srv_request_t *r, void *arg) {
  srv_http_loop_t *l = arg;
  srv_server_t *s = l->server;
  uint64_t now = uv_hrtime();
  uint64_t ns = now > r->start_ns ? now - r->start_ns : 0;
  int status = r->_status ? r->_status : 500;
  srv_metrics_record(&l->metrics, r->route, status, ns);
  if (!srv_access_log_enabled(s->access_log)) return;
  char redacted[1024], token[SRV_TOKEN_ID_LEN + 1];
  char client[160];
  srv_auth_redact_target(r->target, redacted, sizeof redacted);
  srv_auth_log_id(r, token);
  srv_auth_log_client(s->auth, r, client, sizeof client);
  srv_access_log_http(s->access_log, &l->log,
                      &(srv_access_http_line_t){
                          .client = client,
                          .token = token,
                          .method = r->method_name,
                          .target = redacted,
                          .route = srv_route_name(r->route),
                          .http_minor = r->http_minor,
                          .status = status,
                          .bytes = r->_bytes_out,
                          .ns = ns,
                      });
}

static void closed_unanswered(srv_unanswered_reason reason, void *arg) {
  srv_http_loop_t *l = arg;
  srv_metrics_count_unanswered(&l->metrics, reason);
}

/* Before the loop polls: the iteration's log lines in one write. */
static void flush_log(void *arg) {
  srv_http_loop_t *l = arg;
  srv_access_log_flush(l->server->access_log, &l->log);
}

unsigned srv__http_loops_open(srv_server_t *s) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->loop_count; i++)
    n += atomic_load_explicit(&s->loops[i].open, memory_order_relaxed);
  return n;
}

static void on_connection(uv_stream_t *listener, int status) {
  srv_http_loop_t *l = listener->data;
  srv_server_t *s = l->server;
  if (status < 0 || l->draining) return;
  size_t read_limit = 2 * s->cfg.max_header_size;
  srv_conn_opts_t o = {
      .read_limit = read_limit < 65536 ? 65536 : read_limit,
      .write_timeout_ms = s->cfg.idle_timeout_ms,
      .set = &l->conns,
  };
  srv_conn_t *c;
  if (srv_conn_accept(listener, &o, &c) != 0) return;
  srv_http_t *h;
  if (srv_http_serve(&l->http, c, &h) != 0) {
    srv_metrics_count_connection(&l->metrics, false);
    return;
  }
  /* This connection is in its loop's count already: the limit is
   * exceeded by it or not, whichever loop the others are on. */
  bool over = srv__http_loops_open(s) + srv_ws_connections(s->ws) >
              s->cfg.max_connections;
  if (srv_auth_admit_connection(s->auth, srv_conn_peer(c)) != 0) {
    srv_metrics_count_connection(&l->metrics, false);
    srv_http_reject(h, SRV_ERR_RATE_LIMITED,
                    "too many new connections from this address");
  } else if (over) {
    srv_metrics_count_connection(&l->metrics, true);
    srv_http_reject(h, SRV_ERR_TOO_MANY_CONNECTIONS,
                    "the server has reached max_connections");
  } else {
    srv_metrics_count_connection(&l->metrics, false);
  }
}

/* ---- set-up ------------------------------------------------------------ */

static void loop_drained_check(srv_http_loop_t *l);

static void on_loop_conns_empty(srv_conn_set_t *set) {
  srv_http_loop_t *l = set->data;
  if (l->draining) loop_drained_check(l);
}

static void on_wake(uv_async_t *a);

/* The parts every loop has; on_empty is the daemon's for loop 0. */
static void loop_init_common(srv_server_t *s, srv_http_loop_t *l,
                             unsigned index, uv_loop_t *loop,
                             srv_pool_inbox_t *inbox) {
  l->server = s;
  l->index = index;
  l->loop = loop;
  l->conns.data = l;
  l->conns.on_empty = on_loop_conns_empty;
  l->conns.total = &l->open;
  l->http = (srv_http_host_t){
      .cfg = &s->cfg,
      .server = s,
      .loop = loop,
      .schedule = &l->schedule,
      .route = srv_api_route,
      .accepts = srv_api_accepts,
      .request_done = request_done,
      .closed_unanswered = closed_unanswered,
      .arg = l,
  };
  srv_schedule_init(&l->schedule, loop, &s->pool, inbox, s->cfg.inline_cost,
                    s->cfg.inline_yield);
  srv_schedule_before_poll(&l->schedule, flush_log, l);
}

int srv__http_loops_new(srv_server_t *s, unsigned count,
                        void (*on_main_empty)(srv_conn_set_t *)) {
  s->loops = calloc(count, sizeof *s->loops);
  if (s->loops == NULL) return UV_ENOMEM;
  loop_init_common(s, &s->loops[0], 0, s->loop, NULL);
  s->loops[0].conns.data = s;
  s->loops[0].conns.on_empty = on_main_empty;
  s->loop_count = 1;
  for (unsigned i = 1; i < count; i++) {
    srv_http_loop_t *l = &s->loops[i];
    int rc = uv_loop_init(&l->own);
    if (rc != 0) return rc;
    rc = srv_pool_inbox_init(&l->inbox, &l->own);
    if (rc != 0) {
      uv_loop_close(&l->own);
      return rc;
    }
    loop_init_common(s, l, i, &l->own, &l->inbox);
    uv_async_init(&l->own, &l->wake, on_wake);
    l->wake.data = l;
    uv_timer_init(&l->own, &l->drain_timer);
    l->drain_timer.data = l;
    s->loop_count++;
  }
  return 0;
}

int srv__http_loops_listen(srv_server_t *s, const struct sockaddr *addr,
                           bool v6only, struct sockaddr_storage *bound) {
  uv_os_sock_t fds[64];
  unsigned n = s->loop_count;
  if (n > sizeof fds / sizeof fds[0]) return UV_EINVAL;
  if (s->loops[0].listener_count == SRV_MAX_LISTENERS) return UV_EINVAL;
  int rc = srv_listen_group(addr, v6only, n, 1024, fds);
  if (rc != 0) return rc;
  for (unsigned i = 0; i < n; i++) {
    srv_http_loop_t *l = &s->loops[i];
    uv_tcp_t *t = &l->listeners[l->listener_count];
    if (rc == 0) rc = uv_tcp_init(l->loop, t);
    if (rc != 0) {
      close(fds[i]);
      continue;
    }
    t->data = l;
    l->listener_count++;
    rc = uv_tcp_open(t, fds[i]);
    if (rc != 0) {
      close(fds[i]);
      continue;
    }
    rc = uv_listen((uv_stream_t *)t, 1024, on_connection);
  }
  if (rc != 0) return rc;
  int len = sizeof *bound;
  return uv_tcp_getsockname(
      &s->loops[0].listeners[s->loops[0].listener_count - 1],
      (struct sockaddr *)bound, &len);
}

/* ---- a loop's own thread ----------------------------------------------- */

static void loop_close(srv_http_loop_t *l) {
  if (l->closed) return;
  l->closed = true;
  for (unsigned i = 0; i < l->listener_count; i++)
    srv_socket_close((uv_handle_t *)&l->listeners[i], NULL);
  l->listener_count = 0;
  srv_schedule_close(&l->schedule);
  srv_pool_inbox_close(&l->inbox);
  uv_close((uv_handle_t *)&l->wake, NULL);
  uv_close((uv_handle_t *)&l->drain_timer, NULL);
}

static void on_jobs_poll(uv_timer_t *t) { loop_drained_check(t->data); }

static void loop_drained_check(srv_http_loop_t *l) {
  if (!l->draining || l->closed || l->conns.count > 0) return;
  if (!atomic_load(&l->quiet)) {
    atomic_store(&l->quiet, true);
    uv_async_send(&l->server->loop_ended);
  }
  if (srv_pool_inbox_pending(&l->inbox) > 0) {
    /* Answers whose clients left still have jobs on the pool: they come
     * back here, to this inbox, before it closes. */
    uv_timer_start(&l->drain_timer, on_jobs_poll, JOBS_POLL_MS, 0);
    return;
  }
  loop_close(l);
}

static void close_one(srv_conn_t *c, void *arg) {
  (void)arg;
  srv_conn_close(c);
}

static void drain_one(srv_conn_t *c, void *arg) {
  (void)arg;
  if (srv_http_is_conn_http(c)) srv_http_drain(srv_conn_user(c));
}

static void on_loop_deadline(uv_timer_t *t) {
  srv_http_loop_t *l = t->data;
  srv_conn_set_each(&l->conns, close_one, NULL);
  loop_drained_check(l);
}

void srv__http_loop_drain(srv_http_loop_t *l, uint64_t deadline_ns) {
  if (l->draining) return;
  l->draining = true;
  l->http.draining = true;
  for (unsigned i = 0; i < l->listener_count; i++)
    srv_socket_close((uv_handle_t *)&l->listeners[i], NULL);
  l->listener_count = 0;
  srv_conn_set_each(&l->conns, drain_one, NULL);
  if (l->index == 0) return; /* The daemon's loop: server.c goes on. */
  uint64_t now = uv_hrtime();
  uint64_t left = deadline_ns > now ? (deadline_ns - now) / 1000000 : 0;
  if (l->conns.count > 0)
    uv_timer_start(&l->drain_timer, on_loop_deadline, left, 0);
  else
    loop_drained_check(l);
}

static void on_wake(uv_async_t *a) {
  srv_http_loop_t *l = a->data;
  if (atomic_load(&l->drain_asked))
    srv__http_loop_drain(l, l->server->drain_deadline_ns);
}

static void *loop_main(void *arg) {
  srv_http_loop_t *l = arg;
  /* Signals are the daemon's thread's (main.c). */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  uv_run(&l->own, UV_RUN_DEFAULT);
  atomic_store(&l->ended, true);
  uv_async_send(&l->server->loop_ended);
  return NULL;
}

int srv__http_loops_start(srv_server_t *s) {
  for (unsigned i = 1; i < s->loop_count; i++) {
    srv_http_loop_t *l = &s->loops[i];
    int e = pthread_create(&l->thread, NULL, loop_main, l);
    if (e != 0) return -e;
    l->started = true;
    char name[16];
    snprintf(name, sizeof name, "animd-http%u", i % 100);
    pthread_setname_np(l->thread, name);
  }
  return 0;
}

/* ---- from the daemon's thread ------------------------------------------ */

void srv__http_loops_ask_drain(srv_server_t *s) {
  for (unsigned i = 1; i < s->loop_count; i++) {
    srv_http_loop_t *l = &s->loops[i];
    if (!l->started) continue;
    atomic_store(&l->drain_asked, true);
    uv_async_send(&l->wake);
  }
}

bool srv__http_loops_ended(srv_server_t *s) {
  for (unsigned i = 1; i < s->loop_count; i++)
    if (s->loops[i].started && !atomic_load(&s->loops[i].ended)) return false;
  return true;
}

bool srv__http_loops_quiet(srv_server_t *s) {
  for (unsigned i = 1; i < s->loop_count; i++)
    if (s->loops[i].started && !atomic_load(&s->loops[i].ended) &&
        !atomic_load(&s->loops[i].quiet))
      return false;
  return true;
}

void srv__http_loops_join(srv_server_t *s) {
  for (unsigned i = 1; i < s->loop_count; i++) {
    srv_http_loop_t *l = &s->loops[i];
    if (!l->started) continue;
    pthread_join(l->thread, NULL);
    l->started = false;
    l->closed = true;
    uv_loop_close(&l->own);
  }
}

void srv__http_loops_free(srv_server_t *s) {
  if (s->loops == NULL) return;
  for (unsigned i = 1; i < s->loop_count; i++) {
    srv_http_loop_t *l = &s->loops[i];
    if (l->closed) continue;
    /* Never started (listen failed): its handles close here. */
    loop_close(l);
    uv_run(&l->own, UV_RUN_DEFAULT);
    uv_loop_close(&l->own);
  }
  /* Every loop has ended: the lines of their last iterations. */
  for (unsigned i = 0; i < s->loop_count; i++)
    srv_access_log_flush(s->access_log, &s->loops[i].log);
  free(s->loops);
  s->loops = NULL;
}

unsigned srv__http_loops_count(const srv_config_t *cfg, bool backend) {
  /* hiredis runs on the daemon's loop: with a shared store every request
   * is served there. */
  if (backend) return 1;
  unsigned n = cfg->http_threads;
  if (n == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    n = cpus > 0 ? (unsigned)cpus : 1;
  }
  return n > 64 ? 64 : n;
}

void srv__http_loops_metrics(srv_server_t *s, srv_metrics_t *m) {
  for (unsigned i = 0; i < s->loop_count; i++) {
    srv_metrics_merge(m, &s->loops[i].metrics);
    m->pool_rejected += srv_schedule_rejected(&s->loops[i].schedule);
    m->loop_yields += srv_schedule_yields(&s->loops[i].schedule);
  }
}
