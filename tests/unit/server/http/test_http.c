/* Tests for the HTTP glue and the router over a loopback socket: a real
 * server object on 127.0.0.1 port 0 in this process, a blocking client on
 * a second thread. Checks pipelined answers in order, percent-decoding,
 * 404/405 with Allow, keep-alive versus Connection: close, and the
 * If-None-Match matcher. The loop closes clean after the drain. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "http_loopback.h"
#include "server/api/etag.h"

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(test_pipelined_in_order) {
  char *got = http_loopback_converse(
      "GET /v1/n%6Fpe?a=1 HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
      "DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /v1/missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const char *a = strstr(got, "HTTP/1.1 404");
  const char *b = strstr(got, "HTTP/1.1 200");
  const char *c = strstr(got, "HTTP/1.1 405");
  const char *d = strstr(got, "/v1/missing");
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_nonnull(d);
  ck_assert(a < b && b < c && c < d);
  /* The path was percent-decoded before routing. */
  ck_assert_ptr_nonnull(strstr(got, "no such endpoint: /v1/nope\""));
  ck_assert_ptr_nonnull(strstr(got, "Allow: GET, HEAD\r\n"));
  ck_assert_int_eq(count(got, "HTTP/1.1 "), 4);
  /* Only the last answer closes. */
  ck_assert_int_eq(count(got, "Connection: close"), 1);
  ck_assert_ptr_nonnull(
      strstr(got, "{\"error\":{\"code\":\"method_not_allowed\""));
  free(got);
}
END_TEST

START_TEST(test_query_decoding_and_errors) {
  char *got = http_loopback_converse(
      "GET /v1/pose?clip=%6Eo+pe&t=1 HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /v1/pose?clip=x&t=1&space=w%6Frld HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /v1/skin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  /* Parameters are checked before assets are looked up, and each error
   * names its parameter; '+' and %XX are decoded. */
  ck_assert_ptr_nonnull(
      strstr(got, "{\"error\":{\"code\":\"not_found\",\"message\":\"no clip "
                  "'no pe'\",\"at\":\"clip\"}}"));
  ck_assert_ptr_nonnull(strstr(got, "\"at\":\"space\""));
  ck_assert_ptr_nonnull(
      strstr(got, "{\"error\":{\"code\":\"missing_parameter\""));
  ck_assert_ptr_nonnull(strstr(got, "\"at\":\"mesh\""));
  ck_assert_int_eq(count(got, "HTTP/1.1 404"), 1);
  ck_assert_int_eq(count(got, "HTTP/1.1 400"), 2);
  free(got);
}
END_TEST

START_TEST(test_http10_and_head) {
  char *got = http_loopback_converse("HEAD /healthz HTTP/1.0\r\n\r\n");
  ck_assert_ptr_nonnull(strstr(got, "HTTP/1.1 200 OK\r\n"));
  ck_assert_ptr_nonnull(strstr(got, "Content-Length: 16\r\n"));
  ck_assert_ptr_nonnull(strstr(got, "Connection: close\r\n"));
  /* HEAD: the head ends the bytes. */
  const char *end = strstr(got, "\r\n\r\n");
  ck_assert_ptr_nonnull(end);
  ck_assert_str_eq(end, "\r\n\r\n");
  free(got);
}
END_TEST

START_TEST(test_etag_matching) {
  srv_request_t r;
  memset(&r, 0, sizeof r);
  r.header_count = 1;
  r.headers[0].name = "if-none-match";
  r.headers[0].value = "\"a\", W/\"abc\" ,\"zz\"";
  ck_assert(srv__etag_matches(&r, "\"abc\""));
  ck_assert(srv__etag_matches(&r, "\"zz\""));
  ck_assert(!srv__etag_matches(&r, "\"ab\""));
  r.headers[0].value = "*";
  ck_assert(srv__etag_matches(&r, "\"x\""));
  r.header_count = 0;
  ck_assert(!srv__etag_matches(&r, "\"x\""));
  char e1[40], e2[40];
  srv__etag(e1, "abc", 3);
  srv__etag(e2, "abd", 3);
  ck_assert_int_eq(strlen(e1), 34);
  ck_assert(e1[0] == '"' && e1[33] == '"');
  ck_assert_str_ne(e1, e2);
  /* The same bytes, the same ETag; a trailing zero byte, a byte of the
   * second word or of the tail changes it; lowercase hex only. */
  srv__etag(e2, "abc", 3);
  ck_assert_str_eq(e1, e2);
  srv__etag(e2, "abc\0", 4);
  ck_assert_str_ne(e1, e2);
  char k1[20] = "0123456789abcdefXYZ", k2[20] = "0123456789abcdefXYZ";
  k2[9] ^= 1;
  srv__etag(e1, k1, 19);
  srv__etag(e2, k2, 19);
  ck_assert_str_ne(e1, e2);
  k2[9] ^= 1;
  k2[18] ^= 0x80;
  srv__etag(e2, k2, 19);
  ck_assert_str_ne(e1, e2);
  ck_assert_uint_eq(strspn(e1 + 1, "0123456789abcdef"), 32);
}
END_TEST

Suite *server_http_suite(void) {
  Suite *s = suite_create("server_http");
  TCase *tc = tcase_create("http");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_pipelined_in_order);
  tcase_add_test(tc, test_query_decoding_and_errors);
  tcase_add_test(tc, test_http10_and_head);
  tcase_add_test(tc, test_etag_matching);
  suite_add_tcase(s, tc);
  return s;
}
