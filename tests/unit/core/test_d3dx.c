/* Tests of include/animd/d3dx.h against D3DX's published numbers.
 *
 * Expected values from Wine's d3dx9 test suite (dlls/d3dx9_36/tests/math.c
 * in the Wine repository, D3DXQuaternionTest and the
 * D3DXMatrixRotationQuaternion case of D3DXMatrixTest), whose expectations
 * are what native d3dx9 returns; each check keeps the ULP tolerance stated
 * there. The inputs are mostly not unit quaternions, which is where these
 * functions differ from math.h's. A few cases Wine does not cover (the
 * x branch of RotationMatrix, Slerp's linear fallback for unit inputs)
 * have closed-form answers, given with their derivation. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animd/d3dx.h"

#define D3DX_PI_F 3.141592654f

/* Distance in units in the last place: floats mapped onto one ordered
 * integer line (+0 and -0 both at 0). */
static int64_t ulp_distance(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  int64_t la = ia < 0 ? -(int64_t)(ia & 0x7fffffff) : ia;
  int64_t lb = ib < 0 ? -(int64_t)(ib & 0x7fffffff) : ib;
  return llabs(la - lb);
}

#define ck_assert_float_ulps(got, want, ulps)                                  \
  do {                                                                         \
    float g_ = (got), w_ = (want);                                             \
    ck_assert_msg(ulp_distance(g_, w_) <= (ulps),                              \
                  "%.9g != %.9g (%lld ulps, allowed %d)", g_, w_,              \
                  (long long)ulp_distance(g_, w_), (int)(ulps));               \
  } while (0)

#define ck_assert_quat_ulps(got, wx, wy, wz, ww, ulps)                         \
  do {                                                                         \
    anim_quat_t q_ = (got);                                                    \
    ck_assert_msg(ulp_distance(q_.x, wx) <= (ulps) &&                          \
                      ulp_distance(q_.y, wy) <= (ulps) &&                      \
                      ulp_distance(q_.z, wz) <= (ulps) &&                      \
                      ulp_distance(q_.w, ww) <= (ulps),                        \
                  "quat (%.9g %.9g %.9g %.9g) != (%.9g %.9g %.9g %.9g) "       \
                  "within %d ulps",                                            \
                  q_.x, q_.y, q_.z, q_.w, (float)(wx), (float)(wy),            \
                  (float)(wz), (float)(ww), (int)(ulps));                      \
  } while (0)

#define ck_assert_quat_bits(a, b)                                              \
  do {                                                                         \
    anim_quat_t qa_ = (a), qb_ = (b);                                          \
    ck_assert_msg(memcmp(&qa_, &qb_, sizeof qa_) == 0,                         \
                  "quat (%.9g %.9g %.9g %.9g) != (%.9g %.9g %.9g %.9g)",       \
                  qa_.x, qa_.y, qa_.z, qa_.w, qb_.x, qb_.y, qb_.z, qb_.w);     \
  } while (0)

/* Wine's fixed inputs. */
static const anim_quat_t Q = {1.0f, 2.0f, 4.0f, 10.0f};
static const anim_quat_t R = {-3.0f, 4.0f, -5.0f, 7.0f};
static const anim_quat_t T = {-1111.0f, 111.0f, -11.0f, 1.0f};
static const anim_quat_t U = {91.0f, -82.0f, 7.3f, -6.4f};
static const anim_quat_t NUL = {0.0f, 0.0f, 0.0f, 0.0f};

START_TEST(test_d3dx_identity_dot_length) {
  anim_quat_t got = Q;
  ck_assert_ptr_eq(anim_d3dx_quaternion_identity(&got), &got);
  ck_assert_quat_ulps(got, 0.0f, 0.0f, 0.0f, 1.0f, 0);
  ck_assert_ptr_null(anim_d3dx_quaternion_identity(NULL));

  anim_quat_t id = {0.0f, 0.0f, 0.0f, 1.0f};
  ck_assert(anim_d3dx_quaternion_is_identity(&id));
  ck_assert(!anim_d3dx_quaternion_is_identity(&Q));
  ck_assert(!anim_d3dx_quaternion_is_identity(NULL));

  ck_assert_float_ulps(anim_d3dx_quaternion_dot(&Q, &R), 55.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_dot(NULL, &R), 0.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_dot(NULL, NULL), 0.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_length(&Q), 11.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_length(NULL), 0.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_length_sq(&Q), 121.0f, 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_length_sq(NULL), 0.0f, 0);
}
END_TEST

