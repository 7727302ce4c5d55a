/* Tests for the HTTP/1.1 glue (server/http/http.h, session.h) through the
 * in-memory transport with a route of the test's own (no router, no API):
 * the request as a handler sees it (method, target, decoded path and
 * query, headers, body), pipelining in order and keep-alive (HTTP/1.0 and
 * 1.1, Connection: close, a half-closed client), chunked request bodies,
 * Expect: 100-continue, header, parameter and body limits, bad requests
 * and the status and JSON error code each gets, timeouts, HEAD and the
 * statuses without a body, error bodies, chunked answers (HTTP/1.1,
 * HTTP/1.0, HEAD, aborted), gzip-coded answers, parsing held back while a
 * client does not read, srv_request_when_flushed and hand-off. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "http_host_fixture.h"

/* ---- the route ------------------------------------------------------------
 */

static srv_request_t *held; /* /later: the request waiting for the test. */
static int flushed_calls;
static const char *ae_body; /* /big: the JSON body answered. */

/* Answers the request as the handler sees it, one field a line. */
static void echo(srv_request_t *req) {
  char *text = malloc(16384 + req->body_len);
  size_t n = 0, cap = 16384 + req->body_len;
  n += (size_t)snprintf(text + n, cap - n,
                        "method=%s(%d)\ntarget=%s\npath=%s\nquery=%s\n"
                        "minor=%d keep=%d upgrade=%d\n",
                        req->method_name, (int)req->method, req->target,
                        req->path, req->query, req->http_minor,
                        (int)req->keep_alive, (int)req->upgrade);
  for (unsigned i = 0; i < req->param_count; i++)
    n += (size_t)snprintf(text + n, cap - n, "p:%s=%s\n", req->params[i].name,
                          req->params[i].value);
  for (unsigned i = 0; i < req->header_count; i++)
    n += (size_t)snprintf(text + n, cap - n, "h:%s=%s|\n", req->headers[i].name,
                          req->headers[i].value);
  const char *x = srv_request_param(req, "x");
  const char *xp = srv_request_header(req, "x-PAD");
  n += (size_t)snprintf(text + n, cap - n, "param(x)=%s\nheader(x-pad)=%s\n",
                        x ? x : "(none)", xp ? xp : "(none)");
  n += (size_t)snprintf(text + n, cap - n,
                        "peer=%s\nbody=%zu:", srv_request_peer(req),
                        req->body_len);
  memcpy(text + n, req->body, req->body_len);
  n += req->body_len;
  srv_respond(req, 200, "text/plain", NULL, text, n);
  free(text);
}

/* /stream?n=...: a chunked answer of "a", "bb", "" (skipped), "ccc". */
static void stream(srv_request_t *req) {
  const char *ctype =
      srv_request_param(req, "json") ? "application/json" : "text/plain";
  ck_assert_int_eq(srv_respond_start(req, 200, ctype, "X-Stream: 1\r\n"), 0);
  ck_assert_int_eq(srv_respond_chunk(req, "a", 1, NULL, NULL), 0);
  ck_assert_int_eq(srv_respond_chunk(req, "bb", 2, NULL, NULL), 0);
  ck_assert_int_eq(srv_respond_chunk(req, "", 0, NULL, NULL), 0);
  ck_assert_int_eq(srv_respond_chunk(req, "ccc", 3, NULL, NULL), 0);
  srv_respond_end(req);
}

static void on_flushed(srv_request_t *req, void *arg) {
  flushed_calls++;
  ck_assert_ptr_eq(arg, &flushed_calls);
  if (!srv_request_gone(req))
    srv_respond(req, 200, "text/plain", NULL, "flushed", 7);
}

static int consume_never(uv_os_sock_t fd, const char *in, size_t in_len,
                         void *arg) {
  (void)fd;
  (void)in;
  (void)in_len;
  (void)arg;
  ck_abort_msg("a memory transport has no socket to hand off");
  return 0;
}

static void route(srv_request_t *req) {
  const char *p = req->path;
  if (strncmp(p, "/echo", 5) == 0 || strncmp(p, "/refuse", 7) == 0) {
    echo(req);
  } else if (strcmp(p, "/later") == 0) {
    srv_request_hold(req);
    held = req;
  } else if (strcmp(p, "/stream") == 0) {
    stream(req);
  } else if (strcmp(p, "/abort") == 0) {
    ck_assert_int_eq(srv_respond_start(req, 200, "text/plain", NULL), 0);
    ck_assert_int_eq(srv_respond_chunk(req, "part", 4, NULL, NULL), 0);
    srv_respond_abort(req);
  } else if (strcmp(p, "/error") == 0) {
    srv_respond_error(req, 409, "conflict", "id", "in use by %d clips", 3);
  } else if (strcmp(p, "/error-null") == 0) {
    srv_respond_error_h(req, 405, "Allow: GET\r\n", "method_not_allowed", NULL,
                        "no");
  } else if (strcmp(p, "/nocontent") == 0) {
    srv_respond(req, 204, "text/plain", NULL, "ignored", 7);
  } else if (strcmp(p, "/notmodified") == 0) {
    srv_respond(req, 304, "application/json", "ETag: \"e1\"\r\n", "{}", 2);
  } else if (strcmp(p, "/big") == 0) {
    const char *ct = srv_request_param(req, "type");
    srv_respond(req, 200, ct ? ct : "application/json",
                "ETag: \"v1\"\r\nX-After: 1\r\n", ae_body, strlen(ae_body));
  } else if (strcmp(p, "/flush") == 0) {
    srv_request_when_flushed(req, on_flushed, &flushed_calls);
  } else if (strcmp(p, "/handoff") == 0) {
    int rc = srv_request_hand_off(req, consume_never, NULL);
    char body[32];
    int n = snprintf(body, sizeof body, "%d", rc);
    srv_respond(req, 200, "text/plain", NULL, body, (size_t)n);
  } else if (strcmp(p, "/longhead") == 0) {
    /* Extra headers longer than the head's stack buffer. */
    size_t n = 3000;
    char *extra = malloc(n + 32);
    memcpy(extra, "X-Long: ", 8);
    memset(extra + 8, 'l', n);
    memcpy(extra + 8 + n, "\r\n", 3);
    srv_respond(req, 200, "text/plain", extra, "ok", 2);
    free(extra);
  } else {
    srv_respond_error(req, 404, "not_found", NULL, "no such path: %s", p);
  }
}

