/* Tests for the binary mesh block (formats/mesh_bin.h): every header field
 * and section read back byte by byte against the layout of
 * docs/api.md, joint indices in the caller's order for a skeleton
 * whose storage order differs, 16-byte alignment, optional sections, and
 * two blocks following one another. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "animd/animd.h"
#include "formats/mesh_bin.h"
#include "mesh_bin_read.h"

/* Caller order: tip (child of mid), root, mid (child of root), so storage
 * order (root, mid, tip) differs from it. */
static anim_skeleton_t *three_joints(void) {
  anim_transform_t rest = anim_transform_identity();
  rest.translation.y = 1;
  anim_raw_joint_t j[3] = {{"tip", 2, rest, {0, 0, 0, 0}},
                           {"root", -1, rest, {0, 0, 0, 0}},
                           {"mid", 1, rest, {0, 0, 0, 0}}};
  anim_raw_skeleton_t raw = {.name = "s", .joints = j, .joint_count = 3};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  ck_assert_uint_ne(s->to_caller[0], 0); /* The orders differ. */
  return s;
}

/* Four vertices, two triangles; vertex i leans on caller joint i % 3. */
static const float positions[] = {-1, 0, 0, 1, 0, 0, 1, 2, 0.5f, -1, 2, -3};
static const float normals[] = {0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0};
static const uint32_t joints[] = {0, 1, 0, 0, 1, 2, 0, 0,
                                  2, 0, 0, 0, 0, 1, 2, 0};
static const float weights[] = {3, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 2, 0};
static const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
static const float uvs[] = {0, 0, 1, 0, 1, 1, 0, 1};

static anim_mesh_t *mesh_of(const anim_skeleton_t *s, bool with_normals,
                            bool with_indices) {
  anim_raw_mesh_t raw = {.name = "m",
                         .vertex_count = 4,
                         .positions = positions,
                         .normals = with_normals ? normals : NULL,
                         .influences = 4,
                         .joints = joints,
                         .weights = weights,
                         .indices = with_indices ? indices : NULL,
                         .index_count = with_indices ? 6 : 0};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, s, NULL, &m, NULL), ANIM_OK);
  return m;
}

