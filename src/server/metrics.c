/* server: Prometheus counters and histograms (see metrics.h).
 *
 * Rendering builds the whole text in one growing buffer; it runs on the
 * loop thread per scrape, which is cheap next to the counters' bounded
 * size (routes x statuses + routes x buckets lines). */
#include "server/metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

const double srv_latency_bounds[SRV_METRICS_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0};

const char *srv_route_name(const char *route) {
  return route != NULL ? route : "none";
}

/* Adds n to a counter that only the calling thread writes: a plain load
 * and store, atomic so that a reader on another thread sees a whole
 * value. */
static void bump(_Atomic uint64_t *c, uint64_t n) {
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                        memory_order_relaxed);
}

/* The slot of route: SRV_METRICS_ROUTES ("other") when the table is
 * full. */
static unsigned route_slot(srv_metrics_t *m, const char *route) {
  unsigned n = atomic_load_explicit(&m->route_count, memory_order_relaxed);
  for (unsigned i = 0; i < n; i++)
    if (m->routes[i] == route || strcmp(m->routes[i], route) == 0) return i;
  if (n == SRV_METRICS_ROUTES) return SRV_METRICS_ROUTES;
  m->routes[n] = route;
  atomic_store_explicit(&m->route_count, n + 1, memory_order_release);
  return n;
}

/* The slot of status: SRV_METRICS_STATUSES ("other") when the table is
 * full. */
static unsigned status_slot(srv_metrics_t *m, int status) {
  unsigned n = atomic_load_explicit(&m->status_count, memory_order_relaxed);
  for (unsigned i = 0; i < n; i++)
    if (m->statuses[i] == status) return i;
  if (n == SRV_METRICS_STATUSES) return SRV_METRICS_STATUSES;
  m->statuses[n] = status;
  atomic_store_explicit(&m->status_count, n + 1, memory_order_release);
  return n;
}

static const char *slot_name(const srv_metrics_t *m, unsigned r) {
  return r < m->route_count ? m->routes[r] : "other";
}

void srv_metrics_record(srv_metrics_t *m, const char *label, int status,
                        uint64_t latency_ns) {
  unsigned route = route_slot(m, srv_route_name(label));
  unsigned slot = status_slot(m, status);
  bump(&m->requests[route][slot], 1);
  double s = (double)latency_ns / 1e9;
  unsigned b = 0;
  while (b < SRV_METRICS_BUCKETS && s > srv_latency_bounds[b]) b++;
  bump(&m->latency[route][b], 1);
  bump(&m->latency_ns[route], latency_ns);
}

void srv_metrics_count_connection(srv_metrics_t *m, bool rejected) {
  bump(&m->connections_total, 1);
  if (rejected) bump(&m->connections_rejected, 1);
}

void srv_metrics_count_unanswered(srv_metrics_t *m, srv_unanswered_reason r) {
  bump(&m->closed_unanswered[r < SRV_UNANSWERED_COUNT ? r
                                                      : SRV_UNANSWERED_OTHER],
       1);
}

const char *srv_unanswered_name(srv_unanswered_reason r) {
  static const char *const names[SRV_UNANSWERED_COUNT] = {
      "peer_reset", "write_failed", "write_timeout",
      "aborted",    "shutdown",     "other"};
  return r < SRV_UNANSWERED_COUNT ? names[r] : "other";
}

