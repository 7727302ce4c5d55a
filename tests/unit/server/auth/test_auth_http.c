/* Tests for access control through the in-memory transport (a real
 * server, no socket): every protected route without a token, with a wrong
 * one, a too weak one and the right one (status, code, WWW-Authenticate);
 * the query token on /v1/stream only; the open routes; the mode without
 * tokens beyond loopback; write rate limits with Retry-After and their
 * /metrics counters; the access log's token id and redacted targets; and
 * the access-control settings. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../http/http_memory_fixture.h"
#include "server/auth/auth.h"
#include "tokens_fixture.h"

static char tokens_path[64];

/* Writes a tokens file listing T_READ, T_WRITE and T_ADMIN. */
static void write_tokens(void) {
  tokens_path[0] = '\0';
  tokens_fixture_write_three(tokens_path);
}

static void start_with_tokens(bool reads, bool metrics) {
  write_tokens();
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "%s", tokens_path);
  cfg.auth_reads = reads;
  cfg.auth_metrics = metrics;
  mem_server_start_cfg(&cfg);
}

static void stop(void) {
  mem_server_stop();
  if (tokens_path[0]) unlink(tokens_path);
  tokens_path[0] = '\0';
}

static const char skeleton_body[] =
    "{\"skeleton\":{\"name\":\"stick\",\"joints\":[{\"name\":\"root\","
    "\"parent\":-1}]}}";

/* Sends method target with an optional Authorization bearer token (NULL:
 * none) and a JSON body for POST. */
static mem_answer_t call(const char *method, const char *target,
                         const char *token) {
  char auth[256] = "";
  if (token != NULL)
    snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
  const char *body =
      strcmp(method, "POST") == 0
          ? (strstr(target, "assets") ? skeleton_body : "{\"x\":1}")
          : "";
  char req[2048];
  snprintf(req, sizeof req,
           "%s %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\n"
           "Content-Length: %zu\r\n\r\n%s",
           method, target, auth, strlen(body), body);
  srv_http_memory_t *m = mem_client();
  mem_answer_t a = mem_request(m, req);
  srv_http_memory_free(m);
  return a;
}

static void expect(const char *method, const char *target, const char *token,
                   int status, const char *code, const char *www) {
  mem_answer_t a = call(method, target, token);
  char c[64];
  ck_assert_msg(a.status == status, "%s %s (%s): %d, wanted %d: %s", method,
                target, token ? token : "no token", a.status, status, a.body);
  if (code != NULL)
    ck_assert_msg(strcmp(mem_error_code(&a, c, sizeof c), code) == 0,
                  "%s %s: code %s", method, target, c);
  if (www != NULL)
    ck_assert_msg(strstr(a.head, www) != NULL, "%s %s: head %s", method, target,
                  a.head);
  /* No answer ever repeats a token. */
  ck_assert_ptr_null(strstr(a.body, "-token-"));
  ck_assert_ptr_null(strstr(a.head, "-token-"));
  mem_answer_free(&a);
}

#define MISSING "WWW-Authenticate: Bearer realm=\"animd\"\r\n"
#define INVALID "error=\"invalid_token\""

/* A route needing need; weak is a token one scope too weak (NULL: none
 * weaker than read); ok is the status when admitted. */
typedef struct route_case_s {
  const char *method, *target;
  const char *weak, *right;
  int ok;
} route_case_t;

static const route_case_t protected_routes[] = {
    /* Writes: a write token (read is too weak). */
    {"POST", "/v1/assets", T_READ, T_WRITE, 201},
    {"DELETE", "/v1/clips/nope", T_READ, T_WRITE, 404},
    {"DELETE", "/v1/meshes/nope", T_READ, T_ADMIN, 404},
    {"DELETE", "/v1/skeletons/nope", T_READ, T_WRITE, 404},
    /* Reads with auth_reads: any token. */
    {"GET", "/v1/pose?clip=wave&t=0.5", NULL, T_READ, 200},
    {"POST", "/v1/pose", NULL, T_READ, 400},
    {"GET", "/v1/pose?clip=wave&from=0&to=0.1&fps=10", NULL, T_WRITE, 200},
    {"GET", "/v1/skin?mesh=body&clip=wave&t=0.5", NULL, T_READ, 200},
    {"POST", "/v1/solve", NULL, T_ADMIN, 400},
    {"GET", "/v1/assets", NULL, T_READ, 200},
    {"HEAD", "/v1/assets", NULL, T_READ, 200},
    {"GET", "/v1/skeletons/demo-humanoid", NULL, T_READ, 200},
    {"GET", "/v1/clips/wave", NULL, T_READ, 200},
    {"GET", "/v1/meshes/body", NULL, T_READ, 200},
    {"GET", "/v1/info", NULL, T_READ, 200},
    {"GET", "/v1/stream", NULL, T_READ, 400}, /* admitted: no Upgrade */
    /* /metrics with auth_metrics: admin (write is too weak). */
    {"GET", "/metrics", T_WRITE, T_ADMIN, 200},
};

