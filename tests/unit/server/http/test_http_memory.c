/* Tests for the HTTP side through the in-memory transport (no socket):
 * pipelining in order, the router's 404/405, every handler's happy path
 * and its error answers (status, code and "at"), ranges under
 * backpressure from a client that does not read, a client that leaves
 * mid-range, and the scheduler answering the same bytes inline and on the
 * pool. The server is real (demo assets, one worker, one stream loop). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "http_memory_fixture.h"

/* Occurrences of needle in hay; memmem with the length left, since a
 * strstr per occurrence reads the rest of a megabyte answer each time
 * (its sanitizer interceptor measures the haystack first). */
static int count(const char *hay, const char *needle) {
  int n = 0;
  size_t left = strlen(hay), nl = strlen(needle);
  for (const char *p = memmem(hay, left, needle, nl); p != NULL;
       p = memmem(p + 1, left - (size_t)(p + 1 - hay), needle, nl))
    n++;
  return n;
}

/* "POST target" with a JSON body, as request text (caller frees). */
static char *post_text(const char *target, const char *ctype,
                       const char *body) {
  size_t n = strlen(body);
  char *t = malloc(n + 512);
  snprintf(t, n + 512,
           "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\n"
           "Content-Length: %zu\r\n\r\n%s",
           target, ctype, n, body);
  return t;
}

START_TEST(test_pipelined_in_order) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  const char *text = "GET /v1/n%6Fpe HTTP/1.1\r\nHost: x\r\n\r\n"
                     "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                     "DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                     "GET /v1/pose?clip=wave&t=0.5 HTTP/1.1\r\nHost: x\r\n"
                     "Connection: close\r\n\r\n";
  srv_http_memory_send(m, text, strlen(text));
  int want[] = {404, 200, 405, 200};
  for (int i = 0; i < 4; i++) {
    mem_answer_t a;
    ck_assert(mem_read_answer(m, &a, false));
    ck_assert_int_eq(a.status, want[i]);
    ck_assert_int_eq(count(a.head, "Connection: close"), i == 3);
    if (i == 0)
      ck_assert_ptr_nonnull(strstr(a.body, "no such endpoint: /v1/nope\""));
    if (i == 2) ck_assert_ptr_nonnull(strstr(a.head, "Allow: GET, HEAD\r\n"));
    mem_answer_free(&a);
  }
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

/* One expected error answer. */
typedef struct case_s {
  const char *method; /* GET, POST, DELETE, HEAD */
  const char *target;
  const char *body; /* POST: JSON body (Content-Type application/json). */
  int status;
  const char *code;
  const char *at; /* NULL: "at" is null; "" : not checked. */
} case_t;

