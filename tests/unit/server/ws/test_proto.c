/* Tests for the WebSocket control protocol parser: defaults, every op, and
 * one error per kind of bad message with its code, "at" and echoed id. */
#include <check.h>
#include <string.h>

#include "animd/animd.h"
#include "server/ws/proto.h"

static int parse(const char *text, srv_ws_cmd_t *cmd, srv_ws_error_t *err) {
  return srv_ws_cmd_parse(text, strlen(text), cmd, err);
}

START_TEST(test_play_defaults) {
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  ck_assert_int_eq(parse("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"rig\","
                         "\"clip\":\"walk\"}",
                         &c, &e),
                   0);
  ck_assert_int_eq(c.op, SRV_WS_OP_PLAY);
  ck_assert_str_eq(c.id, "\"a\"");
  ck_assert_str_eq(c.skeleton, "rig");
  ck_assert_str_eq(c.clip, "walk");
  ck_assert_ptr_null(c.mesh);
  ck_assert_double_eq(c.fps, 60);
  ck_assert_double_eq(c.speed, 1);
  ck_assert_double_eq(c.t0, 0);
  ck_assert_int_eq(c.wrap, ANIM_WRAP_LOOP);
  ck_assert_int_eq(c.space, SRV_WS_SPACE_MODEL);
  ck_assert_int_eq(c.format, SRV_WS_FORMAT_JSON);
  ck_assert_int_eq(c.encoding, FMT_ENCODING_F32);
  ck_assert_uint_eq(c.key_every, 30);
  ck_assert_ptr_null(c.joints);
  srv_ws_cmd_free(&c);
}
END_TEST

/* Delta frames: encoding delta, key_every on play and set, key on set. */
START_TEST(test_delta_fields) {
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  ck_assert_int_eq(parse("{\"op\":\"play\",\"id\":1,\"mesh\":\"m\","
                         "\"clip\":\"c\",\"format\":\"bin\","
                         "\"encoding\":\"delta\",\"key_every\":12}",
                         &c, &e),
                   0);
  ck_assert_int_eq(c.encoding, FMT_ENCODING_DELTA);
  ck_assert_uint_eq(c.key_every, 12);
  ck_assert(c.has & SRV_WS_HAS_KEY_EVERY);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"set\",\"id\":1,\"key\":true}", &c, &e), 0);
  ck_assert_uint_eq(c.has, SRV_WS_HAS_KEY);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"set\",\"id\":1,\"key\":false}", &c, &e),
                   -1);
  ck_assert_str_eq(e.code, "wrong_type");
  ck_assert_str_eq(e.at, "key");
  ck_assert_int_eq(
      parse("{\"op\":\"set\",\"id\":1,\"key_every\":3601}", &c, &e), -1);
  ck_assert_str_eq(e.code, "bad_value");
  ck_assert_str_eq(e.at, "key_every");
  ck_assert_int_eq(parse("{\"op\":\"set\",\"id\":1,\"key_every\":1.5}", &c, &e),
                   -1);
  ck_assert_str_eq(e.at, "key_every");
  ck_assert_int_eq(parse("{\"op\":\"pose\",\"mesh\":\"m\",\"clip\":\"c\","
                         "\"t\":0,\"key\":true}",
                         &c, &e),
                   -1);
  ck_assert_str_eq(e.code, "unknown_field");
}
END_TEST

START_TEST(test_play_all_fields) {
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  ck_assert_int_eq(
      parse("{\"op\":\"play\",\"id\":7,\"skeleton\":\"rig\",\"clip\":\"c\","
            "\"mesh\":\"m\",\"fps\":30,\"speed\":-0.5,\"t0\":1.25,"
            "\"wrap\":\"pingpong\",\"space\":\"local\",\"format\":\"bin\","
            "\"joints\":[\"hips\",\"head\"],\"normals\":true,"
            "\"method\":\"dqs\",\"encoding\":\"q16\"}",
            &c, &e),
      0);
  ck_assert_str_eq(c.id, "7");
  ck_assert_int_eq(c.encoding, FMT_ENCODING_Q16);
  ck_assert(c.has & SRV_WS_HAS_ENCODING);
  ck_assert_double_eq(c.fps, 30);
  ck_assert_double_eq(c.speed, -0.5);
  ck_assert_double_eq(c.t0, 1.25);
  ck_assert_int_eq(c.wrap, ANIM_WRAP_PINGPONG);
  ck_assert_int_eq(c.space, SRV_WS_SPACE_LOCAL);
  ck_assert_int_eq(c.format, SRV_WS_FORMAT_BIN);
  ck_assert_int_eq(c.method, ANIM_SKIN_DQS);
  ck_assert(c.normals);
  ck_assert_uint_eq(json_array_size(c.joints), 2);
  ck_assert_str_eq(c.mesh, "m");
  srv_ws_cmd_free(&c);
}
END_TEST