START_TEST(test_d3dx_conjugate_inverse_normalize_multiply) {
  anim_quat_t got;
  ck_assert_ptr_eq(anim_d3dx_quaternion_conjugate(&got, &Q), &got);
  ck_assert_quat_ulps(got, -1.0f, -2.0f, -4.0f, 10.0f, 0);
  ck_assert_ptr_null(anim_d3dx_quaternion_conjugate(&got, NULL));
  ck_assert_ptr_null(anim_d3dx_quaternion_conjugate(NULL, NULL));

  ck_assert_ptr_eq(anim_d3dx_quaternion_inverse(&got, &Q), &got);
  ck_assert_quat_ulps(got, -1.0f / 121.0f, -2.0f / 121.0f, -4.0f / 121.0f,
                      10.0f / 121.0f, 0);
  anim_d3dx_quaternion_inverse(&got, &got); /* In place. */
  ck_assert_quat_ulps(got, 1.0f, 2.0f, 4.0f, 10.0f, 1);

  ck_assert_ptr_eq(anim_d3dx_quaternion_normalize(&got, &Q), &got);
  ck_assert_quat_ulps(got, 1.0f / 11.0f, 2.0f / 11.0f, 4.0f / 11.0f,
                      10.0f / 11.0f, 1);

  /* Multiply(q, r) is the Hamilton product r q. */
  ck_assert_ptr_eq(anim_d3dx_quaternion_multiply(&got, &Q, &R), &got);
  ck_assert_quat_ulps(got, 3.0f, 61.0f, -32.0f, 85.0f, 0);
}
END_TEST

START_TEST(test_d3dx_exp_ln) {
  anim_quat_t got, in;
  ck_assert_ptr_eq(anim_d3dx_quaternion_exp(&got, &Q), &got);
  ck_assert_quat_ulps(got, -0.216382f, -0.432764f, -0.8655270f, -0.129449f, 16);
  anim_d3dx_quaternion_exp(&got, &NUL);
  ck_assert_quat_ulps(got, 0.0f, 0.0f, 0.0f, 1.0f, 0);
  in = anim_quat(0.2f, 0.1f, 0.3f, 0.9f);
  anim_d3dx_quaternion_exp(&got, &in);
  ck_assert_quat_ulps(got, 0.195366f, 0.097683f, 0.293049f, 0.930813f, 8);

  /* |w| >= 1: the vector part as it is. */
  ck_assert_ptr_eq(anim_d3dx_quaternion_ln(&got, &Q), &got);
  ck_assert_quat_ulps(got, 1.0f, 2.0f, 4.0f, 0.0f, 0);
  anim_d3dx_quaternion_ln(&got, &R);
  ck_assert_quat_ulps(got, -3.0f, 4.0f, -5.0f, 0.0f, 0);
  in = anim_quat(1.0f / 11.0f, 2.0f / 11.0f, 4.0f / 11.0f, 10.0f / 11.0f);
  anim_d3dx_quaternion_ln(&got, &in);
  ck_assert_quat_ulps(got, 0.093768f, 0.187536f, 0.375073f, 0.0f, 32);
  in = anim_quat(0.0f, 0.0f, 0.0f, 1.0f);
  anim_d3dx_quaternion_ln(&got, &in);
  ck_assert_quat_ulps(got, 0.0f, 0.0f, 0.0f, 0.0f, 0);
  /* Not unit: the angle still comes from w alone. */
  in = anim_quat(5.4f, 1.2f, -0.3f, -0.3f);
  anim_d3dx_quaternion_ln(&got, &in);
  ck_assert_quat_ulps(got, 10.616652f, 2.359256f, -0.589814f, 0.0f, 1);
  in = anim_quat(0.2f, 0.1f, 0.3f, 0.9f);
  anim_d3dx_quaternion_ln(&got, &in);
  ck_assert_quat_ulps(got, 0.206945f, 0.103473f, 0.310418f, 0.0f, 64);
  in = anim_quat(0.2f, 0.1f, 0.3f, -1.0f);
  anim_d3dx_quaternion_ln(&got, &in);
  ck_assert_quat_ulps(got, 0.2f, 0.1f, 0.3f, 0.0f, 0);
}
END_TEST

