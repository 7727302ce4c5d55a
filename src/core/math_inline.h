/* animd core: static inline versions of the hottest math operations.
 *
 * Private to the core (src/). Pose, hierarchy and skinning loops include this
 * header to get the quaternion product, rotation of a vector, matrix product
 * and TRS composition inlined; the public anim_* functions in math.h call the
 * same code, so both give bit-identical results. */
#ifndef ANIMD_CORE_MATH_INLINE_H
#define ANIMD_CORE_MATH_INLINE_H

#include "animd/math.h"

/* Hamilton product a * b (b applies first). */
static inline anim_quat_t anim_quat_mul_inl(anim_quat_t a, anim_quat_t b) {
  anim_quat_t r;
  r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
  r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
  r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
  r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
  return r;
}

/* q v q* for a unit q, as v + w t + u x t with t = 2 u x v (15 mul). */
static inline anim_vec3_t anim_quat_rotate_inl(anim_quat_t q, anim_vec3_t v) {
  float tx = 2.0f * (q.y * v.z - q.z * v.y);
  float ty = 2.0f * (q.z * v.x - q.x * v.z);
  float tz = 2.0f * (q.x * v.y - q.y * v.x);
  anim_vec3_t r;
  r.x = v.x + q.w * tx + (q.y * tz - q.z * ty);
  r.y = v.y + q.w * ty + (q.z * tx - q.x * tz);
  r.z = v.z + q.w * tz + (q.x * ty - q.y * tx);
  return r;
}

/* out = a * b, column-major. out may not alias a or b. */
static inline void anim_mat4_mul_inl(anim_mat4_t *restrict out,
                                     const anim_mat4_t *restrict a,
                                     const anim_mat4_t *restrict b) {
  for (int c = 0; c < 4; c++) {
    float b0 = b->m[c * 4 + 0], b1 = b->m[c * 4 + 1];
    float b2 = b->m[c * 4 + 2], b3 = b->m[c * 4 + 3];
    for (int r = 0; r < 4; r++)
      out->m[c * 4 + r] = a->m[r] * b0 + a->m[4 + r] * b1 + a->m[8 + r] * b2 +
                          a->m[12 + r] * b3;
  }
}

/* Rotation matrix of a unit quaternion (the upper 3x3), written into the
 * column-major 3x3 part of m with column c scaled by s[c]. */
static inline void anim_mat4_set_rs_inl(anim_mat4_t *m, anim_quat_t q, float sx,
                                        float sy, float sz) {
  float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  m->m[0] = (1.0f - 2.0f * (yy + zz)) * sx;
  m->m[1] = 2.0f * (xy + wz) * sx;
  m->m[2] = 2.0f * (xz - wy) * sx;
  m->m[3] = 0.0f;
  m->m[4] = 2.0f * (xy - wz) * sy;
  m->m[5] = (1.0f - 2.0f * (xx + zz)) * sy;
  m->m[6] = 2.0f * (yz + wx) * sy;
  m->m[7] = 0.0f;
  m->m[8] = 2.0f * (xz + wy) * sz;
  m->m[9] = 2.0f * (yz - wx) * sz;
  m->m[10] = (1.0f - 2.0f * (xx + yy)) * sz;
  m->m[11] = 0.0f;
}

/* M = T * R * S. */
static inline void anim_mat4_from_trs_inl(anim_mat4_t *m, anim_vec3_t t,
                                          anim_quat_t r, anim_vec3_t s) {
  anim_mat4_set_rs_inl(m, r, s.x, s.y, s.z);
  m->m[12] = t.x;
  m->m[13] = t.y;
  m->m[14] = t.z;
  m->m[15] = 1.0f;
}

#endif
