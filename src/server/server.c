/* server: the daemon object: listener, the list of connections, the pool,
 * the store, metrics, the access log and the drain sequence (server.h).
 *
 * Key choice: connections over max_connections are still accepted, so the
 * client gets a 503 with Retry-After and a clean close instead of a
 * silent backlog timeout. */
#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/server.h"

#include "animd/animd.h"
#include "server/access_log.h"

#include "server/auth/address.h"
#include "server/errors.h"
#include "server/internal.h"
#include "server/store_open.h"
#include "store/store.h"
#include "server/ws/upgrade.h"

/* What a drain leaves idle workers to stop, even past drain_timeout. */
#define POOL_STOP_MS 200

static void check_drained(srv_server_t *s);

/* ---- access log
 * -------------------------------------------------------------- */

int srv_server_reopen_log(srv_server_t *s) {
  return srv_access_log_reopen(s->access_log);
}

int srv_server_reload(srv_server_t *s) {
  int rc = srv_server_reopen_log(s);
  if (rc != 0)
    fprintf(stderr, "animd: reopening the access log: %s\n", uv_strerror(rc));
  char msg[1024];
  int t = srv_auth_reload(s->auth, msg, sizeof msg);
  if (t <= 0) fprintf(stderr, "animd: %s\n", msg);
  /* Open streams admitted with a token that is gone close (1008). */
  if (t == 0) srv_ws_revoke(s->ws, srv_auth_token_valid, s->auth);
  return rc != 0 ? rc : t < 0 ? UV_EINVAL : 0;
}

/* ---- life cycle
 * ------------------------------------------------------------------ */

static void on_conns_empty(srv_conn_set_t *set) {
  srv_server_t *s = set->data;
  if (s->draining) check_drained(s);
}

static void on_loop_ended(uv_async_t *a) {
  srv_server_t *s = a->data;
  if (s->draining) check_drained(s);
}