START_TEST(test_d3dx_slerp) {
  anim_quat_t got;
  /* Non-unit inputs: 1 - |dot| <= 0.001, so plain lerp (r and -t). */
  ck_assert_ptr_eq(anim_d3dx_quaternion_slerp(&got, &Q, &R, 0.3f), &got);
  ck_assert_quat_ulps(got, -0.2f, 2.6f, 1.3f, 9.1f, 4);
  anim_d3dx_quaternion_slerp(&got, &Q, &T, 0.3f);
  ck_assert_quat_ulps(got, 334.0f, -31.9f, 6.1f, 6.7f, 2);
  anim_quat_t small_q = {0.1f, 0.2f, 0.3f, 0.4f};
  anim_quat_t small_r = {0.5f, 0.6f, 0.7f, 0.8f};
  anim_d3dx_quaternion_slerp(&got, &small_q, &small_r, 0.3f);
  ck_assert_quat_ulps(got, 0.239485f, 0.346580f, 0.453676f, 0.560772f, 32);

  /* Unit inputs 0.02 rad apart as 4-vectors (1 - dot = 2e-4 <= 0.001):
   * D3DX blends linearly without normalizing, so the midpoint of (0,0,0,1)
   * and (0,0,sin 0.02,cos 0.02) is (0, 0, sin(0.02) / 2,
   * (1 + cos(0.02)) / 2), one rounding of exact halves, of length
   * cos(0.01) < 1. */
  anim_quat_t a = {0.0f, 0.0f, 0.0f, 1.0f};
  anim_quat_t b = {0.0f, 0.0f, sinf(0.02f), cosf(0.02f)};
  anim_d3dx_quaternion_slerp(&got, &a, &b, 0.5f);
  ck_assert_quat_ulps(got, 0.0f, 0.0f, 0.5f * b.z,
                      (float)(0.5 + 0.5 * (double)b.w), 0);
  ck_assert_float_ulps(anim_d3dx_quaternion_length(&got), (float)cos(0.01), 2);
}
END_TEST

START_TEST(test_d3dx_squad_barycentric) {
  anim_quat_t got;
  ck_assert_ptr_eq(
      anim_d3dx_quaternion_barycentric(&got, &Q, &R, &T, 0.3f, 0.78f), &got);
  ck_assert_quat_ulps(got, -867.444458f, 87.851111f, -9.937778f, 3.235555f, 1);
  ck_assert_ptr_eq(anim_d3dx_quaternion_squad(&got, &Q, &R, &T, &U, 0.3f),
                   &got);
  ck_assert_quat_ulps(got, -156.296f, 30.242f, -2.5022f, 7.3576f, 2);
}
END_TEST

START_TEST(test_d3dx_squad_setup) {
  anim_quat_t a, b, c;
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &Q, &R, &T, &U);
  ck_assert_quat_ulps(a, 7.121285f, 2.159964f, -3.855094f, 5.362844f, 16);
  ck_assert_quat_ulps(b, -1113.492920f, 82.679260f, -6.696645f, -4.090050f, 4);
  ck_assert_quat_ulps(c, -1111.0f, 111.0f, -11.0f, 1.0f, 0);

  anim_quat_t r = {0.2f, 0.3f, 1.3f, -0.6f};
  anim_quat_t s = {-3.0f, -2.0f, 4.0f, 0.2f};
  anim_quat_t t = {0.4f, 8.3f, -3.1f, -2.7f};
  anim_quat_t u = {1.1f, -0.7f, 9.2f, 0.0f};
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &r, &s, &u, &t);
  ck_assert_quat_ulps(a, -4.139569f, -2.469115f, 2.364477f, 0.465494f, 16);
  ck_assert_quat_ulps(b, 2.342533f, 2.365127f, 8.628538f, -0.898356f, 16);
  ck_assert_quat_ulps(c, 1.1f, -0.7f, 9.2f, 0.0f, 0);
  /* s . t < 0: q2 is negated and becomes c. */
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &r, &s, &t, &u);
  ck_assert_quat_ulps(a, -3.754567f, -0.586085f, 3.815818f, -0.198150f, 32);
  ck_assert_quat_ulps(b, 0.140773f, -8.737090f, -0.516593f, 3.053942f, 16);
  ck_assert_quat_ulps(c, -0.4f, -8.3f, 3.1f, 2.7f, 0);

  /* Pure vectors +-i: every sign alignment fires and every point is i. */
  anim_quat_t mi = {-1.0f, 0.0f, 0.0f, 0.0f}, pi = {1.0f, 0.0f, 0.0f, 0.0f};
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &mi, &pi, &pi, &mi);
  ck_assert_quat_ulps(a, 1.0f, 0.0f, 0.0f, 0.0f, 0);
  ck_assert_quat_ulps(b, 1.0f, 0.0f, 0.0f, 0.0f, 0);
  ck_assert_quat_ulps(c, 1.0f, 0.0f, 0.0f, 0.0f, 0);
}
END_TEST