static bool refuse_prefix(const srv_request_t *req) {
  return strncmp(req->path, "/refuse", 7) != 0;
}

static void start(void) {
  held = NULL;
  flushed_calls = 0;
  hfx_start(NULL, 2000, route);
}

static void start_cfg(const srv_config_t *cfg) {
  held = NULL;
  flushed_calls = 0;
  hfx_start(cfg, 2000, route);
}

/* A line of an echo answer ("path=/x"), asserted present. */
static void expect_line(const hfx_answer_t *a, const char *line) {
  char want[1024];
  snprintf(want, sizeof want, "\n%s\n", line);
  char body[8192];
  snprintf(body, sizeof body, "\n%s\n", a->body);
  ck_assert_msg(strstr(body, want) != NULL, "no line '%s' in:\n%s", line,
                a->body);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* ---- what a handler sees ---------------------------------------------------
 */

START_TEST(test_request_fields) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(
      m, "GET /echo/a%20b+c%2F%zz%4?x=1&y=a+b%26c&&x=2&flag&e= HTTP/1.1\r\n"
         "Host: example\r\nX-Pad:   v  \t\r\nEmpty:\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  expect_line(&a, "method=GET(0)");
  expect_line(&a, "target=/echo/a%20b+c%2F%zz%4?x=1&y=a+b%26c&&x=2&flag&e=");
  /* The path is percent-decoded ('+' stays, a broken escape stays as
   * sent); the query is raw. */
  expect_line(&a, "path=/echo/a b+c/%zz%4");
  expect_line(&a, "query=x=1&y=a+b%26c&&x=2&flag&e=");
  expect_line(&a, "minor=1 keep=1 upgrade=0");
  /* Parameters decode '+' and escapes; an empty one between && is none;
   * a valueless one has "". */
  expect_line(&a, "p:x=1");
  expect_line(&a, "p:y=a b&c");
  expect_line(&a, "p:x=2");
  expect_line(&a, "p:flag=");
  expect_line(&a, "p:e=");
  ck_assert_int_eq(count(a.body, "\np:"), 5);
  /* The last of repeated parameters wins; header names match in any
   * case; a value loses its leading and trailing whitespace. */
  expect_line(&a, "param(x)=2");
  expect_line(&a, "header(x-pad)=v");
  expect_line(&a, "h:Host=example|");
  expect_line(&a, "h:Empty=|");
  expect_line(&a, "peer=memory");
  expect_line(&a, "body=0:");
  ck_assert_str_eq(a.head + strlen(a.head) - 4, "\r\n\r\n");
  ck_assert_ptr_nonnull(strstr(a.head, "HTTP/1.1 200 OK\r\nServer: animd\r\n"
                                       "Content-Type: text/plain\r\n"));
  ck_assert_ptr_null(strstr(a.head, "Connection:"));
  hfx_free(&a);
  ck_assert_int_eq(hfx.done, 1);
  ck_assert_int_eq(hfx.done_status, 200);
  ck_assert_str_eq(hfx.done_method, "GET");
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* A query with neither '%' nor '+' is cut rather than decoded: the same
 * parameters as decoding would give, the raw query kept whole. */
START_TEST(test_request_plain_query) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(
      m,
      "GET /echo/p?x=1&&x=2&flag&e=&k=v=w& HTTP/1.1\r\nHost: example\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  expect_line(&a, "path=/echo/p");
  expect_line(&a, "query=x=1&&x=2&flag&e=&k=v=w&");
  expect_line(&a, "p:x=1");
  expect_line(&a, "p:x=2");
  expect_line(&a, "p:flag=");
  expect_line(&a, "p:e=");
  expect_line(&a, "p:k=v=w");
  ck_assert_int_eq(count(a.body, "\np:"), 5);
  expect_line(&a, "param(x)=2");
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_methods) {
  start();
  static const struct {
    const char *method;
    int value;
  } methods[] = {
      {"GET", SRV_GET},     {"HEAD", SRV_HEAD},      {"POST", SRV_POST},
      {"PUT", SRV_PUT},     {"DELETE", SRV_DELETE},  {"OPTIONS", SRV_OPTIONS},
      {"PATCH", SRV_PATCH}, {"PROPFIND", SRV_OTHER}, {"TRACE", SRV_OTHER}};
  srv_http_memory_t *m = hfx_client();
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "%s /echo HTTP/1.1\r\nHost: x\r\n\r\n",
             methods[i].method);
    hfx_answer_t a = hfx_request(m, text);
    ck_assert_int_eq(a.status, 200);
    if (methods[i].value == SRV_HEAD) {
      ck_assert_uint_eq(a.body_len, 0);
    } else {
      char line[64];
      snprintf(line, sizeof line, "method=%s(%d)", methods[i].method,
               methods[i].value);
      expect_line(&a, line);
    }
    hfx_free(&a);
  }
  ck_assert_int_eq(hfx.done, 9);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_query_parameter_limit) {
  start();
  srv_http_memory_t *m = hfx_client();
  char text[1024];
  /* 32 parameters are allowed, a 33rd is not. */
  for (int extra = 0; extra < 2; extra++) {
    size_t n = (size_t)snprintf(text, sizeof text, "GET /echo?");
    for (int i = 0; i < 32 + extra; i++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%sk%d=%d", i ? "&" : "",
                            i, i);
    snprintf(text + n, sizeof text - n, " HTTP/1.1\r\nHost: x\r\n\r\n");
    hfx_answer_t a = hfx_request(m, text);
    char code[64];
    if (extra == 0) {
      ck_assert_int_eq(a.status, 200);
      expect_line(&a, "p:k31=31");
    } else {
      ck_assert_int_eq(a.status, 400);
      ck_assert_str_eq(hfx_code(&a, code, sizeof code), "too_many_parameters");
      ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"query\""));
      ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
    }
    hfx_free(&a);
  }
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* ---- pipelining and keep-alive ----------------------------------------------
 */