static unsigned stream_threads(const srv_config_t *cfg) {
  if (cfg->stream_threads > 0) return cfg->stream_threads;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

/* A failed srv_server_new: the handles it made on the caller's loop
 * close without that loop being run here; the server is freed once they
 * have, the next time the caller runs its loop. Handles closed together
 * finish in one pass of the loop's closing phase, in no promised order:
 * loop_ended's callback closes drain_timer, whose callback comes a pass
 * later, after every other one; nothing refers to the server then. */
static void on_failed_freed(uv_handle_t *h) {
  srv_server_t *s = h->data;
  srv__http_loops_free(s);
  free(s);
}

static void on_failed_closed(uv_handle_t *h) {
  srv_server_t *s = h->data;
  uv_close((uv_handle_t *)&s->drain_timer, on_failed_freed);
}

static double thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Sets the kernel level of every job from cfg.kernels (before any job
 * runs on a thread of this server) and describes it in s->kernels. */
static void choose_kernels(srv_server_t *s) {
  int how = anim_kernels_parse(s->cfg.kernels);
  anim_kernel_choice_t ch[ANIM_KERNEL_JOBS];
  anim_kernels_set(how < 0 ? ANIM_KERNELS_FEATURES : (anim_kernels)how,
                   thread_cpu_ns, ch);
  size_t n = (size_t)snprintf(s->kernels, sizeof s->kernels, "kernels (%s)",
                              how < 0 ? "features" : s->cfg.kernels);
  for (int j = 0; j < ANIM_KERNEL_JOBS && n < sizeof s->kernels; j++) {
    n += (size_t)snprintf(s->kernels + n, sizeof s->kernels - n, " %s=%s",
                          ch[j].job, ch[j].level);
    if (how == ANIM_KERNELS_MEASURED)
      for (int l = 0; l < 3 && n < sizeof s->kernels; l++)
        if (ch[j].ns[l] > 0)
          n += (size_t)snprintf(s->kernels + n, sizeof s->kernels - n, "%s%.0f",
                                l == 0 ? " (ns " : "/", ch[j].ns[l]);
    if (how == ANIM_KERNELS_MEASURED && n < sizeof s->kernels)
      n += (size_t)snprintf(s->kernels + n, sizeof s->kernels - n, ")");
  }
}

int srv_server_new(uv_loop_t *loop, const srv_config_t *cfg, srv_server_t **out,
                   char *err, size_t err_len) {
  srv_server_t *s = calloc(1, sizeof *s);
  if (s == NULL) return UV_ENOMEM;
  s->loop = loop;
  s->cfg = *cfg;
  s->start_ns = uv_hrtime();
  bool ended_made = false; /* s->loop_ended is a handle to close. */
  choose_kernels(s);
  int rc = srv_access_log_open(cfg->access_log, &s->access_log);
  if (rc != 0) {
    snprintf(err, err_len, "access_log %s: %s", cfg->access_log,
             uv_strerror(rc));
    goto fail;
  }
  if (srv_auth_new(cfg, &s->auth, err, err_len) != 0) {
    rc = UV_EINVAL;
    goto fail_log;
  }
  rc = srv__store_open(s, err, err_len);
  if (rc != 0) goto fail_log;
  uv_timer_init(loop, &s->drain_timer);
  s->drain_timer.data = s;
  /* Unreferenced: a loop left running past the drain (its job outlived
   * drain_timeout) does not hold the daemon's loop. */
  rc = uv_async_init(loop, &s->loop_ended, on_loop_ended);
  if (rc != 0) {
    snprintf(err, err_len, "event loop: %s", uv_strerror(rc));
    goto fail_handles;
  }
  ended_made = true;
  s->loop_ended.data = s;
  uv_unref((uv_handle_t *)&s->loop_ended);
  rc = srv_pool_init(&s->pool, loop, cfg->workers, cfg->queue_max);
  if (rc != 0) {
    snprintf(err, err_len, "worker pool: %s", uv_strerror(rc));
    goto fail_handles;
  }
  s->pool_open = true;
  srv_ws_limits_t lim;
  srv_ws_limits_defaults(&lim);
  if (cfg->stream_high_water > 0) lim.high_water = cfg->stream_high_water;
  if (cfg->stream_cache_size > 0)
    lim.frame_cache_bytes = cfg->stream_cache_size;
  lim.io_uring = cfg->stream_io_uring;
  lim.inline_cost = cfg->inline_cost;
  lim.max_answer_bytes = cfg->max_answer_bytes;
  lim.backend = srv_server_backend(s);
  rc = srv_ws_new(stream_threads(cfg), (store_t *)s->store, &s->pool, &lim,
                  s->access_log, &s->ws);
  if (rc != 0) {
    snprintf(err, err_len, "stream loops: %s", uv_strerror(rc));
    goto fail_pool;
  }
  rc = srv__http_loops_new(s, srv__http_loops_count(cfg, s->backend != NULL),
                           on_conns_empty);
  if (rc != 0) {
    snprintf(err, err_len, "HTTP loops: %s", uv_strerror(rc));
    srv_ws_free(s->ws);
    /* s->loops are freed with s (on_failed_freed). */
    if (s->loops != NULL) srv_schedule_close(&s->loops[0].schedule);
    goto fail_pool;
  }
  *out = s;
  return 0;

fail_pool:
  srv_pool_close(&s->pool);
fail_handles:
  srv__backend_close(s);
  srv__store_close(s);
  srv_auth_free(s->auth);
  srv_access_log_close(s->access_log);
  /* s is freed once its handles have closed (on_failed_freed). */
  if (ended_made)
    uv_close((uv_handle_t *)&s->loop_ended, on_failed_closed);
  else
    uv_close((uv_handle_t *)&s->drain_timer, on_failed_freed);
  return rc;

fail_log:
  srv_auth_free(s->auth);
  srv_access_log_close(s->access_log);
fail:
  free(s);
  return rc;
}

static int write_ready_file(const char *path, const char *text) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -errno;
  size_t n = strlen(text);
  ssize_t w = write(fd, text, n);
  close(fd);
  if (w != (ssize_t)n) return UV_EIO;
  if (rename(tmp, path) != 0) return -errno;
  return 0;
}

/* "ip:port" of a bound socket ([ip]:port for IPv6). */
static void name_address(const struct sockaddr_storage *ss, char *out,
                         size_t cap, int *port) {
  char ip[64];
  if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    uv_ip6_name(a, ip, sizeof ip);
    *port = ntohs(a->sin6_port);
    snprintf(out, cap, "[%s]:%d", ip, *port);
  } else {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    uv_ip4_name(a, ip, sizeof ip);
    *port = ntohs(a->sin_port);
    snprintf(out, cap, "%s:%d", ip, *port);
  }
}