/* Outputs that are also inputs: Wine's two SquadSetup cases (a_out = q1,
 * c_out = q3), then every output position against every input position,
 * bit for bit against the unaliased call. */
START_TEST(test_d3dx_squad_setup_aliasing) {
  anim_quat_t a, b, c, want[3];
  a = R;
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &Q, &a, &T, &U);
  ck_assert_quat_ulps(b, -1113.492920f, 82.679260f, -6.696645f, -4.090050f, 4);
  c = U;
  anim_d3dx_quaternion_squad_setup(&a, &b, &c, &Q, &R, &T, &c);
  ck_assert_quat_ulps(b, -1113.492920f, 82.679260f, -6.696645f, -4.090050f, 4);

  const anim_quat_t keys[4] = {Q, R, T, U};
  anim_d3dx_quaternion_squad_setup(&want[0], &want[1], &want[2], &keys[0],
                                   &keys[1], &keys[2], &keys[3]);
  for (int o = 0; o < 3; o++)
    for (int i = 0; i < 4; i++) {
      anim_quat_t in[4] = {keys[0], keys[1], keys[2], keys[3]}, out[3];
      anim_quat_t *outp[3] = {&out[0], &out[1], &out[2]};
      outp[o] = &in[i];
      anim_d3dx_quaternion_squad_setup(outp[0], outp[1], outp[2], &in[0],
                                       &in[1], &in[2], &in[3]);
      for (int k = 0; k < 3; k++) ck_assert_quat_bits(*outp[k], want[k]);
    }
}
END_TEST

/* Every quaternion-valued function of quaternions, called with out equal
 * to each of its inputs in turn, gives the same bits as with a separate
 * out. The keys are Wine's small pair (so Slerp takes its spherical
 * branch) and T, U. */
typedef struct {
  const char *name;
  int inputs;
  void (*call)(anim_quat_t *out, anim_quat_t *in);
} alias_case_t;

static void call_conjugate(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_conjugate(out, &in[0]);
}
static void call_exp(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_exp(out, &in[0]);
}
static void call_inverse(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_inverse(out, &in[0]);
}
static void call_ln(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_ln(out, &in[0]);
}
static void call_normalize(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_normalize(out, &in[0]);
}
static void call_multiply(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_multiply(out, &in[0], &in[1]);
}
static void call_slerp(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_slerp(out, &in[0], &in[1], 0.3f);
}
static void call_barycentric(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_barycentric(out, &in[0], &in[1], &in[2], 0.3f, 0.78f);
}
static void call_squad(anim_quat_t *out, anim_quat_t *in) {
  anim_d3dx_quaternion_squad(out, &in[0], &in[1], &in[2], &in[3], 0.3f);
}

static const alias_case_t alias_cases[] = {
    {"conjugate", 1, call_conjugate}, {"exp", 1, call_exp},
    {"inverse", 1, call_inverse},     {"ln", 1, call_ln},
    {"normalize", 1, call_normalize}, {"multiply", 2, call_multiply},
    {"slerp", 2, call_slerp},         {"barycentric", 3, call_barycentric},
    {"squad", 4, call_squad},
};

START_TEST(test_d3dx_outputs_alias_inputs) {
  const anim_quat_t keys[4] = {
      {0.1f, 0.2f, 0.3f, 0.4f}, {0.5f, 0.6f, 0.7f, 0.8f}, T, U};
  int n = (int)(sizeof alias_cases / sizeof alias_cases[0]);
  for (int c = 0; c < n; c++)
    for (int i = 0; i < alias_cases[c].inputs; i++) {
      anim_quat_t in[4], want;
      memcpy(in, keys, sizeof in);
      alias_cases[c].call(&want, in);
      alias_cases[c].call(&in[i], in);
      ck_assert_msg(memcmp(&in[i], &want, sizeof want) == 0,
                    "%s with out = input %d", alias_cases[c].name, i);
    }
}
END_TEST

