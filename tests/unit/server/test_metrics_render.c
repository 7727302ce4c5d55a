/* Tests for the metrics text (server/metrics.h) beyond the counts: every
 * route label, records of no route, latencies exactly on a bucket
 * bound, statuses in the order first seen, cumulative buckets ending at
 * the count, every gauge, HELP and TYPE before each family, and a text
 * larger than the first buffer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/metrics.h"

static char *render(const srv_metrics_t *m, const srv_metrics_gauges_t *g) {
  char *text;
  size_t len;
  ck_assert_int_eq(srv_metrics_render(m, g, &text, &len), 0);
  ck_assert_uint_eq(strlen(text), len);
  return text;
}

START_TEST(test_route_names) {
  ck_assert_str_eq(srv_route_name("skin"), "skin");
  ck_assert_str_eq(srv_route_name("assets_upload"), "assets_upload");
  ck_assert_str_eq(srv_route_name(NULL), "none");
}
END_TEST

START_TEST(test_unknown_route_counts_as_none) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  srv_metrics_record(&m, NULL, 400, 1000);
  srv_metrics_record(&m, NULL, 400, 1000);
  ck_assert_uint_eq(m.route_count, 1);
  ck_assert_str_eq(m.routes[0], "none");
  ck_assert_uint_eq(m.requests[0][0], 2);
  ck_assert_uint_eq(m.status_count, 1);
  char *text = render(&m, &(srv_metrics_gauges_t){0});
  ck_assert_ptr_nonnull(
      strstr(text, "animd_requests_total{route=\"none\",status=\"400\"} 2\n"));
  free(text);
}
END_TEST

START_TEST(test_bucket_bounds) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  /* A latency exactly on a bound falls in that bound's bucket; one
   * nanosecond more in the next. */
  srv_metrics_record(&m, "skin", 200, 100000);         /* 0.0001 s */
  srv_metrics_record(&m, "skin", 200, 100001);         /* above it */
  srv_metrics_record(&m, "skin", 200, 0);              /* zero */
  srv_metrics_record(&m, "skin", 200, 10000000000ull); /* 10 s */
  srv_metrics_record(&m, "skin", 200, 10000000001ull); /* +Inf */
  ck_assert_uint_eq(m.latency[0][0], 2);
  ck_assert_uint_eq(m.latency[0][1], 1);
  ck_assert_uint_eq(m.latency[0][SRV_METRICS_BUCKETS - 1], 1);
  ck_assert_uint_eq(m.latency[0][SRV_METRICS_BUCKETS], 1);
  char *text = render(&m, &(srv_metrics_gauges_t){0});
  /* Cumulative, never decreasing, ending at the count. */
  unsigned long long prev = 0;
  for (unsigned b = 0; b < SRV_METRICS_BUCKETS; b++) {
    char key[128];
    snprintf(key, sizeof key,
             "animd_request_duration_seconds_bucket{route=\"skin\",le=\"%g\"} ",
             srv_latency_bounds[b]);
    const char *p = strstr(text, key);
    ck_assert_msg(p != NULL, "no bucket %g", srv_latency_bounds[b]);
    unsigned long long v = strtoull(p + strlen(key), NULL, 10);
    ck_assert_uint_ge(v, prev);
    prev = v;
  }
  ck_assert_uint_eq(prev, 4);
  ck_assert_ptr_nonnull(strstr(
      text,
      "animd_request_duration_seconds_bucket{route=\"skin\",le=\"+Inf\"} 5\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "animd_request_duration_seconds_count{route=\"skin\"} 5\n"));
  ck_assert_ptr_nonnull(strstr(
      text,
      "animd_request_duration_seconds_sum{route=\"skin\"} 20.000200002\n"));
  /* The bounds themselves, in order. */
  for (unsigned b = 1; b < SRV_METRICS_BUCKETS; b++)
    ck_assert(srv_latency_bounds[b] > srv_latency_bounds[b - 1]);
  ck_assert(srv_latency_bounds[0] == 0.0001);
  ck_assert(srv_latency_bounds[SRV_METRICS_BUCKETS - 1] == 10.0);
  free(text);
}
END_TEST

START_TEST(test_statuses_in_order_seen) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  srv_metrics_record(&m, "clip", 404, 1);
  srv_metrics_record(&m, "pose", 404, 1);
  srv_metrics_record(&m, "clip", 200, 1);
  srv_metrics_record(&m, "pose", 200, 1);
  srv_metrics_record(&m, "pose", 404, 1);
  ck_assert_uint_eq(m.status_count, 2);
  ck_assert_int_eq(m.statuses[0], 404);
  ck_assert_int_eq(m.statuses[1], 200);
  char *text = render(&m, &(srv_metrics_gauges_t){0});
  /* Routes in the order first seen, and within a route the statuses as
   * seen. */
  const char *clip = strstr(text, "{route=\"clip\",status=\"200\"} 1\n");
  const char *p404 = strstr(text, "{route=\"pose\",status=\"404\"} 2\n");
  const char *p200 = strstr(text, "{route=\"pose\",status=\"200\"} 1\n");
  ck_assert_ptr_nonnull(clip);
  ck_assert_ptr_nonnull(p404);
  ck_assert_ptr_nonnull(p200);
  ck_assert(clip < p404 && p404 < p200);
  ck_assert_ptr_null(strstr(text, "route=\"pose\",status=\"other\""));
  free(text);
}
END_TEST

