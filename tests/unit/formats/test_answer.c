/* Tests for the answer encoders and the answer buffer: every body is
 * compared with hand-written expected text or bytes. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/answer.h"
#include "formats/buf.h"

static void expect_text(fmt_buf_t *b, const char *expected) {
  ck_assert(!b->failed);
  ck_assert_str_eq(fmt_buf_cstr(b), expected);
}

START_TEST(test_float_shortest) {
  struct {
    float f;
    const char *s;
  } cases[] = {
      {0.0f, "0"},
      {-0.0f, "-0"},
      {1.0f, "1"},
      {-3.0f, "-3"},
      {0.5f, "0.5"},
      {0.1f, "0.1"},
      {1.0f / 3.0f, "0.33333334"},
      {1e-7f, "1e-07"},
      {16777216.0f, "16777216"},
      {3.4028235e38f, "3.4028235e+38"},
      {0.70710677f, "0.70710677"},
      {123456.5f, "123456.5"},
      {2.5e-3f, "0.0025"},
      {1e10f, "1e+10"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[FMT_FLOAT_MAX];
    size_t n = fmt_float_str(out, cases[i].f);
    ck_assert_uint_eq(n, strlen(out));
    ck_assert_str_eq(out, cases[i].s);
  }
  char out[FMT_FLOAT_MAX];
  fmt_float_str(out, NAN);
  ck_assert_str_eq(out, "null");
}
END_TEST

/* Every float of a pseudo-random bit sweep prints to text that strtod
 * reads back to the same bits, in at most 9 significant digits. */
START_TEST(test_float_round_trip_sweep) {
  uint32_t x = 12345u;
  for (int i = 0; i < 40000; i++) {
    x = x * 1664525u + 1013904223u;
    float f;
    memcpy(&f, &x, 4);
    if (!isfinite(f)) continue;
    char out[FMT_FLOAT_MAX];
    fmt_float_str(out, f);
    float back = (float)strtod(out, NULL);
    ck_assert_int_eq(memcmp(&back, &f, 4), 0);
  }
}
END_TEST

/* The fast digit search prints exactly what the printf method prints
 * (%.6g .. %.9g checked with strtod), over random bit patterns and the
 * awkward ones: powers of ten, their neighbours, subnormals, extremes. */
START_TEST(test_float_matches_printf_method) {
  uint32_t x = 987654321u;
  char fast[FMT_FLOAT_MAX], slow[FMT_FLOAT_MAX];
  for (int i = 0; i < 40000; i++) {
    x = x * 1664525u + 1013904223u;
    float f;
    memcpy(&f, &x, 4);
    if (!isfinite(f)) continue;
    fmt_float_str(fast, f);
    fmt_float_str_printf(slow, f);
    if (f == floorf(f) && fabsf(f) < 16777216.0f) continue; /* Integers. */
    ck_assert_msg(strcmp(fast, slow) == 0, "%a: %s vs %s", (double)f, fast,
                  slow);
  }
  for (int e = -45; e <= 38; e++) {
    float p10 = (float)pow(10.0, e);
    float around[3] = {nextafterf(p10, 0), p10, nextafterf(p10, INFINITY)};
    for (int k = 0; k < 3; k++) {
      float f = around[k];
      if (!isfinite(f) || f == 0 || (f == floorf(f) && f < 16777216.0f))
        continue;
      fmt_float_str(fast, f);
      fmt_float_str_printf(slow, f);
      ck_assert_msg(strcmp(fast, slow) == 0, "%a: %s vs %s", (double)f, fast,
                    slow);
    }
  }
  const float extremes[] = {
      1.401298464e-45f, 1.17549435e-38f, 3.4028235e38f, -2.5e-3f, 0.3f,
      2.0e7f + 2.0f,    1e-5f,           123.456f};
  for (size_t i = 0; i < sizeof extremes / sizeof extremes[0]; i++) {
    fmt_float_str(fast, extremes[i]);
    fmt_float_str_printf(slow, extremes[i]);
    ck_assert_str_eq(fast, slow);
  }
}
END_TEST

/* The integer path of the everyday range, 1e-4 <= |f| < 1e6, prints what
 * printf prints: every binade's ends and middle, the floats next to
 * powers of ten and to the range's ends, the powers of two (where the gap
 * below halves), halfway ties in the digits (x.5 at 6..9 digits) and a
 * pseudo-random sweep of the whole range, both signs. */
