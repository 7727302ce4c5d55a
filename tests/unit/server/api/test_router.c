/* Tests for the routing table (api/router.h): the access class of every
 * row; every write route refused to a read token; OPTIONS and 405 Allow
 * listing exactly the methods of the rows that match the path; 404 for an
 * unknown path; the /metrics route labels of the rows. Through the
 * in-memory transport (a real server, no socket). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../http/http_memory_fixture.h"
#include "server/api/router.h"
#include "../auth/tokens_fixture.h"

static char tokens_path[64];

static void start_with_tokens(void) {
  tokens_path[0] = '\0';
  tokens_fixture_write_three(tokens_path);
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "%s", tokens_path);
  cfg.auth_reads = true;
  cfg.auth_metrics = true;
  mem_server_start_cfg(&cfg);
}

static void stop_with_tokens(void) {
  mem_server_stop();
  unlink(tokens_path);
}

/* A path of row r ("x" for its {id}). */
static void path_of(const srv_route_t *r, char *out, size_t cap) {
  snprintf(out, cap, "%s%s%s", r->prefix, r->id ? "x" : "",
           r->id ? r->suffix : "");
}

/* The first method of bits. */
static const char *a_method(unsigned bits) {
  static const char *const names[] = {"GET",    "HEAD",    "POST", "PUT",
                                      "DELETE", "OPTIONS", "PATCH"};
  for (unsigned m = 0; m < 7; m++)
    if (bits & (1u << m)) return names[m];
  return "GET";
}

static mem_answer_t call(const char *method, const char *target,
                         const char *token) {
  char req[1024];
  snprintf(req, sizeof req,
           "%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n%s%s%s\r\n",
           method, target, token ? "Authorization: Bearer " : "",
           token ? token : "", token ? "\r\n" : "");
  srv_http_memory_t *m = mem_client();
  mem_answer_t a = mem_request(m, req);
  srv_http_memory_free(m);
  return a;
}

/* The value of header name in a's head, into out ("" when absent). */
static const char *header_of(const mem_answer_t *a, const char *name, char *out,
                             size_t cap) {
  char key[64];
  snprintf(key, sizeof key, "\r\n%s: ", name);
  out[0] = '\0';
  const char *p = strstr(a->head, key);
  if (p == NULL) return out;
  p += strlen(key);
  size_t n = strcspn(p, "\r");
  if (n >= cap) n = cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return out;
}