START_TEST(test_pipelined_wait_for_a_late_answer) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /echo?x=first HTTP/1.1\r\nHost: x\r\n\r\n"
              "GET /later HTTP/1.1\r\nHost: x\r\n\r\n"
              "GET /echo?x=third HTTP/1.1\r\nHost: x\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "param(x)=first");
  hfx_free(&a);
  /* /later holds the connection: the third request is not parsed. */
  for (int i = 0; i < 100; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  srv_http_memory_flush(m, SIZE_MAX);
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  ck_assert_ptr_nonnull(held);
  ck_assert_int_eq(hfx.done, 1);
  ck_assert(!srv_request_gone(held));
  ck_assert_uint_eq(srv_request_queued(held), 0);
  srv_request_t *r = held;
  held = NULL;
  srv_respond(r, 202, "text/plain", NULL, "later", 5);
  srv_request_release(r);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 202);
  ck_assert_str_eq(a.body, "later");
  ck_assert_ptr_nonnull(strstr(a.head, "HTTP/1.1 202 Unknown\r\n"));
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "param(x)=third");
  hfx_free(&a);
  ck_assert_int_eq(hfx.done, 3);
  ck_assert(!srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_bytes_split_anywhere) {
  start();
  srv_http_memory_t *m = hfx_client();
  const char *text = "POST /echo?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 11"
                     "\r\n\r\nhello world"
                     "GET /echo?x=2 HTTP/1.1\r\nHost: x\r\n\r\n";
  /* One byte at a time: the same two answers. */
  for (size_t i = 0; text[i]; i++) srv_http_memory_send(m, text + i, 1);
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "method=POST(2)");
  expect_line(&a, "param(x)=1");
  ck_assert_ptr_nonnull(strstr(a.body, "\nbody=11:hello world"));
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "param(x)=2");
  expect_line(&a, "body=0:");
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_keep_alive_rules) {
  start();
  /* HTTP/1.0 closes unless asked to keep the connection. */
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /echo HTTP/1.0\r\n\r\n");
  expect_line(&a, "minor=0 keep=0 upgrade=0");
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);

  m = hfx_client();
  a = hfx_request(m, "GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  expect_line(&a, "minor=0 keep=1 upgrade=0");
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: keep-alive\r\n"));
  hfx_free(&a);
  ck_assert(!srv_http_memory_closed(m));
  a = hfx_request(m, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_ptr_null(strstr(a.head, "Connection:"));
  hfx_free(&a);
  ck_assert(!srv_http_memory_closed(m));
  /* HTTP/1.1 with Connection: close: answered, then closed; what comes
   * after is not answered. */
  hfx_send(m, "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
              "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "minor=1 keep=0 upgrade=0");
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  ck_assert(!hfx_read(m, &a, false));
  ck_assert_int_eq(hfx.done, 4);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_half_close) {
  start();
  /* Requests complete before the end of input are answered, then the
   * connection closes. */
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /echo?x=1 HTTP/1.1\r\nHost: x\r\n\r\n"
              "GET /echo?x=2 HTTP/1.1\r\nHost: x\r\n\r\n");
  srv_http_memory_eof(m);
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "param(x)=1");
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  expect_line(&a, "param(x)=2");
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);

  /* The end of input in the middle of the headers or of the body: 400
   * truncated_request, naming the part. */
  const char *partial[] = {"GET /echo HTTP/1.1\r\nHost:",
                           "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\n"
                           "abc"};
  const char *at[] = {"\"at\":\"headers\"", "\"at\":\"body\""};
  for (int i = 0; i < 2; i++) {
    m = hfx_client();
    hfx_send(m, partial[i]);
    srv_http_memory_eof(m);
    ck_assert(hfx_read(m, &a, false));
    char code[64];
    ck_assert_int_eq(a.status, 400);
    ck_assert_str_eq(hfx_code(&a, code, sizeof code), "truncated_request");
    ck_assert_ptr_nonnull(strstr(a.body, at[i]));
    ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
    hfx_free(&a);
    ck_assert(srv_http_memory_closed(m));
    srv_http_memory_free(m);
  }

  /* Nothing sent: closed without a word. */
  m = hfx_client();
  srv_http_memory_eof(m);
  ck_assert(srv_http_memory_closed(m));
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_reset_while_held) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_ptr_nonnull(held);
  ck_assert_str_eq(srv_request_peer(held), "memory");
  srv_http_memory_reset(m);
  /* The request stays valid while held; the client is gone. */
  ck_assert(srv_request_gone(held));
  ck_assert_str_eq(srv_request_peer(held), "-");
  ck_assert_uint_eq(srv_request_queued(held), 0);
  ck_assert_str_eq(held->path, "/later");
  srv_request_release(held);
  held = NULL;
  ck_assert_int_eq(hfx.done, 0);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_draining) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_ptr_null(strstr(a.head, "Connection:"));
  hfx_free(&a);
  /* While the server drains, each answer closes its connection. */
  hfx.host.draining = true;
  a = hfx_request(m, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* ---- bodies -------------------------------------------------------------- */

START_TEST(test_chunked_request_body) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "POST /echo HTTP/1.1\r\nHost: x\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n"
                                  "5\r\nhello\r\n6;ext=1\r\n world\r\n"
                                  "0\r\nX-Trailer: t\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "\nbody=11:hello world"));
  /* Trailers are not headers. */
  ck_assert_ptr_null(strstr(a.body, "X-Trailer"));
  expect_line(&a, "h:Transfer-Encoding=chunked|");
  hfx_free(&a);
  /* The connection goes on with the next request. */
  a = hfx_request(m, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0"
                     "\r\n\r\n");
  expect_line(&a, "body=0:");
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_body_limits) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.max_body_size = 16;
  start_cfg(&cfg);
  srv_http_memory_t *m = hfx_client();
  /* Exactly max_body_size is allowed. */
  hfx_answer_t a = hfx_request(m, "POST /echo HTTP/1.1\r\nContent-Length: 16"
                                  "\r\n\r\n0123456789abcdef");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "body=16:0123456789abcdef"));
  hfx_free(&a);
  srv_http_memory_free(m);

  char code[64];
  /* A Content-Length beyond it is refused before the body comes. */
  m = hfx_client();
  a = hfx_request(m, "POST /echo HTTP/1.1\r\nContent-Length: 17\r\n\r\n");
  ck_assert_int_eq(a.status, 413);
  ck_assert_ptr_nonnull(strstr(a.head, "413 Content Too Large\r\n"));
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "body_too_large");
  ck_assert_ptr_nonnull(strstr(a.body, "Content-Length is larger"));
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"body\""));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);

  /* A chunked body is counted as it arrives. */
  m = hfx_client();
  a = hfx_request(m, "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "a\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n");
  ck_assert_int_eq(a.status, 413);
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "body_too_large");
  ck_assert_ptr_nonnull(strstr(a.body, "the request body is larger than"));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  ck_assert_int_eq(hfx.done, 3);
  ck_assert_int_eq(hfx.done_status, 413);
  hfx_stop();
}
END_TEST

