/* Tests for the access rules as functions (server/auth/auth.h), with a
 * host of the test's own where a request is needed: the settings refused
 * at start and their messages, the start-up description of every mode,
 * connection rate limits per address (IPv4 whole, IPv6 by /64, trusted
 * proxies and non-IP peers never limited), the metrics text appended to
 * what is there, reload messages, the token id of the access log and the
 * redaction of token parameters, and the exact 401/403 answers with their
 * WWW-Authenticate headers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../http/http_host_fixture.h"
#include "server/auth/auth.h"
#include "tokens_fixture.h"

static char tokens_path[64];

/* Writes a tokens file: one line per token with its scope. */
static void write_tokens(const char *const *tok, const char *const *scope,
                         int n_tok) {
  tokens_fixture_write(tokens_path, tok, scope, n_tok);
}

static const char *const three_tok[] = {"r-token", "w-token", "a-token"};
static const char *const three_scope[] = {"read", "write", "admin"};

static void remove_tokens(void) {
  if (tokens_path[0]) unlink(tokens_path);
  tokens_path[0] = '\0';
}

static srv_auth_t *auth_of(const srv_config_t *cfg) {
  srv_auth_t *a = NULL;
  char err[512] = "";
  ck_assert_msg(srv_auth_new(cfg, &a, err, sizeof err) == 0, "%s", err);
  return a;
}

START_TEST(test_settings_refused) {
  srv_config_t cfg;
  srv_auth_t *a = NULL;
  char err[512];
  srv_config_defaults(&cfg);
  cfg.auth_reads = true;
  ck_assert_int_eq(srv_auth_new(&cfg, &a, err, sizeof err), -1);
  ck_assert_str_eq(err, "auth_reads needs a tokens_file");
  srv_config_defaults(&cfg);
  cfg.auth_metrics = true;
  ck_assert_int_eq(srv_auth_new(&cfg, &a, err, sizeof err), -1);
  ck_assert_str_eq(err, "auth_metrics needs a tokens_file");
  srv_config_defaults(&cfg);
  snprintf(cfg.trusted_proxies, sizeof cfg.trusted_proxies, "10.0.0.0/8 lb");
  ck_assert_int_eq(srv_auth_new(&cfg, &a, err, sizeof err), -1);
  ck_assert_str_eq(err, "trusted_proxies: 'lb' is not an address or prefix "
                        "(10.0.0.0/8, fd00::/8, 192.168.1.5)");
  srv_config_defaults(&cfg);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "/nonexistent/tokens");
  ck_assert_int_eq(srv_auth_new(&cfg, &a, err, sizeof err), -1);
  ck_assert(strncmp(err, "tokens_file /nonexistent/tokens: ", 33) == 0);
  ck_assert_ptr_null(a);
}
END_TEST

START_TEST(test_describe_modes) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  srv_auth_t *a = auth_of(&cfg);
  char d[512];
  srv_auth_describe(a, d, sizeof d);
  ck_assert_str_eq(d, "access: open (loopback only, no tokens_file); rate "
                      "limits off");
  ck_assert_int_eq(srv_auth_set_exposed(a, true), 0);
  srv_auth_describe(a, d, sizeof d);
  ck_assert_str_eq(d, "access: read-only beyond loopback: uploads and deletes "
                      "refused (no tokens_file); rate limits per address: "
                      "connections 50/s (burst 200), writes 10/s (burst 50)");
  /* Back to loopback only: the limits go (auto). */
  ck_assert_int_eq(srv_auth_set_exposed(a, false), 0);
  srv_auth_describe(a, d, sizeof d);
  ck_assert_ptr_nonnull(strstr(d, "; rate limits off"));
  srv_auth_free(a);

  srv_config_defaults(&cfg);
  cfg.allow_anonymous_writes = true;
  snprintf(cfg.rate_limits, sizeof cfg.rate_limits, "off");
  snprintf(cfg.trusted_proxies, sizeof cfg.trusted_proxies, "10.0.0.1");
  a = auth_of(&cfg);
  srv_auth_set_exposed(a, true);
  srv_auth_describe(a, d, sizeof d);
  ck_assert_str_eq(d, "access: open to anonymous writes beyond loopback "
                      "(allow_anonymous_writes); rate limits off, "
                      "X-Forwarded-For from trusted_proxies");
  srv_auth_free(a);

  write_tokens(three_tok, three_scope, 3);
  srv_config_defaults(&cfg);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "%s", tokens_path);
  cfg.auth_reads = true;
  snprintf(cfg.rate_limits, sizeof cfg.rate_limits, "on");
  cfg.connection_rate = 0.5;
  cfg.write_burst = 3;
  a = auth_of(&cfg);
  srv_auth_describe(a, d, sizeof d);
  ck_assert_str_eq(d, "access: tokens (3 tokens: 1 read, 1 write, 1 admin): "
                      "writes need write, reads need read, /metrics open; "
                      "rate limits per address: connections 0.5/s (burst "
                      "200), writes 10/s (burst 3)");
  srv_auth_free(a);
  remove_tokens();
}
END_TEST