START_TEST(test_every_protected_route) {
  start_with_tokens(true, true);
  for (size_t i = 0; i < sizeof protected_routes / sizeof protected_routes[0];
       i++) {
    const route_case_t *rc = &protected_routes[i];
    expect(rc->method, rc->target, NULL, 401, NULL, MISSING);
    expect(rc->method, rc->target, "not-a-known-token", 401, NULL, INVALID);
    expect(rc->method, rc->target, T_WRITE "x", 401, NULL, INVALID);
    if (rc->weak != NULL)
      expect(rc->method, rc->target, rc->weak, 403, NULL,
             "error=\"insufficient_scope\"");
    expect(rc->method, rc->target, rc->right, rc->ok, NULL, NULL);
  }
  /* The JSON error of each refusal. */
  expect("POST", "/v1/assets", NULL, 401, "unauthorized", NULL);
  expect("POST", "/v1/assets", T_READ, 403, "forbidden", NULL);
  /* Not a bearer scheme: no token. */
  mem_answer_t a = mem_get("/v1/info");
  ck_assert_int_eq(a.status, 401);
  mem_answer_free(&a);
  srv_http_memory_t *m = mem_client();
  a = mem_request(m, "GET /v1/info HTTP/1.1\r\nHost: x\r\n"
                     "Authorization: Basic " T_READ "\r\n\r\n");
  ck_assert_int_eq(a.status, 401);
  mem_answer_free(&a);
  /* The scheme is case-insensitive. */
  a = mem_request(m, "GET /v1/info HTTP/1.1\r\nHost: x\r\n"
                     "Authorization: bearer   " T_READ "\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  mem_answer_free(&a);
  srv_http_memory_free(m);
  /* Always open: /healthz; unknown paths and methods answer as before. */
  expect("GET", "/healthz", NULL, 200, NULL, NULL);
  expect("GET", "/nope", NULL, 404, "not_found", NULL);
  expect("PUT", "/v1/assets", NULL, 405, "method_not_allowed", NULL);
  /* Refusals count under their route. */
  a = call("GET", "/metrics", T_ADMIN);
  ck_assert_ptr_nonnull(strstr(a.body,
                               "animd_requests_total{route=\"assets_upload\","
                               "status=\"401\"}"));
  ck_assert_ptr_nonnull(strstr(a.body, "animd_auth_refused_total{code="
                                       "\"unauthorized\"}"));
  ck_assert_ptr_nonnull(strstr(a.body, "animd_auth_tokens 3\n"));
  mem_answer_free(&a);
  stop();
}
END_TEST

START_TEST(test_stream_query_token) {
  start_with_tokens(true, false);
  /* Admitted (then 400: no Upgrade header in this request). */
  expect("GET", "/v1/stream?token=" T_READ, NULL, 400, "upgrade_required",
         NULL);
  /* Percent-encoded, as a browser may send it. */
  expect("GET", "/v1/stream?token=read%2Dtoken-0123456789", NULL, 400,
         "upgrade_required", NULL);
  expect("GET", "/v1/stream?token=wrong", NULL, 401, "unauthorized", INVALID);
  expect("GET", "/v1/stream?token=", NULL, 401, "unauthorized", MISSING);
  /* A name with a NUL or another control character is refused before any
   * lookup: "token%00" was taken for "token" (the log's redaction saw
   * another name and wrote the token out). */
  expect("GET", "/v1/stream?token%00=" T_READ, NULL, 400, "bad_parameter",
         NULL);
  expect("GET", "/v1/pose?clip=wave&t=0&x%0A=1", NULL, 400, "bad_parameter",
         NULL);
  /* Only on /v1/stream. */
  expect("GET", "/v1/pose?clip=wave&t=0&token=" T_READ, NULL, 401,
         "unauthorized", MISSING);
  expect("GET", "/v1/info?token=" T_ADMIN, NULL, 401, "unauthorized", NULL);
  /* A real upgrade with the query token goes to a stream loop (101 is
   * written there: the memory transport cannot hand off, so 500). */
  srv_http_memory_t *m = mem_client();
  mem_answer_t a =
      mem_request(m, "GET /v1/stream?token=" T_READ " HTTP/1.1\r\nHost: x\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n");
  ck_assert_int_ne(a.status, 401);
  mem_answer_free(&a);
  srv_http_memory_free(m);
  /* Without it, the upgrade is refused and the connection closes. */
  m = mem_client();
  a = mem_request(m, "GET /v1/stream HTTP/1.1\r\nHost: x\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n");
  ck_assert_int_eq(a.status, 401);
  mem_answer_free(&a);
  srv_http_memory_free(m);
  /* Reads open: streams need nothing, writes still do. */
  stop();
  start_with_tokens(false, false);
  expect("GET", "/v1/stream", NULL, 400, "upgrade_required", NULL);
  expect("GET", "/v1/pose?clip=wave&t=0.5", NULL, 200, NULL, NULL);
  expect("GET", "/metrics", NULL, 200, NULL, NULL);
  expect("DELETE", "/v1/clips/nope", NULL, 401, "unauthorized", MISSING);
  stop();
}
END_TEST

START_TEST(test_no_tokens_beyond_loopback) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  mem_server_start_cfg(&cfg);
  srv_auth_t *auth = srv_server_auth(mem_srv.server);
  char line[512];
  srv_auth_describe(auth, line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "open (loopback only"));
  ck_assert_ptr_nonnull(strstr(line, "rate limits off"));
  expect("DELETE", "/v1/clips/nope", NULL, 404, NULL, NULL);
  ck_assert_int_eq(srv_auth_set_exposed(auth, true), 0);
  srv_auth_describe(auth, line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "read-only beyond loopback"));
  ck_assert_ptr_nonnull(strstr(line, "rate limits per address"));
  mem_answer_t a = call("POST", "/v1/assets", NULL);
  ck_assert_int_eq(a.status, 403);
  ck_assert_ptr_nonnull(strstr(a.body, "\"forbidden\""));
  ck_assert_ptr_nonnull(strstr(a.body, "tokens_file"));
  ck_assert_ptr_nonnull(strstr(a.body, "allow_anonymous_writes = true"));
  ck_assert_ptr_null(strstr(a.head, "WWW-Authenticate"));
  mem_answer_free(&a);
  expect("DELETE", "/v1/clips/wave", NULL, 403, "forbidden", NULL);
  /* A token does not help without a tokens file. */
  expect("DELETE", "/v1/clips/wave", T_ADMIN, 403, "forbidden", NULL);
  expect("GET", "/v1/clips/wave", NULL, 200, NULL, NULL);
  expect("GET", "/metrics", NULL, 200, NULL, NULL);
  mem_server_stop();

  srv_config_defaults(&cfg);
  cfg.allow_anonymous_writes = true;
  mem_server_start_cfg(&cfg);
  auth = srv_server_auth(mem_srv.server);
  ck_assert_int_eq(srv_auth_set_exposed(auth, true), 0);
  srv_auth_describe(auth, line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "open to anonymous writes"));
  expect("POST", "/v1/assets", NULL, 201, NULL, NULL);
  mem_server_stop();
}
END_TEST

