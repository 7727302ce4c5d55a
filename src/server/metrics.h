/* server: request counters and latency histograms for /metrics.
 *
 * Updated only on the loop thread (no atomics); the pool's queue depth
 * and busy workers, the store's sizes and the open connections are read
 * when /metrics is rendered. Routes are counted by the label of their row
 * in the API's routing table (api/router.h; NULL: "none"), a small fixed
 * set, so every series has bounded cardinality; statuses are counted per
 * exact code. */
#ifndef ANIMD_SERVER_METRICS_H
#define ANIMD_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Route labels counted apart (the API's routing table has fewer); one
 * more slot counts what does not fit as "other". */
#define SRV_METRICS_ROUTES 32

#define SRV_METRICS_STATUSES 24
#define SRV_METRICS_BUCKETS 16

typedef struct srv_metrics_s {
  /* Distinct status codes seen, and per route the count for each. */
  int statuses[SRV_METRICS_STATUSES];
  unsigned status_count;
  /* Distinct route labels seen, in the order first seen (static
   * strings). */
  const char *routes[SRV_METRICS_ROUTES];
  unsigned route_count;
  uint64_t requests[SRV_METRICS_ROUTES + 1][SRV_METRICS_STATUSES + 1];
  /* Latency histogram per route: counts per bucket (not cumulative). */
  uint64_t latency[SRV_METRICS_ROUTES + 1][SRV_METRICS_BUCKETS + 1];
  double latency_sum[SRV_METRICS_ROUTES + 1];
  uint64_t connections_total;
  uint64_t connections_rejected;
  uint64_t pool_rejected;
  uint64_t loop_yields;
} srv_metrics_t;

/* A request's route label for logs: route, or "none" when NULL. */
const char *srv_route_name(const char *route);

/* Bucket upper bounds in seconds (SRV_METRICS_BUCKETS values). */
extern const double srv_latency_bounds[SRV_METRICS_BUCKETS];

/* Counts an answer of status to a request of route (a label that lives
 * as long as m; NULL: "none"). */
void srv_metrics_record(srv_metrics_t *m, const char *route, int status,
                        uint64_t latency_ns);

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