static const case_t cases[] = {
    /* router */
    {"GET", "/nope", NULL, 404, "not_found", NULL},
    {"POST", "/healthz", "{}", 405, "method_not_allowed", NULL},
    {"POST", "/v1/clips/wave", "{}", 405, "method_not_allowed", NULL},
    {"GET", "/v1/solve", NULL, 405, "method_not_allowed", NULL},
    {"GET", "/v1/stream", NULL, 400, "upgrade_required", "Upgrade"},
    /* GET /v1/pose */
    {"GET", "/v1/pose?clip=wave", NULL, 400, "missing_parameter", "t"},
    {"GET", "/v1/pose?clip=wave&t=soon", NULL, 400, "bad_parameter", "t"},
    {"GET", "/v1/pose?clip=wave&t=1e39", NULL, 400, "bad_parameter", "t"},
    {"GET", "/v1/pose?t=1", NULL, 400, "missing_parameter", "clip"},
    {"GET", "/v1/pose?clip=nope&t=1", NULL, 404, "not_found", "clip"},
    {"GET", "/v1/pose?skeleton=nope&t=1", NULL, 404, "not_found", "skeleton"},
    {"GET", "/v1/pose?clip=wave&t=1&space=world", NULL, 400, "bad_parameter",
     "space"},
    {"GET", "/v1/pose?clip=wave&t=1&wrap=bounce", NULL, 400, "bad_parameter",
     "wrap"},
    {"GET", "/v1/pose?clip=wave&t=1&format=xml", NULL, 400, "bad_parameter",
     "format"},
    {"GET", "/v1/pose?clip=wave&from=0&to=1", NULL, 400, "missing_parameter",
     "fps"},
    {"GET", "/v1/pose?clip=wave&from=0&to=1&fps=0", NULL, 400, "bad_parameter",
     "fps"},
    {"GET", "/v1/pose?clip=wave&from=1&to=0&fps=30", NULL, 400, "bad_parameter",
     "to"},
    {"GET", "/v1/pose?clip=wave&from=0&to=100000&fps=240", NULL, 400,
     "too_many_frames", "fps"},
    /* POST /v1/pose */
    {"POST", "/v1/pose", "{", 400, "bad_json", ""},
    {"POST", "/v1/pose", "[]", 400, "wrong_type", ""},
    {"POST", "/v1/pose", "{\"layers\":[]}", 400, "missing_field", "skeleton"},
    {"POST", "/v1/pose", "{\"skeleton\":1}", 400, "wrong_type", "skeleton"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"nope\",\"layers\":[{\"clip\":\"wave\",\"t\":1}]}", 404,
     "not_found", "skeleton"},
    {"POST", "/v1/pose", "{\"skeleton\":\"demo-humanoid\"}", 400,
     "missing_field", "layers"},
    {"POST", "/v1/pose", "{\"skeleton\":\"demo-humanoid\",\"layers\":[]}", 400,
     "wrong_type", "layers"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"space\":\"world\",\"layers\":[1]}", 400,
     "bad_value", "space"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"format\":\"xml\",\"layers\":[1]}", 400,
     "bad_value", "format"},
    {"POST", "/v1/pose", "{\"skeleton\":\"demo-humanoid\",\"layers\":[1]}", 400,
     "wrong_type", "layers[0]"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"t\":1}]}", 400,
     "missing_field", "layers[0].clip"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"nope\","
     "\"t\":1}]}",
     404, "not_found", "layers[0].clip"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\"}]}", 400,
     "missing_field", "layers[0].t"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":\"x\"}]}",
     400, "wrong_type", "layers[0].t"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":1,\"weight\":-1}]}",
     400, "bad_value", "layers[0].weight"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":1,\"mode\":\"mix\"}]}",
     400, "bad_value", "layers[0].mode"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":1,\"wrap\":\"x\"}]}",
     400, "bad_value", "layers[0].wrap"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":1,\"mask\":\"hips\"}]}",
     400, "wrong_type", "layers[0].mask"},
    {"POST", "/v1/pose",
     "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
     "\"t\":1,\"mask\":[\"hips\",\"tail\"]}]}",
     400, "unknown_joint", "layers[0].mask[1]"},
    /* GET /v1/skin */
    {"GET", "/v1/skin?clip=wave&t=1", NULL, 400, "missing_parameter", "mesh"},
    {"GET", "/v1/skin?mesh=nope&t=1", NULL, 404, "not_found", "mesh"},
    {"GET", "/v1/skin?mesh=body&clip=wave", NULL, 400, "missing_parameter",
     "t"},
    {"GET", "/v1/skin?mesh=body&clip=wave&t=1&method=x", NULL, 400,
     "bad_parameter", "method"},
    {"GET", "/v1/skin?mesh=body&clip=wave&t=1&normals=2", NULL, 400,
     "bad_parameter", "normals"},
    {"GET", "/v1/skin?mesh=body&clip=nope&t=1", NULL, 404, "not_found", "clip"},
    /* POST /v1/solve */
    {"POST", "/v1/solve", "{", 400, "bad_json", ""},
    {"POST", "/v1/solve", "{\"frames\":[]}", 400, "missing_field", "skeleton"},
    {"POST", "/v1/solve", "{\"skeleton\":\"nope\",\"frames\":[]}", 404,
     "not_found", "skeleton"},
    {"POST", "/v1/solve", "{\"skeleton\":\"demo-humanoid\"}", 400,
     "missing_field", "frames"},
    {"POST", "/v1/solve",
     "{\"skeleton\":\"demo-humanoid\",\"frames\":[[1,2,3]]}", 400,
     "value_count", "frames[0]"},
    {"POST", "/v1/solve", "{\"skeleton\":\"demo-humanoid\",\"frames\":[1]}",
     400, "wrong_type", "frames[0]"},
    /* assets */
    {"GET", "/v1/clips/nope", NULL, 404, "not_found", "id"},
    {"DELETE", "/v1/meshes/nope", NULL, 404, "not_found", "id"},
    {"DELETE", "/v1/skeletons/demo-humanoid", NULL, 409, "conflict", ""},
    {"POST", "/v1/assets", "", 400, "empty_body", "body"},
};

