/* Tests for clip events in the native JSON form: decoded sorted by time,
 * encoded in the canonical text (only when a clip has events, so other
 * clips keep their ids), read back to the same events bit for bit, part of
 * the content id, and every malformed or invalid event named by its path
 * (clips[i].events[k].t or .name). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/native_json.h"

#define CLIP_HEAD                                                              \
  "{\"skeleton\":{\"name\":\"rig\",\"joints\":[{\"name\":\"root\","            \
  "\"parent\":-1}]},\"clips\":[{\"name\":\"walk\",\"duration\":1,"             \
  "\"tracks\":[{\"joint\":\"root\",\"path\":\"translation\",\"times\":[0,1],"  \
  "\"values\":[0,0,0,1,0,0]}]"

static const char *const SKELETON_ID =
    "00000000000000000000000000000000000000000000000000000000000000aa";

static void decode(const char *text, fmt_bundle_t *b,
                   const fmt_decode_options_t *opts) {
  fmt_error_t err = {0};
  int rc = fmt_decode_native_json(text, strlen(text), opts, b, &err);
  ck_assert_msg(rc == 0, "decode failed: %s at %s: %s",
                fmt_error_name(err.code), err.at, err.message);
}

static void fails(const char *events, const char *code, const char *at) {
  size_t size = strlen(CLIP_HEAD) + strlen(events) + 32;
  char *text = malloc(size);
  snprintf(text, size, "%s,\"events\":%s}]}", CLIP_HEAD, events);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), NULL, &b, &err),
                   -1);
  ck_assert_msg(strcmp(fmt_error_name(err.code), code) == 0 &&
                    strcmp(err.at, at) == 0,
                "%.60s: got %s at %s (%s), expected %s at %s", events,
                fmt_error_name(err.code), err.at, err.message, code, at);
  free(text);
}

static const anim_skeleton_t *resolve(const char *id, void *user) {
  return strcmp(id, SKELETON_ID) == 0 ? user : NULL;
}

static void clip_text(const fmt_bundle_t *b, fmt_buf_t *t) {
  fmt_buf_reset(t);
  ck_assert_int_eq(
      fmt_encode_clip(t, b->clips[0].clip, b->skeletons[0], SKELETON_ID), 0);
  fmt_buf_putc(t, '\0');
}

START_TEST(test_round_trip) {
  fmt_bundle_t b;
  decode(CLIP_HEAD ",\"events\":[{\"name\":\"end\",\"t\":1},"
                   "{\"t\":0.1,\"name\":\"step \\\"L\\\"\"},"
                   "{\"t\":0,\"name\":\"start\"}]}]}",
         &b, NULL);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->event_count, 3);
  ck_assert_str_eq(c->events[0].name, "start");
  ck_assert_str_eq(c->events[1].name, "step \"L\"");
  ck_assert_float_eq(c->events[1].t, 0.1f);
  ck_assert_str_eq(c->events[2].name, "end");
  fmt_buf_t t = FMT_BUF_INIT, t2 = FMT_BUF_INIT;
  clip_text(&b, &t);
  ck_assert_msg(strstr(t.data, "],\"events\":[{\"t\":0,\"name\":\"start\"},"
                               "{\"t\":0.1,\"name\":\"step \\\"L\\\"\"},"
                               "{\"t\":1,\"name\":\"end\"}]}]}") != NULL,
                "canonical: %s", t.data);
  /* Read back: the same events, the same text. */
  fmt_decode_options_t opts = {.resolve = resolve,
                               .resolve_user_data = (void *)b.skeletons[0]};
  fmt_bundle_t again;
  fmt_error_t err = {0};
  ck_assert_int_eq(
      fmt_decode_native_json(t.data, strlen(t.data), &opts, &again, &err), 0);
  const anim_clip_t *c2 = again.clips[0].clip;
  ck_assert_uint_eq(c2->event_count, 3);
  for (uint32_t i = 0; i < 3; i++) {
    ck_assert_int_eq(memcmp(&c->events[i].t, &c2->events[i].t, 4), 0);
    ck_assert_str_eq(c->events[i].name, c2->events[i].name);
  }
  fmt_buf_reset(&t2);
  ck_assert_int_eq(fmt_encode_clip(&t2, c2, b.skeletons[0], SKELETON_ID), 0);
  fmt_buf_putc(&t2, '\0');
  ck_assert_str_eq(t.data, t2.data);
  /* The describe answer shows them too. */
  fmt_buf_reset(&t2);
  ck_assert_int_eq(fmt_describe_clip(&t2, "x", c, b.skeletons[0], SKELETON_ID),
                   0);
  fmt_buf_putc(&t2, '\0');
  ck_assert_ptr_nonnull(strstr(t2.data, ",\"events\":[{\"t\":0,"));
  fmt_bundle_free(&again);
  fmt_bundle_free(&b);
  fmt_buf_free(&t);
  fmt_buf_free(&t2);
}
END_TEST

