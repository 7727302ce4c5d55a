/* Shared fixtures of the skeleton, clip, sampling, blend and hierarchy
 * tests: a fixed-seed PRNG, random trees, and a naive double-precision
 * reference for local and model matrices written from the formulas
 * (M_local = T * R * S, M_model = M_model[parent] * M_local), independent
 * of the library's kernels. */
#ifndef TEST_SKELETON_FIXTURES_H
#define TEST_SKELETON_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/animd.h"

typedef struct tf_rng_s {
  uint64_t s;
} tf_rng_t;

static inline uint64_t tf_next(tf_rng_t *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ull;
}

/* Uniform in [0, 1). */
static inline double tf_unit(tf_rng_t *r) {
  return (double)(tf_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline float tf_range(tf_rng_t *r, float lo, float hi) {
  return lo + (hi - lo) * (float)tf_unit(r);
}

static inline anim_quat_t tf_rand_quat(tf_rng_t *r) {
  for (;;) {
    double x = 2 * tf_unit(r) - 1, y = 2 * tf_unit(r) - 1;
    double z = 2 * tf_unit(r) - 1, w = 2 * tf_unit(r) - 1;
    double l = sqrt(x * x + y * y + z * z + w * w);
    if (l > 0.1 && l <= 1.0) {
      anim_quat_t q = {(float)(x / l), (float)(y / l), (float)(z / l),
                       (float)(w / l)};
      return q;
    }
  }
}

/* Column-major double matrices. */
static inline void tf_mat_trs(double *m, anim_vec3_t t, anim_quat_t q,
                              anim_vec3_t s) {
  double x = q.x, y = q.y, z = q.z, w = q.w;
  double n = sqrt(x * x + y * y + z * z + w * w);
  x /= n;
  y /= n;
  z /= n;
  w /= n;
  /* Columns of the rotation matrix of q (rotating e_x, e_y, e_z). */
  double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),
                 2 * (x * z - w * y),     2 * (x * y - w * z),
                 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                 2 * (x * z + w * y),     2 * (y * z - w * x),
                 1 - 2 * (x * x + y * y)};
  double sc[3] = {s.x, s.y, s.z};
  for (int c = 0; c < 3; c++) {
    for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * sc[c];
    m[c * 4 + 3] = 0;
  }
  m[12] = t.x;
  m[13] = t.y;
  m[14] = t.z;
  m[15] = 1;
}

static inline void tf_mat_mul(double *out, const double *a, const double *b) {
  double r[16];
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 4; k++) {
      double acc = 0;
      for (int i = 0; i < 4; i++) acc += a[i * 4 + k] * b[c * 4 + i];
      r[c * 4 + k] = acc;
    }
  memcpy(out, r, sizeof r);
}

/* Hamilton product in double. */
static inline void tf_quat_mul(double *o, const double *a, const double *b) {
  double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                 a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                 a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                 a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
  memcpy(o, r, sizeof r);
}

/* A random forest of n joints in caller order: parents point anywhere
 * earlier in a hidden order, then the order is shuffled so parents may
 * come after children. */
typedef struct tf_tree_s {
  uint32_t n;
  anim_raw_joint_t *joints;
  char (*names)[16];
} tf_tree_t;

static inline void tf_tree_make(tf_tree_t *t, uint32_t n, tf_rng_t *r,
                                int roots) {
  uint32_t *perm = malloc(n * sizeof *perm);
  int32_t *hidden = malloc(n * sizeof *hidden);
  t->n = n;
  t->joints = calloc(n, sizeof *t->joints);
  t->names = calloc(n, sizeof *t->names);
  for (uint32_t i = 0; i < n; i++) perm[i] = i;
  for (uint32_t i = n; i > 1; i--) {
    uint32_t k = (uint32_t)(tf_next(r) % i);
    uint32_t tmp = perm[i - 1];
    perm[i - 1] = perm[k];
    perm[k] = tmp;
  }
  for (uint32_t h = 0; h < n; h++)
    hidden[h] = h < (uint32_t)roots ? -1 : (int32_t)(tf_next(r) % h);
  /* hidden joint h lives at caller index perm[h]. */
  for (uint32_t h = 0; h < n; h++) {
    anim_raw_joint_t *j = &t->joints[perm[h]];
    snprintf(t->names[perm[h]], 16, "j%u", h);
    j->name = t->names[perm[h]];
    j->parent = hidden[h] < 0 ? -1 : (int32_t)perm[hidden[h]];
    j->rest.translation.x = tf_range(r, -1, 1);
    j->rest.translation.y = tf_range(r, -1, 1);
    j->rest.translation.z = tf_range(r, -1, 1);
    j->rest.rotation = tf_rand_quat(r);
    j->rest.scale.x = tf_range(r, 0.5f, 1.5f);
    j->rest.scale.y = tf_range(r, 0.5f, 1.5f);
    j->rest.scale.z = tf_range(r, 0.5f, 1.5f);
  }
  free(perm);
  free(hidden);
}

static inline void tf_tree_free(tf_tree_t *t) {
  free(t->joints);
  free(t->names);
}

/* Naive recursive model matrix of caller joint i, with local(i) given as
 * a caller-order callback-free table of double matrices. */
static inline void tf_model_rec(const anim_raw_joint_t *joints,
                                const double *locals, const double *root,
                                uint32_t i, double *out) {
  if (joints[i].parent < 0) {
    if (root != NULL)
      tf_mat_mul(out, root, locals + 16 * i);
    else
      memcpy(out, locals + 16 * i, 16 * sizeof(double));
    return;
  }
  double p[16];
  tf_model_rec(joints, locals, root, (uint32_t)joints[i].parent, p);
  tf_mat_mul(out, p, locals + 16 * i);
}

static inline double tf_max_diff_f(const float *a, const double *b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (d > m) m = d;
  }
  return m;
}

/* |q - p| up to sign. */
static inline double tf_quat_dist(anim_quat_t q, const double *p) {
  double a =
      fabs(q.x - p[0]) + fabs(q.y - p[1]) + fabs(q.z - p[2]) + fabs(q.w - p[3]);
  double b =
      fabs(q.x + p[0]) + fabs(q.y + p[1]) + fabs(q.z + p[2]) + fabs(q.w + p[3]);
  return a < b ? a : b;
}

#endif