START_TEST(test_large_body_kept_whole) {
  start();
  srv_http_memory_t *m = hfx_client();
  /* A body of 200 KiB, more than a connection keeps between requests,
   * arriving in pieces. */
  size_t n = 200 * 1024;
  char *body = malloc(n);
  for (size_t i = 0; i < n; i++) body[i] = (char)('a' + i % 26);
  char head[128];
  snprintf(head, sizeof head,
           "POST /echo HTTP/1.1\r\nContent-Length: %zu\r\n\r\n", n);
  hfx_send(m, head);
  for (size_t off = 0; off < n; off += 7000)
    srv_http_memory_send(m, body + off, n - off < 7000 ? n - off : 7000);
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  char *p = strstr(a.body, "\nbody=204800:");
  ck_assert_ptr_nonnull(p);
  p += strlen("\nbody=204800:");
  ck_assert_uint_eq(a.body_len - (size_t)(p - a.body), n);
  ck_assert(memcmp(p, body, n) == 0);
  hfx_free(&a);
  /* The next request has its own (empty) body. */
  a = hfx_request(m, "GET /echo HTTP/1.1\r\n\r\n");
  expect_line(&a, "body=0:");
  hfx_free(&a);
  free(body);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* ---- Expect: 100-continue --------------------------------------------------
 */

START_TEST(test_expect_continue) {
  start();
  hfx.host.accepts = refuse_prefix;
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
              "Content-Length: 5\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 100);
  ck_assert_str_eq(a.head, "HTTP/1.1 100 Continue\r\n\r\n");
  hfx_free(&a);
  ck_assert_int_eq(hfx.done, 0);
  hfx_send(m, "hello");
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "body=5:hello"));
  hfx_free(&a);
  ck_assert(!srv_http_memory_closed(m));

  /* The expectation in any case; none without a body or from HTTP/1.0. */
  a = hfx_request(m, "POST /echo HTTP/1.1\r\nExpect: 100-Continue\r\n"
                     "Content-Length: 0\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  hfx_free(&a);
  a = hfx_request(m, "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\n"
                     "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "body=2:hi"));
  hfx_free(&a);
  srv_http_memory_free(m);

  /* A request its route would not take is answered at once, without its
   * body and without 100 Continue, and the connection closes. */
  m = hfx_client();
  hfx_send(m, "POST /refuse HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
              "Content-Length: 1000\r\n\r\n");
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 200);
  expect_line(&a, "body=0:");
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);

  /* Any other expectation: 417. */
  m = hfx_client();
  a = hfx_request(m, "POST /echo HTTP/1.1\r\nExpect: 200-ok\r\n"
                     "Content-Length: 1\r\n\r\nx");
  char code[64];
  ck_assert_int_eq(a.status, 417);
  ck_assert_ptr_nonnull(strstr(a.head, "417 Expectation Failed\r\n"));
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "expectation_failed");
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"Expect\""));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* ---- limits and bad requests ------------------------------------------------
 */