START_TEST(test_ids) {
  fmt_bundle_t plain, empty, one, other;
  decode(CLIP_HEAD "}]}", &plain, NULL);
  decode(CLIP_HEAD ",\"events\":[]}]}", &empty, NULL);
  decode(CLIP_HEAD ",\"events\":[{\"t\":0.5,\"name\":\"a\"}]}]}", &one, NULL);
  decode(CLIP_HEAD ",\"events\":[{\"t\":0.5,\"name\":\"b\"}]}]}", &other, NULL);
  fmt_buf_t t = FMT_BUF_INIT;
  char ids[4][FMT_ID_LEN + 1];
  fmt_bundle_t *all[4] = {&plain, &empty, &one, &other};
  for (int i = 0; i < 4; i++) {
    clip_text(all[i], &t);
    if (i < 2) ck_assert_ptr_null(strstr(t.data, "events"));
    ck_assert_int_eq(fmt_content_id(t.data, strlen(t.data), ids[i]), 0);
  }
  ck_assert_str_eq(ids[0], ids[1]); /* No events: the id of before. */
  ck_assert_str_ne(ids[0], ids[2]);
  ck_assert_str_ne(ids[2], ids[3]);
  for (int i = 0; i < 4; i++) fmt_bundle_free(all[i]);
  fmt_buf_free(&t);
}
END_TEST

START_TEST(test_errors) {
  fails("{}", "wrong_type", "clips[0].events");
  fails("[3]", "wrong_type", "clips[0].events[0]");
  fails("[{\"t\":0}]", "missing_field", "clips[0].events[0].name");
  fails("[{\"name\":\"a\"}]", "missing_field", "clips[0].events[0].t");
  fails("[{\"t\":\"0\",\"name\":\"a\"}]", "wrong_type", "clips[0].events[0].t");
  fails("[{\"t\":0,\"name\":7}]", "wrong_type", "clips[0].events[0].name");
  fails("[{\"t\":0,\"name\":\"a\",\"at\":1}]", "unknown_field",
        "clips[0].events[0].at");
  fails("[{\"t\":0,\"name\":\"a\"},{\"t\":1.5,\"name\":\"b\"}]",
        "invalid_argument", "clips[0].events[1].t");
  fails("[{\"t\":-1,\"name\":\"a\"}]", "invalid_argument",
        "clips[0].events[0].t");
  fails("[{\"t\":1e39,\"name\":\"a\"}]", "not_finite", "clips[0].events[0].t");
  fails("[{\"t\":0,\"name\":\"\"}]", "invalid_argument",
        "clips[0].events[0].name");
  char many[ANIM_EVENT_MAX * 24 + 64];
  strcpy(many, "[");
  for (int i = 0; i <= ANIM_EVENT_MAX; i++)
    strcat(many, i ? ",{\"t\":0,\"name\":\"a\"}" : "{\"t\":0,\"name\":\"a\"}");
  strcat(many, "]");
  fails(many, "bad_value", "clips[0].events");
}
END_TEST

Suite *clip_events_suite(void);
Suite *clip_events_suite(void) {
  Suite *s = suite_create("clip_events");
  TCase *tc = tcase_create("native");
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_ids);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}
