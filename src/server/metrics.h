/* server: request counters and latency histograms for /metrics.
 *
 * Updated only on the loop thread (no atomics); the pool's queue depth
 * and busy workers, the store's sizes and the open connections are read
 * when /metrics is rendered. Routes are a small fixed set so every series
 * has bounded cardinality; statuses are counted per exact code. */
#ifndef ANIMD_SERVER_METRICS_H
#define ANIMD_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef enum srv_route {
  SRV_ROUTE_NONE = 0, /* Unmatched (404) and malformed requests. */
  SRV_ROUTE_ASSETS_POST,
  SRV_ROUTE_ASSETS_LIST,
  SRV_ROUTE_SKELETON,
  SRV_ROUTE_CLIP,
  SRV_ROUTE_MESH,
  SRV_ROUTE_POSE_GET,
  SRV_ROUTE_POSE_POST,
  SRV_ROUTE_SKIN,
  SRV_ROUTE_SOLVE,
  SRV_ROUTE_STREAM,
  SRV_ROUTE_HEALTHZ,
  SRV_ROUTE_METRICS,
  SRV_ROUTE_INFO,
  SRV_ROUTE_COUNT_
} srv_route;

#define SRV_METRICS_STATUSES 24
#define SRV_METRICS_BUCKETS 16

typedef struct srv_metrics_s {
  /* Distinct status codes seen, and per route the count for each. */
  int statuses[SRV_METRICS_STATUSES];
  unsigned status_count;
  uint64_t requests[SRV_ROUTE_COUNT_][SRV_METRICS_STATUSES + 1];
  /* Latency histogram per route: counts per bucket (not cumulative). */
  uint64_t latency[SRV_ROUTE_COUNT_][SRV_METRICS_BUCKETS + 1];
  double latency_sum[SRV_ROUTE_COUNT_];
  uint64_t connections_total;
  uint64_t connections_rejected;
  uint64_t pool_rejected;
  uint64_t loop_yields;
} srv_metrics_t;

const char *srv_route_name(int route);

/* Bucket upper bounds in seconds (SRV_METRICS_BUCKETS values). */
extern const double srv_latency_bounds[SRV_METRICS_BUCKETS];

void srv_metrics_record(srv_metrics_t *m, int route, int status,
                        uint64_t latency_ns);

/* Gauges sampled at render time. */
typedef struct srv_metrics_gauges_s {
  unsigned connections;
  unsigned pool_threads;
  unsigned pool_queue;
  unsigned pool_busy;
  uint64_t assets_skeletons, assets_clips, assets_meshes;
  uint64_t store_bytes;
  uint64_t resident_bytes; /* RSS; 0 when unknown. */
  double uptime_s;
} srv_metrics_gauges_t;

/* Renders the Prometheus text format into a malloc'd buffer (*out, *len).
 * Returns 0 or UV_ENOMEM. */
int srv_metrics_render(const srv_metrics_t *m, const srv_metrics_gauges_t *g,
                       char **out, size_t *len);

#endif
