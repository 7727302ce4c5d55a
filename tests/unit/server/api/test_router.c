/* Tests for the routing table (api/router.h): the access class of every
 * row; every write route refused to a read token; OPTIONS and 405 Allow
 * listing exactly the methods of the rows that match the path; 404 for an
 * unknown path; the /metrics route labels of the rows; the router's
 * lookup against a reference matcher (a string compare per row) on every
 * row's path and every one-byte change of it, and on the edge paths
 * (trailing slash, empty {id}, an {id} with '/', the longest {id},
 * percent-encoded segments). Through the in-memory transport (a real
 * server, no socket). */
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

/* ---- the reference: the rows walked with a string compare each ---- */

#define REF_ID_MAX 255

/* Whether path matches r's pattern: prefix, then (with an {id}) one
 * non-empty segment of at most REF_ID_MAX bytes without '/', then
 * suffix. */
static bool ref_matches(const srv_route_t *r, const char *path) {
  if (!r->id) return strcmp(path, r->prefix) == 0;
  size_t n = strlen(r->prefix);
  if (strncmp(path, r->prefix, n) != 0) return false;
  const char *seg = path + n;
  size_t len = strlen(seg), sl = strlen(r->suffix);
  if (len < sl + 1 || strcmp(seg + len - sl, r->suffix) != 0) return false;
  size_t idl = len - sl;
  return idl <= REF_ID_MAX && memchr(seg, '/', idl) == NULL;
}

/* The first row of method on path; *allow: the methods of every row that
 * matches path. */
static const srv_route_t *ref_match(srv_method method, const char *path,
                                    unsigned *allow) {
  const srv_route_t *found = NULL;
  *allow = 0;
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    if (!ref_matches(r, path)) continue;
    *allow |= r->methods;
    if (found == NULL && (r->methods & (1u << method)) != 0) found = r;
  }
  return found;
}

/* srv_api_match agrees with the reference on path for every method;
 * returns how many methods found a row. */
static int agrees(const char *path) {
  int rows = 0;
  for (unsigned m = 0; m <= SRV_OTHER; m++) {
    unsigned want_allow, got_allow;
    const srv_route_t *want = ref_match((srv_method)m, path, &want_allow);
    const srv_route_t *got = srv_api_match((srv_method)m, path, &got_allow);
    ck_assert_msg(got == want, "method %u, path '%s': row %td, want %td", m,
                  path, got ? got - srv_api_routes : -1,
                  want ? want - srv_api_routes : -1);
    ck_assert_msg(got_allow == want_allow, "path '%s': allow %x, want %x", path,
                  got_allow, want_allow);
    rows += got != NULL;
  }
  return rows;
}

START_TEST(test_lookup_agrees_with_a_compare_per_row) {
  static const char bytes[] = {'/', 'x', 'v', '1', 's', '.', '%', 'Z', '\x7f'};
  int found = 0, checked = 0;
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    char path[128], changed[130];
    path_of(r, path, sizeof path);
    ck_assert_int_gt(agrees(path), 0);
    size_t n = strlen(path);
    for (size_t at = 0; at <= n; at++) {
      /* Each byte replaced, removed; a byte inserted before it. */
      for (size_t b = 0; b < sizeof bytes && at < n; b++) {
        if (path[at] == bytes[b]) continue;
        memcpy(changed, path, n + 1);
        changed[at] = bytes[b];
        found += agrees(changed);
        checked++;
      }
      if (at < n) {
        memcpy(changed, path, at);
        memcpy(changed + at, path + at + 1, n - at);
        found += agrees(changed);
        checked++;
      }
      for (size_t b = 0; b < sizeof bytes; b++) {
        memcpy(changed, path, at);
        changed[at] = bytes[b];
        memcpy(changed + at + 1, path + at, n - at + 1);
        found += agrees(changed);
        checked++;
      }
    }
    /* A trailing slash; the {id} empty, or holding a '/'. */
    snprintf(changed, sizeof changed, "%s/", path);
    ck_assert_int_eq(agrees(changed), 0);
    if (r->id) {
      snprintf(changed, sizeof changed, "%s%s", r->prefix, r->suffix);
      ck_assert_int_eq(agrees(changed), 0);
      snprintf(changed, sizeof changed, "%sa/b%s", r->prefix, r->suffix);
      ck_assert_int_eq(agrees(changed), 0);
    }
  }
  /* Some changes land on other paths of the API ("/v1/skeletons/x"
   * with its {id} changed), most on none. */
  ck_assert_int_gt(found, 0);
  ck_assert_int_gt(checked, 4 * found);
  /* Paths that are no API path at all. */
  const char *none[] = {"",
                        "/",
                        "*",
                        "v1/pose",
                        "//v1/pose",
                        "/v1//pose",
                        "/V1/pose",
                        "/v1/pose\\x",
                        "/a/b/c/d/e/f/g/h/i/j/k",
                        "/v1/skeletons/a/b/c/d/e/f"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    ck_assert_int_eq(agrees(none[i]), 0);
    unsigned allow;
    ck_assert_ptr_null(srv_api_match(SRV_GET, none[i], &allow));
    ck_assert_uint_eq(allow, 0);
  }
}
END_TEST