START_TEST(test_every_row_access_class) {
  static const struct {
    unsigned methods;
    const char *path; /* Its pattern, {id} spelled out. */
    srv_access access;
    const char *label;
  } want[] = {
      {SRV_M_GET | SRV_M_HEAD, "/v1/pose", SRV_ACCESS_READ, "pose"},
      {SRV_M_POST, "/v1/pose", SRV_ACCESS_READ, "pose_blend"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/skin", SRV_ACCESS_READ, "skin"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/assets", SRV_ACCESS_READ, "assets_list"},
      {SRV_M_POST, "/v1/assets", SRV_ACCESS_WRITE, "assets_upload"},
      {SRV_M_POST, "/v1/solve", SRV_ACCESS_READ, "solve"},
      {SRV_M_POST, "/v1/test", SRV_ACCESS_READ, "test"},
      {SRV_M_POST, "/v1/compare", SRV_ACCESS_READ, "compare"},
      {SRV_M_POST, "/v1/retarget", SRV_ACCESS_WRITE, "retarget"},
      {SRV_M_GET, "/v1/stream", SRV_ACCESS_READ, "stream"},
      {SRV_M_GET | SRV_M_HEAD, "/healthz", SRV_ACCESS_OPEN, "healthz"},
      {SRV_M_GET | SRV_M_HEAD, "/metrics", SRV_ACCESS_ADMIN, "metrics"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/info", SRV_ACCESS_READ, "info"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/skeletons/{id}", SRV_ACCESS_READ,
       "skeleton"},
      {SRV_M_DELETE, "/v1/skeletons/{id}", SRV_ACCESS_WRITE, "skeleton"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/clips/{id}", SRV_ACCESS_READ, "clip"},
      {SRV_M_DELETE, "/v1/clips/{id}", SRV_ACCESS_WRITE, "clip"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/meshes/{id}", SRV_ACCESS_READ, "mesh"},
      {SRV_M_DELETE, "/v1/meshes/{id}", SRV_ACCESS_WRITE, "mesh"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/skeletons/{id}/clips", SRV_ACCESS_READ,
       "skeleton"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/skeletons/{id}/meshes", SRV_ACCESS_READ,
       "skeleton"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/clips/{id}/check", SRV_ACCESS_READ,
       "clip_check"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/clips/{id}/plot", SRV_ACCESS_READ,
       "clip_plot"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/meshes/{id}/image", SRV_ACCESS_READ,
       "mesh"},
      {SRV_M_GET | SRV_M_HEAD, "/v1/openapi.json", SRV_ACCESS_READ, "openapi"},
  };
  ck_assert_uint_eq(srv_api_route_count, sizeof want / sizeof want[0]);
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    char pattern[128];
    snprintf(pattern, sizeof pattern, "%s%s%s", r->prefix, r->id ? "{id}" : "",
             r->id ? r->suffix : "");
    ck_assert_str_eq(pattern, want[i].path);
    ck_assert_uint_eq(r->methods, want[i].methods);
    ck_assert_msg(r->access == want[i].access, "%s %s: access %d",
                  a_method(r->methods), pattern, (int)r->access);
    ck_assert_str_eq(r->label, want[i].label);
    /* Exactly one handler; only the stream takes ?token=. */
    int handlers =
        (r->handle != NULL) + (r->handle_id != NULL) + (r->body != NULL);
    ck_assert_int_eq(handlers, 1);
    ck_assert(r->handle_id == NULL || r->id);
    ck_assert(r->query_token == (strcmp(pattern, "/v1/stream") == 0));
    /* The row matches its own path and method. */
    char path[128];
    path_of(r, path, sizeof path);
    unsigned allow;
    for (unsigned m = 0; m < 7; m++)
      if (r->methods & (1u << m))
        ck_assert_ptr_eq(srv_api_match((srv_method)m, path, &allow), r);
  }
}
END_TEST

START_TEST(test_write_rows_refuse_a_read_token) {
  start_with_tokens();
  int writes = 0;
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    char path[128];
    path_of(r, path, sizeof path);
    mem_answer_t a = call(a_method(r->methods), path, T_READ);
    if (r->access == SRV_ACCESS_WRITE) {
      writes++;
      char www[256];
      ck_assert_msg(a.status == 403, "%s %s with a read token: %d",
                    a_method(r->methods), path, a.status);
      ck_assert_ptr_nonnull(
          strstr(header_of(&a, "WWW-Authenticate", www, sizeof www),
                 "scope=\"write\""));
    } else if (r->access == SRV_ACCESS_ADMIN) {
      ck_assert_int_eq(a.status, 403);
    } else {
      /* Admitted: whatever the handler answers, not a refusal. */
      ck_assert_msg(a.status != 401 && a.status != 403, "%s %s: %d",
                    a_method(r->methods), path, a.status);
    }
    mem_answer_free(&a);
    /* Without a token every row but the open one is refused. */
    a = call(a_method(r->methods), path, NULL);
    if (r->access == SRV_ACCESS_OPEN)
      ck_assert_int_eq(a.status, 200);
    else
      ck_assert_int_eq(a.status, 401);
    mem_answer_free(&a);
  }
  ck_assert_int_eq(writes, 5);
  /* With a write token the delete reaches its handler: 404, no refusal. */
  mem_answer_t a = call("DELETE", "/v1/clips/nope", T_WRITE);
  ck_assert_int_eq(a.status, 404);
  mem_answer_free(&a);
  stop_with_tokens();
}
END_TEST

/* The Allow text of the rows whose pattern is that of row r. */
static void rows_allow(const srv_route_t *r, char *out, size_t cap) {
  unsigned bits = 0;
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *o = &srv_api_routes[i];
    if (strcmp(o->prefix, r->prefix) == 0 && o->id == r->id &&
        (!r->id || strcmp(o->suffix, r->suffix) == 0))
      bits |= o->methods;
  }
  static const char *const names[] = {"GET",    "HEAD",    "POST", "PUT",
                                      "DELETE", "OPTIONS", "PATCH"};
  out[0] = '\0';
  for (unsigned m = 0; m < 7; m++)
    if (bits & (1u << m))
      snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? ", " : "",
               names[m]);
}

