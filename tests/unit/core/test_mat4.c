/* Tests for 4x4 matrices: products and transposes against hand-computed
 * entries, rotation matrices against Rodrigues' formula, TRS composition
 * against applying scale, rotation and translation one after the other,
 * decomposition round trips (negative scale included), and inverses
 * (inverse * m = identity, closed-form inverses, singular input). */
#include "test_math_util.h"

static anim_mat4_t from_rows(const float rows[4][4]) {
  anim_mat4_t m;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) m.m[c * 4 + r] = rows[r][c];
  return m;
}

START_TEST(test_mat4_mul_transpose) {
  static const float a_rows[4][4] = {
      {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
  static const float b_rows[4][4] = {
      {2, 0, 0, 1}, {0, 3, 0, 0}, {1, 0, 1, 0}, {0, 0, 0, 1}};
  /* a * b by rows x columns, by hand. */
  static const float ab_rows[4][4] = {
      {5, 6, 3, 5}, {17, 18, 7, 13}, {29, 30, 11, 21}, {41, 42, 15, 29}};
  anim_mat4_t a = from_rows(a_rows), b = from_rows(b_rows),
              ab = from_rows(ab_rows);
  anim_mat4_t p = anim_mat4_mul(&a, &b);
  ck_assert_msg(mdiff(&p, &ab) == 0.0f, "product");
  anim_mat4_t id = anim_mat4_identity();
  p = anim_mat4_mul(&a, &id);
  ck_assert(mdiff(&p, &a) == 0.0f);
  /* Aliasing the output with an input is fine (by value). */
  a = anim_mat4_mul(&a, &b);
  ck_assert(mdiff(&a, &ab) == 0.0f);
  anim_mat4_t t = anim_mat4_transpose(&ab);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++)
      ck_assert_float_eq(t.m[c * 4 + r], ab_rows[c][r]);
  /* Translation sits in m[12..14]: column-major. */
  ck_assert_vec(anim_mat4_transform_point(&b, anim_vec3(1, 1, 1)),
                anim_vec3(3, 3, 2), TOL_EXACT);
  ck_assert_vec(anim_mat4_transform_vector(&b, anim_vec3(1, 1, 1)),
                anim_vec3(2, 3, 2), TOL_EXACT);
}
END_TEST

START_TEST(test_mat4_from_quat_and_trs) {
  test_rng r = {12345u};
  for (int n = 0; n < 300; n++) {
    anim_vec3_t ax = rng_vec(&r, -1, 1);
    if (anim_vec3_length(ax) < 1e-2f) continue;
    double an = rng_range(&r, -TEST_PI, TEST_PI);
    anim_quat_t q = anim_quat_from_axis_angle(ax, (float)an);
    anim_mat4_t m = anim_mat4_from_quat(q);
    anim_mat4_t ref = ref_rotation(ax.x, ax.y, ax.z, an);
    ck_assert_msg(mdiff(&m, &ref) <= 4 * TOL_MAT, "rotation %d", n);
    anim_transform_t tr = {rng_vec(&r, -10, 10), q, rng_vec(&r, -3, 3)};
    anim_mat4_t trs = anim_mat4_from_transform(&tr);
    anim_vec3_t p = rng_vec(&r, -2, 2);
    /* T * R * S p: scale, then rotate (reference matrix), then translate. */
    anim_vec3_t want = anim_vec3_add(
        ref_apply(&ref, anim_vec3_mul(tr.scale, p)), tr.translation);
    ck_assert_vec(anim_mat4_transform_point(&trs, p), want, 1e-5f);
    ck_assert_vec(anim_mat4_transform_vector(&trs, p),
                  anim_vec3_sub(want, tr.translation), 1e-5f);
    ck_assert_float_eq(trs.m[3], 0.0f);
    ck_assert_float_eq(trs.m[15], 1.0f);
  }
  anim_transform_t id = anim_transform_identity();
  anim_mat4_t mi = anim_mat4_from_transform(&id), i4 = anim_mat4_identity();
  ck_assert(mdiff(&mi, &i4) == 0.0f);
}
END_TEST

START_TEST(test_mat4_decompose) {
  test_rng r = {777u};
  for (int n = 0; n < 500; n++) {
    anim_transform_t tr = {rng_vec(&r, -10, 10), rng_quat(&r),
                           rng_vec(&r, 0.1, 3)};
    /* Every sign pattern of the scale, including negative determinants. */
    if (n & 1) tr.scale.x = -tr.scale.x;
    if (n & 2) tr.scale.y = -tr.scale.y;
    if (n & 4) tr.scale.z = -tr.scale.z;
    anim_mat4_t m = anim_mat4_from_transform(&tr);
    anim_transform_t d;
    ck_assert_int_eq(anim_mat4_decompose(&m, &d), ANIM_OK);
    ck_assert_unit(d.rotation);
    ck_assert_vec(d.translation, tr.translation, TOL_EXACT);
    ck_assert(d.scale.y > 0 && d.scale.z > 0);
    int negatives = (n & 1) + ((n >> 1) & 1) + ((n >> 2) & 1);
    ck_assert((d.scale.x < 0) == (negatives % 2 == 1));
    ck_assert_vec(
        anim_vec3(fabsf(d.scale.x), d.scale.y, d.scale.z),
        anim_vec3(fabsf(tr.scale.x), fabsf(tr.scale.y), fabsf(tr.scale.z)),
        4 * TOL_VEC);
    anim_mat4_t back = anim_mat4_from_transform(&d);
    ck_assert_msg(mdiff(&back, &m) <= 1e-5f, "round trip %d", n);
    if (negatives == 0) ck_assert_quat_sign(d.rotation, tr.rotation, 4 * TOL_Q);
  }
  /* Zero scale on an axis: singular, translation still filled. */
  anim_transform_t z = {anim_vec3(1, 2, 3), anim_quat_identity(),
                        anim_vec3(1, 0, 1)};
  anim_mat4_t mz = anim_mat4_from_transform(&z);
  anim_transform_t d;
  ck_assert_int_eq(anim_mat4_decompose(&mz, &d), ANIM_ERR_SINGULAR);
  ck_assert_vec(d.translation, anim_vec3(1, 2, 3), TOL_EXACT);
  ck_assert_int_eq(anim_mat4_decompose(NULL, &d), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_mat4_inverse) {
  /* Closed form: diag(2, 4, 8) with translation (1, 2, 3) inverts to
   * diag(1/2, 1/4, 1/8) with translation (-1/2, -1/2, -3/8). */
  static const float rows[4][4] = {
      {2, 0, 0, 1}, {0, 4, 0, 2}, {0, 0, 8, 3}, {0, 0, 0, 1}};
  static const float inv_rows[4][4] = {{0.5f, 0, 0, -0.5f},
                                       {0, 0.25f, 0, -0.5f},
                                       {0, 0, 0.125f, -0.375f},
                                       {0, 0, 0, 1}};
  anim_mat4_t m = from_rows(rows), want = from_rows(inv_rows), out;
  ck_assert_int_eq(anim_mat4_affine_inverse(&m, &out), ANIM_OK);
  ck_assert(mdiff(&out, &want) <= 1e-7f);
  ck_assert_int_eq(anim_mat4_inverse(&m, &out), ANIM_OK);
  ck_assert(mdiff(&out, &want) <= 1e-7f);
  anim_mat4_t id = anim_mat4_identity();
  test_rng r = {2718u};
  for (int n = 0; n < 300; n++) {
    anim_transform_t tr = {rng_vec(&r, -10, 10), rng_quat(&r),
                           rng_vec(&r, 0.2, 3)};
    if (n & 1) tr.scale.y = -tr.scale.y;
    anim_mat4_t a = anim_mat4_from_transform(&tr), ia, ig;
    ck_assert_int_eq(anim_mat4_affine_inverse(&a, &ia), ANIM_OK);
    ck_assert_int_eq(anim_mat4_inverse(&a, &ig), ANIM_OK);
    anim_mat4_t p1 = anim_mat4_mul(&ia, &a), p2 = anim_mat4_mul(&ig, &a),
                p3 = anim_mat4_mul(&a, &ig);
    ck_assert_msg(mdiff(&p1, &id) <= TOL_INV, "affine %d", n);
    ck_assert_msg(mdiff(&p2, &id) <= TOL_INV, "general %d", n);
    ck_assert_msg(mdiff(&p3, &id) <= TOL_INV, "general right %d", n);
    /* A general (projective) matrix with well-conditioned entries. */
    anim_mat4_t g;
    for (int i = 0; i < 16; i++) g.m[i] = (float)rng_range(&r, -1, 1);
    for (int i = 0; i < 4; i++)
      g.m[i * 5] += 3.0f; /* Diagonally dominant: invertible. */
    ck_assert_int_eq(anim_mat4_inverse(&g, &ig), ANIM_OK);
    p2 = anim_mat4_mul(&ig, &g);
    ck_assert_msg(mdiff(&p2, &id) <= TOL_INV, "projective %d", n);
  }
  /* Singular matrices are refused and leave out untouched. */
  static const float sing_rows[4][4] = {
      {1, 2, 3, 0}, {4, 5, 6, 0}, {7, 8, 9, 0}, {0, 0, 0, 1}};
  anim_mat4_t s = from_rows(sing_rows), keep = anim_mat4_identity();
  out = keep;
  ck_assert_int_eq(anim_mat4_affine_inverse(&s, &out), ANIM_ERR_SINGULAR);
  ck_assert_int_eq(anim_mat4_inverse(&s, &out), ANIM_ERR_SINGULAR);
  ck_assert(mdiff(&out, &keep) == 0.0f);
  anim_mat4_t zero;
  for (int i = 0; i < 16; i++) zero.m[i] = 0;
  ck_assert_int_eq(anim_mat4_inverse(&zero, &out), ANIM_ERR_SINGULAR);
  ck_assert_int_eq(anim_mat4_inverse(NULL, &out), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

Suite *mat4_suite(void) {
  Suite *s = suite_create("mat4");
  TCase *tc = tcase_create("mat4");
  tcase_add_test(tc, test_mat4_mul_transpose);
  tcase_add_test(tc, test_mat4_from_quat_and_trs);
  tcase_add_test(tc, test_mat4_decompose);
  tcase_add_test(tc, test_mat4_inverse);
  suite_add_tcase(s, tc);
  return s;
}
