/* Tests for the WebSocket opening handshake: the accept value against the
 * worked example of RFC 6455 section 1.3, and the 400/405/426 refusals
 * with the statuses of the error table. */
#include <check.h>
#include <string.h>

#include "server/ws/handshake.h"

static srv_ws_handshake_req_t good_req(void) {
  srv_ws_handshake_req_t r = {
      .is_get = true,
      .http_major = 1,
      .http_minor = 1,
      .upgrade = "websocket",
      .connection = "keep-alive, Upgrade",
      .key = "dGhlIHNhbXBsZSBub25jZQ==",
      .version = "13",
  };
  return r;
}

START_TEST(test_accept_rfc_example) {
  char out[SRV_WS_ACCEPT_LEN + 1];
  ck_assert_int_eq(srv_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out), 0);
  ck_assert_str_eq(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}
END_TEST

START_TEST(test_accept_bad_keys) {
  char out[SRV_WS_ACCEPT_LEN + 1];
  ck_assert_int_ne(srv_ws_accept_key(NULL, out), 0);
  ck_assert_int_ne(srv_ws_accept_key("", out), 0);
  /* 12 bytes, not 16. */
  ck_assert_int_ne(srv_ws_accept_key("dGhlIHNhbXBsZSBu", out), 0);
  /* Right length, characters outside base64. */
  ck_assert_int_ne(srv_ws_accept_key("dGhlIHNhbX!sZSBub25jZQ==", out), 0);
  /* 17 bytes with one '='. */
  ck_assert_int_ne(srv_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ=A", out), 0);
}
END_TEST

START_TEST(test_handshake_ok) {
  srv_ws_handshake_req_t r = good_req();
  srv_ws_handshake_t h;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 101);
  ck_assert_str_eq(h.accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  char buf[256];
  size_t n = srv_ws_handshake_response(h.accept, buf, sizeof buf);
  const char *want = "HTTP/1.1 101 Switching Protocols\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
                     "\r\n\r\n";
  ck_assert_uint_eq(n, strlen(want));
  ck_assert_str_eq(buf, want);
  ck_assert_uint_eq(srv_ws_handshake_response(h.accept, buf, 20), 0);
  /* Tokens are case-insensitive. */
  r.upgrade = "WebSocket";
  r.connection = "UPGRADE";
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 101);
}
END_TEST

START_TEST(test_handshake_refusals) {
  srv_ws_handshake_t h;
  srv_ws_handshake_req_t r = good_req();
  r.is_get = false;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 405);

  r = good_req();
  r.http_minor = 0;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);
  ck_assert_str_eq(h.at, "version");

  /* upgrade_required has one status, the table's (400, as GET /v1/stream
   * without Upgrade answers). */
  r = good_req();
  r.upgrade = NULL;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);
  ck_assert_int_eq(h.code, SRV_ERR_UPGRADE_REQUIRED);
  ck_assert_str_eq(h.at, "Upgrade");
  ck_assert_ptr_nonnull(strstr(h.extra_headers, "Upgrade: websocket"));

  r = good_req();
  r.upgrade = "h2c";
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);

  r = good_req();
  r.connection = "keep-alive";
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);
  ck_assert_str_eq(h.at, "Connection");

  r = good_req();
  r.version = "8";
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 426);
  ck_assert_str_eq(h.extra_headers, "Sec-WebSocket-Version: 13\r\n");
  r.version = NULL;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 426);

  r = good_req();
  r.key = "short";
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);
  ck_assert_str_eq(h.at, "Sec-WebSocket-Key");
  r.key = NULL;
  ck_assert_int_eq(srv_ws_handshake_check(&r, &h), 400);
}
END_TEST

START_TEST(test_header_tokens) {
  ck_assert(srv_ws_header_has_token("a, b ,c", "b"));
  ck_assert(srv_ws_header_has_token(" upgrade ", "Upgrade"));
  ck_assert(!srv_ws_header_has_token("upgrades", "upgrade"));
  ck_assert(!srv_ws_header_has_token("", "upgrade"));
  ck_assert(!srv_ws_header_has_token(NULL, "upgrade"));
}
END_TEST

Suite *ws_handshake_suite(void) {
  Suite *s = suite_create("ws_handshake");
  TCase *tc = tcase_create("handshake");
  tcase_add_test(tc, test_accept_rfc_example);
  tcase_add_test(tc, test_accept_bad_keys);
  tcase_add_test(tc, test_handshake_ok);
  tcase_add_test(tc, test_handshake_refusals);
  tcase_add_test(tc, test_header_tokens);
  suite_add_tcase(s, tc);
  return s;
}