START_TEST(test_write_rate_limit) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  char err[128];
  ck_assert_int_eq(srv_config_set(&cfg, "rate_limits", "on", err, sizeof err),
                   0);
  ck_assert_int_eq(srv_config_set(&cfg, "write_rate", "1/h", err, sizeof err),
                   0);
  cfg.write_burst = 2;
  mem_server_start_cfg(&cfg);
  expect("DELETE", "/v1/clips/nope", NULL, 404, NULL, NULL);
  expect("DELETE", "/v1/clips/nope", NULL, 404, NULL, NULL);
  mem_answer_t a = call("DELETE", "/v1/clips/nope", NULL);
  ck_assert_int_eq(a.status, 429);
  ck_assert_ptr_nonnull(strstr(a.head, "429 Too Many Requests"));
  /* One token an hour: the next is 3600 s away. */
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nRetry-After: 3600\r\n"));
  ck_assert_ptr_nonnull(strstr(a.body, "\"rate_limited\""));
  mem_answer_free(&a);
  /* Reads are not limited. */
  for (int i = 0; i < 5; i++)
    expect("GET", "/v1/clips/wave", NULL, 200, NULL, NULL);
  a = call("GET", "/metrics", NULL);
  ck_assert_ptr_nonnull(
      strstr(a.body, "animd_rate_limited_total{kind=\"write\"} 1\n"));
  ck_assert_ptr_nonnull(
      strstr(a.body, "animd_rate_limited_total{kind=\"connection\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(a.body, "animd_rate_limit_addresses 1\n"));
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_log_names_tokens_by_hash) {
  char id[SRV_TOKEN_ID_LEN + 1];
  srv_request_t r;
  memset(&r, 0, sizeof r);
  r.path = "/v1/assets";
  r.headers[0] = (srv_kv_t){"authorization", "Bearer abc"};
  r.header_count = 1;
  srv_auth_log_id(&r, id);
  ck_assert_str_eq(id, "ba7816bf"); /* SHA-256("abc"), FIPS 180-2 */
  r.header_count = 0;
  srv_auth_log_id(&r, id);
  ck_assert_str_eq(id, "-");
  /* The query token counts on a route that takes it (the router sets
   * query_token from the row: /v1/stream) only. */
  r.path = "/v1/stream";
  r.query_token = true;
  r.params[0] = (srv_kv_t){"token", "abc"};
  r.param_count = 1;
  srv_auth_log_id(&r, id);
  ck_assert_str_eq(id, "ba7816bf");
  r.path = "/v1/pose";
  r.query_token = false;
  srv_auth_log_id(&r, id);
  ck_assert_str_eq(id, "-");

  char out[256];
  srv_auth_redact_target("/v1/stream?token=s3cret&x=1", out, sizeof out);
  ck_assert_str_eq(out, "/v1/stream?token=*&x=1");
  srv_auth_redact_target("/v1/stream?a=1&t%6Fken=s3cret&tokens=2&token", out,
                         sizeof out);
  ck_assert_str_eq(out, "/v1/stream?a=1&t%6Fken=*&tokens=2&token");
  srv_auth_redact_target("/v1/pose?clip=a&token=s3cret", out, sizeof out);
  ck_assert_str_eq(out, "/v1/pose?clip=a&token=*");
  /* Names decode as the request's parameters do: "token%00" is looked up
   * as "token", and a name with a control character is refused, so
   * neither value is logged. */
  srv_auth_redact_target("/v1/stream?token%00=s3cret&x=1", out, sizeof out);
  ck_assert_str_eq(out, "/v1/stream?token%00=*&x=1");
  srv_auth_redact_target("/v1/stream?tok%6fen%00x=s3cret", out, sizeof out);
  ck_assert_str_eq(out, "/v1/stream?tok%6fen%00x=*");
  srv_auth_redact_target("/v1/stream?a%0a=s3cret&t%7f=2&b%20=3", out,
                         sizeof out);
  ck_assert_str_eq(out, "/v1/stream?a%0a=*&t%7f=*&b%20=3");
  srv_auth_redact_target("/healthz", out, sizeof out);
  ck_assert_str_eq(out, "/healthz");
  srv_auth_redact_target("/x?token=s3cret", out, 10);
  ck_assert_str_eq(out, "/x?token=");
}
END_TEST

START_TEST(test_settings) {
  srv_config_t c;
  srv_config_defaults(&c);
  ck_assert_str_eq(c.rate_limits, "auto");
  ck_assert_str_eq(c.tokens_file, "");
  ck_assert(!c.auth_reads && !c.auth_metrics && !c.allow_anonymous_writes);
  char err[256];
  ck_assert_int_eq(
      srv_config_set(&c, "rate_limits", "sometimes", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "one of auto|on|off"));
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "30/min", err, sizeof err),
                   0);
  ck_assert(c.write_rate == 0.5);
  ck_assert_int_eq(
      srv_config_set(&c, "connection_rate", "7200/h", err, sizeof err), 0);
  ck_assert(c.connection_rate == 2);
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "0", err, sizeof err), 0);
  ck_assert(c.write_rate == 0);
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "10", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "a rate is a count per unit"));
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "10/day", err, sizeof err),
                   -1);
  /* Rules that cannot hold are refused at start. */
  srv_auth_t *a = NULL;
  c.auth_reads = true;
  ck_assert_int_eq(srv_auth_new(&c, &a, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "auth_reads needs a tokens_file"));
  c.auth_reads = false;
  snprintf(c.trusted_proxies, sizeof c.trusted_proxies, "10.0.0.0/8, lb");
  ck_assert_int_eq(srv_auth_new(&c, &a, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "trusted_proxies: 'lb'"));
  c.trusted_proxies[0] = '\0';
  snprintf(c.tokens_file, sizeof c.tokens_file, "/nonexistent/tokens");
  ck_assert_int_eq(srv_auth_new(&c, &a, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "tokens_file /nonexistent/tokens: "));
  /* --help lists the settings. */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  srv_config_print_help(f);
  fclose(f);
  const char *flags[] = {"--tokens-file",      "--auth-reads",
                         "--auth-metrics",     "--allow-anonymous-writes",
                         "--rate-limits",      "--connection-rate RATE",
                         "--connection-burst", "--write-rate RATE",
                         "--write-burst",      "--rate-table-size",
                         "--trusted-proxies"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    ck_assert_msg(strstr(buf, flags[i]) != NULL, "missing %s", flags[i]);
  free(buf);
}
END_TEST

