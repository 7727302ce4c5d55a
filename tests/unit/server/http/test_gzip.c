/* Tests for gzip-coded answers (server/http/gzip.h) through the in-memory
 * transport: Accept-Encoding as RFC 9110 reads it, JSON answers and JSON
 * ranges compressed and inflating (zlib's inflate) to exactly the
 * identity answer, tiny and binary answers left alone, a range under
 * backpressure staying bounded, and a client that leaves half-way
 * through a compressed range (ASan checks that nothing leaks). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "http_memory_fixture.h"
#include "server/http/gzip.h"

/* Inflates a whole gzip member (caller frees); asserts it is one. */
static char *gunzip(const char *in, size_t len, size_t *out_len) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
  size_t cap = 4 * len + 1024, n = 0;
  char *out = malloc(cap);
  zs.next_in = (Bytef *)(uintptr_t)in;
  zs.avail_in = (uInt)len;
  int rc;
  do {
    if (n == cap) out = realloc(out, cap *= 2);
    zs.next_out = (Bytef *)out + n;
    zs.avail_out = (uInt)(cap - n);
    rc = inflate(&zs, Z_NO_FLUSH);
    n = cap - zs.avail_out;
    ck_assert_msg(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR,
                  "inflate: %d", rc);
  } while (rc != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
  ck_assert_msg(rc == Z_STREAM_END, "the gzip member is incomplete");
  ck_assert_uint_eq(zs.avail_in, 0); /* Nothing after it. */
  inflateEnd(&zs);
  *out_len = n;
  return out;
}

static mem_answer_t get_with(const char *target, const char *ae) {
  srv_http_memory_t *m = mem_client();
  char req[2048];
  snprintf(req, sizeof req,
           "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: %s\r\n\r\n", target,
           ae);
  mem_answer_t a = mem_request(m, req);
  srv_http_memory_free(m);
  return a;
}

static bool has_header(const mem_answer_t *a, const char *line) {
  return strcasestr(a->head, line) != NULL;
}

/* The answer to target with and without gzip: the same bytes once
 * inflated. */
static void expect_gzip_equal(const char *target, const char *ctype) {
  mem_answer_t plain = mem_get(target);
  mem_answer_t z = get_with(target, "deflate, gzip;q=0.8");
  ck_assert_int_eq(plain.status, 200);
  ck_assert_int_eq(z.status, 200);
  ck_assert(!has_header(&plain, "Content-Encoding"));
  ck_assert(has_header(&z, "\r\nContent-Encoding: gzip\r\n"));
  ck_assert(has_header(&z, "\r\nVary: Accept-Encoding\r\n"));
  ck_assert(has_header(&z, ctype));
  ck_assert_uint_lt(z.body_len, plain.body_len / 2);
  size_t n;
  char *in = gunzip(z.body, z.body_len, &n);
  ck_assert_uint_eq(n, plain.body_len);
  ck_assert_int_eq(memcmp(in, plain.body, n), 0);
  free(in);
  mem_answer_free(&plain);
  mem_answer_free(&z);
}