START_TEST(test_header_limits) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.max_header_size = 512;
  start_cfg(&cfg);
  char code[64];
  char text[4096];
  /* Headers well within the limit. */
  srv_http_memory_t *m = hfx_client();
  snprintf(text, sizeof text, "GET /echo HTTP/1.1\r\nX-A: %0200d\r\n\r\n", 0);
  hfx_answer_t a = hfx_request(m, text);
  ck_assert_int_eq(a.status, 200);
  hfx_free(&a);
  srv_http_memory_free(m);
  /* Beyond it: 431 header_too_large, and the connection closes. */
  m = hfx_client();
  snprintf(text, sizeof text, "GET /echo HTTP/1.1\r\nX-A: %0700d\r\n\r\n", 0);
  a = hfx_request(m, text);
  ck_assert_int_eq(a.status, 431);
  ck_assert_ptr_nonnull(
      strstr(a.head, "431 Request Header Fields Too Large\r\n"));
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "header_too_large");
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"headers\""));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  /* A long request line counts too. */
  m = hfx_client();
  snprintf(text, sizeof text, "GET /echo?q=%0700d HTTP/1.1\r\n\r\n", 0);
  a = hfx_request(m, text);
  ck_assert_int_eq(a.status, 431);
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();

  /* 64 header fields are allowed, a 65th is not. */
  start();
  for (int extra = 0; extra < 2; extra++) {
    m = hfx_client();
    size_t n = (size_t)snprintf(text, sizeof text, "GET /echo HTTP/1.1\r\n");
    for (int i = 0; i < 64 + extra; i++)
      n += (size_t)snprintf(text + n, sizeof text - n, "H%d: %d\r\n", i, i);
    snprintf(text + n, sizeof text - n, "\r\n");
    a = hfx_request(m, text);
    if (extra == 0) {
      ck_assert_int_eq(a.status, 200);
      expect_line(&a, "h:H63=63|");
    } else {
      ck_assert_int_eq(a.status, 431);
      ck_assert_str_eq(hfx_code(&a, code, sizeof code), "too_many_headers");
      ck_assert_ptr_nonnull(strstr(a.body, "more than 64 header fields"));
    }
    hfx_free(&a);
    srv_http_memory_free(m);
  }
  hfx_stop();
}
END_TEST

typedef struct bad_s {
  const char *text;
  int status;
  const char *code;
  const char *at;
} bad_t;

static const bad_t bad[] = {
    {"NOT-A-REQUEST\r\n\r\n", 400, "bad_http", "request"},
    {"GET /echo HTTP/3.0\r\n\r\n", 505, "http_version", "request"},
    {"GET /echo HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "bad_header", "headers"},
    {"GET /echo HTTP/1.1\r\nName : x\r\n\r\n", 400, "bad_header", "headers"},
    {"GET /echo HTTP/1.1\r\n: x\r\n\r\n", 400, "bad_header", "headers"},
    {"POST /echo HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400, "bad_http",
     "request"},
    {"POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
     400, "bad_http", "request"},
    {"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400,
     "bad_http", "body"},
};

START_TEST(test_bad_requests) {
  start();
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    srv_http_memory_t *m = hfx_client();
    hfx_answer_t a = hfx_request(m, bad[i].text);
    char code[64];
    hfx_code(&a, code, sizeof code);
    ck_assert_msg(a.status == bad[i].status, "%s: status %d, want %d (%s)",
                  bad[i].text, a.status, bad[i].status, a.body);
    ck_assert_msg(code[0] != '\0', "%s: no error code: %s", bad[i].text,
                  a.body);
    if (bad[i].code[0])
      ck_assert_msg(strcmp(code, bad[i].code) == 0, "%s: code %s, want %s",
                    bad[i].text, code, bad[i].code);
    if (bad[i].at[0]) {
      char at[64];
      snprintf(at, sizeof at, "\"at\":\"%s\"", bad[i].at);
      ck_assert_msg(strstr(a.body, at) != NULL, "%s: %s", bad[i].text, a.body);
    }
    ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
    ck_assert_ptr_nonnull(strstr(a.head, "Content-Type: application/json\r\n"));
    hfx_free(&a);
    ck_assert_msg(srv_http_memory_closed(m), "%s: still open", bad[i].text);
    /* Bytes after the error are discarded. */
    hfx_send(m, "GET /echo HTTP/1.1\r\n\r\n");
    size_t len;
    srv_http_memory_output(m, &len);
    ck_assert_uint_eq(len, 0);
    srv_http_memory_free(m);
  }
  ck_assert_int_eq(hfx.done, (int)(sizeof bad / sizeof bad[0]));
  hfx_stop();
}
END_TEST

/* Every printable byte in a header name: the tchars of RFC 9110 5.6.2
 * (letters, digits and !#$%&'*+-.^_`|~) are taken, any other is 400. */
START_TEST(test_header_name_bytes) {
  static const char tchar[] = "!#$%&'*+-.^_`|~";
  start();
  int answered = 0;
  for (int c = 0x21; c < 0x7f; c++) {
    if (c == ':') continue;
    bool token = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
                 (c >= 'a' && c <= 'z') || strchr(tchar, c) != NULL;
    char text[96];
    snprintf(text, sizeof text, "GET /echo HTTP/1.1\r\nX%cY: v\r\n\r\n", c);
    srv_http_memory_t *m = hfx_client();
    hfx_answer_t a = hfx_request(m, text);
    answered++;
    ck_assert_msg(a.status == (token ? 200 : 400), "%c: status %d", c,
                  a.status);
    hfx_free(&a);
    srv_http_memory_free(m);
  }
  ck_assert_int_eq(hfx.done, answered);
  hfx_stop();
}
END_TEST

START_TEST(test_bad_after_good_keeps_order) {
  start();
  /* A good request, then garbage: the good one is answered first. */
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /echo?x=ok HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 200);
  expect_line(&a, "param(x)=ok");
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 400);
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

static bool is_closed(void *arg) { return srv_http_memory_closed(arg); }

/* A keep-alive connection's timer stays set for its last header deadline
 * after the answer (requests that follow one another do not set it again):
 * when it fires it finds the idle deadline later and waits for it. */