START_TEST(test_connection_limits) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.connection_rate = 1.0 / 3600; /* No refill to speak of. */
  cfg.connection_burst = 2;
  snprintf(cfg.trusted_proxies, sizeof cfg.trusted_proxies, "10.9.0.0/16");
  srv_auth_t *a = auth_of(&cfg);
  /* Loopback only (auto): no limit. */
  for (int i = 0; i < 10; i++)
    ck_assert_uint_eq(srv_auth_admit_connection(a, "192.0.2.1:1000"), 0);
  srv_auth_set_exposed(a, true);
  ck_assert_uint_eq(srv_auth_admit_connection(a, "192.0.2.1:1"), 0);
  ck_assert_uint_eq(srv_auth_admit_connection(a, "192.0.2.1:2"), 0);
  uint64_t wait = srv_auth_admit_connection(a, "192.0.2.1:3");
  ck_assert_uint_gt(wait, 1000000000ull);
  ck_assert_uint_le(wait, 3600ull * 1000000000ull);
  /* Another address has its own bucket. */
  ck_assert_uint_eq(srv_auth_admit_connection(a, "192.0.2.2:1"), 0);
  /* IPv6 by /64. */
  ck_assert_uint_eq(srv_auth_admit_connection(a, "[2001:db8::1]:1"), 0);
  ck_assert_uint_eq(srv_auth_admit_connection(a, "[2001:db8::2]:1"), 0);
  ck_assert_uint_gt(srv_auth_admit_connection(a, "[2001:db8::3]:1"), 0);
  ck_assert_uint_eq(srv_auth_admit_connection(a, "[2001:db8:0:1::1]:1"), 0);
  /* Trusted proxies and peers that are no IP address: never. */
  for (int i = 0; i < 5; i++) {
    ck_assert_uint_eq(srv_auth_admit_connection(a, "10.9.1.1:80"), 0);
    ck_assert_uint_eq(srv_auth_admit_connection(a, "memory"), 0);
  }
  /* Counted in the metrics, appended to what is there. */
  char *text = malloc(3);
  memcpy(text, "x\n", 3);
  size_t len = 2;
  ck_assert_int_eq(srv_auth_metrics_render(a, &text, &len), 0);
  ck_assert_uint_eq(strlen(text), len);
  ck_assert(strncmp(text, "x\n# HELP animd_auth_refused_total ", 34) == 0);
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_rate_limited_total{kind=\"connection\"} 2\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_rate_limited_total{kind=\"write\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nanimd_rate_limit_addresses 4\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nanimd_rate_limit_evictions_total 0\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nanimd_auth_tokens 0\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_auth_reloads_total{result=\"failed\"} 0\n"));
  free(text);
  /* rate_limits = off: never, exposed or not. */
  srv_auth_free(a);
  snprintf(cfg.rate_limits, sizeof cfg.rate_limits, "off");
  a = auth_of(&cfg);
  srv_auth_set_exposed(a, true);
  for (int i = 0; i < 5; i++)
    ck_assert_uint_eq(srv_auth_admit_connection(a, "192.0.2.1:1"), 0);
  srv_auth_free(a);
}
END_TEST