START_TEST(test_accept_encoding) {
  static const struct {
    const char *ae;
    bool yes;
  } cases[] = {
      {"gzip", true},
      {"GZIP", true},
      {"x-gzip", true},
      {"gzip, deflate, br", true},
      {"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
      {"*", true},
      {"identity, *;q=0.5", true},
      {"gzip;q=0", false},
      {"gzip; q=0.000", false},
      {"gzip;q=0, *", false},
      {"*;q=0", false},
      {"identity", false},
      {"deflate, br", false},
      {"", false},
      {"gzipx", false},
      {"xgzip, deflate", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(srv_gzip_accepted(cases[i].ae) == cases[i].yes, "%s",
                  cases[i].ae);
  ck_assert(!srv_gzip_accepted(NULL));
  ck_assert(srv_gzip_type("application/json"));
  ck_assert(srv_gzip_type("application/x-ndjson"));
  ck_assert(srv_gzip_type("image/svg+xml"));
  ck_assert(srv_gzip_type("application/json; charset=utf-8"));
  ck_assert(!srv_gzip_type("application/octet-stream"));
  ck_assert(!srv_gzip_type("application/jsonx"));
  ck_assert(!srv_gzip_type(NULL));
}
END_TEST

START_TEST(test_json_answers) {
  mem_server_start();
  expect_gzip_equal("/v1/skin?mesh=body&clip=wave&t=0.5&normals=1",
                    "application/json");
  expect_gzip_equal("/v1/pose?clip=wave&t=0.5", "application/json");
  /* The ETag of the coded answer is the weak form of the identity one's,
   * and If-None-Match with it gets a 304. */
  mem_answer_t z = get_with("/v1/skin?mesh=body&clip=wave&t=0.5", "gzip");
  const char *etag = strstr(z.head, "ETag: W/\"");
  ck_assert_ptr_nonnull(etag);
  char inm[128];
  snprintf(inm, sizeof inm, "%.*s", (int)(strchr(etag, '\r') - etag - 6),
           etag + 6);
  srv_http_memory_t *m = mem_client();
  char req[512];
  snprintf(req, sizeof req,
           "GET /v1/skin?mesh=body&clip=wave&t=0.5 HTTP/1.1\r\nHost: x\r\n"
           "Accept-Encoding: gzip\r\nIf-None-Match: %s\r\n\r\n",
           inm);
  mem_answer_t nm = mem_request(m, req);
  ck_assert_int_eq(nm.status, 304);
  mem_answer_free(&nm);
  srv_http_memory_free(m);
  mem_answer_free(&z);
  mem_server_stop();
}
END_TEST

START_TEST(test_json_range) {
  mem_server_start();
  expect_gzip_equal("/v1/skin?mesh=body&clip=wave&from=0&to=1&fps=30&normals=1",
                    "application/x-ndjson");
  expect_gzip_equal("/v1/pose?clip=wave&from=0&to=2&fps=60&space=local",
                    "application/x-ndjson");
  mem_server_stop();
}
END_TEST

START_TEST(test_left_alone) {
  mem_server_start();
  /* Tiny, binary, refused, or not asked for: identity. */
  const char *targets[][2] = {
      {"/healthz", "gzip"},
      {"/v1/pose?clip=wave&t=soon", "gzip"}, /* an error answer */
      {"/v1/skin?mesh=body&clip=wave&t=0.5&format=bin", "gzip"},
      {"/v1/skin?mesh=body&clip=wave&t=0.5&format=bin&encoding=q16", "gzip"},
      {"/v1/skin?mesh=body&clip=wave&from=0&to=1&fps=10&format=bin", "gzip"},
      {"/v1/skin?mesh=body&clip=wave&t=0.5", "gzip;q=0"},
      {"/v1/skin?mesh=body&clip=wave&t=0.5", "identity"},
  };
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    mem_answer_t a = get_with(targets[i][0], targets[i][1]);
    ck_assert_msg(!has_header(&a, "Content-Encoding"), "%s", targets[i][0]);
    mem_answer_free(&a);
  }
  mem_server_stop();
}
END_TEST

static const char big_range[] =
    "GET /v1/skin?mesh=body&clip=wave&from=0&to=10&fps=60&normals=1 "
    "HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n";

START_TEST(test_range_backpressure) {
  mem_server_start();
  srv_http_memory_t *m = mem_client();
  srv_http_memory_send(m, big_range, strlen(big_range));
  mem_run_for(200);
  /* Nothing read: production stops near the high-water mark, as for an
   * identity range (the compressed bytes count). */
  size_t held = srv_http_memory_queued(m);
  ck_assert_uint_gt(held, 0);
  ck_assert_uint_le(held, 256 * 1024 + 2 * 65536 + 32768);
  mem_answer_t a;
  ck_assert(mem_read_answer(m, &a, false));
  size_t n;
  char *in = gunzip(a.body, a.body_len, &n);
  int frames = 0;
  for (const char *p = strstr(in, "\"frame\":"); p != NULL && p < in + n;
       p = strstr(p + 1, "\"frame\":"))
    frames++;
  ck_assert_int_eq(frames, 601);
  free(in);
  mem_answer_free(&a);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

START_TEST(test_client_aborts_half_way) {
  mem_server_start();
  for (int round = 0; round < 2; round++) {
    srv_http_memory_t *m = mem_client();
    srv_http_memory_send(m, big_range, strlen(big_range));
    mem_run_for(50);
    /* Some of it read (a part of a gzip member), then gone: a reset, or
     * (second round) a half-close with the answer still being written. */
    ck_assert_uint_gt(srv_http_memory_flush(m, 50000), 0);
    if (round == 0)
      srv_http_memory_reset(m);
    else
      srv_http_memory_eof(m);
    mem_run_for(50);
    srv_http_memory_free(m);
  }
  mem_answer_t a = get_with("/v1/skin?mesh=body&clip=wave&t=0.5", "gzip");
  ck_assert_int_eq(a.status, 200);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

Suite *server_http_gzip_suite(void) {
  Suite *s = suite_create("server_http_gzip");
  TCase *tc = tcase_create("gzip");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_accept_encoding);
  tcase_add_test(tc, test_json_answers);
  tcase_add_test(tc, test_json_range);
  tcase_add_test(tc, test_left_alone);
  tcase_add_test(tc, test_range_backpressure);
  tcase_add_test(tc, test_client_aborts_half_way);
  suite_add_tcase(s, tc);
  return s;
}