static char *case_text(const case_t *c) {
  if (strcmp(c->method, "POST") == 0)
    return post_text(c->target, "application/json", c->body);
  char *t = malloc(2048);
  snprintf(t, 2048, "%s %s HTTP/1.1\r\nHost: x\r\n\r\n", c->method, c->target);
  return t;
}

START_TEST(test_handler_errors) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const case_t *c = &cases[i];
    char *text = case_text(c);
    mem_answer_t a = mem_request(m, text);
    free(text);
    char code[64];
    ck_assert_msg(a.status == c->status, "%s %s: status %d, want %d (%s)",
                  c->method, c->target, a.status, c->status, a.body);
    ck_assert_msg(strcmp(mem_error_code(&a, code, sizeof code), c->code) == 0,
                  "%s %s: code %s, want %s", c->method, c->target, code,
                  c->code);
    if (c->at == NULL) {
      ck_assert_msg(strstr(a.body, "\"at\":null") != NULL, "%s %s: %s",
                    c->method, c->target, a.body);
    } else if (c->at[0] != '\0') {
      char want[128];
      snprintf(want, sizeof want, "\"at\":\"%s\"", c->at);
      ck_assert_msg(strstr(a.body, want) != NULL, "%s %s: %s, want %s",
                    c->method, c->target, a.body, want);
    }
    mem_answer_free(&a);
  }
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