START_TEST(test_lookup_id_bounds) {
  /* The longest {id}: REF_ID_MAX bytes, one more is no path. */
  char path[512], id[REF_ID_MAX + 2];
  memset(id, 'a', sizeof id - 1);
  id[sizeof id - 1] = '\0';
  unsigned allow;
  snprintf(path, sizeof path, "/v1/clips/%.*s/plot", REF_ID_MAX, id);
  ck_assert_int_eq(agrees(path), 2);
  const srv_route_t *r = srv_api_match(SRV_GET, path, &allow);
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->label, "clip_plot");
  ck_assert_uint_eq(allow, SRV_M_GET | SRV_M_HEAD);
  snprintf(path, sizeof path, "/v1/clips/%s/plot", id);
  ck_assert_int_eq(agrees(path), 0);
  ck_assert_ptr_null(srv_api_match(SRV_GET, path, &allow));
  ck_assert_uint_eq(allow, 0);
  snprintf(path, sizeof path, "/v1/meshes/%.*s", REF_ID_MAX, id);
  ck_assert_ptr_nonnull(srv_api_match(SRV_DELETE, path, &allow));
  ck_assert_uint_eq(allow, SRV_M_GET | SRV_M_HEAD | SRV_M_DELETE);
  snprintf(path, sizeof path, "/v1/meshes/%s", id);
  ck_assert_ptr_null(srv_api_match(SRV_DELETE, path, &allow));
  ck_assert_uint_eq(allow, 0);
  /* An {id} that is a word of other rows is still an {id}. */
  r = srv_api_match(SRV_GET, "/v1/skeletons/clips", &allow);
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_eq(r->handle_id, srv_api_routes[13].handle_id);
  r = srv_api_match(SRV_GET, "/v1/skeletons/skeletons/clips", &allow);
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->suffix, "/clips");
}
END_TEST

/* Through HTTP: the path is matched percent-decoded; an {id} reaches the
 * handler decoded; the longest {id} and one byte more. */
START_TEST(test_percent_encoded_and_long_paths) {
  mem_server_start();
  static const struct {
    const char *method, *target;
    int status;
    const char *allow; /* For a 405. */
  } cases[] = {
      {"PATCH", "/v1/%70ose", 405, "GET, HEAD, POST"},
      {"PATCH", "/v1%2Fpose", 405, "GET, HEAD, POST"},
      {"PATCH", "/v1/pose%2F", 404, NULL},
      {"PATCH", "/v1/skeletons/a%20b", 405, "GET, HEAD, DELETE"},
      {"PATCH", "/v1/skeletons/a%2Fb", 404, NULL},
      {"PATCH", "/v1/skeletons/%2F", 404, NULL},
      {"PATCH", "/v1/skeletons/x%2Fclips", 405, "GET, HEAD"},
      {"PATCH", "/v1/skeletons/", 404, NULL},
      {"PATCH", "/v1/skeletons//clips", 404, NULL},
      {"PATCH", "/v1/pose/", 404, NULL},
      {"PATCH", "/v1/Pose", 404, NULL},
      {"PATCH", "/v1/pos", 404, NULL},
      {"PATCH", "/v1/posee", 404, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mem_answer_t a = call(cases[i].method, cases[i].target, NULL);
    char got[128];
    ck_assert_msg(a.status == cases[i].status, "%s: %d", cases[i].target,
                  a.status);
    if (cases[i].allow)
      ck_assert_str_eq(header_of(&a, "Allow", got, sizeof got), cases[i].allow);
    mem_answer_free(&a);
  }
  /* The handler is given the decoded {id}. */
  mem_answer_t a = call("GET", "/v1/skeletons/ab%2Bc%20d", NULL);
  ck_assert_int_eq(a.status, 404);
  ck_assert_msg(strstr(a.body, "ab+c d") != NULL, "%s", a.body);
  mem_answer_free(&a);
  char target[900];
  char id[REF_ID_MAX + 2];
  memset(id, 'q', sizeof id - 1);
  id[sizeof id - 1] = '\0';
  snprintf(target, sizeof target, "/v1/skeletons/%.*s", REF_ID_MAX, id);
  a = call("PATCH", target, NULL);
  ck_assert_int_eq(a.status, 405);
  mem_answer_free(&a);
  snprintf(target, sizeof target, "/v1/skeletons/%s", id);
  a = call("PATCH", target, NULL);
  ck_assert_int_eq(a.status, 404);
  mem_answer_free(&a);
  /* Encoded bytes count decoded: 255 bytes spelt as 765. */
  char *p = target + snprintf(target, sizeof target, "/v1/meshes/");
  for (int i = 0; i < REF_ID_MAX; i++) p += sprintf(p, "%%71");
  snprintf(p, 8, "/image");
  a = call("PATCH", target, NULL);
  ck_assert_int_eq(a.status, 405);
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
  tcase_add_test(tc, test_lookup_agrees_with_a_compare_per_row);
  tcase_add_test(tc, test_lookup_id_bounds);
  tcase_add_test(tc, test_percent_encoded_and_long_paths);
  suite_add_tcase(s, tc);
  return s;
}