START_TEST(test_reload_messages) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  srv_auth_t *a = auth_of(&cfg);
  char msg[512] = "x";
  ck_assert_int_eq(srv_auth_reload(a, msg, sizeof msg), 1);
  ck_assert_str_eq(msg, "");
  srv_auth_free(a);

  write_tokens(three_tok, three_scope, 1);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "%s", tokens_path);
  a = auth_of(&cfg);
  write_tokens(three_tok, three_scope, 3);
  ck_assert_int_eq(srv_auth_reload(a, msg, sizeof msg), 0);
  char want[512];
  snprintf(want, sizeof want,
           "tokens_file %s reloaded: 3 tokens: 1 read, 1 write, 1 admin",
           tokens_path);
  ck_assert_str_eq(msg, want);
  FILE *f = fopen(tokens_path, "w");
  fputs("root sha256:00\n", f);
  fclose(f);
  ck_assert_int_eq(srv_auth_reload(a, msg, sizeof msg), -1);
  ck_assert(strncmp(msg, "tokens_file not reloaded: ", 26) == 0);
  ck_assert_ptr_nonnull(
      strstr(msg, "; keeping the 3 tokens: 1 read, 1 write, 1 admin"));
  char *text = NULL;
  size_t len = 0;
  ck_assert_int_eq(srv_auth_metrics_render(a, &text, &len), 0);
  ck_assert_ptr_nonnull(strstr(text, "\nanimd_auth_tokens 3\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_auth_reloads_total{result=\"ok\"} 1\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_auth_reloads_total{result=\"failed\"} 1\n"));
  free(text);
  srv_auth_free(a);
  remove_tokens();
}
END_TEST

START_TEST(test_redact_target) {
  static const struct {
    const char *in, *out;
  } t[] = {
      {"/v1/stream?token=abc", "/v1/stream?token=*"},
      {"/v1/stream?clip=wave&token=abc&t=1",
       "/v1/stream?clip=wave&token=*&t=1"},
      {"/x?token=a&token=b", "/x?token=*&token=*"},
      {"/x?%74oken=abc", "/x?%74oken=*"},
      {"/x?%74%6F%6b%65%6e=abc", "/x?%74%6F%6b%65%6e=*"},
      {"/x?tokens=abc", "/x?tokens=abc"},
      {"/x?token", "/x?token"},
      {"/x?token=", "/x?token="},
      {"/x?TOKEN=abc", "/x?TOKEN=abc"},
      {"/x?tok=en", "/x?tok=en"},
      {"/x?a=token=abc", "/x?a=token=abc"},
      {"/no/query", "/no/query"},
      {"/x?", "/x?"},
      {"/x?&&token=z&", "/x?&&token=*&"},
      {"/x?a=1&b=c,d&&e", "/x?a=1&b=c,d&&e"},
      {"/x?a=1&b\x01=s", "/x?a=1&b\x01=*"},
      {"/x?a=1&b=s\x7f", "/x?a=1&b=s\x7f"},
      {"", ""},
  };
  char out[128];
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    srv_auth_redact_target(t[i].in, out, sizeof out);
    ck_assert_msg(strcmp(out, t[i].out) == 0, "%s: %s", t[i].in, out);
  }
  /* Cut to the buffer, never past it; the token never shows. */
  srv_auth_redact_target("/v1/stream?token=secret", out, 8);
  ck_assert_str_eq(out, "/v1/str");
  for (size_t cap = 1; cap < 30; cap++) {
    char small[32];
    memset(small, '#', sizeof small);
    srv_auth_redact_target("/s?token=secret&a=1", small, cap);
    ck_assert_uint_lt(strlen(small), cap);
    ck_assert_ptr_null(strstr(small, "secr"));
    ck_assert_int_eq(small[cap], '#');
  }
  out[0] = 'z';
  srv_auth_redact_target("/x", out, 0);
  ck_assert_int_eq(out[0], 'z');
}
END_TEST

/* ---- through a host -------------------------------------------------------
 */

static srv_auth_t *route_auth;

/* The access class of a request to the test host, as the API's routing
 * table gives its rows: /healthz and OPTIONS open, /metrics admin,
 * changes (PUT, PATCH, DELETE, an upload) write, the rest read. */
