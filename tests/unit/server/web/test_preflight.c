/* Tests for OPTIONS answers (server/web/preflight.h) through the
 * in-memory transport with a route that only calls srv_web_preflight: a
 * plain OPTIONS gets 204 with Allow, a preflight from an allowed origin
 * 204 with the Access-Control-Allow-Methods/-Headers/-Max-Age headers and
 * the Allow-Origin every answer carries, one from another origin 403
 * origin_not_allowed; the page the daemon serves itself is always
 * allowed, and "*" answers with Allow-Origin: *. */
#include <check.h>
#include <string.h>

#include "../http/http_host_fixture.h"
#include "server/cors.h"
#include "server/web/preflight.h"

static void route(srv_request_t *req) {
  srv_web_preflight(req, strcmp(req->path, "/w") == 0 ? "POST" : "GET, HEAD");
}

static void start(const char *origins) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.allowed_origins, sizeof cfg.allowed_origins, "%s", origins);
  hfx_start(&cfg, 2000, route);
}

/* OPTIONS target with extra header lines; the answer. */
static hfx_answer_t options(const char *target, const char *headers) {
  srv_http_memory_t *m = hfx_client();
  char text[1024];
  snprintf(text, sizeof text,
           "OPTIONS %s HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
           "%s\r\n",
           target, headers);
  hfx_answer_t a = hfx_request(m, text);
  srv_http_memory_free(m);
  return a;
}

START_TEST(test_plain_options) {
  start("loopback");
  char v[512];
  hfx_answer_t a = options("/r", "");
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v), "GET, HEAD, OPTIONS");
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Origin", v, sizeof v),
                   "");
  ck_assert_str_eq(hfx_header(&a, "Content-Length", v, sizeof v), "");
  ck_assert_uint_eq(a.body_len, 0);
  hfx_free(&a);
  a = options("/w", "");
  ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v), "POST, OPTIONS");
  hfx_free(&a);
  /* An Origin without Access-Control-Request-Method is no preflight:
   * still Allow, plus the CORS headers of any answer. */
  a = options("/r", "Origin: http://localhost:5173\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v), "GET, HEAD, OPTIONS");
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Origin", v, sizeof v),
                   "http://localhost:5173");
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Methods", v, sizeof v),
                   "");
  hfx_free(&a);
  hfx_stop();
}
END_TEST

START_TEST(test_preflight_allowed) {
  start("loopback");
  char v[512];
  hfx_answer_t a = options("/w", "Origin: http://127.0.0.1:3000\r\n"
                                 "Access-Control-Request-Method: POST\r\n"
                                 "Access-Control-Request-Headers: "
                                 "content-type\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Methods", v, sizeof v),
                   "POST");
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Headers", v, sizeof v),
                   SRV_CORS_ALLOW_HEADERS);
  ck_assert_int_eq(atoi(hfx_header(&a, "Access-Control-Max-Age", v, sizeof v)),
                   SRV_CORS_MAX_AGE);
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Origin", v, sizeof v),
                   "http://127.0.0.1:3000");
  ck_assert_str_eq(hfx_header(&a, "Vary", v, sizeof v), "Origin");
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Expose-Headers", v, sizeof v),
                   SRV_CORS_EXPOSE_HEADERS);
  ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v), "");
  hfx_free(&a);
  /* The page the daemon serves itself, whatever the list. */
  hfx_stop();
  start("");
  a = options("/r", "Origin: http://127.0.0.1:8080\r\n"
                    "Access-Control-Request-Method: GET\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Methods", v, sizeof v),
                   "GET, HEAD");
  hfx_free(&a);
  hfx_stop();
  /* Any origin. */
  start("*");
  a = options("/r", "Origin: https://far.example\r\n"
                    "Access-Control-Request-Method: GET\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Origin", v, sizeof v),
                   "*");
  ck_assert_str_eq(hfx_header(&a, "Vary", v, sizeof v), "");
  hfx_free(&a);
  hfx_stop();
}
END_TEST

START_TEST(test_preflight_refused) {
  start("loopback, https://app.example");
  char v[512], code[64];
  const char *origins[] = {"https://evil.example", "null", "http://app.example",
                           "https://app.example:444"};
  for (size_t i = 0; i < sizeof origins / sizeof origins[0]; i++) {
    char headers[256];
    snprintf(headers, sizeof headers,
             "Origin: %s\r\nAccess-Control-Request-Method: GET\r\n",
             origins[i]);
    hfx_answer_t a = options("/r", headers);
    ck_assert_msg(a.status == 403, "%s: %d", origins[i], a.status);
    ck_assert_str_eq(hfx_code(&a, code, sizeof code), "origin_not_allowed");
    ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"Origin\""));
    ck_assert_ptr_nonnull(strstr(a.body, "allowed_origins"));
    ck_assert_str_eq(hfx_header(&a, "Access-Control-Allow-Origin", v, sizeof v),
                     "");
    ck_assert_str_eq(hfx_header(&a, "Vary", v, sizeof v), "Origin");
    hfx_free(&a);
  }
  /* The listed origin, exactly. */
  hfx_answer_t a = options("/r", "Origin: https://app.example\r\n"
                                 "Access-Control-Request-Method: GET\r\n");
  ck_assert_int_eq(a.status, 204);
  hfx_free(&a);
  hfx_stop();
}
END_TEST

Suite *server_web_preflight_suite(void) {
  Suite *s = suite_create("server_web_preflight");
  TCase *tc = tcase_create("preflight");
  tcase_add_test(tc, test_plain_options);
  tcase_add_test(tc, test_preflight_allowed);
  tcase_add_test(tc, test_preflight_refused);
  suite_add_tcase(s, tc);
  return s;
}
