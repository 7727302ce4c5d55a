/* Tests for the metrics: counts per route and status, cumulative
 * histogram buckets, and the Prometheus text format lines. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "server/metrics.h"

START_TEST(test_render_counts_and_buckets) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  m.loop_yields = 9;
  srv_metrics_record(&m, "pose", 200, 50000);        /* 50 us */
  srv_metrics_record(&m, "pose", 200, 2000000);      /* 2 ms */
  srv_metrics_record(&m, "pose", 400, 300000);       /* 0.3 ms */
  srv_metrics_record(&m, NULL, 404, 20000000000ull); /* 20 s */
  srv_metrics_gauges_t g = {.connections = 3,
                            .pool_threads = 2,
                            .pool_queue = 5,
                            .pool_busy = 1,
                            .assets_clips = 7,
                            .store_bytes = 1234};
  char *text;
  size_t len;
  ck_assert_int_eq(srv_metrics_render(&m, &g, &text, &len), 0);
  ck_assert_uint_eq(strlen(text), len);
  const char *want[] = {
      "animd_requests_total{route=\"pose\",status=\"200\"} 2\n",
      "animd_requests_total{route=\"pose\",status=\"400\"} 1\n",
      "animd_requests_total{route=\"none\",status=\"404\"} 1\n",
      "animd_request_duration_seconds_bucket{route=\"pose\",le=\"0.0001\"} "
      "1\n",
      "animd_request_duration_seconds_bucket{route=\"pose\",le=\"0.0005\"} "
      "2\n",
      "animd_request_duration_seconds_bucket{route=\"pose\",le=\"0.0025\"} "
      "3\n",
      "animd_request_duration_seconds_bucket{route=\"none\",le=\"10\"} 0\n",
      "animd_request_duration_seconds_bucket{route=\"none\",le=\"+Inf\"} 1\n",
      "animd_request_duration_seconds_count{route=\"pose\"} 3\n",
      "animd_request_duration_seconds_sum{route=\"pose\"} 0.002350000\n",
      "animd_open_connections 3\n",
      "animd_http_loop_yields_total 9\n",
      "animd_pool_queue_depth 5\n",
      "animd_pool_busy_workers 1\n",
      "animd_assets{kind=\"clip\"} 7\n",
      "animd_store_bytes 1234\n",
      "# TYPE animd_request_duration_seconds histogram\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(text, want[i]) != NULL, "missing: %s", want[i]);
  /* Routes without traffic have no series. */
  ck_assert_ptr_null(strstr(text, "route=\"skin\""));
  free(text);
}
END_TEST

START_TEST(test_status_table_overflow) {
  srv_metrics_t m;
  memset(&m, 0, sizeof m);
  for (int s = 0; s < SRV_METRICS_STATUSES + 5; s++)
    srv_metrics_record(&m, "info", 200 + s, 1000);
  char *text;
  size_t len;
  ck_assert_int_eq(
      srv_metrics_render(&m, &(srv_metrics_gauges_t){0}, &text, &len), 0);
  ck_assert_ptr_nonnull(strstr(
      text, "animd_requests_total{route=\"info\",status=\"other\"} 5\n"));
  free(text);
}
END_TEST

/* Two loops' counters, their routes and statuses first seen in other
 * orders, add up by label and code; the merged copy renders their sums. */
START_TEST(test_merge_loops) {
  srv_metrics_t *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  srv_metrics_t *sum = calloc(1, sizeof *sum);
  srv_metrics_record(a, "pose", 200, 1000000);
  srv_metrics_record(a, "skin", 404, 3000);
  srv_metrics_count_connection(a, false);
  srv_metrics_record(b, "skin", 200, 2000);
  srv_metrics_record(b, "skin", 404, 4000);
  srv_metrics_record(b, "pose", 200, 500000);
  srv_metrics_count_connection(b, true);
  srv_metrics_merge(sum, a);
  srv_metrics_merge(sum, b);
  ck_assert_uint_eq(sum->route_count, 2);
  ck_assert_uint_eq(sum->status_count, 2);
  ck_assert_uint_eq(sum->connections_total, 2);
  ck_assert_uint_eq(sum->connections_rejected, 1);
  char *text;
  size_t len;
  ck_assert_int_eq(
      srv_metrics_render(sum, &(srv_metrics_gauges_t){0}, &text, &len), 0);
  const char *want[] = {
      "animd_requests_total{route=\"pose\",status=\"200\"} 2\n",
      "animd_requests_total{route=\"skin\",status=\"404\"} 2\n",
      "animd_requests_total{route=\"skin\",status=\"200\"} 1\n",
      "animd_request_duration_seconds_sum{route=\"pose\"} 0.001500000\n",
      "animd_request_duration_seconds_sum{route=\"skin\"} 0.000009000\n",
      "animd_request_duration_seconds_bucket{route=\"skin\",le=\"0.0001\"} "
      "3\n",
      "animd_connections_total 2\n",
      "animd_connections_rejected_total 1\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(text, want[i]) != NULL, "missing: %s", want[i]);
  free(text);
  /* Merging again adds again: a merge reads, it never moves counts. */
  srv_metrics_merge(sum, a);
  ck_assert_uint_eq(sum->connections_total, 3);
  free(a);
  free(b);
  free(sum);
}
END_TEST

Suite *server_metrics_suite(void) {
  Suite *s = suite_create("server_metrics");
  TCase *tc = tcase_create("metrics");
  tcase_add_test(tc, test_render_counts_and_buckets);
  tcase_add_test(tc, test_status_table_overflow);
  tcase_add_test(tc, test_merge_loops);
  suite_add_tcase(s, tc);
  return s;
}
