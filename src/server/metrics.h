/* server: request counters and latency histograms for /metrics.
 *
 * Key choice: nothing shared per request. Each HTTP loop records into a
 * srv_metrics_t of its own (one writer: its thread; the counters are
 * atomics written with relaxed single-writer stores, plain moves, never a
 * locked instruction), and /metrics adds every loop's up
 * (srv_metrics_merge) when it is read. The pool's queue depth and busy
 * workers, the store's sizes and the open connections are read when
 * /metrics is rendered. Routes are counted by the label of their row in
 * the API's routing table (api/router.h; NULL: "none"), a small fixed set,
 * so every series has bounded cardinality; statuses are counted per exact
 * code. */
#ifndef ANIMD_SERVER_METRICS_H
#define ANIMD_SERVER_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Route labels counted apart (the API's routing table has fewer); one
 * more slot counts what does not fit as "other". */
#define SRV_METRICS_ROUTES 32

#define SRV_METRICS_STATUSES 24
#define SRV_METRICS_BUCKETS 16

/* Why a connection closed while a request on it had no whole answer (the
 * label of animd_http_closed_unanswered_total): the client reset it or
 * its read failed, an answer could not be written, the client read
 * nothing of an answer for idle_timeout, a streamed answer was cut
 * short, the drain deadline passed, anything else. */
typedef enum srv_unanswered_reason {
  SRV_UNANSWERED_PEER_RESET = 0,
  SRV_UNANSWERED_WRITE_FAILED,
  SRV_UNANSWERED_WRITE_TIMEOUT,
  SRV_UNANSWERED_ABORTED,
  SRV_UNANSWERED_SHUTDOWN,
  SRV_UNANSWERED_OTHER,
  SRV_UNANSWERED_COUNT
} srv_unanswered_reason;

typedef struct srv_metrics_s {
  /* Distinct status codes seen, and per route the count for each; an
   * entry is written before the count that covers it (release), so a
   * reader that loads the count (acquire) reads whole entries. */
  int statuses[SRV_METRICS_STATUSES];
  _Atomic unsigned status_count;
  /* Distinct route labels seen, in the order first seen (static
   * strings). */
  const char *routes[SRV_METRICS_ROUTES];
  _Atomic unsigned route_count;
  _Atomic uint64_t requests[SRV_METRICS_ROUTES + 1][SRV_METRICS_STATUSES + 1];
  /* Latency histogram per route: counts per bucket (not cumulative), and
   * the sum in nanoseconds. */
  _Atomic uint64_t latency[SRV_METRICS_ROUTES + 1][SRV_METRICS_BUCKETS + 1];
  _Atomic uint64_t latency_ns[SRV_METRICS_ROUTES + 1];
  _Atomic uint64_t connections_total;
  _Atomic uint64_t connections_rejected;
  _Atomic uint64_t pool_rejected;
  _Atomic uint64_t loop_yields;
  _Atomic uint64_t closed_unanswered[SRV_UNANSWERED_COUNT];
} srv_metrics_t;

/* A request's route label for logs: route, or "none" when NULL. */
const char *srv_route_name(const char *route);

/* Bucket upper bounds in seconds (SRV_METRICS_BUCKETS values). */
extern const double srv_latency_bounds[SRV_METRICS_BUCKETS];

/* Counts an answer of status to a request of route (a label that lives
 * as long as m; NULL: "none"). m's one writer only. */
void srv_metrics_record(srv_metrics_t *m, const char *route, int status,
                        uint64_t latency_ns);

/* Counts an accepted connection (rejected: refused with 503). m's one
 * writer only. */
void srv_metrics_count_connection(srv_metrics_t *m, bool rejected);

/* Counts a connection closed with a request unanswered. m's one writer
 * only. */
void srv_metrics_count_unanswered(srv_metrics_t *m, srv_unanswered_reason r);

/* The label value of r ("peer_reset", "write_failed", ...). */
const char *srv_unanswered_name(srv_unanswered_reason r);

/* Adds what `from` counted into `into` (routes and statuses matched by
 * label and code): `from` may be written meanwhile by its own thread;
 * `into` is the caller's. */
void srv_metrics_merge(srv_metrics_t *into, const srv_metrics_t *from);

/* Gauges sampled at render time. */
typedef struct srv_metrics_gauges_s {
  unsigned connections;
  unsigned pool_threads;
  unsigned pool_queue;
  unsigned pool_busy;
  uint64_t assets_skeletons, assets_clips, assets_meshes;
  uint64_t store_bytes;
  uint64_t store_scanned;  /* store_stats_t.scanned. */
  uint64_t resident_bytes; /* RSS; 0 when unknown. */
  double uptime_s;
} srv_metrics_gauges_t;

/* Renders the Prometheus text format into a malloc'd buffer (*out, *len).
 * Returns 0 or UV_ENOMEM. */
int srv_metrics_render(const srv_metrics_t *m, const srv_metrics_gauges_t *g,
                       char **out, size_t *len);

#endif