static srv_access access_of(const srv_request_t *req) {
  if (strcmp(req->path, "/healthz") == 0 || req->method == SRV_OPTIONS)
    return SRV_ACCESS_OPEN;
  if (strcmp(req->path, "/metrics") == 0) return SRV_ACCESS_ADMIN;
  if (req->method == SRV_PUT || req->method == SRV_PATCH ||
      req->method == SRV_DELETE ||
      (req->method == SRV_POST && strcmp(req->path, "/v1/assets") == 0))
    return SRV_ACCESS_WRITE;
  return SRV_ACCESS_READ;
}

static void route(srv_request_t *req) {
  /* The stream's row takes ?token= as a credential. */
  req->query_token = strcmp(req->path, "/v1/stream") == 0;
  if (strcmp(req->path, "/id") == 0 || req->query_token) {
    char id[SRV_TOKEN_ID_LEN + 1];
    srv_auth_log_id(req, id);
    srv_respond(req, 200, "text/plain", NULL, id, strlen(id));
    return;
  }
  if (srv_auth_admit(route_auth, req, access_of(req)))
    srv_respond(req, 200, "text/plain", NULL, "ok", 2);
}

static hfx_answer_t ask(const char *method, const char *target,
                        const char *auth) {
  srv_http_memory_t *m = hfx_client();
  char text[512];
  snprintf(text, sizeof text, "%s %s HTTP/1.1\r\n%s%s%s\r\n", method, target,
           auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "");
  hfx_answer_t a = hfx_request(m, text);
  srv_http_memory_free(m);
  return a;
}

START_TEST(test_log_id) {
  hfx_start(NULL, 2000, route);
  /* sha256("abc") starts ba7816bf. */
  static const struct {
    const char *target, *auth, *id;
  } t[] = {
      {"/id", "Bearer abc", "ba7816bf"},
      {"/id", "bearer \t abc", "ba7816bf"},
      {"/id", "BEARER abc", "ba7816bf"},
      {"/id", "Bearer", "-"},
      {"/id", "Bearer ", "-"},
      {"/id", "Bearerabc", "-"},
      {"/id", "Basic YWJjOmRlZg==", "-"},
      {"/id", NULL, "-"},
      {"/id?token=abc", NULL, "-"},
      {"/v1/stream?token=abc", NULL, "ba7816bf"},
      {"/v1/stream?token=", NULL, "-"},
      /* The header wins over the parameter, even when it is unusable. */
      {"/v1/stream?token=abc", "Basic x", "-"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    hfx_answer_t a = ask("GET", t[i].target, t[i].auth);
    ck_assert_msg(strcmp(a.body, t[i].id) == 0, "%s %s: %s", t[i].target,
                  t[i].auth ? t[i].auth : "-", a.body);
    hfx_free(&a);
  }
  hfx_stop();
}
END_TEST

START_TEST(test_refusals) {
  write_tokens(three_tok, three_scope, 3);
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.tokens_file, sizeof cfg.tokens_file, "%s", tokens_path);
  cfg.auth_reads = true;
  cfg.auth_metrics = true;
  route_auth = auth_of(&cfg);
  hfx_start(&cfg, 2000, route);
  char v[256], code[64];
  /* No token: 401, the scope needed named. */
  hfx_answer_t a = ask("GET", "/v1/pose", NULL);
  ck_assert_int_eq(a.status, 401);
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "unauthorized");
  ck_assert_str_eq(hfx_header(&a, "WWW-Authenticate", v, sizeof v),
                   "Bearer realm=\"animd\"");
  ck_assert_ptr_nonnull(strstr(
      a.body, "\"message\":\"this needs a read token: Authorization: Bearer "
              "<token>\""));
  hfx_free(&a);
  a = ask("DELETE", "/v1/clips/x", NULL);
  ck_assert_ptr_nonnull(strstr(a.body, "this needs a write token"));
  hfx_free(&a);
  a = ask("GET", "/metrics", NULL);
  ck_assert_ptr_nonnull(strstr(a.body, "this needs a admin token"));
  hfx_free(&a);
  /* An unknown token. */
  a = ask("GET", "/v1/pose", "Bearer nope");
  ck_assert_int_eq(a.status, 401);
  ck_assert_str_eq(hfx_header(&a, "WWW-Authenticate", v, sizeof v),
                   "Bearer realm=\"animd\", error=\"invalid_token\"");
  ck_assert_ptr_nonnull(
      strstr(a.body, "\"message\":\"the bearer token is not known here\""));
  hfx_free(&a);
  /* Too weak: 403 with the scope needed. */
  a = ask("PUT", "/v1/x", "Bearer r-token");
  ck_assert_int_eq(a.status, 403);
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "forbidden");
  ck_assert_str_eq(hfx_header(&a, "WWW-Authenticate", v, sizeof v),
                   "Bearer realm=\"animd\", error=\"insufficient_scope\", "
                   "scope=\"write\"");
  ck_assert_ptr_nonnull(strstr(a.body, "this needs a write token; the token "
                                       "given is a read token"));
  hfx_free(&a);
  a = ask("GET", "/metrics", "Bearer w-token");
  ck_assert_int_eq(a.status, 403);
  ck_assert_ptr_nonnull(strstr(
      a.body, "this needs a admin token; the token given is a write token"));
  hfx_free(&a);
  /* Enough: through. PATCH is a write; POST elsewhere than /v1/assets is
   * a read. */
  static const struct {
    const char *method, *target, *auth;
  } ok[] = {{"GET", "/v1/pose", "Bearer r-token"},
            {"PATCH", "/v1/x", "Bearer w-token"},
            {"POST", "/v1/pose", "Bearer r-token"},
            {"POST", "/v1/assets", "Bearer a-token"},
            {"GET", "/metrics", "Bearer a-token"},
            {"GET", "/healthz", NULL},
            {"OPTIONS", "/v1/assets", NULL}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    a = ask(ok[i].method, ok[i].target, ok[i].auth);
    ck_assert_msg(a.status == 200 || a.status == 204, "%s %s: %d %s",
                  ok[i].method, ok[i].target, a.status, a.body);
    hfx_free(&a);
  }
  a = ask("POST", "/v1/assets", "Bearer r-token");
  ck_assert_int_eq(a.status, 403);
  hfx_free(&a);
  /* Counted. */
  char *text = NULL;
  size_t len = 0;
  ck_assert_int_eq(srv_auth_metrics_render(route_auth, &text, &len), 0);
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_auth_refused_total{code=\"unauthorized\"} 4\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nanimd_auth_refused_total{code=\"forbidden\"} 3\n"));
  free(text);
  hfx_stop();
  srv_auth_free(route_auth);
  remove_tokens();
}
END_TEST

