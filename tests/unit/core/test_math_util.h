/* Shared helpers of the math tests: named tolerances, comparisons that treat
 * q and -q as the same rotation, a fixed-seed PRNG and reference rotations
 * built in double precision from Rodrigues' formula (independent of the
 * code under test). */
#ifndef ANIMD_TEST_MATH_UTIL_H
#define ANIMD_TEST_MATH_UTIL_H

#include <check.h>
#include <math.h>
#include <stdint.h>

#include "animd/math.h"

#define TEST_PI 3.14159265358979323846

/* Named tolerances. */
#define TOL_EXACT 0.0f    /* Bit-exact results. */
#define TOL_Q 2e-6f       /* Quaternion components after a few operations. */
#define TOL_Q_LOOSE 2e-5f /* After long chains (squad, decompose). */
#define TOL_VEC 2e-6f     /* Unit-scale vector components. */
#define TOL_MAT 2e-6f     /* Unit-scale matrix entries. */
#define TOL_INV 2e-5f     /* inverse * m against the identity. */

static inline float qdiff(anim_quat_t a, anim_quat_t b) {
  float d = fabsf(a.x - b.x);
  d = fmaxf(d, fabsf(a.y - b.y));
  d = fmaxf(d, fabsf(a.z - b.z));
  return fmaxf(d, fabsf(a.w - b.w));
}

/* Largest component difference, up to the sign of the whole quaternion. */
static inline float qdiff_sign(anim_quat_t a, anim_quat_t b) {
  anim_quat_t nb = {-b.x, -b.y, -b.z, -b.w};
  return fminf(qdiff(a, b), qdiff(a, nb));
}

static inline float vdiff(anim_vec3_t a, anim_vec3_t b) {
  return fmaxf(fabsf(a.x - b.x), fmaxf(fabsf(a.y - b.y), fabsf(a.z - b.z)));
}

static inline float mdiff(const anim_mat4_t *a, const anim_mat4_t *b) {
  float d = 0.0f;
  for (int i = 0; i < 16; i++) d = fmaxf(d, fabsf(a->m[i] - b->m[i]));
  return d;
}

#define ck_assert_quat_sign(a, b, tol)                                         \
  do {                                                                         \
    anim_quat_t qa_ = (a), qb_ = (b);                                          \
    ck_assert_msg(qdiff_sign(qa_, qb_) <= (tol),                               \
                  "quat (%.9g %.9g %.9g %.9g) != (%.9g %.9g %.9g %.9g)",       \
                  qa_.x, qa_.y, qa_.z, qa_.w, qb_.x, qb_.y, qb_.z, qb_.w);     \
  } while (0)

#define ck_assert_quat(a, b, tol)                                              \
  do {                                                                         \
    anim_quat_t qa_ = (a), qb_ = (b);                                          \
    ck_assert_msg(qdiff(qa_, qb_) <= (tol),                                    \
                  "quat (%.9g %.9g %.9g %.9g) != (%.9g %.9g %.9g %.9g)",       \
                  qa_.x, qa_.y, qa_.z, qa_.w, qb_.x, qb_.y, qb_.z, qb_.w);     \
  } while (0)

#define ck_assert_vec(a, b, tol)                                               \
  do {                                                                         \
    anim_vec3_t va_ = (a), vb_ = (b);                                          \
    ck_assert_msg(vdiff(va_, vb_) <= (tol),                                    \
                  "vec (%.9g %.9g %.9g) != (%.9g %.9g %.9g)", va_.x, va_.y,    \
                  va_.z, vb_.x, vb_.y, vb_.z);                                 \
  } while (0)

#define ck_assert_near(a, b, tol)                                              \
  do {                                                                         \
    double fa_ = (a), fb_ = (b);                                               \
    ck_assert_msg(fabs(fa_ - fb_) <= (tol), "%.9g != %.9g (tol %g)", fa_, fb_, \
                  (double)(tol));                                              \
  } while (0)

#define ck_assert_unit(q)                                                      \
  ck_assert_near(anim_quat_length(q), 1.0, ANIM_EPS_UNIT)

/* xorshift32 with a fixed seed: the same inputs on every run. */
typedef struct {
  uint32_t s;
} test_rng;

static inline uint32_t rng_next(test_rng *r) {
  uint32_t x = r->s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return r->s = x;
}

/* Uniform in [lo, hi). */
static inline double rng_range(test_rng *r, double lo, double hi) {
  return lo + (hi - lo) * (rng_next(r) >> 8) * (1.0 / 16777216.0);
}

/* Uniformly distributed unit quaternion (Shoemake's subgroup algorithm). */
static inline anim_quat_t rng_quat(test_rng *r) {
  double u1 = rng_range(r, 0, 1), u2 = rng_range(r, 0, 2 * TEST_PI),
         u3 = rng_range(r, 0, 2 * TEST_PI);
  double a = sqrt(1 - u1), b = sqrt(u1);
  anim_quat_t q = {(float)(a * sin(u2)), (float)(a * cos(u2)),
                   (float)(b * sin(u3)), (float)(b * cos(u3))};
  return q;
}

static inline anim_vec3_t rng_vec(test_rng *r, double lo, double hi) {
  anim_vec3_t v = {(float)rng_range(r, lo, hi), (float)rng_range(r, lo, hi),
                   (float)rng_range(r, lo, hi)};
  return v;
}

/* Rotation matrix of angle about axis (normalized here), by Rodrigues'
 * formula R = I + sin K + (1 - cos) K^2, in double, column-major. */
static inline anim_mat4_t ref_rotation(double ax, double ay, double az,
                                       double angle) {
  double l = sqrt(ax * ax + ay * ay + az * az);
  ax /= l;
  ay /= l;
  az /= l;
  double s = sin(angle), c = 1.0 - cos(angle);
  double k[3][3] = {{0, -az, ay}, {az, 0, -ax}, {-ay, ax, 0}};
  anim_mat4_t m;
  for (int col = 0; col < 4; col++)
    for (int row = 0; row < 4; row++) {
      double v = row == col ? 1.0 : 0.0;
      if (row < 3 && col < 3) {
        double k2 = 0;
        for (int i = 0; i < 3; i++) k2 += k[row][i] * k[i][col];
        v += s * k[row][col] + c * k2;
      }
      m.m[col * 4 + row] = (float)v;
    }
  return m;
}

/* R v for the upper 3x3 of a column-major matrix, in double. */
static inline anim_vec3_t ref_apply(const anim_mat4_t *m, anim_vec3_t v) {
  double r[3];
  for (int row = 0; row < 3; row++)
    r[row] = (double)m->m[row] * v.x + (double)m->m[4 + row] * v.y +
             (double)m->m[8 + row] * v.z;
  anim_vec3_t o = {(float)r[0], (float)r[1], (float)r[2]};
  return o;
}

#endif
