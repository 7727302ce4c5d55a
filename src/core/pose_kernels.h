/* animd core (private): small inline kernels for the pose jobs.
 *
 * The sampling, blending and hierarchy loops run these once per joint and
 * per track, so they live here as static inline functions the compiler can
 * fold into each loop instead of out-of-line calls into the math module.
 * Each kernel states the formula it computes; the public math functions in
 * animd/math.h remain the reference implementations. The quaternion product
 * and the matrix kernels shared with the math module come from
 * core/math_inline.h. */
#ifndef ANIMD_CORE_POSE_KERNELS_H
#define ANIMD_CORE_POSE_KERNELS_H

#include <math.h>

#include "animd/math.h"
#include "core/math_inline.h"

static inline float pk_quat_dot(anim_quat_t a, anim_quat_t b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

/* q / |q|; a (near) zero quaternion becomes the identity. */
static inline anim_quat_t pk_quat_normalize(anim_quat_t q) {
  float l2 = pk_quat_dot(q, q);
  if (!(l2 > 1e-24f)) {
    anim_quat_t id = {0.f, 0.f, 0.f, 1.f};
    return id;
  }
  float s = 1.f / sqrtf(l2);
  q.x *= s;
  q.y *= s;
  q.z *= s;
  q.w *= s;
  return q;
}

static inline anim_vec3_t pk_vec3_lerp(anim_vec3_t a, anim_vec3_t b, float t) {
  anim_vec3_t r = {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
                   a.z + (b.z - a.z) * t};
  return r;
}

/* The slerp weights sin((1-t)th)/sin(th) and sin(t th)/sin(th) for
 * cos(th) = x in [0, 1]. Near keys use the product series of Eberly ("A
 * fast and accurate algorithm for computing SLERP", 2011),
 *   f(t) = t (1 + b1 (1 + b2 (1 + ...))),
 *   b_i = (t^2 - i^2) (x - 1) / (i (2i + 1)),
 * cut after as few terms as the arc allows. Largest weight error, checked
 * against the closed form in double over t in [0, 1]:
 *   x >= 0.99 (keys up to 16 degrees apart): 2 terms, 2e-8;
 *   x >= 0.97: 3 terms, 7e-9;  x >= 0.9: 4 terms, 4e-8;
 *   x >= 0.7: 7 terms, 3e-8;   wider arcs: the closed form.
 * Short chains matter: at 30 fps nearly every segment takes the first. */
static inline float pk_eberly_step(float t2, float i2, float inv, float xm1,
                                   float inner) {
  return 1.f + (t2 - i2) * inv * xm1 * inner;
}

static inline float pk_eberly(float t2, float xm1, int terms) {
  float a = 1.f;
  switch (terms) {
  case 7:
    a = pk_eberly_step(t2, 49.f, 1.f / 105.f, xm1, a);
    a = pk_eberly_step(t2, 36.f, 1.f / 78.f, xm1, a);
    a = pk_eberly_step(t2, 25.f, 1.f / 55.f, xm1, a);
    /* fall through */
  case 4:
    a = pk_eberly_step(t2, 16.f, 1.f / 36.f, xm1, a);
    /* fall through */
  case 3:
    a = pk_eberly_step(t2, 9.f, 1.f / 21.f, xm1, a);
    /* fall through */
  default:
    a = pk_eberly_step(t2, 4.f, 1.f / 10.f, xm1, a);
    return pk_eberly_step(t2, 1.f, 1.f / 3.f, xm1, a);
  }
}

static inline void pk_slerp_weights(float x, float t, float *w0, float *w1) {
  float d = 1.f - t;
  float xm1 = x - 1.f;
  if (x >= 0.7f) {
    int terms = x >= 0.99f ? 2 : x >= 0.97f ? 3 : x >= 0.9f ? 4 : 7;
    *w0 = d * pk_eberly(d * d, xm1, terms);
    *w1 = t * pk_eberly(t * t, xm1, terms);
    return;
  }
  float th = acosf(x);
  float s = 1.f / sinf(th);
  *w0 = sinf(d * th) * s;
  *w1 = sinf(t * th) * s;
}

/* Shortest-path slerp given x = dot(a, b) (callers sum the dot product in
 * their own order): b is negated when x < 0. Exact at t = 0 (gives a) and
 * t = 1 (gives b or -b). Inputs are unit quaternions. */
static inline anim_quat_t pk_quat_slerp_dot(anim_quat_t a, anim_quat_t b,
                                            float x, float t) {
  if (x < 0.f) {
    x = -x;
    b.x = -b.x;
    b.y = -b.y;
    b.z = -b.z;
    b.w = -b.w;
  }
  if (x > 1.f) x = 1.f;
  float w0, w1;
  pk_slerp_weights(x, t, &w0, &w1);
  anim_quat_t r = {w0 * a.x + w1 * b.x, w0 * a.y + w1 * b.y,
                   w0 * a.z + w1 * b.z, w0 * a.w + w1 * b.w};
  return r;
}

static inline anim_quat_t pk_quat_slerp(anim_quat_t a, anim_quat_t b, float t) {
  return pk_quat_slerp_dot(a, b, pk_quat_dot(a, b), t);
}

#endif