START_TEST(test_write_limit_retry_after) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.rate_limits, sizeof cfg.rate_limits, "on");
  cfg.write_rate = 1.0 / 60; /* One a minute. */
  cfg.write_burst = 1;
  route_auth = auth_of(&cfg);
  hfx_start(&cfg, 2000, route);
  /* A memory peer is all zeros: one client. Reads are never limited. */
  hfx_answer_t a = ask("DELETE", "/v1/clips/x", NULL);
  ck_assert_int_eq(a.status, 200);
  hfx_free(&a);
  a = ask("DELETE", "/v1/clips/x", NULL);
  char v[64], code[64];
  ck_assert_int_eq(a.status, 429);
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "rate_limited");
  int after = atoi(hfx_header(&a, "Retry-After", v, sizeof v));
  ck_assert_int_ge(after, 50);
  ck_assert_int_le(after, 60);
  char want[128];
  snprintf(want, sizeof want, "retry in %d s\"", after);
  ck_assert_ptr_nonnull(strstr(a.body, want));
  hfx_free(&a);
  for (int i = 0; i < 5; i++) {
    a = ask("GET", "/v1/pose", NULL);
    ck_assert_int_eq(a.status, 200);
    hfx_free(&a);
  }
  hfx_stop();
  srv_auth_free(route_auth);
}
END_TEST

Suite *server_auth_suite(void) {
  Suite *s = suite_create("server_auth");
  TCase *tc = tcase_create("auth");
  tcase_add_test(tc, test_settings_refused);
  tcase_add_test(tc, test_describe_modes);
  tcase_add_test(tc, test_connection_limits);
  tcase_add_test(tc, test_reload_messages);
  tcase_add_test(tc, test_redact_target);
  tcase_add_test(tc, test_log_id);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_write_limit_retry_after);
  suite_add_tcase(s, tc);
  return s;
}
