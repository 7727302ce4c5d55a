/* Tests for the error codes (server/errors.h, formats/error_codes.h) and the
 * one error body: every code spelled as clients see it today with its HTTP
 * status, the body byte for byte, and text that is not UTF-8 kept out of it. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "formats/answer.h"
#include "server/errors.h"

START_TEST(test_table_is_complete) {
  for (int i = 0; i < SRV_ERR_COUNT_; i++) {
    srv_error_code c = (srv_error_code)i;
    const char *name = srv_error_name(c);
    ck_assert_ptr_nonnull(name);
    ck_assert_int_eq(srv_error_lookup(name), i);
    ck_assert_int_ge(srv_error_status(c), 400);
    ck_assert_int_le(srv_error_status(c), 599);
    ck_assert_ptr_nonnull(srv_error_message(c));
    ck_assert_int_gt((int)strlen(srv_error_message(c)), 0);
  }
  ck_assert_int_eq(srv_error_lookup("no_such_code"), -1);
  ck_assert_int_eq(srv_error_lookup(NULL), -1);
  ck_assert_str_eq(srv_error_name(SRV_ERR_COUNT_), "internal");
}
END_TEST

START_TEST(test_codes_clients_see) {
  /* The codes and statuses the API answers today (docs/api.md, DESIGN.md
   * and the end-to-end tests). */
  static const struct {
    const char *name;
    int status;
  } seen[] = {
      {"bad_parameter", 400},
      {"missing_parameter", 400},
      {"too_many_frames", 400},
      {"bad_json", 400},
      {"wrong_type", 400},
      {"missing_field", 400},
      {"bad_value", 400},
      {"value_count", 400},
      {"not_finite", 400},
      {"unknown_joint", 400},
      {"skeleton_mismatch", 400},
      {"no_normals", 400},
      {"empty_body", 400},
      {"bad_http", 400},
      {"upgrade_required", 400},
      {"not_found", 404},
      {"method_not_allowed", 405},
      {"timeout", 408},
      {"conflict", 409},
      {"name_conflict", 409},
      {"ambiguous", 409},
      {"unknown_parameter", 400},
      {"body_too_large", 413},
      {"unsupported_media_type", 415},
      {"header_too_large", 431},
      {"out_of_memory", 500},
      {"internal", 500},
      {"overloaded", 503},
      {"insufficient_storage", 507},
      /* WebSocket (docs/api.md). */
      {"bad_message", 400},
      {"unknown_field", 400},
      {"unknown_op", 400},
      {"bad_type", 400},
      {"mismatch", 400},
      {"unknown_stream", 404},
      {"stream_exists", 409},
      {"too_many_streams", 429},
  };
  for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
    int c = srv_error_lookup(seen[i].name);
    ck_assert_msg(c >= 0, "%s is missing", seen[i].name);
    ck_assert_int_eq(srv_error_status((srv_error_code)c), seen[i].status);
  }
}
END_TEST

/* The server's names are the table's codes: same values, wire strings and
 * statuses, one status per code. */
START_TEST(test_server_names_are_the_table) {
  ck_assert_int_eq(SRV_ERR_COUNT_, FMT_ERR_COUNT_);
  ck_assert_int_eq(SRV_ERR_NOT_FOUND, FMT_ERR_NOT_FOUND);
  ck_assert_int_eq(srv_error_of(FMT_ERR_NAME_CONFLICT), SRV_ERR_NAME_CONFLICT);
  for (int i = 0; i < SRV_ERR_COUNT_; i++) {
    ck_assert_str_eq(srv_error_name((srv_error_code)i),
                     fmt_error_name((fmt_error_code)i));
    ck_assert_int_eq(srv_error_status((srv_error_code)i),
                     fmt_error_status((fmt_error_code)i));
  }
  /* Codes that had a second status somewhere before the one table. */
  static const struct {
    srv_error_code code;
    const char *name;
    int status;
  } once[] = {
      {SRV_ERR_TOO_LARGE, "too_large", 413},
      {SRV_ERR_SKELETON_DELETED, "skeleton_deleted", 409},
      {SRV_ERR_HTTP_VERSION, "http_version", 505},
      {SRV_ERR_BAD_HTTP, "bad_http", 400},
      {SRV_ERR_BAD_HEADER, "bad_header", 400},
      {SRV_ERR_UNSUPPORTED_VERSION, "unsupported_version", 426},
      {SRV_ERR_UNSUPPORTED_GLTF_VERSION, "unsupported_gltf_version", 400},
      {SRV_ERR_INSUFFICIENT_STORAGE, "insufficient_storage", 507},
      {SRV_ERR_IO_ERROR, "io_error", 500},
  };
  for (size_t i = 0; i < sizeof once / sizeof once[0]; i++) {
    ck_assert_str_eq(srv_error_name(once[i].code), once[i].name);
    ck_assert_int_eq(srv_error_status(once[i].code), once[i].status);
  }
  /* The WebSocket kind of a few. */
  ck_assert_int_eq(fmt_error_ws_kind(FMT_ERR_UNKNOWN_OP), FMT_WS_MESSAGE);
  ck_assert_int_eq(fmt_error_ws_kind(FMT_ERR_BAD_HANDSHAKE), FMT_WS_HANDSHAKE);
  ck_assert_int_eq(fmt_error_ws_kind(FMT_ERR_BODY_TOO_LARGE), FMT_WS_NONE);
}
END_TEST

