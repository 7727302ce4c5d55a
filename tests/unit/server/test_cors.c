/* Tests for the origin policy (server/cors.h) as pure functions, the
 * allowed_origins setting, and CORS through the in-memory transport:
 * preflights (204 with the Access-Control-Allow-* headers, 403 for an
 * origin not allowed), answers carrying Allow-Origin, Vary and
 * Expose-Headers, and the WebSocket upgrade refusing other origins. */
#include <check.h>
#include <string.h>

#include "http/http_memory_fixture.h"
#include "server/config.h"
#include "server/cors.h"

START_TEST(test_validate) {
  char err[256];
  const char *good[] = {"",
                        "*",
                        "loopback",
                        "null",
                        "http://a.example",
                        "https://a.example:8443, http://[::1]:5173",
                        "loopback,null  http://x:1",
                        "LOOPBACK"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(srv_cors_validate(good[i], err, sizeof err) == 0, "%s: %s",
                  good[i], err);
  const char *bad[] = {"localhost",    "http://",      "ftp://a",
                       "http://a/",    "http://a:",    "http://a:1234567",
                       "http://a b/c", "https://[::1", "http://[zz]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(srv_cors_validate(bad[i], err, sizeof err) == -1, "%s",
                  bad[i]);
    ck_assert_ptr_nonnull(strstr(err, "is not an origin"));
  }
}
END_TEST

START_TEST(test_allowed) {
  /* No Origin: not a browser (or a same-origin GET). */
  ck_assert(srv_cors_allowed("", NULL, NULL));
  /* loopback: any port, http or https, 127.0.0.0/8, ::1, localhost. */
  const char *loop[] = {"http://localhost:5173", "https://LOCALHOST",
                        "http://127.0.0.1:3000", "http://127.1.2.3",
                        "http://[::1]:8000"};
  for (size_t i = 0; i < sizeof loop / sizeof loop[0]; i++)
    ck_assert_msg(srv_cors_allowed("loopback", loop[i], "127.0.0.1:8080"), "%s",
                  loop[i]);
  const char *not_loop[] = {"http://localhost.evil.example",
                            "http://127.0.0.1.evil.example",
                            "http://128.0.0.1",
                            "http://127.0.0.256",
                            "http://[::2]",
                            "null",
                            "file://",
                            "http://127.0.0"};
  for (size_t i = 0; i < sizeof not_loop / sizeof not_loop[0]; i++)
    ck_assert_msg(!srv_cors_allowed("loopback", not_loop[i], "h:1"), "%s",
                  not_loop[i]);
  /* Exact origins, case-insensitive; null only when listed. */
  ck_assert(
      srv_cors_allowed("http://a.example:81", "http://A.example:81", NULL));
  ck_assert(
      !srv_cors_allowed("http://a.example:81", "http://a.example:82", NULL));
  ck_assert(
      !srv_cors_allowed("http://a.example", "http://a.example.evil", NULL));
  ck_assert(srv_cors_allowed("null", "null", NULL));
  ck_assert(srv_cors_allowed("*", "https://anything.example", NULL));
  /* Pages the daemon serves itself: Origin matches Host. */
  ck_assert(srv_cors_allowed("", "http://box.lan:8080", "box.lan:8080"));
  ck_assert(!srv_cors_allowed("", "http://box.lan:8081", "box.lan:8080"));
  ck_assert(!srv_cors_allowed("", "http://evil.example", NULL));
  /* Over-long origins are refused even by *. */
  char big[SRV_CORS_ORIGIN_MAX + 16] = "http://";
  memset(big + 7, 'a', sizeof big - 8);
  big[sizeof big - 1] = '\0';
  ck_assert(!srv_cors_allowed("*", big, NULL));
}
END_TEST

START_TEST(test_answer_headers) {
  char buf[512];
  ck_assert_uint_eq(
      srv_cors_answer_headers("loopback", NULL, "h", buf, sizeof buf), 0);
  size_t n = srv_cors_answer_headers("loopback", "http://localhost:3000", "h",
                                     buf, sizeof buf);
  ck_assert_uint_eq(n, strlen(buf));
  ck_assert_str_eq(
      buf, "Access-Control-Allow-Origin: http://localhost:3000\r\n"
           "Vary: Origin\r\n"
           "Access-Control-Expose-Headers: " SRV_CORS_EXPOSE_HEADERS "\r\n");
  srv_cors_answer_headers("*", "http://x.example", "h", buf, sizeof buf);
  ck_assert_str_eq(
      buf, "Access-Control-Allow-Origin: *\r\n"
           "Access-Control-Expose-Headers: " SRV_CORS_EXPOSE_HEADERS "\r\n");
  /* Refused: no Allow-Origin, but the answer depends on the origin. */
  srv_cors_answer_headers("loopback", "http://x.example", "h", buf, sizeof buf);
  ck_assert_str_eq(buf, "Vary: Origin\r\n");
  /* Too small: nothing written. */
  ck_assert_uint_eq(
      srv_cors_answer_headers("*", "http://x.example", "h", buf, 20), 0);
  ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_config_key) {
  srv_config_t c;
  srv_config_defaults(&c);
  ck_assert_str_eq(c.allowed_origins, "loopback");
  char err[512];
  ck_assert_int_eq(srv_config_set(&c, "allowed_origins",
                                  "http://a.example:8000, null", err,
                                  sizeof err),
                   0);
  ck_assert_str_eq(c.allowed_origins, "http://a.example:8000, null");
  ck_assert_int_eq(
      srv_config_set(&c, "allowed_origins", "a.example", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "allowed_origins: 'a.example'"));
  ck_assert_str_eq(c.allowed_origins, "http://a.example:8000, null");
}
END_TEST