START_TEST(test_other_ops) {
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  ck_assert_int_eq(parse("{\"op\":\"pause\",\"id\":\"a\"}", &c, &e), 0);
  ck_assert_int_eq(c.op, SRV_WS_OP_PAUSE);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"resume\",\"id\":\"a\"}", &c, &e), 0);
  ck_assert_int_eq(c.op, SRV_WS_OP_RESUME);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"seek\",\"id\":\"a\",\"t\":0.5}", &c, &e),
                   0);
  ck_assert_double_eq(c.t, 0.5);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"stop\",\"id\":\"a\"}", &c, &e), 0);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(
      parse("{\"op\":\"set\",\"id\":\"a\",\"speed\":2,\"format\":\"bin\"}", &c,
            &e),
      0);
  ck_assert_uint_eq(c.has, SRV_WS_HAS_SPEED | SRV_WS_HAS_FORMAT);
  ck_assert_double_eq(c.speed, 2);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"stats\"}", &c, &e), 0);
  ck_assert_int_eq(c.op, SRV_WS_OP_STATS);
  srv_ws_cmd_free(&c);
  ck_assert_int_eq(parse("{\"op\":\"pose\",\"skeleton\":\"s\",\"clip\":\"c\","
                         "\"t\":2}",
                         &c, &e),
                   0);
  ck_assert_int_eq(c.op, SRV_WS_OP_POSE);
  ck_assert_int_eq(c.wrap, ANIM_WRAP_CLAMP);
  ck_assert_double_eq(c.t, 2);
  srv_ws_cmd_free(&c);
}
END_TEST

static void expect_error(const char *text, const char *code, const char *at,
                         const char *id) {
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  ck_assert_msg(parse(text, &c, &e) == -1, "accepted: %s", text);
  ck_assert_msg(strcmp(e.code, code) == 0, "%s: code %s", text, e.code);
  ck_assert_msg(strcmp(e.at, at) == 0, "%s: at %s", text, e.at);
  ck_assert_msg(strcmp(e.id, id) == 0, "%s: id %s", text, e.id);
  ck_assert_ptr_null(c.root);
}

START_TEST(test_errors) {
  expect_error("{\"op\":", "bad_json", "line 1, column 6", "");
  expect_error("{\"op\":\n}", "bad_json", "line 2, column 1", "");
  expect_error("[1,2]", "bad_message", "", "");
  expect_error("{\"id\":\"a\"}", "missing_field", "op", "\"a\"");
  expect_error("{\"op\":3}", "wrong_type", "op", "");
  expect_error("{\"op\":\"dance\",\"id\":\"x\"}", "unknown_op", "op", "\"x\"");
  expect_error("{\"op\":\"pause\"}", "missing_field", "id", "");
  expect_error("{\"op\":\"pause\",\"id\":[1]}", "wrong_type", "id", "");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"clip\":\"c\"}", "missing_field",
               "skeleton", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\"}",
               "missing_field", "clip", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"fps\":\"60\"}",
               "wrong_type", "fps", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"fps\":0}",
               "bad_value", "fps", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"fps\":1000}",
               "bad_value", "fps", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":5,"
               "\"clip\":\"c\"}",
               "wrong_type", "skeleton", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"space\":\"world\"}",
               "bad_value", "space", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"joints\":[\"a\",3]}",
               "wrong_type", "joints[1]", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"sped\":2}",
               "unknown_field", "sped", "\"a\"");
  expect_error("{\"op\":\"seek\",\"id\":\"a\"}", "missing_field", "t", "\"a\"");
  expect_error("{\"op\":\"set\",\"id\":\"a\"}", "missing_field", "", "\"a\"");
  expect_error("{\"op\":\"play\",\"id\":\"a\",\"mesh\":\"m\","
               "\"clip\":\"c\",\"encoding\":\"q8\"}",
               "bad_value", "encoding", "\"a\"");
  expect_error("{\"op\":\"stats\",\"encoding\":\"q16\"}", "unknown_field",
               "encoding", "");
  expect_error("{\"op\":\"set\",\"id\":\"a\",\"normals\":true}",
               "unknown_field", "normals", "\"a\"");
  expect_error("{\"op\":\"stop\",\"id\":\"a\",\"id\":\"b\"}", "bad_json",
               "line 1, column 26", "");
}
END_TEST

/* Names cut to fit an error stay whole characters: "\xc3\xa9" is U+00E9. */
START_TEST(test_errors_cut_utf8) {
  char text[256], want[128];
  srv_ws_cmd_t c;
  srv_ws_error_t e;
  /* unknown op: the name is cut to 40 bytes, here 1 + 19 x 2 + 1. */
  strcpy(text, "{\"op\":\"d");
  for (int i = 0; i < 30; i++) strcat(text, "\xc3\xa9");
  strcat(text, "\"}");
  ck_assert_int_eq(parse(text, &c, &e), -1);
  ck_assert_str_eq(e.code, "unknown_op");
  strcpy(want, "unknown op \"d");
  for (int i = 0; i < 19; i++) strcat(want, "\xc3\xa9");
  strcat(want, "\"");
  ck_assert_str_eq(e.message, want);
  /* unknown field: "at" holds 63 bytes, 31 whole characters and a half. */
  strcpy(text, "{\"op\":\"play\",\"id\":\"a\",\"skeleton\":\"s\","
               "\"clip\":\"c\",\"");
  for (int i = 0; i < 40; i++) strcat(text, "\xc3\xa9");
  strcat(text, "\":1}");
  ck_assert_int_eq(parse(text, &c, &e), -1);
  ck_assert_str_eq(e.code, "unknown_field");
  want[0] = '\0';
  for (int i = 0; i < 31; i++) strcat(want, "\xc3\xa9");
  ck_assert_str_eq(e.at, want);
}
END_TEST

Suite *ws_proto_suite(void) {
  Suite *s = suite_create("ws_proto");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_play_defaults);
  tcase_add_test(tc, test_delta_fields);
  tcase_add_test(tc, test_play_all_fields);
  tcase_add_test(tc, test_other_ops);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_errors_cut_utf8);
  suite_add_tcase(s, tc);
  return s;
}