START_TEST(test_float_everyday_range_matches_printf) {
  char fast[FMT_FLOAT_MAX], slow[FMT_FLOAT_MAX];
  int checked = 0;
#define EXPECT_SAME(value)                                                     \
  do {                                                                         \
    float f_ = (value);                                                        \
    if (f_ == floorf(f_) && fabsf(f_) < 16777216.0f) break;                    \
    size_t n_ = fmt_float_str(fast, f_);                                       \
    fmt_float_str_printf(slow, f_);                                            \
    ck_assert_msg(strcmp(fast, slow) == 0, "%a: %s vs %s", (double)f_, fast,   \
                  slow);                                                       \
    ck_assert_uint_eq(n_, strlen(fast));                                       \
    checked++;                                                                 \
  } while (0)
  for (int e = -15; e <= 20; e++) {
    float p2 = ldexpf(1.0f, e);
    EXPECT_SAME(p2);
    EXPECT_SAME(nextafterf(p2, 0));
    EXPECT_SAME(nextafterf(p2, INFINITY));
    EXPECT_SAME(-p2 * 1.5f);
  }
  for (int e = -5; e <= 6; e++) {
    float p10 = (float)pow(10.0, e);
    float f = nextafterf(p10, 0);
    for (int k = 0; k < 8; k++, f = nextafterf(f, INFINITY)) EXPECT_SAME(f);
  }
  /* 123456.5, 1234567.5 / 10, ...: ties at 6 to 9 digits when exact. */
  const float ties[] = {
      123456.5f, 12345.25f,         0.5f,      2.5f,       0.0009765625f,
      1.125f,    3.0517578125e-05f, 999999.5f, 999999.94f, 9.9999999e-5f,
      1e-4f,     0.000100000005f};
  for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++) {
    EXPECT_SAME(ties[i]);
    EXPECT_SAME(-ties[i]);
  }
  uint32_t x = 424242u;
  for (int i = 0; i < 60000; i++) {
    x = x * 1664525u + 1013904223u;
    /* Exponents of 2^-15 .. 2^20, any significand, either sign. */
    uint32_t bits = (x & 0x807fffffu) | ((uint32_t)(112 + (x >> 8) % 36) << 23);
    float f;
    memcpy(&f, &bits, 4);
    EXPECT_SAME(f);
  }
#undef EXPECT_SAME
  ck_assert_int_gt(checked, 59000);
}
END_TEST

START_TEST(test_json_string_escaping) {
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_json_string(&b, "a\"b\\c\nd\te\x01\x1f/\xc3\xa9");
  expect_text(&b, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f/\xc3\xa9\"");
  fmt_buf_reset(&b);
  fmt_buf_json_string(&b, NULL);
  expect_text(&b, "null");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_xml_text_escaping) {
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_xml_text(&b, "a&b<c>d\"e'f\tg\nh\x01\x1f\xc3\xa9");
  expect_text(&b, "a&amp;b&lt;c&gt;d&quot;e&apos;f\tg\nh&#xFFFD;&#xFFFD;"
                  "\xc3\xa9");
  fmt_buf_reset(&b);
  fmt_buf_xml_text(&b, NULL);
  fmt_buf_xml_text(&b, "plain");
  expect_text(&b, "plain");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_pose_local_json) {
  const float trs[20] = {1,    2,  3, 0, 0,           0, 1,           1, 1, 1,
                         0.5f, -1, 0, 0, 0.70710677f, 0, 0.70710677f, 2, 2, 2};
  fmt_pose_answer_t a = {.skeleton = "s1",
                         .clip = "walk",
                         .t = 0.25f,
                         .frame = -1,
                         .joint_count = 2,
                         .space = FMT_SPACE_LOCAL,
                         .data = trs};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_pose_json(&b, &a), 0);
  expect_text(&b,
              "{\"skeleton\":\"s1\",\"clip\":\"walk\",\"t\":0.25,\"joints\":2,"
              "\"translation\":[1,2,3,0.5,-1,0],"
              "\"rotation\":[0,0,0,1,0,0.70710677,0,0.70710677],"
              "\"scale\":[1,1,1,2,2,2]}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_pose_model_json_with_frame) {
  float m[16];
  for (int i = 0; i < 16; i++) m[i] = (float)i;
  fmt_pose_answer_t a = {.skeleton = "s",
                         .clip = NULL,
                         .t = 1.5f,
                         .frame = 7,
                         .joint_count = 1,
                         .space = FMT_SPACE_SKIN,
                         .data = m};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_pose_json(&b, &a), 0);
  expect_text(&b, "{\"skeleton\":\"s\",\"clip\":null,\"t\":1.5,\"joints\":1,"
                  "\"frame\":7,\"matrices\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,"
                  "14,15]}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_skin_json) {
  const float p[6] = {1, 2, 3, 4, 5, 6};
  const float n[6] = {0, 1, 0, 0, 0, -1};
  fmt_skin_answer_t a = {.mesh = "m",
                         .clip = "c",
                         .t = 0,
                         .frame = -1,
                         .vertex_count = 2,
                         .positions = p,
                         .normals = n};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_skin_json(&b, &a), 0);
  expect_text(&b, "{\"mesh\":\"m\",\"clip\":\"c\",\"t\":0,\"vertices\":2,"
                  "\"positions\":[1,2,3,4,5,6],\"normals\":[0,1,0,0,0,-1]}");
  fmt_buf_reset(&b);
  a.normals = NULL;
  ck_assert_int_eq(fmt_answer_skin_json(&b, &a), 0);
  expect_text(&b, "{\"mesh\":\"m\",\"clip\":\"c\",\"t\":0,\"vertices\":2,"
                  "\"positions\":[1,2,3,4,5,6]}");
  fmt_buf_free(&b);
}
END_TEST