START_TEST(test_options_and_405_list_the_rows_methods) {
  mem_server_start();
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    char path[128], want[64], got[128], with[80];
    path_of(r, path, sizeof path);
    rows_allow(r, want, sizeof want);
    mem_answer_t a = call("OPTIONS", path, NULL);
    ck_assert_int_eq(a.status, 204);
    snprintf(with, sizeof with, "%s, OPTIONS", want);
    ck_assert_str_eq(header_of(&a, "Allow", got, sizeof got), with);
    mem_answer_free(&a);
    a = call("PATCH", path, NULL);
    ck_assert_int_eq(a.status, 405);
    ck_assert_str_eq(header_of(&a, "Allow", got, sizeof got), want);
    mem_answer_free(&a);
  }
  /* Spelled out for a few paths. */
  static const struct {
    const char *method, *path, *allow;
  } cases[] = {
      {"PUT", "/v1/pose", "GET, HEAD, POST"},
      {"DELETE", "/v1/assets", "GET, HEAD, POST"},
      {"GET", "/v1/solve", "POST"},
      {"POST", "/v1/stream", "GET"},
      {"POST", "/v1/skeletons/abc", "GET, HEAD, DELETE"},
      {"DELETE", "/v1/skeletons/abc/clips", "GET, HEAD"},
      {"DELETE", "/v1/meshes/abc/image", "GET, HEAD"},
      {"POST", "/healthz", "GET, HEAD"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mem_answer_t a = call(cases[i].method, cases[i].path, NULL);
    char got[128], code[64];
    ck_assert_int_eq(a.status, 405);
    ck_assert_str_eq(header_of(&a, "Allow", got, sizeof got), cases[i].allow);
    ck_assert_str_eq(mem_error_code(&a, code, sizeof code),
                     "method_not_allowed");
    mem_answer_free(&a);
  }
  /* Unknown paths: 404, OPTIONS too. */
  const char *unknown[] = {"/v1/nope", "/v1/skeletons/", "/v1/skeletons/a/b",
                           "/v1/skeletons/a/clips/b", "/v1/clips"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    mem_answer_t a = call("GET", unknown[i], NULL);
    char code[64];
    ck_assert_msg(a.status == 404, "%s: %d", unknown[i], a.status);
    ck_assert_str_eq(mem_error_code(&a, code, sizeof code), "not_found");
    mem_answer_free(&a);
    a = call("OPTIONS", unknown[i], NULL);
    ck_assert_int_eq(a.status, 404);
    mem_answer_free(&a);
  }
  unsigned allow;
  ck_assert_ptr_null(srv_api_match(SRV_GET, "/v1/nope", &allow));
  ck_assert_uint_eq(allow, 0);
  ck_assert_ptr_null(srv_api_match(SRV_PUT, "/v1/pose", &allow));
  ck_assert_uint_eq(allow, SRV_M_GET | SRV_M_HEAD | SRV_M_POST);
  mem_server_stop();
}
END_TEST

START_TEST(test_metrics_labels_come_from_the_rows) {
  mem_server_start();
  mem_answer_t a = mem_get("/healthz");
  mem_answer_free(&a);
  a = mem_get("/v1/info");
  mem_answer_free(&a);
  a = mem_get("/v1/nope");
  mem_answer_free(&a);
  a = call("PUT", "/v1/pose", NULL);
  mem_answer_free(&a);
  a = call("DELETE", "/v1/skeletons/nope", NULL);
  mem_answer_free(&a);
  a = call("GET", "/v1/skeletons/nope/clips", NULL);
  mem_answer_free(&a);
  a = call("OPTIONS", "/v1/meshes/x/image", NULL);
  mem_answer_free(&a);
  a = mem_get("/metrics");
  const char *want[] = {
      "animd_requests_total{route=\"healthz\",status=\"200\"} 1\n",
      "animd_requests_total{route=\"info\",status=\"200\"} 1\n",
      "animd_requests_total{route=\"none\",status=\"404\"} 1\n",
      "animd_requests_total{route=\"pose\",status=\"405\"} 1\n",
      "animd_requests_total{route=\"skeleton\",status=\"404\"} 2\n",
      "animd_requests_total{route=\"mesh\",status=\"204\"} 1\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(a.body, want[i]) != NULL, "missing: %s", want[i]);
  /* Every label in /metrics is a row's (or none). */
  for (const char *p = a.body; (p = strstr(p, "route=\"")) != NULL;) {
    p += 7;
    size_t n = strcspn(p, "\"");
    bool known = n == 4 && strncmp(p, "none", 4) == 0;
    for (size_t i = 0; i < srv_api_route_count && !known; i++)
      known = strlen(srv_api_routes[i].label) == n &&
              strncmp(p, srv_api_routes[i].label, n) == 0;
    ck_assert_msg(known, "label %.*s is no row's", (int)n, p);
  }
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

Suite *api_router_suite(void) {
  Suite *s = suite_create("api_router");
  TCase *tc = tcase_create("router");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_every_row_access_class);
  tcase_add_test(tc, test_write_rows_refuse_a_read_token);
  tcase_add_test(tc, test_options_and_405_list_the_rows_methods);
  tcase_add_test(tc, test_metrics_labels_come_from_the_rows);
  suite_add_tcase(s, tc);
  return s;
}