int srv_server_listen(srv_server_t *s) {
  char host[256], port_text[16];
  int port;
  if (srv_parse_host_port(s->cfg.listen, host, sizeof host, &port) != 0)
    return UV_EINVAL;
  /* A name is resolved once, here; every address it has is listened on
   * (localhost: 127.0.0.1 and ::1), all on the same port. */
  snprintf(port_text, sizeof port_text, "%d", port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV};
  struct addrinfo *res = NULL;
  int gai = getaddrinfo(host, port_text, &hints, &res);
  if (gai != 0) return gai == EAI_MEMORY ? UV_ENOMEM : UV_EINVAL;
  int rc = 0;
  size_t used = 0;
  unsigned listeners = 0;
  s->address[0] = '\0';
  bool several = res != NULL && res->ai_next != NULL;
  bool beyond_loopback = false;
  for (struct addrinfo *a = res; a != NULL && rc == 0; a = a->ai_next) {
    if (listeners == SRV_MAX_LISTENERS) break;
    if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
    if (port == 0 && listeners > 0) {
      /* Port 0 picked a free port for the first address: the others get
       * the same one. */
      if (a->ai_family == AF_INET6)
        ((struct sockaddr_in6 *)a->ai_addr)->sin6_port = htons((uint16_t)port);
      else
        ((struct sockaddr_in *)a->ai_addr)->sin_port = htons((uint16_t)port);
    }
    struct sockaddr_storage bound;
    rc = srv__http_loops_listen(s, a->ai_addr,
                                several && a->ai_family == AF_INET6, &bound);
    if (rc != 0) break;
    listeners++;
    char one[80];
    name_address(&bound, one, sizeof one, &port);
    srv_addr_t ip;
    if (srv_addr_parse(one, strlen(one), &ip) != 0 ||
        !srv_addr_is_loopback(&ip))
      beyond_loopback = true;
    int n = snprintf(s->address + used, sizeof s->address - used, "%s%s",
                     used ? " " : "", one);
    if (n > 0 && (size_t)n < sizeof s->address - used) used += (size_t)n;
  }
  freeaddrinfo(res);
  if (rc == 0 && listeners == 0) rc = UV_EADDRNOTAVAIL;
  if (rc == 0) rc = srv_auth_set_exposed(s->auth, beyond_loopback);
  if (rc == 0) rc = srv__http_loops_start(s);
  if (rc != 0) return rc;
  if (s->cfg.ready_file[0] != '\0') {
    /* The first address: what a script connects to. */
    char first[sizeof s->address];
    snprintf(first, sizeof first, "%s", s->address);
    char *space = strchr(first, ' ');
    if (space) *space = '\0';
    rc = write_ready_file(s->cfg.ready_file, first);
    if (rc != 0) return rc;
  }
  return 0;
}

void srv_server_describe(srv_server_t *s, char *out, size_t cap) {
  store_stats_t st = {0};
  if (s->store != NULL) store_stats((store_t *)s->store, &st);
  char where[1200];
  if (s->cfg.data_dir[0] != '\0')
    snprintf(where, sizeof where,
             "data dir %s (%llu assets loaded, %llu "
             "files skipped)",
             s->cfg.data_dir, (unsigned long long)st.loaded,
             (unsigned long long)st.skipped);
  else
    snprintf(where, sizeof where, "in memory only (no data dir)");
  char limit[48] = "no memory limit";
  if (st.max_bytes > 0)
    snprintf(limit, sizeof limit, "memory limit %llu MiB",
             (unsigned long long)(st.max_bytes >> 20));
  char access[512];
  srv_auth_describe(s->auth, access, sizeof access);
  snprintf(out, cap,
           "animd %s listening on %s; %s, %zu skeletons, %zu "
           "clips, %zu meshes, %s%s; %u HTTP loop%s, %u workers, %u stream "
           "loops; %s; %s",
           ANIMD_VERSION, s->address, where, st.skeletons, st.clips, st.meshes,
           limit, s->cfg.demo ? ", demo assets" : "", s->loop_count,
           s->loop_count == 1 ? "" : "s", srv_pool_threads(&s->pool),
           stream_threads(&s->cfg), access, s->kernels);
}

const char *srv_server_address(const srv_server_t *s) { return s->address; }

static void close_one(srv_conn_t *c, void *arg) {
  (void)arg;
  srv_conn_close(c);
}

static void on_drain_timeout(uv_timer_t *t) {
  srv_server_t *s = t->data;
  /* Whatever is still running past the deadline is cut off (the other
   * loops cut theirs at the same deadline). */
  s->deadline_passed = true;
  srv_conn_set_each(&s->loops[0].conns, close_one, NULL);
  check_drained(s);
}

static void on_drained(uv_timer_t *t) {
  srv_server_t *s = t->data;
  bool loops_ended = srv__http_loops_ended(s);
  /* The stream loops end first: they submit to the pool until then. */
  srv_ws_free(s->ws);
  s->ws = NULL;
  if (s->pool_open) {
    /* The pool gets what is left of drain_timeout (at least the moment
     * idle workers take to stop): a job still running then (a long
     * import) is left to the process's exit. */
    uint64_t now = uv_hrtime();
    uint64_t left =
        s->drain_deadline_ns > now ? (s->drain_deadline_ns - now) / 1000000 : 0;
    if (left < POOL_STOP_MS) left = POOL_STOP_MS;
    if (srv_pool_close_within(&s->pool, left) != 0) {
      fprintf(stderr, "animd: drain_timeout passed with work still running "
                      "on the pool: not waiting for it\n");
      s->pool_abandoned = true;
    }
    s->pool_open = false;
  }
  /* The other loops have ended, or end now that every pool job is back;
   * past the deadline with a job still running they are left to the
   * process's exit, as the job is. */
  if (loops_ended || !s->pool_abandoned) {
    srv__http_loops_join(s);
    uv_close((uv_handle_t *)&s->loop_ended, NULL);
  }
  srv__backend_close(s);
  uv_close((uv_handle_t *)&s->drain_timer, NULL);
  srv_schedule_close(&s->loops[0].schedule);
  void (*done)(srv_server_t *) = s->drain_done;
  s->drain_done = NULL;
  if (done) done(s);
}