START_TEST(test_timer_set_early_waits_for_the_idle_deadline) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.header_timeout_ms = 30;
  cfg.idle_timeout_ms = 2000;
  start_cfg(&cfg);
  srv_http_memory_t *a = hfx_client();
  hfx_answer_t ans = hfx_request(a, "GET /echo HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(ans.status, 200);
  hfx_free(&ans);
  /* A later connection's headers time out: a's earlier header deadline
   * has passed too, and a is still open. */
  srv_http_memory_t *b = hfx_client();
  hfx_send(b, "GET /echo HTTP/1.1\r\nHost: x\r\n");
  ck_assert(hfx_read(b, &ans, false));
  ck_assert_int_eq(ans.status, 408);
  hfx_free(&ans);
  srv_http_memory_free(b);
  ck_assert(!srv_http_memory_closed(a));
  ans = hfx_request(a, "GET /echo HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(ans.status, 200);
  hfx_free(&ans);
  /* Then the idle deadline closes it, silently. */
  ck_assert(hfx_run_until(is_closed, a));
  size_t len;
  srv_http_memory_output(a, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(a);
  hfx_stop();
}
END_TEST

START_TEST(test_timeouts) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.header_timeout_ms = 30;
  cfg.body_timeout_ms = 30;
  cfg.min_body_rate = 1000000000;
  cfg.idle_timeout_ms = 30;
  start_cfg(&cfg);
  char code[64];
  /* Headers that never end: 408 at "headers". */
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /echo HTTP/1.1\r\nHost: x\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 408);
  ck_assert_ptr_nonnull(strstr(a.head, "408 Request Timeout\r\n"));
  ck_assert_str_eq(hfx_code(&a, code, sizeof code), "timeout");
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"headers\""));
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  /* A body that never ends: 408 at "body". */
  m = hfx_client();
  hfx_send(m, "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 408);
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"body\""));
  ck_assert_ptr_nonnull(strstr(a.body, "request body did not arrive"));
  hfx_free(&a);
  srv_http_memory_free(m);
  /* A keep-alive connection left idle after an answer closes silently. */
  m = hfx_client();
  a = hfx_request(m, "GET /echo HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  hfx_free(&a);
  ck_assert(hfx_run_until(is_closed, m));
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(m);
  /* So does one that never sent anything. */
  m = hfx_client();
  ck_assert(hfx_run_until(is_closed, m));
  srv_http_memory_free(m);
  ck_assert_int_eq(hfx.done, 3);
  hfx_stop();
}
END_TEST

/* ---- answers ---------------------------------------------------------------
 */

