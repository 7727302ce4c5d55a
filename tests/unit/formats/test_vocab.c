/* Tests for the API's word tables (formats/vocab.h): every word as
 * DESIGN.md and docs/api.md spell it, parsed to the enum value the core and
 * the answers use, and printed back. */
#include <check.h>
#include <string.h>

#include "formats/vocab.h"

START_TEST(test_words_and_values) {
  static const struct {
    fmt_vocab v;
    const char *name;
    int value;
  } cases[] = {
      {FMT_VOCAB_WRAP, "clamp", ANIM_WRAP_CLAMP},
      {FMT_VOCAB_WRAP, "loop", ANIM_WRAP_LOOP},
      {FMT_VOCAB_WRAP, "pingpong", ANIM_WRAP_PINGPONG},
      {FMT_VOCAB_SPACE, "local", FMT_SPACE_LOCAL},
      {FMT_VOCAB_SPACE, "model", FMT_SPACE_MODEL},
      {FMT_VOCAB_SPACE, "skin", FMT_SPACE_SKIN},
      {FMT_VOCAB_LAYOUT, "trs10", FMT_LAYOUT_TRS10},
      {FMT_VOCAB_LAYOUT, "mat4", FMT_LAYOUT_MAT4},
      {FMT_VOCAB_LAYOUT, "positions", FMT_LAYOUT_POSITIONS},
      {FMT_VOCAB_LAYOUT, "positions+normals", FMT_LAYOUT_POSITIONS_NORMALS},
      {FMT_VOCAB_LAYOUT, "positions/q16", FMT_LAYOUT_POSITIONS_Q16},
      {FMT_VOCAB_LAYOUT, "positions+normals/q16",
       FMT_LAYOUT_POSITIONS_NORMALS_Q16},
      {FMT_VOCAB_ENCODING, "f32", FMT_ENCODING_F32},
      {FMT_VOCAB_ENCODING, "q16", FMT_ENCODING_Q16},
      {FMT_VOCAB_ENCODING, "delta", FMT_ENCODING_DELTA},
      {FMT_VOCAB_LAYOUT, "positions/delta", FMT_LAYOUT_POSITIONS_DELTA},
      {FMT_VOCAB_LAYOUT, "positions+normals/delta",
       FMT_LAYOUT_POSITIONS_NORMALS_DELTA},
      {FMT_VOCAB_FORMAT, "json", FMT_FORMAT_JSON},
      {FMT_VOCAB_FORMAT, "bin", FMT_FORMAT_BIN},
      {FMT_VOCAB_FORMAT, "svg", FMT_FORMAT_SVG},
      {FMT_VOCAB_VIEW, "front", FMT_VIEW_FRONT},
      {FMT_VOCAB_VIEW, "side", FMT_VIEW_SIDE},
      {FMT_VOCAB_VIEW, "top", FMT_VIEW_TOP},
      {FMT_VOCAB_ARRANGE, "grid", FMT_ARRANGE_GRID},
      {FMT_VOCAB_ARRANGE, "overlay", FMT_ARRANGE_OVERLAY},
      {FMT_VOCAB_METHOD, "lbs", ANIM_SKIN_LBS},
      {FMT_VOCAB_METHOD, "dqs", ANIM_SKIN_DQS},
      {FMT_VOCAB_NORMALS, "0", ANIM_NORMALS_NONE},
      {FMT_VOCAB_NORMALS, "1", ANIM_NORMALS_LINEAR},
      {FMT_VOCAB_NORMALS, "invt", ANIM_NORMALS_INVERSE_TRANSPOSE},
      {FMT_VOCAB_MODE, "normal", FMT_BLEND_NORMAL},
      {FMT_VOCAB_MODE, "additive", FMT_BLEND_ADDITIVE},
  };
  int per_table[FMT_VOCAB_COUNT_] = {0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(fmt_vocab_parse(cases[i].v, cases[i].name),
                     cases[i].value);
    ck_assert_str_eq(fmt_vocab_name(cases[i].v, cases[i].value), cases[i].name);
    per_table[cases[i].v]++;
  }
  /* No table holds a word the cases do not know. */
  for (int v = 0; v < FMT_VOCAB_COUNT_; v++)
    ck_assert_int_eq(fmt_vocab_count((fmt_vocab)v), per_table[v]);
}
END_TEST

START_TEST(test_unknown_words) {
  ck_assert_int_eq(fmt_vocab_parse(FMT_VOCAB_WRAP, "bounce"), -1);
  ck_assert_int_eq(fmt_vocab_parse(FMT_VOCAB_WRAP, "Loop"), -1);
  ck_assert_int_eq(fmt_vocab_parse(FMT_VOCAB_SPACE, ""), -1);
  ck_assert_int_eq(fmt_vocab_parse(FMT_VOCAB_SPACE, NULL), -1);
  ck_assert_int_eq(fmt_vocab_parse(FMT_VOCAB_COUNT_, "loop"), -1);
  ck_assert_ptr_null(fmt_vocab_name(FMT_VOCAB_FORMAT, 3));
  ck_assert_ptr_null(fmt_vocab_name(FMT_VOCAB_FORMAT, -1));
}
END_TEST

START_TEST(test_lists_and_layouts) {
  char list[64];
  fmt_vocab_list(FMT_VOCAB_WRAP, list, sizeof list);
  ck_assert_str_eq(list, "clamp, loop or pingpong");
  fmt_vocab_list(FMT_VOCAB_FORMAT, list, sizeof list);
  ck_assert_str_eq(list, "json, bin or svg");
  fmt_vocab_list(FMT_VOCAB_LAYOUT, list, 12);
  ck_assert_str_eq(list, "trs10, mat4");
  ck_assert_int_eq(fmt_layout_of_pose(FMT_SPACE_LOCAL), FMT_LAYOUT_TRS10);
  ck_assert_int_eq(fmt_layout_of_pose(FMT_SPACE_SKIN), FMT_LAYOUT_MAT4);
  ck_assert_int_eq(fmt_layout_of_skin(true), FMT_LAYOUT_POSITIONS_NORMALS);
  ck_assert_int_eq(fmt_layout_of_skin(false), FMT_LAYOUT_POSITIONS);
  ck_assert_str_eq(fmt_space_name(FMT_SPACE_SKIN), "skin");
  ck_assert_int_eq(fmt_space_parse("model", 5), FMT_SPACE_MODEL);
  ck_assert_int_eq(fmt_space_parse("modelx", 5), FMT_SPACE_MODEL);
}
END_TEST

Suite *formats_vocab_suite(void) {
  Suite *s = suite_create("formats_vocab");
  TCase *tc = tcase_create("tables");
  tcase_add_test(tc, test_words_and_values);
  tcase_add_test(tc, test_unknown_words);
  tcase_add_test(tc, test_lists_and_layouts);
  suite_add_tcase(s, tc);
  return s;
}