START_TEST(test_d3dx_rotation_axis_yaw_pitch_roll) {
  anim_quat_t got;
  anim_vec3_t axis = {2.0f, 7.0f, 13.0f};
  float angle = D3DX_PI_F / 3.0f;
  ck_assert_ptr_eq(anim_d3dx_quaternion_rotation_axis(&got, &axis, angle),
                   &got);
  ck_assert_quat_ulps(got, 0.067116f, 0.234905f, 0.436251f, 0.866025f, 64);
  axis = anim_vec3(0.0f, 0.0f, 0.0f);
  anim_d3dx_quaternion_rotation_axis(&got, &axis, angle);
  ck_assert_quat_ulps(got, 0.0f, 0.0f, 0.0f, 0.866025f, 8);

  ck_assert_ptr_eq(
      anim_d3dx_quaternion_rotation_yaw_pitch_roll(
          &got, D3DX_PI_F / 4.0f, D3DX_PI_F / 11.0f, D3DX_PI_F / 3.0f),
      &got);
  ck_assert_quat_ulps(got, 0.303261f, 0.262299f, 0.410073f, 0.819190f, 16);
}
END_TEST

/* Wine's matrix (row-major m[row][col]): rows (10 5 7 8) (11 20 16 33)
 * (19 -21 30 43) (2 3 -4 48), with the diagonal varied. Most are not
 * rotations, so the answer shows which branch D3DX takes and that it does
 * not normalize. */
static const struct {
  float d0, d1, d2; /* m[0][0], m[1][1], m[2][2]. */
  float x, y, z, w; /* Expected. */
  int ulps;
} rotation_matrix_cases[] = {
    {10.0f, 20.0f, 30.0f, 2.368682f, 0.768221f, -0.384111f, 3.905125f, 16},
    {-10.0f, -60.0f, 40.0f, 1.233905f, -0.237290f, 5.267827f, -0.284747f, 64},
    {-10.0f, 60.0f, -80.0f, 0.651031f, 6.144103f, -0.203447f, 0.488273f, 8},
    {-10.0f, 10.0f, -0.9f, 1.709495f, 2.339872f, -0.534217f, 1.282122f, 8},
    {-10.0f, 10.0f, -0.51f, 1.724923f, 2.318944f, -0.539039f, 1.293692f, 8},
    {-10.0f, 10.0f, -0.49f, 1.725726f, 2.317865f, -0.539289f, 1.294294f, 8},
    {-10.0f, 10.0f, -0.01f, 1.745328f, 2.291833f, -0.545415f, 1.308996f, 4},
    {-10.0f, 10.0f, 0.0f, 1.745743f, 2.291288f, -0.545545f, 1.309307f, 8},
    {-10.0f, 10.0f, 0.01f, 18.408188f, 5.970223f, -2.985111f, 0.502494f, 4},
    {-10.0f, 10.0f, 0.5f, 15.105186f, 4.898980f, -2.449490f, 0.612372f, 8},
    {-10.0f, 10.0f, 0.70f, 14.188852f, 4.601790f, -2.300895f, 0.651920f, 4},
    {-10.0f, 10.0f, 0.99f, 13.114303f, 4.253287f, -2.126644f, 0.705337f, 4},
    {-10.0f, 10.0f, 2.0f, 10.680980f, 3.464102f, -1.732051f, 0.866025f, 8},
};

START_TEST(test_d3dx_rotation_matrix) {
  int n = (int)(sizeof rotation_matrix_cases / sizeof rotation_matrix_cases[0]);
  for (int i = 0; i < n; i++) {
    float m[16] = {10.0f, 5.0f,   7.0f,  8.0f,  11.0f, 20.0f, 16.0f, 33.0f,
                   19.0f, -21.0f, 30.0f, 43.0f, 2.0f,  3.0f,  -4.0f, 48.0f};
    m[0] = rotation_matrix_cases[i].d0;
    m[5] = rotation_matrix_cases[i].d1;
    m[10] = rotation_matrix_cases[i].d2;
    anim_quat_t got;
    ck_assert_ptr_eq(anim_d3dx_quaternion_rotation_matrix(&got, m), &got);
    ck_assert_quat_ulps(got, rotation_matrix_cases[i].x,
                        rotation_matrix_cases[i].y, rotation_matrix_cases[i].z,
                        rotation_matrix_cases[i].w,
                        rotation_matrix_cases[i].ulps);
  }
  /* The x branch, which Wine's cases do not reach: rows (6 1 3) (3 -4 6)
   * (5 2 -5) have trace -3 and m00 largest, so 4x = 2 sqrt(1 + 6 + 4 + 5)
   * = 8 and x = 2, y = (m01 + m10) / 8 = 0.5, z = (m02 + m20) / 8 = 1,
   * w = (m12 - m21) / 8 = 0.5, all exact. */
  float mx[16] = {6.0f, 1.0f, 3.0f,  0.0f, 3.0f, -4.0f, 6.0f, 0.0f,
                  5.0f, 2.0f, -5.0f, 0.0f, 0.0f, 0.0f,  0.0f, 1.0f};
  anim_quat_t got;
  anim_d3dx_quaternion_rotation_matrix(&got, mx);
  ck_assert_quat_ulps(got, 2.0f, 0.5f, 1.0f, 0.5f, 0);
}
END_TEST

