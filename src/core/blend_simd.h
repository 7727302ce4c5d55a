/* animd core (private): the blending job's passes over a chunk of joints.
 *
 * Sums and poses here are flat float arrays in the poses' layout (3 floats
 * a vector, 4 a quaternion, joint after joint). The portable passes are
 * static inline so the AVX2 file (blend_avx2.c) runs the same code on the
 * joints its 8-joint blocks leave over; its blocks give the same bits, as
 * they do the same operations in the same order: no FMA, and each dot
 * product summed as (x + y) + (z + w). anim__blend_job_run_isa is the
 * job's run with a ceiling on the instruction set, so tests can run both
 * on the same input; anim_blend_job_run is it at anim__cpu_isa(). */
#ifndef ANIMD_CORE_BLEND_SIMD_H
#define ANIMD_CORE_BLEND_SIMD_H

#include <math.h>

#include "animd/blend.h"
#include "core/cpu.h"

anim_result anim__blend_job_run_isa(const anim_blend_job_t *job, anim__isa isa);

/* sum = w * v over m floats. */
static inline void blend_flat_set(float *restrict sum, const float *restrict v,
                                  float w, uint32_t m) {
  for (uint32_t k = 0; k < m; k++) sum[k] = w * v[k];
}

/* sum += w * v over m floats. */
static inline void blend_flat_add(float *restrict sum, const float *restrict v,
                                  float w, uint32_t m) {
  for (uint32_t k = 0; k < m; k++) sum[k] += w * v[k];
}

/* (a0 b0 + a1 b1) + (a2 b2 + a3 b3). */
static inline float blend_dot4(const float *a, const float *b) {
  return (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]);
}

/* sum[j] += (dot(first[j], q[j]) < 0 ? -w : w) * q[j] for n quaternions:
 * each aligned to the hemisphere of the joint's first rotation. */
static inline void blend_quat_add_aligned(float *restrict sum,
                                          const float *restrict first,
                                          const float *restrict q, float w,
                                          uint32_t n) {
  for (uint32_t j = 0; j < n; j++) {
    const float *l = q + 4 * j;
    float sw = blend_dot4(first + 4 * j, l) < 0.f ? -w : w;
    float *o = sum + 4 * j;
    o[0] += sw * l[0];
    o[1] += sw * l[1];
    o[2] += sw * l[2];
    o[3] += sw * l[3];
  }
}

/* o = p / |p| for one quaternion; a near-zero p (|p|^2 <= 1e-24) becomes
 * the identity, as pk_quat_normalize does. o may be p. */
static inline void blend_quat_normalize_one(float *o, const float *p) {
  float l2 = blend_dot4(p, p);
  bool ok = l2 > 1e-24f;
  float k = ok ? 1.f / sqrtf(l2) : 0.f;
  float w = ok ? p[3] * k : 1.f;
  o[0] = p[0] * k;
  o[1] = p[1] * k;
  o[2] = p[2] * k;
  o[3] = w;
}

/* out = q / |q| for n quaternions. */
static inline void blend_quat_normalize(float *restrict out,
                                        const float *restrict q, uint32_t n) {
  for (uint32_t j = 0; j < n; j++)
    blend_quat_normalize_one(out + 4 * j, q + 4 * j);
}

/* The last layers' pass: out = ((sum + wa * va) + w * v) * inv over m
 * floats, where sum is w0 * v0 when NULL and the term of va is left out
 * when va is NULL (the same operations in the same order as a pass per
 * layer, so the same bits; inv 1 leaves the sums as they are: the first
 * two layers' pass). out may be v, va or v0 (each float is read before it
 * is written). */
static inline void blend_flat_finish(float *out, const float *sum,
                                     const float *v0, float w0, const float *va,
                                     float wa, const float *v, float w,
                                     float inv, uint32_t m) {
  if (sum != NULL && va != NULL)
    for (uint32_t k = 0; k < m; k++)
      out[k] = ((sum[k] + wa * va[k]) + w * v[k]) * inv;
  else if (sum != NULL)
    for (uint32_t k = 0; k < m; k++) out[k] = (sum[k] + w * v[k]) * inv;
  else if (va != NULL)
    for (uint32_t k = 0; k < m; k++)
      out[k] = ((w0 * v0[k] + wa * va[k]) + w * v[k]) * inv;
  else
    for (uint32_t k = 0; k < m; k++) out[k] = (w0 * v0[k] + w * v[k]) * inv;
}

/* The last layers' pass on rotations: out[j] = the normalized
 * (sum[j] + sa * qa[j]) + s * q[j], where s is w and sa is wa, each
 * negated when the dot of first[j] with its quaternion is negative, sum is
 * w0 * first when NULL, and the term of qa is left out when qa is NULL;
 * stored as summed, not normalized, when normalize is false (the first two
 * layers' pass). out may be first, qa or q (a joint is read before it is
 * written). */
static inline void blend_quat_finish(float *out, const float *sum, float w0,
                                     const float *first, const float *qa,
                                     float wa, const float *q, float w,
                                     uint32_t n, bool normalize) {
  for (uint32_t j = 0; j < n; j++) {
    const float *l = q + 4 * j, *f = first + 4 * j;
    float sw = blend_dot4(f, l) < 0.f ? -w : w;
    float p[4];
    for (int c = 0; c < 4; c++) p[c] = sum != NULL ? sum[4 * j + c] : w0 * f[c];
    if (qa != NULL) {
      const float *la = qa + 4 * j;
      float swa = blend_dot4(f, la) < 0.f ? -wa : wa;
      for (int c = 0; c < 4; c++) p[c] = p[c] + swa * la[c];
    }
    for (int c = 0; c < 4; c++) p[c] = p[c] + sw * l[c];
    if (normalize)
      blend_quat_normalize_one(out + 4 * j, p);
    else
      for (int c = 0; c < 4; c++) out[4 * j + c] = p[c];
  }
}

/* Only callable when anim__cpu_isa() >= ANIM__ISA_AVX2: the same as the
 * portable passes of the same names. */
void anim__blend_flat_set_avx2(float *restrict sum, const float *restrict v,
                               float w, uint32_t m);
void anim__blend_flat_add_avx2(float *restrict sum, const float *restrict v,
                               float w, uint32_t m);
void anim__blend_quat_add_aligned_avx2(float *restrict sum,
                                       const float *restrict first,
                                       const float *restrict q, float w,
                                       uint32_t n);
void anim__blend_quat_normalize_avx2(float *restrict out,
                                     const float *restrict q, uint32_t n);
void anim__blend_flat_finish_avx2(float *out, const float *sum, const float *v0,
                                  float w0, const float *va, float wa,
                                  const float *v, float w, float inv,
                                  uint32_t m);
void anim__blend_quat_finish_avx2(float *out, const float *sum, float w0,
                                  const float *first, const float *qa, float wa,
                                  const float *q, float w, uint32_t n,
                                  bool normalize);

#endif