START_TEST(test_head_and_bodiless_statuses) {
  start();
  srv_http_memory_t *m = hfx_client();
  /* HEAD: Content-Length of the body not sent; the next answer follows
   * right after the head. */
  hfx_send(m, "HEAD /echo HTTP/1.1\r\n\r\nGET /nocontent HTTP/1.1\r\n\r\n"
              "GET /notmodified HTTP/1.1\r\n\r\nGET /error HTTP/1.1\r\n\r\n");
  hfx_answer_t a;
  ck_assert(hfx_read(m, &a, true));
  ck_assert_int_eq(a.status, 200);
  char v[64];
  ck_assert_int_gt(atoi(hfx_header(&a, "Content-Length", v, sizeof v)), 50);
  hfx_free(&a);
  /* 204 and 304: no body, no Content-Length, no Content-Type. */
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 204);
  ck_assert_str_eq(a.head, "HTTP/1.1 204 No Content\r\nServer: animd\r\n\r\n");
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 304);
  ck_assert_str_eq(a.head, "HTTP/1.1 304 Not Modified\r\nServer: animd\r\n"
                           "ETag: \"e1\"\r\n\r\n");
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(a.status, 409);
  hfx_free(&a);
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_error_bodies) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /error HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 409);
  ck_assert_ptr_nonnull(strstr(a.head, "HTTP/1.1 409 Conflict\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "Content-Type: application/json\r\n"));
  ck_assert_str_eq(a.body, "{\"error\":{\"code\":\"conflict\",\"message\":"
                           "\"in use by 3 clips\",\"at\":\"id\"}}\n");
  hfx_free(&a);
  ck_assert_int_eq(hfx.done_status, 409);
  a = hfx_request(m, "GET /error-null HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 405);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAllow: GET\r\n"));
  ck_assert_str_eq(a.body, "{\"error\":{\"code\":\"method_not_allowed\","
                           "\"message\":\"no\",\"at\":null}}\n");
  hfx_free(&a);
  /* A path that is not UTF-8 still makes valid JSON. */
  a = hfx_request(m, "GET /nope%ff%fe HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(strstr(a.body, "\"code\":\"not_found\""));
  for (size_t i = 0; i < a.body_len; i++)
    ck_assert_msg((unsigned char)a.body[i] != 0xff, "raw 0xff in %s", a.body);
  hfx_free(&a);
  /* Extra headers longer than the usual head. */
  a = hfx_request(m, "GET /longhead HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(a.body, "ok");
  char v[4096];
  ck_assert_uint_eq(strlen(hfx_header(&a, "X-Long", v, sizeof v)), 3000);
  hfx_free(&a);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

START_TEST(test_status_text) {
  static const struct {
    int status;
    const char *text;
  } t[] = {{100, "Continue"},
           {101, "Switching Protocols"},
           {200, "OK"},
           {201, "Created"},
           {204, "No Content"},
           {304, "Not Modified"},
           {400, "Bad Request"},
           {401, "Unauthorized"},
           {403, "Forbidden"},
           {404, "Not Found"},
           {405, "Method Not Allowed"},
           {406, "Not Acceptable"},
           {408, "Request Timeout"},
           {409, "Conflict"},
           {411, "Length Required"},
           {413, "Content Too Large"},
           {414, "URI Too Long"},
           {415, "Unsupported Media Type"},
           {417, "Expectation Failed"},
           {426, "Upgrade Required"},
           {429, "Too Many Requests"},
           {431, "Request Header Fields Too Large"},
           {500, "Internal Server Error"},
           {501, "Not Implemented"},
           {503, "Service Unavailable"},
           {505, "HTTP Version Not Supported"},
           {507, "Insufficient Storage"},
           {202, "Unknown"},
           {418, "Unknown"},
           {0, "Unknown"},
           {-1, "Unknown"}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    ck_assert_str_eq(srv_status_text(t[i].status), t[i].text);
}
END_TEST

/* ---- chunked answers --------------------------------------------------------
 */

START_TEST(test_streamed_answers) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_answer_t a = hfx_request(m, "GET /stream HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert(a.chunked);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nX-Stream: 1\r\n"));
  ck_assert_ptr_null(strstr(a.head, "Content-Length"));
  ck_assert_str_eq(a.body, "abbccc");
  hfx_free(&a);
  /* The exact framing: one chunk each, the empty one skipped. */
  hfx_send(m, "GET /stream HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  srv_http_memory_flush(m, SIZE_MAX);
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  const char *body = strstr(out, "\r\n\r\n");
  ck_assert_ptr_nonnull(body);
  ck_assert_str_eq(body + 4, "1\r\na\r\n2\r\nbb\r\n3\r\nccc\r\n0\r\n\r\n");
  srv_http_memory_take(m, len);
  /* HEAD: the head alone, the connection stays usable. */
  a = hfx_request(m, "HEAD /stream HTTP/1.1\r\n\r\n");
  ck_assert(a.chunked);
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  hfx_free(&a);
  a = hfx_request(m, "GET /echo HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  hfx_free(&a);
  srv_http_memory_free(m);

  /* HTTP/1.0 has no chunks: the body as it is, ended by the close. */
  m = hfx_client();
  hfx_send(m, "GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  ck_assert(hfx_read(m, &a, false));
  ck_assert(!a.chunked);
  ck_assert_ptr_nonnull(strstr(a.head, "Connection: close\r\n"));
  ck_assert_str_eq(a.body, "abbccc");
  hfx_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  ck_assert_int_eq(hfx.done, 5);
  hfx_stop();
}
END_TEST

START_TEST(test_aborted_stream) {
  start();
  srv_http_memory_t *m = hfx_client();
  hfx_send(m, "GET /abort HTTP/1.1\r\n\r\nGET /echo HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  /* Closed at once: what was queued is dropped, never a complete-looking
   * body, and the pipelined request is not answered. */
  ck_assert(srv_http_memory_closed(m));
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_ptr_null(strstr(out, "0\r\n\r\n"));
  ck_assert_int_eq(hfx.done, 1);
  ck_assert_int_eq(hfx.done_status, 200);
  srv_http_memory_free(m);
  hfx_stop();
}
END_TEST

/* ---- gzip ---------------------------------------------------------------- */

static char *gunzip(const char *in, size_t len, size_t *out_len) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
  size_t cap = 64 * len + 1024;
  char *out = malloc(cap);
  zs.next_in = (Bytef *)(uintptr_t)in;
  zs.avail_in = (uInt)len;
  zs.next_out = (Bytef *)out;
  zs.avail_out = (uInt)cap;
  ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
  *out_len = cap - zs.avail_out;
  inflateEnd(&zs);
  return out;
}

static char *json_of(size_t n) {
  char *s = malloc(n + 1);
  size_t i = 0;
  s[i++] = '[';
  while (i + 3 < n) {
    s[i++] = '1';
    s[i++] = ',';
  }
  while (i < n - 1) s[i++] = ' ';
  s[n - 1] = ']';
  s[n] = '\0';
  return s;
}

START_TEST(test_gzip_answers) {
  start();
  char *big = json_of(4000);
  ae_body = big;
  srv_http_memory_t *m = hfx_client();
  char v[256];
  /* Accepted: compressed, its ETag weak, Vary and Content-Encoding. */
  hfx_answer_t a =
      hfx_request(m, "GET /big HTTP/1.1\r\nAccept-Encoding: br, gzip\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "gzip");
  ck_assert_str_eq(hfx_header(&a, "Vary", v, sizeof v), "Accept-Encoding");
  ck_assert_str_eq(hfx_header(&a, "ETag", v, sizeof v), "W/\"v1\"");
  ck_assert_str_eq(hfx_header(&a, "X-After", v, sizeof v), "1");
  ck_assert_uint_lt(a.body_len, 1000);
  size_t n;
  char *plain = gunzip(a.body, a.body_len, &n);
  ck_assert_uint_eq(n, 4000);
  ck_assert(memcmp(plain, big, n) == 0);
  free(plain);
  size_t zlen = a.body_len;
  hfx_free(&a);
  /* HEAD: the compressed length, no body. */
  a = hfx_request(m, "HEAD /big HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
  ck_assert_uint_eq(
      strtoull(hfx_header(&a, "Content-Length", v, sizeof v), NULL, 10), zlen);
  hfx_free(&a);
  /* Not accepted, or not JSON: as it is, the ETag strong. */
  const char *plain_requests[] = {
      "GET /big HTTP/1.1\r\n\r\n",
      "GET /big HTTP/1.1\r\nAccept-Encoding: gzip;q=0\r\n\r\n",
      "GET /big HTTP/1.1\r\nAccept-Encoding: identity\r\n\r\n",
      "GET /big?type=text/plain HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n",
      "GET /big?type=application/octet-stream HTTP/1.1\r\n"
      "Accept-Encoding: gzip\r\n\r\n"};
  for (size_t i = 0; i < sizeof plain_requests / sizeof plain_requests[0];
       i++) {
    a = hfx_request(m, plain_requests[i]);
    ck_assert_uint_eq(a.body_len, 4000);
    ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "");
    ck_assert_str_eq(hfx_header(&a, "ETag", v, sizeof v), "\"v1\"");
    hfx_free(&a);
  }
  /* Below SRV_GZIP_MIN_BYTES: as it is. */
  char *small = json_of(1023);
  ae_body = small;
  a = hfx_request(m, "GET /big HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
  ck_assert_uint_eq(a.body_len, 1023);
  ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "");
  hfx_free(&a);
  free(small);
  char *edge = json_of(1024);
  ae_body = edge;
  a = hfx_request(m, "GET /big HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
  ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "gzip");
  hfx_free(&a);
  free(edge);
  /* A JSON stream: each chunk compressed, the whole one gzip member. */
  a = hfx_request(
      m, "GET /stream?json=1 HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
  ck_assert(a.chunked);
  ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "gzip");
  plain = gunzip(a.body, a.body_len, &n);
  ck_assert_uint_eq(n, 6);
  ck_assert(memcmp(plain, "abbccc", 6) == 0);
  free(plain);
  hfx_free(&a);
  /* A HEAD of a JSON stream announces the coding, sends nothing. */
  a = hfx_request(
      m, "HEAD /stream?json=1 HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
  ck_assert_str_eq(hfx_header(&a, "Content-Encoding", v, sizeof v), "gzip");
  hfx_free(&a);
  size_t len;
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(m);
  free(big);
  ae_body = NULL;
  hfx_stop();
}
END_TEST

/* ---- flow control
 * ------------------------------------------------------------- */

START_TEST(test_parsing_waits_for_a_reader) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.stream_high_water = 1000;
  start_cfg(&cfg);
  char *big = json_of(3000);
  ae_body = big;
  srv_http_memory_t *m = hfx_client();
  /* Ten pipelined requests each answered with 3000 bytes: past the high
   * water mark, parsing waits for the client to read. */
  for (int i = 0; i < 10; i++) hfx_send(m, "GET /big HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 20; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(hfx.done, 1);
  size_t q = srv_http_memory_queued(m);
  ck_assert_uint_gt(q, 3000);
  ck_assert_uint_lt(q, 3300);
  /* Each read lets the next request through, in order. */
  for (int i = 0; i < 10; i++) {
    hfx_answer_t a;
    ck_assert(hfx_read(m, &a, false));
    ck_assert_int_eq(a.status, 200);
    ck_assert_uint_eq(a.body_len, 3000);
    hfx_free(&a);
  }
  ck_assert_int_eq(hfx.done, 10);
  srv_http_memory_free(m);
  free(big);
  ae_body = NULL;
  hfx_stop();
}
END_TEST

START_TEST(test_when_flushed_and_hand_off) {
  start();
  char *big = json_of(3000);
  ae_body = big;
  srv_http_memory_t *m = hfx_client();
  /* Nothing queued: the callback runs at once. */
  hfx_answer_t a = hfx_request(m, "GET /flush HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(flushed_calls, 1);
  ck_assert_str_eq(a.body, "flushed");
  hfx_free(&a);
  /* An answer still queued: only once it is written. */
  hfx_send(m, "GET /big HTTP/1.1\r\n\r\nGET /flush HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(flushed_calls, 1);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_uint_eq(a.body_len, 3000);
  hfx_free(&a);
  ck_assert(hfx_read(m, &a, false));
  ck_assert_int_eq(flushed_calls, 2);
  ck_assert_str_eq(a.body, "flushed");
  hfx_free(&a);
  /* A memory transport has no socket to hand off. */
  a = hfx_request(m, "GET /handoff HTTP/1.1\r\n\r\n");
  ck_assert_int_eq(atoi(a.body), UV_ENOTSUP);
  hfx_free(&a);
  srv_http_memory_free(m);

  /* The client leaves before the flush: the callback still runs once,
   * told the client is gone. */
  m = hfx_client();
  hfx_send(m, "GET /big HTTP/1.1\r\n\r\nGET /flush HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 10; i++) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(flushed_calls, 2);
  srv_http_memory_reset(m);
  ck_assert_int_eq(flushed_calls, 3);
  srv_http_memory_free(m);
  free(big);
  ae_body = NULL;
  hfx_stop();
}
END_TEST

Suite *server_http_session_suite(void) {
  Suite *s = suite_create("server_http_session");
  TCase *tc = tcase_create("session");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_request_fields);
  tcase_add_test(tc, test_request_plain_query);
  tcase_add_test(tc, test_methods);
  tcase_add_test(tc, test_query_parameter_limit);
  tcase_add_test(tc, test_pipelined_wait_for_a_late_answer);
  tcase_add_test(tc, test_bytes_split_anywhere);
  tcase_add_test(tc, test_keep_alive_rules);
  tcase_add_test(tc, test_half_close);
  tcase_add_test(tc, test_reset_while_held);
  tcase_add_test(tc, test_draining);
  tcase_add_test(tc, test_chunked_request_body);
  tcase_add_test(tc, test_body_limits);
  tcase_add_test(tc, test_large_body_kept_whole);
  tcase_add_test(tc, test_expect_continue);
  tcase_add_test(tc, test_header_limits);
  tcase_add_test(tc, test_bad_requests);
  tcase_add_test(tc, test_header_name_bytes);
  tcase_add_test(tc, test_bad_after_good_keeps_order);
  tcase_add_test(tc, test_timeouts);
  tcase_add_test(tc, test_timer_set_early_waits_for_the_idle_deadline);
  tcase_add_test(tc, test_head_and_bodiless_statuses);
  tcase_add_test(tc, test_error_bodies);
  tcase_add_test(tc, test_status_text);
  tcase_add_test(tc, test_streamed_answers);
  tcase_add_test(tc, test_aborted_stream);
  tcase_add_test(tc, test_gzip_answers);
  tcase_add_test(tc, test_parsing_waits_for_a_reader);
  tcase_add_test(tc, test_when_flushed_and_hand_off);
  suite_add_tcase(s, tc);
  return s;
}