START_TEST(test_handler_happy_paths) {
  mem_server_start();
  static const struct {
    const char *target;
    const char *needle;
  } gets[] = {
      {"/healthz", "{\"status\":\"ok\"}"},
      {"/v1/info", "\"name\":\"animd\""},
      {"/metrics", "animd_requests_total"},
      {"/v1/assets", "demo-humanoid"},
      {"/v1/skeletons/demo-humanoid", "\"joints\""},
      {"/v1/clips/wave", "\"tracks\""},
      {"/v1/meshes/body", "\"vertices\""},
      {"/v1/pose?clip=wave&t=0.5", "\"joints\":17"},
      {"/v1/pose?clip=wave&t=0.5&space=local", "\"joints\":17"},
      {"/v1/skin?mesh=body&clip=wave&t=0.5&normals=1", "\"vertices\":512"},
  };
  for (size_t i = 0; i < sizeof gets / sizeof gets[0]; i++) {
    mem_answer_t a = mem_get(gets[i].target);
    ck_assert_msg(a.status == 200, "%s: %d %s", gets[i].target, a.status,
                  a.body);
    ck_assert_msg(strstr(a.body, gets[i].needle) != NULL, "%s: %s",
                  gets[i].target, a.body);
    mem_answer_free(&a);
  }
  /* Binary: 17 joints of 16 floats. */
  mem_answer_t a = mem_get("/v1/pose?clip=wave&t=0.5&format=bin");
  ck_assert_int_eq(a.status, 200);
  ck_assert_uint_eq(a.body_len, 17 * 16 * 4);
  ck_assert_ptr_nonnull(strstr(a.head, "X-Animd-Joints: 17\r\n"));
  mem_answer_free(&a);
  /* A blend, a solve and an upload (then its delete). */
  srv_http_memory_t *m = mem_client();
  char *t = post_text("/v1/pose", "application/json",
                      "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":"
                      "\"idle\",\"t\":1,\"weight\":0.7},{\"clip\":\"wave\","
                      "\"t\":0.4,\"weight\":0.3,\"mask\":[\"hips\"]}]}");
  a = mem_request(m, t);
  free(t);
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "\"matrices\""));
  mem_answer_free(&a);
  t = post_text("/v1/assets", "application/json",
                "{\"skeleton\":{\"name\":\"stick\",\"joints\":[{\"name\":"
                "\"root\",\"parent\":-1},{\"name\":\"tip\",\"parent\":0,"
                "\"translation\":[0,1,0]}]}}");
  a = mem_request(m, t);
  free(t);
  ck_assert_int_eq(a.status, 201);
  mem_answer_free(&a);
  t = post_text("/v1/solve", "application/json",
                "{\"skeleton\":\"stick\",\"frames\":[[0,0,0,0,1,0]]}");
  a = mem_request(m, t);
  free(t);
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "\"rotations\""));
  mem_answer_free(&a);
  a = mem_request(m, "DELETE /v1/skeletons/stick HTTP/1.1\r\nHost: x\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  mem_answer_free(&a);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

START_TEST(test_range_backpressure) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  /* 601 JSON frames of 512 skinned vertices: about 7 MB in all. */
  const char *req = "GET /v1/skin?mesh=body&clip=wave&from=0&to=10&fps=60 "
                    "HTTP/1.1\r\nHost: x\r\n\r\n";
  srv_http_memory_send(m, req, strlen(req));
  mem_run_for(200);
  /* The client reads nothing: production stops near the high-water mark
   * (256 KiB) plus one batch (about 64 KiB) and a frame. */
  size_t held = srv_http_memory_queued(m);
  ck_assert_uint_gt(held, 0);
  ck_assert_uint_le(held, 256 * 1024 + 2 * 65536 + 32768);
  /* Reading lets it finish, every frame in order. */
  mem_answer_t a;
  ck_assert(mem_read_answer(m, &a, false));
  ck_assert_int_eq(a.status, 200);
  ck_assert_int_eq(count(a.body, "\"frame\":"), 601);
  ck_assert_ptr_nonnull(strstr(a.body, "\"frame\":600"));
  mem_answer_free(&a);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

START_TEST(test_client_leaves_mid_range) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  const char *req = "GET /v1/skin?mesh=body&clip=wave&from=0&to=10&fps=60 "
                    "HTTP/1.1\r\nHost: x\r\n\r\n";
  srv_http_memory_send(m, req, strlen(req));
  mem_run_for(50);
  srv_http_memory_flush(m, 100000);
  srv_http_memory_reset(m);
  mem_run_for(50);
  srv_http_memory_free(m);
  /* The server still answers, and drains clean (ASan checks the rest). */
  mem_answer_t a = mem_get("/healthz");
  ck_assert_int_eq(a.status, 200);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

static char *answer_of(const char *target) {
  mem_answer_t a = mem_get(target);
  ck_assert_int_eq(a.status, 200);
  return a.body;
}

START_TEST(test_inline_and_pool_agree) {
  static const char *targets[] = {
      "/v1/pose?clip=wave&t=0.37&space=skin",
      "/v1/pose?clip=wave&from=0&to=1&fps=10",
      "/v1/skin?mesh=body&clip=wave&t=0.5&normals=1&format=bin",
  };
  char *inline_bodies[3], *pool_bodies[3];
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.inline_cost = 1000000000u; /* Everything inline. */
  mem_server_start_cfg(&cfg);
  for (int i = 0; i < 3; i++) inline_bodies[i] = answer_of(targets[i]);
  mem_server_stop();
  srv_config_defaults(&cfg);
  cfg.inline_cost = 0; /* Everything on the pool. */
  mem_server_start_cfg(&cfg);
  for (int i = 0; i < 3; i++) pool_bodies[i] = answer_of(targets[i]);
  mem_server_stop();
  for (int i = 0; i < 3; i++) {
    ck_assert_str_eq(inline_bodies[i], pool_bodies[i]);
    free(inline_bodies[i]);
    free(pool_bodies[i]);
  }
}
END_TEST

START_TEST(test_upgrade_over_memory_is_refused) {
  mem_server_start();
  mem_answer_t a;
  srv_http_memory_t *m = mem_client();
  a = mem_request(m, "GET /v1/stream HTTP/1.1\r\nHost: x\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n");
  /* No socket to hand to a stream loop: an error, and the connection
   * closes. */
  ck_assert_int_eq(a.status, 500);
  mem_answer_free(&a);
  mem_run_for(10);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

/* RFC 9112: what a strict server refuses (and what it refused not): a
 * request line without a version or with more after it is 400 (only a
 * well-formed version this server does not speak is 505), a folded header
 * line 400. */
START_TEST(test_strict_http) {
  mem_server_start();
  static const struct {
    const char *text;
    int status;
    const char *code;
  } strict[] = {
      {"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n", 400, "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n", 400, "bad_header"},
      {"GET /healthz HTTP/1.1\r\n: x\r\nHost: x\r\n\r\n", 400, ""},
      {"POST /v1/solve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n "
       "chunked\r\n\r\n0\r\n\r\n",
       400, "bad_header"},
      {"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http_version"},
      {"GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n", 505, ""},
      {"GET /healthz HTTP/0.9\r\nHost: x\r\n\r\n", 505, ""},
      {"GET /healthz\r\nHost: x\r\n\r\n", 400, "bad_http"},
      {"GET /healthz\r\n\r\n", 400, "bad_http"},
      {"GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n", 400, "bad_http"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 400,
       "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\tc\r\n\r\n", 400,
       "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:\r\n c\r\n\r\n", 400,
       "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:\r\n \r\n\r\n", 400,
       "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n \r\n\r\n", 400,
       "bad_header"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:\r\nX-B:  \r\n\r\n", 200, ""},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 200, ""},
  };
  for (size_t i = 0; i < sizeof strict / sizeof strict[0]; i++) {
    srv_http_memory_t *m = mem_client();
    mem_answer_t a = mem_request(m, strict[i].text);
    char code[64];
    ck_assert_msg(a.status == strict[i].status, "%s: %d %s", strict[i].text,
                  a.status, a.body);
    if (strict[i].code[0])
      ck_assert_str_eq(mem_error_code(&a, code, sizeof code), strict[i].code);
    mem_answer_free(&a);
    srv_http_memory_free(m);
  }
  mem_server_stop();
}
END_TEST

/* 100 Continue only for a request its route takes: another is answered
 * at once, without its body, and the connection closes. */
START_TEST(test_expect_continue_after_routing) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  const char *head = "POST /v1/nope HTTP/1.1\r\nHost: x\r\n"
                     "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n";
  srv_http_memory_send(m, head, strlen(head));
  mem_answer_t a;
  ck_assert(mem_read_answer(m, &a, false));
  ck_assert_int_eq(a.status, 404);
  mem_answer_free(&a);
  ck_assert(srv_http_memory_closed(m));
  srv_http_memory_free(m);
  m = mem_client();
  head = "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
         "Expect: 100-continue\r\n\r\n";
  srv_http_memory_send(m, head, strlen(head));
  ck_assert(mem_read_answer(m, &a, false));
  ck_assert_int_eq(a.status, 405);
  ck_assert_ptr_nonnull(strstr(a.head, "Allow: GET, HEAD\r\n"));
  mem_answer_free(&a);
  srv_http_memory_free(m);
  m = mem_client();
  head = "POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
         "Expect: 100-continue\r\n\r\n";
  srv_http_memory_send(m, head, strlen(head));
  ck_assert(mem_read_answer(m, &a, false));
  ck_assert_int_eq(a.status, 100);
  mem_answer_free(&a);
  srv_http_memory_send(m, "{}", 2);
  ck_assert(mem_read_answer(m, &a, false));
  ck_assert_int_eq(a.status, 400); /* The body was read: missing fields. */
  mem_answer_free(&a);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

/* HEAD of a range answers the head at once and computes no frame: the
 * whole answer is there before the loop runs any job. */
START_TEST(test_head_of_range_does_no_work) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  const char *req = "HEAD /v1/skin?mesh=body&clip=wave&from=0&to=400&fps=240"
                    " HTTP/1.1\r\nHost: x\r\n\r\n";
  srv_http_memory_send(m, req, strlen(req));
  srv_http_memory_flush(m, SIZE_MAX);
  size_t len;
  const char *out = srv_http_memory_output(m, &len);
  ck_assert_uint_gt(len, 0);
  ck_assert(strncmp(out, "HTTP/1.1 200", 12) == 0);
  ck_assert_ptr_nonnull(strstr(out, "\r\n\r\n"));
  ck_assert_uint_eq(srv_http_memory_queued(m), 0);
  /* Nothing follows: no chunk was produced. */
  srv_http_memory_take(m, len);
  mem_run_for(30);
  srv_http_memory_flush(m, SIZE_MAX);
  srv_http_memory_output(m, &len);
  ck_assert_uint_eq(len, 0);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

/* A query time is wrapped in double: 18.77 s looped over the 2 s clip is
 * clip time 0.77 exactly as asked directly (as a float, 18.77 would be
 * 18.7700005 and land 4.6e-7 s later). */
START_TEST(test_time_wrapped_in_double) {
  mem_server_start();
  static const char *pairs[][2] = {
      {"/v1/pose?clip=wave&t=18.77&wrap=loop&format=bin",
       "/v1/pose?clip=wave&t=0.77&format=bin"},
      {"/v1/skin?mesh=body&clip=wave&t=259218.77&wrap=loop&format=bin",
       "/v1/skin?mesh=body&clip=wave&t=0.77&format=bin"},
  };
  for (int i = 0; i < 2; i++) {
    mem_answer_t a = mem_get(pairs[i][0]), b = mem_get(pairs[i][1]);
    ck_assert_int_eq(a.status, 200);
    ck_assert_int_eq(b.status, 200);
    ck_assert_uint_eq(a.body_len, b.body_len);
    ck_assert(memcmp(a.body, b.body, a.body_len) == 0);
    mem_answer_free(&a);
    mem_answer_free(&b);
  }
  mem_server_stop();
}
END_TEST

/* A folded header line (obs-fold) is refused however the bytes arrive:
 * the line break in one read and the blanks and the rest in the next, the
 * blanks at a read's start, or an empty value folded; a value split
 * across reads without a fold is taken. */
START_TEST(test_folded_header_split_across_reads) {
  mem_server_start();
  static const struct {
    const char *parts[3];
    int status;
  } split_folds[] = {
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n", " c\r\n\r\n", ""},
       400},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n ", " ", "c\r\n\r\n"},
       400},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:\r\n", "\tc\r\n\r\n", ""},
       400},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b", " c\r\n\r\n", ""}, 200},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: ", "b\r\n", "\r\n"}, 200},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:\r\n", "\r\n", ""}, 200},
      {{"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A:", "\r\n\r\n", ""}, 200},
  };
  for (size_t i = 0; i < sizeof split_folds / sizeof split_folds[0]; i++) {
    srv_http_memory_t *m = mem_client();
    for (int k = 0; k < 3; k++) {
      const char *part = split_folds[i].parts[k];
      if (part[0] != '\0') srv_http_memory_send(m, part, strlen(part));
      mem_run_for(1);
    }
    mem_answer_t a;
    ck_assert(mem_read_answer(m, &a, false));
    ck_assert_msg(a.status == split_folds[i].status, "case %zu: %d %s", i,
                  a.status, a.body);
    char code[64];
    if (split_folds[i].status == 400)
      ck_assert_str_eq(mem_error_code(&a, code, sizeof code), "bad_header");
    mem_answer_free(&a);
    srv_http_memory_free(m);
  }
  mem_server_stop();
}
END_TEST

Suite *server_http_memory_suite(void) {
  Suite *s = suite_create("server_http_memory");
  TCase *tc = tcase_create("memory");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_pipelined_in_order);
  tcase_add_test(tc, test_handler_errors);
  tcase_add_test(tc, test_handler_happy_paths);
  tcase_add_test(tc, test_range_backpressure);
  tcase_add_test(tc, test_client_leaves_mid_range);
  tcase_add_test(tc, test_inline_and_pool_agree);
  tcase_add_test(tc, test_upgrade_over_memory_is_refused);
  tcase_add_test(tc, test_strict_http);
  tcase_add_test(tc, test_folded_header_split_across_reads);
  tcase_add_test(tc, test_expect_continue_after_routing);
  tcase_add_test(tc, test_head_of_range_does_no_work);
  tcase_add_test(tc, test_time_wrapped_in_double);
  suite_add_tcase(s, tc);
  return s;
}