START_TEST(test_error_body) {
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(srv_error_json(&b, SRV_ERR_BAD_PARAMETER, "t",
                                  "'t' must be a finite number", NULL),
                   0);
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"error\":{\"code\":\"bad_parameter\",\"message\":"
                   "\"'t' must be a finite number\",\"at\":\"t\"}}");
  fmt_buf_reset(&b);
  /* No message: the default one; no at: null. */
  srv_error_json(&b, SRV_ERR_OUT_OF_MEMORY, NULL, NULL, "");
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"error\":{\"code\":\"out_of_memory\",\"message\":"
                   "\"out of memory\",\"at\":null}}");
  fmt_buf_reset(&b);
  /* A clip name cut inside a character (and one lone continuation
   * byte): its non-ASCII bytes print as '?'; valid UTF-8 stays. */
  srv_error_json(&b, SRV_ERR_NOT_FOUND, "caf\xc3\xa9", "no clip 'caf\xc3' \x80",
                 NULL);
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"error\":{\"code\":\"not_found\",\"message\":"
                   "\"no clip 'caf?' ?\",\"at\":\"caf\xc3\xa9\"}}");
  fmt_buf_reset(&b);
  /* Overlong forms and surrogates are not UTF-8 either. */
  srv_error_json(&b, SRV_ERR_NOT_FOUND, "\xc0\xaf", "\xed\xa0\x80", NULL);
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"error\":{\"code\":\"not_found\",\"message\":"
                   "\"???\",\"at\":\"??\"}}");
  fmt_buf_reset(&b);
  /* A hint: after "at", only when given. */
  srv_error_json(&b, SRV_ERR_NOT_FOUND, "clip", "no clip 'wav'",
                 "did you mean 'wave'?");
  ck_assert_str_eq(fmt_buf_cstr(&b),
                   "{\"error\":{\"code\":\"not_found\",\"message\":"
                   "\"no clip 'wav'\",\"at\":\"clip\",\"hint\":"
                   "\"did you mean 'wave'?\"}}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_error_hint) {
  srv_error_t e;
  srv_error_set(&e, SRV_ERR_NOT_FOUND, "clip", "no clip '%s'", "Wave");
  ck_assert_int_eq(srv_error_did_you_mean(&e, "wave"), -1);
  ck_assert_str_eq(e.message, "no clip 'Wave'; did you mean 'wave'?");
  ck_assert_str_eq(e.hint, "did you mean 'wave'?");
  /* No name: nothing changes. */
  srv_error_set(&e, SRV_ERR_NOT_FOUND, "clip", "no clip 'zzz'");
  srv_error_did_you_mean(&e, NULL);
  ck_assert_str_eq(e.message, "no clip 'zzz'");
  ck_assert_str_eq(e.hint, "");
  /* An empty message takes the code's default before the hint. */
  srv_error_set(&e, SRV_ERR_UNKNOWN_FIELD, "x", NULL);
  srv_error_hint(&e, "send %s", "y");
  ck_assert_str_eq(e.hint, "send y");
  char want[600];
  snprintf(want, sizeof want, "%s; send y",
           srv_error_message(SRV_ERR_UNKNOWN_FIELD));
  ck_assert_str_eq(e.message, want);
  /* A new error forgets the hint. */
  srv_error_set(&e, SRV_ERR_NOT_FOUND, NULL, NULL);
  ck_assert_str_eq(e.hint, "");
}
END_TEST

START_TEST(test_typed_error) {
  srv_error_t e;
  ck_assert_int_eq(srv_error_set(&e, SRV_ERR_VALUE_COUNT, "frames[0]",
                                 "expected %d numbers", 12),
                   -1);
  ck_assert_int_eq(e.code, SRV_ERR_VALUE_COUNT);
  ck_assert_str_eq(e.at, "frames[0]");
  ck_assert_str_eq(e.message, "expected 12 numbers");
  srv_error_set(&e, SRV_ERR_NOT_FOUND, NULL, NULL);
  ck_assert_str_eq(e.at, "");
  ck_assert_str_eq(e.message, "");
}
END_TEST

Suite *server_errors_suite(void) {
  Suite *s = suite_create("server_errors");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, test_table_is_complete);
  tcase_add_test(tc, test_codes_clients_see);
  tcase_add_test(tc, test_server_names_are_the_table);
  tcase_add_test(tc, test_error_body);
  tcase_add_test(tc, test_error_hint);
  tcase_add_test(tc, test_typed_error);
  suite_add_tcase(s, tc);
  return s;
}