START_TEST(test_unanswered_by_reason) {
  /* Two loops' counts merged; every reason is listed, at 0 when none. */
  srv_metrics_t a, b, all;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  memset(&all, 0, sizeof all);
  srv_metrics_count_unanswered(&a, SRV_UNANSWERED_PEER_RESET);
  srv_metrics_count_unanswered(&b, SRV_UNANSWERED_PEER_RESET);
  srv_metrics_count_unanswered(&b, SRV_UNANSWERED_WRITE_TIMEOUT);
  srv_metrics_count_unanswered(&b, SRV_UNANSWERED_COUNT); /* out of range */
  srv_metrics_merge(&all, &a);
  srv_metrics_merge(&all, &b);
  char *text = render(&all, &(srv_metrics_gauges_t){0});
  static const char *const want[] = {
      "{reason=\"peer_reset\"} 2\n",    "{reason=\"write_failed\"} 0\n",
      "{reason=\"write_timeout\"} 1\n", "{reason=\"aborted\"} 0\n",
      "{reason=\"shutdown\"} 0\n",      "{reason=\"other\"} 1\n"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char line[128];
    snprintf(line, sizeof line, "\nanimd_http_closed_unanswered_total%s",
             want[i]);
    ck_assert_msg(strstr(text, line) != NULL, "missing: %s", line);
  }
  ck_assert_ptr_nonnull(
      strstr(text, "# TYPE animd_http_closed_unanswered_total counter\n"));
  free(text);
}
END_TEST

START_TEST(test_every_gauge) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  m.connections_total = 11;
  m.connections_rejected = 12;
  m.pool_rejected = 13;
  m.loop_yields = 14;
  srv_metrics_gauges_t g = {.connections = 1,
                            .pool_threads = 2,
                            .pool_queue = 3,
                            .pool_busy = 4,
                            .assets_skeletons = 5,
                            .assets_clips = 6,
                            .assets_meshes = 7,
                            .store_bytes = 8,
                            .resident_bytes = 9,
                            .uptime_s = 10.25};
  char *text = render(&m, &g);
  const char *want[] = {"\nanimd_open_connections 1\n",
                        "\nanimd_connections_total 11\n",
                        "\nanimd_connections_rejected_total 12\n",
                        "\nanimd_pool_threads 2\n",
                        "\nanimd_pool_queue_depth 3\n",
                        "\nanimd_pool_busy_workers 4\n",
                        "\nanimd_pool_rejected_total 13\n",
                        "\nanimd_http_loop_yields_total 14\n",
                        "\nanimd_assets{kind=\"skeleton\"} 5\n",
                        "\nanimd_assets{kind=\"clip\"} 6\n",
                        "\nanimd_assets{kind=\"mesh\"} 7\n",
                        "\nanimd_store_bytes 8\n",
                        "\nanimd_resident_bytes 9\n",
                        "\nanimd_uptime_seconds 10.250\n"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(text, want[i]) != NULL, "missing %s", want[i] + 1);
  /* No traffic: no request series, but their HELP and TYPE. */
  ck_assert_ptr_null(strstr(text, "animd_requests_total{"));
  ck_assert_ptr_nonnull(strstr(text, "# TYPE animd_requests_total counter\n"));
  free(text);
}
END_TEST

/* Every sample line's family has HELP and TYPE lines before it, and every
 * line is a comment or "name[{labels}] value". */
START_TEST(test_text_format) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  /* Every route and more statuses than the table holds: a text larger
   * than the first 8 KiB buffer. */
  static const char *const routes[] = {
      "none",   "assets_upload", "assets_list", "skeleton", "clip",
      "mesh",   "pose",          "pose_blend",  "skin",     "solve",
      "stream", "healthz",       "metrics",     "info"};
  const int route_count = (int)(sizeof routes / sizeof routes[0]);
  for (int r = 0; r < route_count; r++)
    for (int s = 0; s < SRV_METRICS_STATUSES + 2; s++)
      srv_metrics_record(&m, routes[r], 100 + s,
                         (uint64_t)(s + 1) * 7919 * (r + 1));
  char *text = render(&m, &(srv_metrics_gauges_t){0});
  ck_assert_uint_gt(strlen(text), 8192);
  int samples = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') {
      ck_assert_msg(strncmp(line, "# HELP animd_", 13) == 0 ||
                        strncmp(line, "# TYPE animd_", 13) == 0,
                    "%s", line);
      continue;
    }
    samples++;
    ck_assert_msg(strncmp(line, "animd_", 6) == 0, "%s", line);
    const char *sp = strrchr(line, ' ');
    ck_assert_ptr_nonnull(sp);
    char *end;
    strtod(sp + 1, &end);
    ck_assert_msg(*end == '\0' && end > sp + 1, "value of %s", line);
    const char *brace = strchr(line, '{');
    if (brace != NULL && brace < sp)
      ck_assert_msg(sp[-1] == '}', "labels of %s", line);
  }
  /* 14 routes x (24 statuses + other), 14 x (16 + 1 + 2) histogram lines,
   * 15 gauges and counters, and one unanswered close count per reason. */
  ck_assert_int_eq(samples, route_count * (SRV_METRICS_STATUSES + 1) +
                                route_count * (SRV_METRICS_BUCKETS + 3) + 15 +
                                SRV_UNANSWERED_COUNT);
  free(text);
}
END_TEST

Suite *server_metrics_render_suite(void) {
  Suite *s = suite_create("server_metrics_render");
  TCase *tc = tcase_create("render");
  tcase_add_test(tc, test_route_names);
  tcase_add_test(tc, test_unknown_route_counts_as_none);
  tcase_add_test(tc, test_bucket_bounds);
  tcase_add_test(tc, test_statuses_in_order_seen);
  tcase_add_test(tc, test_unanswered_by_reason);
  tcase_add_test(tc, test_every_gauge);
  tcase_add_test(tc, test_text_format);
  suite_add_tcase(s, tc);
  return s;
}