/* Every asset by id and by name, after the head, in both answers. */
START_TEST(test_answers_with_ids) {
  float m[16] = {0};
  fmt_pose_answer_t a = {.skeleton = "S",
                         .clip = "wave",
                         .t = 0,
                         .frame = 2,
                         .joint_count = 1,
                         .space = FMT_SPACE_MODEL,
                         .data = m,
                         .ids = {.skeleton_id = "S",
                                 .skeleton_name = "rig",
                                 .clip_id = "C",
                                 .clip_name = "wave"}};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_pose_json(&b, &a), 0);
  expect_text(&b,
              "{\"skeleton\":\"S\",\"clip\":\"wave\",\"t\":0,\"joints\":1,"
              "\"frame\":2,\"skeleton_id\":\"S\",\"skeleton_name\":\"rig\","
              "\"clip_id\":\"C\",\"clip_name\":\"wave\",\"matrices\":[0,0,0,0,"
              "0,0,0,0,0,0,0,0,0,0,0,0]}");
  fmt_buf_reset(&b);
  const float p[3] = {1, 2, 3};
  fmt_skin_answer_t k = {.mesh = "M",
                         .clip = NULL,
                         .t = 0,
                         .frame = -1,
                         .vertex_count = 1,
                         .positions = p,
                         .ids = {.skeleton_id = "S",
                                 .skeleton_name = "rig",
                                 .mesh_id = "M",
                                 .mesh_name = "body"}};
  ck_assert_int_eq(fmt_answer_skin_json(&b, &k), 0);
  expect_text(&b,
              "{\"mesh\":\"M\",\"clip\":null,\"t\":0,\"vertices\":1,"
              "\"mesh_id\":\"M\",\"mesh_name\":\"body\",\"skeleton_id\":\"S\","
              "\"skeleton_name\":\"rig\",\"clip_id\":null,\"clip_name\":null,"
              "\"positions\":[1,2,3]}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_binary_and_frame_header) {
  fmt_buf_t b = FMT_BUF_INIT;
  const float v[2] = {1.0f, -2.5f};
  ck_assert_int_eq(fmt_answer_frame_header(&b, 3, 2, 0.5), 0);
  ck_assert_int_eq(fmt_answer_floats_bin(&b, v, 2), 0);
  /* 1.0f = 0x3f800000, -2.5f = 0xc0200000, 0.5 = 0x3fe0000000000000. */
  const unsigned char expected[24] = {3, 0, 0,    0,    2, 0, 0,    0,
                                      0, 0, 0,    0,    0, 0, 0xe0, 0x3f,
                                      0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0};
  ck_assert_uint_eq(b.len, 24);
  ck_assert_int_eq(memcmp(b.data, expected, 24), 0);
  ck_assert_str_eq(fmt_layout_name(FMT_SPACE_LOCAL), "trs10");
  ck_assert_str_eq(fmt_layout_name(FMT_SPACE_MODEL), "mat4");
  ck_assert_int_eq(fmt_space_parse("skin", 4), FMT_SPACE_SKIN);
  ck_assert_int_eq(fmt_space_parse("world", 5), -1);
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_error_body) {
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_error(&b, "value_count", "expected 4 \"values\"",
                                    "clips[0].tracks[3].values"),
                   0);
  expect_text(&b,
              "{\"error\":{\"code\":\"value_count\",\"message\":\"expected 4 "
              "\\\"values\\\"\",\"at\":\"clips[0].tracks[3].values\"}}");
  fmt_buf_reset(&b);
  ck_assert_int_eq(fmt_answer_error(&b, "not_found", "no clip", ""), 0);
  expect_text(&b, "{\"error\":{\"code\":\"not_found\",\"message\":\"no clip\","
                  "\"at\":null}}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_upload_and_list) {
  fmt_asset_summary_t items[] = {
      {.kind = FMT_ASSET_CLIP,
       .id = "c1",
       .name = "wave",
       .skeleton = "s1",
       .duration = 2},
      {.kind = FMT_ASSET_SKELETON, .id = "s1", .name = "rig", .count = 3},
      {.kind = FMT_ASSET_MESH,
       .id = "m1",
       .name = "body",
       .skeleton = "s1",
       .count = 100},
      {.kind = FMT_ASSET_CLIP,
       .id = "c2",
       .name = "idle",
       .skeleton = "s1",
       .duration = 0.5f},
  };
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_assets(&b, items, 4), 0);
  expect_text(&b,
              "{\"skeletons\":[{\"id\":\"s1\",\"name\":\"rig\",\"joints\":3}],"
              "\"clips\":[{\"id\":\"c1\",\"name\":\"wave\",\"skeleton\":\"s1\","
              "\"duration\":2},{\"id\":\"c2\",\"name\":\"idle\",\"skeleton\":"
              "\"s1\",\"duration\":0.5}],\"meshes\":[{\"id\":\"m1\",\"name\":"
              "\"body\",\"skeleton\":\"s1\",\"vertices\":100}]}");
  fmt_buf_reset(&b);
  ck_assert_int_eq(fmt_answer_assets(&b, NULL, 0), 0);
  expect_text(&b, "{\"skeletons\":[],\"clips\":[],\"meshes\":[]}");
  fmt_buf_reset(&b);
  const char warn[] = "first\0second \"q\"";
  ck_assert_int_eq(fmt_answer_upload(&b, items + 1, 1, warn, sizeof warn), 0);
  expect_text(&b,
              "{\"skeletons\":[{\"id\":\"s1\",\"name\":\"rig\",\"joints\":3}],"
              "\"clips\":[],\"meshes\":[],\"warnings\":[\"first\","
              "\"second \\\"q\\\"\"]}");
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_buf_growth_and_steal) {
  fmt_buf_t b = FMT_BUF_INIT;
  for (int i = 0; i < 10000; i++) fmt_buf_int(&b, -i);
  ck_assert(!b.failed);
  fmt_buf_printf(&b, "%s-%d", "end", 42);
  size_t len = 0;
  char *data = fmt_buf_steal(&b, &len);
  ck_assert_ptr_nonnull(data);
  ck_assert_int_eq(memcmp(data, "0-1-2-3", 7), 0);
  ck_assert_int_eq(memcmp(data + len - 6, "end-42", 6), 0);
  ck_assert_ptr_null(b.data);
  free(data);
}
END_TEST

Suite *answer_suite(void) {
  Suite *s = suite_create("answer");
  TCase *tc = tcase_create("answer");
  tcase_set_timeout(tc, 60); /* The float sweeps call printf 60k times. */
  tcase_add_test(tc, test_answers_with_ids);
  tcase_add_test(tc, test_float_shortest);
  tcase_add_test(tc, test_float_round_trip_sweep);
  tcase_add_test(tc, test_float_matches_printf_method);
  tcase_add_test(tc, test_float_everyday_range_matches_printf);
  tcase_add_test(tc, test_json_string_escaping);
  tcase_add_test(tc, test_xml_text_escaping);
  tcase_add_test(tc, test_pose_local_json);
  tcase_add_test(tc, test_pose_model_json_with_frame);
  tcase_add_test(tc, test_skin_json);
  tcase_add_test(tc, test_binary_and_frame_header);
  tcase_add_test(tc, test_error_body);
  tcase_add_test(tc, test_upload_and_list);
  tcase_add_test(tc, test_buf_growth_and_steal);
  suite_add_tcase(s, tc);
  return s;
}