/* Sends request text on a fresh client and returns the answer. */
static mem_answer_t ask(const char *text) {
  srv_http_memory_t *m = mem_client();
  mem_answer_t a = mem_request(m, text);
  srv_http_memory_free(m);
  return a;
}

START_TEST(test_preflight) {
  mem_server_start();
  mem_answer_t a = ask("OPTIONS /v1/pose HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                       "Origin: http://localhost:5173\r\n"
                       "Access-Control-Request-Method: POST\r\n"
                       "Access-Control-Request-Headers: content-type\r\n"
                       "\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAccess-Control-Allow-Origin: "
                                       "http://localhost:5173\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nVary: Origin\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAccess-Control-Allow-Methods: "
                                       "GET, HEAD, POST\r\n"));
  ck_assert_ptr_nonnull(
      strstr(a.head, "\r\nAccess-Control-Allow-Headers: " SRV_CORS_ALLOW_HEADERS
                     "\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAccess-Control-Max-Age: 600"));
  ck_assert_ptr_null(strstr(a.head, "Content-Length"));
  ck_assert_uint_eq(a.body_len, 0);
  mem_answer_free(&a);

  /* An asset path. */
  a = ask("OPTIONS /v1/clips/wave HTTP/1.1\r\nHost: h\r\n"
          "Origin: http://127.0.0.1:9\r\n"
          "Access-Control-Request-Method: DELETE\r\n\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_ptr_nonnull(strstr(a.head, "Access-Control-Allow-Methods: GET, "
                                       "HEAD, DELETE\r\n"));
  mem_answer_free(&a);

  /* Another origin: 403, nothing allowed. */
  a = ask("OPTIONS /v1/pose HTTP/1.1\r\nHost: h\r\n"
          "Origin: http://evil.example\r\n"
          "Access-Control-Request-Method: GET\r\n\r\n");
  ck_assert_int_eq(a.status, 403);
  char code[64];
  ck_assert_str_eq(mem_error_code(&a, code, sizeof code), "origin_not_allowed");
  ck_assert_ptr_null(strstr(a.head, "Access-Control-Allow"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nVary: Origin\r\n"));
  mem_answer_free(&a);

  /* Plain OPTIONS: the methods; an unknown path: 404. */
  a = ask("OPTIONS /healthz HTTP/1.1\r\nHost: h\r\n\r\n");
  ck_assert_int_eq(a.status, 204);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAllow: GET, HEAD, OPTIONS\r\n"));
  mem_answer_free(&a);
  a = ask("OPTIONS /nope HTTP/1.1\r\nHost: h\r\nOrigin: http://localhost\r\n"
          "Access-Control-Request-Method: GET\r\n\r\n");
  ck_assert_int_eq(a.status, 404);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_answers_carry_cors) {
  mem_server_start();
  mem_answer_t a = ask("GET /v1/pose?clip=wave&t=0.5&format=bin HTTP/1.1\r\n"
                       "Host: h\r\nOrigin: http://localhost:3000\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAccess-Control-Allow-Origin: "
                                       "http://localhost:3000\r\n"));
  ck_assert_ptr_nonnull(strstr(
      a.head,
      "\r\nAccess-Control-Expose-Headers: " SRV_CORS_EXPOSE_HEADERS "\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nX-Animd-Joints: 17\r\n"));
  mem_answer_free(&a);
  /* Errors too, so a page can read the error's code. */
  a = ask("GET /v1/pose?clip=nope&t=0 HTTP/1.1\r\nHost: h\r\n"
          "Origin: http://localhost:3000\r\n\r\n");
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(strstr(a.head, "Access-Control-Allow-Origin: "));
  mem_answer_free(&a);
  /* No Origin: no CORS header at all. */
  a = ask("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n");
  ck_assert_ptr_null(strstr(a.head, "Access-Control"));
  ck_assert_ptr_null(strstr(a.head, "Vary"));
  mem_answer_free(&a);
  /* Another origin: answered, but the browser may not read it. */
  a = ask("GET /healthz HTTP/1.1\r\nHost: h\r\n"
          "Origin: https://evil.example\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_null(strstr(a.head, "Access-Control"));
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_star) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.allowed_origins, sizeof cfg.allowed_origins, "*");
  mem_server_start_cfg(&cfg);
  mem_answer_t a = ask("GET /healthz HTTP/1.1\r\nHost: h\r\n"
                       "Origin: https://any.example\r\n\r\n");
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAccess-Control-Allow-Origin: "
                                       "*\r\n"));
  ck_assert_ptr_null(strstr(a.head, "Vary"));
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