START_TEST(test_layout) {
  anim_skeleton_t *s = three_joints();
  anim_mesh_t *m = mesh_of(s, true, true);
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_mesh_bin(&b, m, s, uvs), 0);
  const char *d = b.data;
  ck_assert_int_eq(memcmp(d, "AMSH", 4), 0);
  ck_assert_uint_eq(u32_at(d, 4), 1);
  ck_assert_uint_eq(u32_at(d, 8), 96);
  ck_assert_uint_eq(u32_at(d, 12), 1 | 2 | 4);
  ck_assert_uint_eq(u32_at(d, 16), 4);
  ck_assert_uint_eq(u32_at(d, 20), 6);
  ck_assert_uint_eq(u32_at(d, 24), 4);
  ck_assert_uint_eq(u32_at(d, 28), 3);
  /* Sections in order, each on a 16-byte boundary, with their sizes:
   * positions 48 B at 96, normals 48 B at 144, texcoords 32 B at 192,
   * joints 32 B at 224, weights 64 B at 256, indices 24 B at 320; the
   * block ends at 352 (344 rounded up to 16). */
  ck_assert_uint_eq(u32_at(d, 36), 96);
  ck_assert_uint_eq(u32_at(d, 40), 144);
  ck_assert_uint_eq(u32_at(d, 44), 192);
  ck_assert_uint_eq(u32_at(d, 48), 224);
  ck_assert_uint_eq(u32_at(d, 52), 256);
  ck_assert_uint_eq(u32_at(d, 32), 320);
  ck_assert_uint_eq(u32_at(d, 56), 352);
  ck_assert_uint_eq(b.len, 352);
  ck_assert_uint_eq(u32_at(d, 60), 0);
  /* Bounds of the bind positions. */
  const float lo[3] = {-1, 0, -3}, hi[3] = {1, 2, 0.5f};
  for (int c = 0; c < 3; c++) {
    ck_assert_float_eq(f32_at(d, 64 + 4 * (size_t)c), lo[c]);
    ck_assert_float_eq(f32_at(d, 76 + 4 * (size_t)c), hi[c]);
  }
  for (size_t i = 0; i < 12; i++) {
    ck_assert_float_eq(f32_at(d, 96 + 4 * i), positions[i]);
    ck_assert_float_eq(f32_at(d, 144 + 4 * i), normals[i]);
  }
  for (size_t i = 0; i < 8; i++)
    ck_assert_float_eq(f32_at(d, 192 + 4 * i), uvs[i]);
  for (size_t i = 0; i < 6; i++)
    ck_assert_uint_eq(u32_at(d, 320 + 4 * i), indices[i]);
  /* Influences: per vertex, the weight on each caller joint equals the
   * raw weight over the vertex's raw sum, whatever the slot order. */
  for (size_t v = 0; v < 4; v++) {
    double got[3] = {0, 0, 0}, want[3] = {0, 0, 0}, sum = 0, total = 0;
    for (size_t k = 0; k < 4; k++) {
      unsigned j = u16_at(d, 224 + 2 * (4 * v + k));
      ck_assert_uint_lt(j, 3);
      float w = f32_at(d, 256 + 4 * (4 * v + k));
      got[j] += w;
      total += w;
      want[joints[4 * v + k]] += weights[4 * v + k];
      sum += weights[4 * v + k];
    }
    ck_assert_double_eq_tol(total, 1.0, 1e-6);
    for (int j = 0; j < 3; j++)
      ck_assert_double_eq_tol(got[j], want[j] / sum, 1e-6);
  }
  /* The padding after the indices is zero. */
  for (size_t i = 344; i < 352; i++) ck_assert_int_eq(d[i], 0);
  fmt_buf_free(&b);
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_optional_sections_absent) {
  anim_skeleton_t *s = three_joints();
  anim_mesh_t *m = mesh_of(s, false, false);
  fmt_buf_t b = FMT_BUF_INIT;
  /* Two blocks in one buffer: the second starts at the first's length. */
  ck_assert_int_eq(fmt_mesh_bin(&b, m, s, NULL), 0);
  size_t first = b.len;
  ck_assert_int_eq(fmt_mesh_bin(&b, m, s, NULL), 0);
  ck_assert_uint_eq(b.len, 2 * first);
  for (int k = 0; k < 2; k++) {
    const char *d = b.data + (size_t)k * first;
    ck_assert_int_eq(memcmp(d, "AMSH", 4), 0);
    ck_assert_uint_eq(u32_at(d, 12), 0);
    ck_assert_uint_eq(u32_at(d, 20), 0);
    ck_assert_uint_eq(u32_at(d, 32), 0);
    ck_assert_uint_eq(u32_at(d, 40), 0);
    ck_assert_uint_eq(u32_at(d, 44), 0);
    /* positions 48 B at 96, joints 32 B at 144, weights 64 B at 176. */
    ck_assert_uint_eq(u32_at(d, 36), 96);
    ck_assert_uint_eq(u32_at(d, 48), 144);
    ck_assert_uint_eq(u32_at(d, 52), 176);
    ck_assert_uint_eq(u32_at(d, 56), 240);
  }
  ck_assert_uint_eq(first, 240);
  fmt_buf_free(&b);
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

/* Morph targets (version 2): without normals, 4 vertices, 2 targets:
 * positions 48 B at 96, joints 32 B at 144, weights 64 B at 176, targets
 * at 240: 2 x 48 B of position deltas, then 2 default weights (104 B). */
START_TEST(test_targets_section) {
  anim_skeleton_t *s = three_joints();
  float deltas[24], dflt[2] = {0.5f, -1};
  for (int i = 0; i < 24; i++) deltas[i] = (float)i * 0.25f;
  anim_raw_mesh_t raw = {.name = "m",
                         .vertex_count = 4,
                         .positions = positions,
                         .influences = 4,
                         .joints = joints,
                         .weights = weights,
                         .target_count = 2,
                         .target_positions = deltas,
                         .default_weights = dflt};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, s, NULL, &m, NULL), ANIM_OK);
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_mesh_bin(&b, m, s, NULL), 0);
  const char *d = b.data;
  ck_assert_uint_eq(u32_at(d, 4), 2);
  ck_assert_uint_eq(u32_at(d, 12), 8);
  ck_assert_uint_eq(u32_at(d, 88), 2);
  ck_assert_uint_eq(u32_at(d, 92), 240);
  ck_assert_uint_eq(u32_at(d, 56), 352); /* 240 + 104, rounded to 16 */
  ck_assert_uint_eq(b.len, 352);
  for (int i = 0; i < 24; i++)
    ck_assert_float_eq(f32_at(d, 240 + 4 * (size_t)i), deltas[i]);
  ck_assert_float_eq(f32_at(d, 336), 0.5f);
  ck_assert_float_eq(f32_at(d, 340), -1.f);
  fmt_buf_free(&b);
  anim_mesh_free(m);
  /* Without targets the block stays version 1. */
  m = mesh_of(s, false, false);
  ck_assert_int_eq(fmt_mesh_bin(&b, m, s, NULL), 0);
  ck_assert_uint_eq(u32_at(b.data, 4), 1);
  ck_assert_uint_eq(u32_at(b.data, 88), 0);
  fmt_buf_free(&b);
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

Suite *mesh_bin_suite(void) {
  Suite *s = suite_create("mesh_bin");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, test_layout);
  tcase_add_test(tc, test_optional_sections_absent);
  tcase_add_test(tc, test_targets_section);
  suite_add_tcase(s, tc);
  return s;
}