START_TEST(test_d3dx_to_axis_angle) {
  anim_quat_t q = {1.0f / 22.0f, 2.0f / 22.0f, 4.0f / 22.0f, 10.0f / 22.0f};
  anim_vec3_t axis;
  float angle;
  anim_d3dx_quaternion_to_axis_angle(&q, &axis, &angle);
  ck_assert_float_ulps(axis.x, 1.0f / 22.0f, 0);
  ck_assert_float_ulps(axis.y, 2.0f / 22.0f, 0);
  ck_assert_float_ulps(axis.z, 4.0f / 22.0f, 0);
  ck_assert_float_ulps(angle, 2.197869f, 1);
  /* |w| > 1: the axis is still (x, y, z). */
  anim_d3dx_quaternion_to_axis_angle(&Q, &axis, &angle);
  ck_assert_float_ulps(axis.x, 1.0f, 0);
  ck_assert_float_ulps(axis.y, 2.0f, 0);
  ck_assert_float_ulps(axis.z, 4.0f, 0);
  /* The zero quaternion: zero axis, angle 2 acos(0) = pi. */
  anim_d3dx_quaternion_to_axis_angle(&NUL, &axis, &angle);
  ck_assert_float_ulps(axis.x, 0.0f, 0);
  ck_assert_float_ulps(axis.y, 0.0f, 0);
  ck_assert_float_ulps(axis.z, 0.0f, 0);
  ck_assert_float_ulps(angle, 3.14159274e+00f, 0);
  /* Either output may be NULL. */
  axis = anim_vec3(9.0f, 9.0f, 9.0f);
  angle = 9.0f;
  anim_d3dx_quaternion_to_axis_angle(&NUL, &axis, NULL);
  anim_d3dx_quaternion_to_axis_angle(&NUL, NULL, &angle);
  ck_assert_float_ulps(axis.x, 0.0f, 0);
  ck_assert_float_ulps(angle, 3.14159274e+00f, 0);
}
END_TEST

START_TEST(test_d3dx_matrix_rotation_quaternion) {
  anim_quat_t q = {1.0f, -4.0f, 7.0f, -11.0f};
  static const float want[16] = {
      -129.0f, -162.0f, -74.0f, 0.0f, 146.0f, -99.0f, -78.0f, 0.0f,
      102.0f,  -34.0f,  -33.0f, 0.0f, 0.0f,   0.0f,   0.0f,   1.0f};
  float got[16];
  ck_assert_ptr_eq(anim_d3dx_matrix_rotation_quaternion(got, &q), got);
  for (int i = 0; i < 16; i++) ck_assert_float_ulps(got[i], want[i], 0);
}
END_TEST

Suite *d3dx_suite(void) {
  Suite *s = suite_create("d3dx");
  TCase *tc = tcase_create("wine_reference");
  tcase_add_test(tc, test_d3dx_identity_dot_length);
  tcase_add_test(tc, test_d3dx_conjugate_inverse_normalize_multiply);
  tcase_add_test(tc, test_d3dx_exp_ln);
  tcase_add_test(tc, test_d3dx_slerp);
  tcase_add_test(tc, test_d3dx_squad_barycentric);
  tcase_add_test(tc, test_d3dx_squad_setup);
  tcase_add_test(tc, test_d3dx_rotation_axis_yaw_pitch_roll);
  tcase_add_test(tc, test_d3dx_rotation_matrix);
  tcase_add_test(tc, test_d3dx_to_axis_angle);
  tcase_add_test(tc, test_d3dx_matrix_rotation_quaternion);
  suite_add_tcase(s, tc);
  TCase *alias = tcase_create("aliasing");
  tcase_add_test(alias, test_d3dx_squad_setup_aliasing);
  tcase_add_test(alias, test_d3dx_outputs_alias_inputs);
  suite_add_tcase(s, alias);
  return s;
}