static uint64_t get(const _Atomic uint64_t *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

void srv_metrics_merge(srv_metrics_t *into, const srv_metrics_t *from) {
  unsigned routes =
      atomic_load_explicit(&from->route_count, memory_order_acquire);
  unsigned statuses =
      atomic_load_explicit(&from->status_count, memory_order_acquire);
  /* Where each of from's statuses (and "other") is counted in into. */
  unsigned to_status[SRV_METRICS_STATUSES + 1];
  for (unsigned s = 0; s < statuses; s++)
    to_status[s] = status_slot(into, from->statuses[s]);
  to_status[SRV_METRICS_STATUSES] = SRV_METRICS_STATUSES;
  for (unsigned r = 0; r <= SRV_METRICS_ROUTES; r++) {
    if (r >= routes && r < SRV_METRICS_ROUTES) continue;
    unsigned to =
        r < routes ? route_slot(into, from->routes[r]) : SRV_METRICS_ROUTES;
    for (unsigned s = 0; s <= SRV_METRICS_STATUSES; s++) {
      if (s >= statuses && s < SRV_METRICS_STATUSES) continue;
      bump(&into->requests[to][to_status[s]], get(&from->requests[r][s]));
    }
    for (unsigned b = 0; b <= SRV_METRICS_BUCKETS; b++)
      bump(&into->latency[to][b], get(&from->latency[r][b]));
    bump(&into->latency_ns[to], get(&from->latency_ns[r]));
  }
  bump(&into->connections_total, get(&from->connections_total));
  bump(&into->connections_rejected, get(&from->connections_rejected));
  bump(&into->pool_rejected, get(&from->pool_rejected));
  bump(&into->loop_yields, get(&from->loop_yields));
  for (unsigned r = 0; r < SRV_UNANSWERED_COUNT; r++)
    bump(&into->closed_unanswered[r], get(&from->closed_unanswered[r]));
}

typedef struct text_s {
  char *p;
  size_t len, cap;
  int failed;
} text_t;

static void put(text_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(text_t *t, const char *fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if ((size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return;
    }
    size_t cap = t->cap * 2 + (size_t)n;
    char *p = realloc(t->p, cap);
    if (p == NULL) {
      t->failed = 1;
      return;
    }
    t->p = p;
    t->cap = cap;
  }
}

int srv_metrics_render(const srv_metrics_t *m, const srv_metrics_gauges_t *g,
                       char **out, size_t *len) {
  text_t t = {.cap = 8192};
  t.p = malloc(t.cap);
  if (t.p == NULL) return UV_ENOMEM;
  put(&t, "# HELP animd_requests_total HTTP requests answered, by route "
          "and status.\n# TYPE animd_requests_total counter\n");
  for (unsigned r = 0; r <= SRV_METRICS_ROUTES; r++)
    for (unsigned s = 0; s <= SRV_METRICS_STATUSES; s++) {
      if (m->requests[r][s] == 0) continue;
      char code[16];
      if (s == SRV_METRICS_STATUSES)
        snprintf(code, sizeof code, "other");
      else
        snprintf(code, sizeof code, "%d", m->statuses[s]);
      put(&t, "animd_requests_total{route=\"%s\",status=\"%s\"} %llu\n",
          slot_name(m, r), code, (unsigned long long)m->requests[r][s]);
    }
  put(&t, "# HELP animd_request_duration_seconds Time from a request's "
          "first byte to its answer being queued.\n"
          "# TYPE animd_request_duration_seconds histogram\n");
  for (unsigned r = 0; r <= SRV_METRICS_ROUTES; r++) {
    uint64_t total = 0;
    for (unsigned b = 0; b <= SRV_METRICS_BUCKETS; b++)
      total += m->latency[r][b];
    if (total == 0) continue;
    uint64_t cum = 0;
    for (unsigned b = 0; b < SRV_METRICS_BUCKETS; b++) {
      cum += m->latency[r][b];
      put(&t,
          "animd_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} "
          "%llu\n",
          slot_name(m, r), srv_latency_bounds[b], (unsigned long long)cum);
    }
    put(&t,
        "animd_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} "
        "%llu\n",
        slot_name(m, r), (unsigned long long)total);
    put(&t, "animd_request_duration_seconds_sum{route=\"%s\"} %.9f\n",
        slot_name(m, r), (double)m->latency_ns[r] / 1e9);
    put(&t, "animd_request_duration_seconds_count{route=\"%s\"} %llu\n",
        slot_name(m, r), (unsigned long long)total);
  }
  put(&t,
      "# HELP animd_open_connections Client connections open now.\n"
      "# TYPE animd_open_connections gauge\nanimd_open_connections %u\n"
      "# HELP animd_connections_total Client connections accepted.\n"
      "# TYPE animd_connections_total counter\n"
      "animd_connections_total %llu\n"
      "# HELP animd_connections_rejected_total Connections refused with "
      "503 (max_connections).\n"
      "# TYPE animd_connections_rejected_total counter\n"
      "animd_connections_rejected_total %llu\n",
      g->connections, (unsigned long long)m->connections_total,
      (unsigned long long)m->connections_rejected);
  put(&t, "# HELP animd_http_closed_unanswered_total HTTP connections "
          "closed while a request on them had no whole answer, by reason.\n"
          "# TYPE animd_http_closed_unanswered_total counter\n");
  for (unsigned r = 0; r < SRV_UNANSWERED_COUNT; r++)
    put(&t, "animd_http_closed_unanswered_total{reason=\"%s\"} %llu\n",
        srv_unanswered_name((srv_unanswered_reason)r),
        (unsigned long long)get(&m->closed_unanswered[r]));
  put(&t,
      "# HELP animd_pool_threads Worker pool threads.\n"
      "# TYPE animd_pool_threads gauge\nanimd_pool_threads %u\n"
      "# HELP animd_pool_queue_depth Jobs waiting for a worker.\n"
      "# TYPE animd_pool_queue_depth gauge\nanimd_pool_queue_depth %u\n"
      "# HELP animd_pool_busy_workers Workers running a job now.\n"
      "# TYPE animd_pool_busy_workers gauge\nanimd_pool_busy_workers %u\n"
      "# HELP animd_pool_rejected_total Jobs refused because the queue "
      "was full (503).\n# TYPE animd_pool_rejected_total counter\n"
      "animd_pool_rejected_total %llu\n"
      "# HELP animd_http_loop_yields_total Times an HTTP loop gave up its "
      "CPU after running work inline (inline_yield).\n"
      "# TYPE animd_http_loop_yields_total counter\n"
      "animd_http_loop_yields_total %llu\n",
      g->pool_threads, g->pool_queue, g->pool_busy,
      (unsigned long long)m->pool_rejected, (unsigned long long)m->loop_yields);
  put(&t,
      "# HELP animd_assets Assets stored, by kind.\n"
      "# TYPE animd_assets gauge\n"
      "animd_assets{kind=\"skeleton\"} %llu\n"
      "animd_assets{kind=\"clip\"} %llu\n"
      "animd_assets{kind=\"mesh\"} %llu\n"
      "# HELP animd_store_bytes Bytes held by stored assets.\n"
      "# TYPE animd_store_bytes gauge\nanimd_store_bytes %llu\n"
      "# HELP animd_store_scanned_total Assets read to find what deletes "
      "and drops (a fleet's events) remove: about one per asset removed.\n"
      "# TYPE animd_store_scanned_total counter\n"
      "animd_store_scanned_total %llu\n"
      "# HELP animd_resident_bytes The process's resident memory (RSS): "
      "compare with animd_store_bytes.\n"
      "# TYPE animd_resident_bytes gauge\nanimd_resident_bytes %llu\n"
      "# HELP animd_uptime_seconds Seconds since start.\n"
      "# TYPE animd_uptime_seconds gauge\nanimd_uptime_seconds %.3f\n",
      (unsigned long long)g->assets_skeletons,
      (unsigned long long)g->assets_clips, (unsigned long long)g->assets_meshes,
      (unsigned long long)g->store_bytes, (unsigned long long)g->store_scanned,
      (unsigned long long)g->resident_bytes, g->uptime_s);
  if (t.failed) {
    free(t.p);
    return UV_ENOMEM;
  }
  *out = t.p;
  *len = t.len;
  return 0;
}
