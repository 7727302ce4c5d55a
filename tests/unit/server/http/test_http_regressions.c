/* Regression tests for HTTP answers found wrong by fuzzing the daemon's
 * request path: each case is an input that once produced a bad answer. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "http_loopback.h"
#include "server/http/http.h"

/* A short path with 32 valueless query parameters: each "b&" (2 bytes)
 * decodes to "b", NUL and an empty value's NUL (3 bytes), which overflowed
 * the buffer sized for twice the target (ASan: heap-buffer-overflow in
 * pct_decode). The request is now answered like any other. */
START_TEST(test_many_valueless_parameters) {
  char req[256] = "GET /a?";
  for (int i = 0; i < 31; i++) strcat(req, "b&");
  strcat(req, "b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  char *got = http_loopback_converse(req);
  ck_assert_msg(strncmp(got, "HTTP/1.1 404 ", 13) == 0, "%s", got);
  ck_assert_ptr_nonnull(strstr(got, "no such endpoint: /a\""));
  free(got);
}
END_TEST

/* A WebSocket handshake with an unsupported Sec-WebSocket-Version is
 * refused with 426, whose status line read "426 Unknown" (RFC 9110
 * section 15.5.22: "Upgrade Required"). */
START_TEST(test_status_text_426) {
  ck_assert_str_eq(srv_status_text(426), "Upgrade Required");
  /* Every status the server sends has its RFC 9110 reason phrase. */
  static const struct {
    int status;
    const char *text;
  } known[] = {{101, "Switching Protocols"}, {200, "OK"},
               {400, "Bad Request"},         {404, "Not Found"},
               {405, "Method Not Allowed"},  {409, "Conflict"},
               {413, "Content Too Large"},   {415, "Unsupported Media Type"},
               {421, "Misdirected Request"}, {500, "Internal Server Error"},
               {501, "Not Implemented"},     {503, "Service Unavailable"},
               {507, "Insufficient Storage"}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    ck_assert_str_eq(srv_status_text(known[i].status), known[i].text);
}
END_TEST

Suite *http_regressions_suite(void) {
  Suite *s = suite_create("http_regressions");
  TCase *tc = tcase_create("status");
  tcase_add_test(tc, test_status_text_426);
  tcase_add_test(tc, test_many_valueless_parameters);
  suite_add_tcase(s, tc);
  return s;
}