static void check_drained(srv_server_t *s) {
  if (!s->draining || s->loops[0].conns.count > 0 || s->drained) return;
  /* Past the deadline, a loop whose connections are gone may still wait
   * for a pool job: the pool's close in on_drained gives it back, or
   * leaves it to the process's exit. */
  if (!(s->deadline_passed ? srv__http_loops_quiet(s)
                           : srv__http_loops_ended(s)))
    return;
  s->drained = true;
  /* Finish on the next loop turn, outside any close callback. */
  uv_timer_start(&s->drain_timer, on_drained, 0, 0);
}

void srv_server_drain(srv_server_t *s, void (*done)(srv_server_t *)) {
  if (s->draining) return;
  s->drain_deadline_ns = uv_hrtime() + s->cfg.drain_timeout_ms * 1000000ull;
  s->draining = true;
  s->drain_done = done;
  srv__http_loops_ask_drain(s);
  srv__http_loop_drain(&s->loops[0], s->drain_deadline_ns);
  /* WebSocket streams get a close frame (1001) and close once it is
   * written; the drain timeout cuts any that cannot finish. */
  srv_ws_drain(s->ws);
  if (s->loops[0].conns.count == 0 && srv__http_loops_ended(s))
    check_drained(s);
  else
    uv_timer_start(&s->drain_timer, on_drain_timeout, s->cfg.drain_timeout_ms,
                   0);
}

void srv_server_free(srv_server_t *s) {
  if (s == NULL) return;
  if (s->pool_abandoned) {
    /* A worker still uses the store's assets: the process exits with
     * them (nothing acknowledged is at stake: an upload is on disk before
     * its answer). */
    return;
  }
  srv_ws_free(s->ws);
  srv__http_loops_free(s);
  srv__store_close(s);
  srv_auth_free(s->auth);
  srv_access_log_close(s->access_log);
  free(s);
}

bool srv_server_draining(const srv_server_t *s) { return s->draining; }

/* The process's resident set, from /proc/self/statm (0 elsewhere). */
static uint64_t resident_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL) return 0;
  unsigned long long size = 0, resident = 0;
  int n = fscanf(f, "%llu %llu", &size, &resident);
  fclose(f);
  long page = sysconf(_SC_PAGESIZE);
  return n == 2 && page > 0 ? resident * (uint64_t)page : 0;
}

int srv_server_metrics_text(srv_server_t *s, char **text, size_t *len) {
  srv_store_counts_t sc;
  srv__store_counts(s, &sc);
  srv_metrics_gauges_t g = {
      .connections = srv__http_loops_open(s) + srv_ws_connections(s->ws),
      .pool_threads = srv_pool_threads(&s->pool),
      .pool_queue = srv_pool_queue_depth(&s->pool),
      .pool_busy = srv_pool_busy(&s->pool),
      .assets_skeletons = sc.skeletons,
      .assets_clips = sc.clips,
      .assets_meshes = sc.meshes,
      .store_bytes = sc.bytes,
      .store_scanned = sc.scanned,
      .resident_bytes = resident_bytes(),
      .uptime_s = (double)(uv_hrtime() - s->start_ns) / 1e9,
  };
  srv_metrics_t *m = calloc(1, sizeof *m);
  if (m == NULL) return UV_ENOMEM;
  srv__http_loops_metrics(s, m);
  int rc = srv_metrics_render(m, &g, text, len);
  free(m);
  if (rc != 0) return UV_ENOMEM;
  if (srv_ws_metrics_render(s->ws, text, len) != 0 ||
      srv_auth_metrics_render(s->auth, text, len) != 0) {
    free(*text);
    *text = NULL;
    return UV_ENOMEM;
  }
  return 0;
}

const srv_config_t *srv_server_config(const srv_server_t *s) { return &s->cfg; }
srv_pool_t *srv_server_pool(srv_server_t *s) { return &s->pool; }
uv_loop_t *srv_server_loop(const srv_server_t *s) { return s->loop; }
struct srv_http_host_s *srv_server_http_host(srv_server_t *s) {
  return &s->loops[0].http;
}
struct srv_ws_s *srv_server_ws(srv_server_t *s) {
  return s->ws;
}
struct srv_auth_s *srv_server_auth(srv_server_t *s) {
  return s->auth;
}
struct store_s *srv_server_store(srv_server_t *s) {
  return s->store;
}