START_TEST(test_reload) {
  start_with_tokens(false, false);
  srv_auth_t *auth = srv_server_auth(mem_srv.server);
  expect("DELETE", "/v1/clips/nope", T_WRITE, 404, NULL, NULL);
  /* A bad file: the tokens in force stay. */
  FILE *f = fopen(tokens_path, "w");
  fprintf(f, "write sha256:%s\n", "0123");
  fclose(f);
  char msg[1024];
  ck_assert_int_eq(srv_auth_reload(auth, msg, sizeof msg), -1);
  ck_assert_ptr_nonnull(strstr(msg, ":1: expected '<scope> sha256:"));
  ck_assert_ptr_nonnull(strstr(msg, "keeping the 3 tokens"));
  expect("DELETE", "/v1/clips/nope", T_WRITE, 404, NULL, NULL);
  /* A good one replaces them. */
  f = fopen(tokens_path, "w");
  fprintf(f, "read sha256:ba7816bf8f01cfea414140de5dae2223"
             "b00361a396177a9cb410ff61f20015ad\n");
  fclose(f);
  ck_assert_int_eq(srv_auth_reload(auth, msg, sizeof msg), 0);
  ck_assert_ptr_nonnull(strstr(msg, "reloaded: 1 token: 1 read"));
  expect("DELETE", "/v1/clips/nope", T_WRITE, 401, "unauthorized", INVALID);
  expect("DELETE", "/v1/clips/nope", "abc", 403, "forbidden", NULL);
  mem_answer_t a = call("GET", "/metrics", NULL);
  ck_assert_ptr_nonnull(
      strstr(a.body, "animd_auth_reloads_total{result=\"ok\"} 1\n"));
  ck_assert_ptr_nonnull(
      strstr(a.body, "animd_auth_reloads_total{result=\"failed\"} 1\n"));
  mem_answer_free(&a);
  stop();
}
END_TEST

Suite *server_auth_http_suite(void) {
  Suite *s = suite_create("server_auth_http");
  TCase *tc = tcase_create("auth_http");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_every_protected_route);
  tcase_add_test(tc, test_stream_query_token);
  tcase_add_test(tc, test_no_tokens_beyond_loopback);
  tcase_add_test(tc, test_write_rate_limit);
  tcase_add_test(tc, test_log_names_tokens_by_hash);
  tcase_add_test(tc, test_settings);
  tcase_add_test(tc, test_reload);
  suite_add_tcase(s, tc);
  return s;
}