#define WS_HANDSHAKE                                                           \
  "GET /v1/stream HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n"               \
  "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"                       \
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

START_TEST(test_ws_origin_refused) {
  mem_server_start();
  mem_answer_t a = ask(WS_HANDSHAKE "Origin: http://evil.example\r\n\r\n");
  ck_assert_int_eq(a.status, 403);
  char code[64];
  ck_assert_str_eq(mem_error_code(&a, code, sizeof code), "origin_not_allowed");
  mem_answer_free(&a);
  /* A bad handshake is still told apart first. */
  a = ask("GET /v1/stream HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n"
          "Connection: Upgrade\r\nSec-WebSocket-Version: 12\r\n"
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Origin: http://evil.example\r\n\r\n");
  ck_assert_int_eq(a.status, 426);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

/* DNS rebinding: a page of evil.test whose name resolves to the daemon is
 * its own origin there (Origin http://evil.test:8080, Host evil.test:8080)
 * and got 201, 200, 204 and the upgrade. Such a Host is now 421 on every
 * path, and its Origin is not the daemon's own; a Host that names the
 * daemon is served. */
START_TEST(test_rebinding_host_refused) {
  mem_server_start();
  static const char *const requests[] = {
      "POST /v1/assets HTTP/1.1\r\nHost: evil.test:8080\r\n"
      "Origin: http://evil.test:8080\r\nContent-Type: application/json\r\n"
      "Content-Length: 2\r\n\r\n{}",
      "DELETE /v1/clips/wave HTTP/1.1\r\nHost: evil.test:8080\r\n"
      "Origin: http://evil.test:8080\r\n\r\n",
      "OPTIONS /v1/assets HTTP/1.1\r\nHost: evil.test:8080\r\n"
      "Origin: http://evil.test:8080\r\n"
      "Access-Control-Request-Method: POST\r\n\r\n",
      "GET /v1/stream HTTP/1.1\r\nHost: evil.test:8080\r\n"
      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      "Origin: http://evil.test:8080\r\n\r\n",
      "GET /v1/assets HTTP/1.1\r\nHost: evil.test:8080\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: evil.test\r\n\r\n",
  };
  for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
    mem_answer_t a = ask(requests[i]);
    char code[64];
    ck_assert_msg(a.status == 421, "%.40s: %d", requests[i], a.status);
    ck_assert_str_eq(mem_error_code(&a, code, sizeof code),
                     "misdirected_request");
    ck_assert_msg(strncmp(a.head, "HTTP/1.1 421 Misdirected Request\r\n", 34) ==
                      0,
                  "%s", a.head);
    /* Its Origin is no one's own here: no Allow-Origin. */
    ck_assert_ptr_null(strstr(a.head, "Access-Control-Allow-Origin"));
    mem_answer_free(&a);
  }
  /* Names of the daemon: loopback, with any port, and the configured. */
  static const char *const hosts[] = {"localhost:8080", "127.0.0.1:1",
                                      "[::1]:8080", "x"};
  for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
    char req[256];
    snprintf(req, sizeof req,
             "OPTIONS /v1/assets HTTP/1.1\r\nHost: %s\r\n"
             "Origin: http://%s\r\nAccess-Control-Request-Method: "
             "POST\r\n\r\n",
             hosts[i], hosts[i]);
    mem_answer_t a = ask(req);
    ck_assert_msg(a.status == 204, "%s: %d", hosts[i], a.status);
    mem_answer_free(&a);
  }
  mem_server_stop();
}
END_TEST

/* allowed_hosts names more hosts; its Origin is then the daemon's own. */
START_TEST(test_allowed_hosts_setting) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.allowed_hosts, sizeof cfg.allowed_hosts, "animd.example");
  mem_server_start_cfg(&cfg);
  mem_answer_t a = ask("GET /healthz HTTP/1.1\r\nHost: animd.example:8080\r\n"
                       "Origin: http://animd.example:8080\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(
      a.head, "Access-Control-Allow-Origin: http://animd.example:8080\r\n"));
  mem_answer_free(&a);
  a = ask("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_int_eq(a.status, 421);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

Suite *web_cors_suite(void) {
  Suite *s = suite_create("web_cors");
  TCase *tc = tcase_create("policy");
  tcase_add_test(tc, test_validate);
  tcase_add_test(tc, test_allowed);
  tcase_add_test(tc, test_answer_headers);
  tcase_add_test(tc, test_config_key);
  suite_add_tcase(s, tc);
  TCase *th = tcase_create("http");
  tcase_set_timeout(th, 60);
  tcase_add_test(th, test_preflight);
  tcase_add_test(th, test_answers_carry_cors);
  tcase_add_test(th, test_star);
  tcase_add_test(th, test_ws_origin_refused);
  tcase_add_test(th, test_rebinding_host_refused);
  tcase_add_test(th, test_allowed_hosts_setting);
  suite_add_tcase(s, th);
  return s;
}
