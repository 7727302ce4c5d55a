/* animd core: the blending job's AVX2 passes (core/blend_simd.h).
 *
 * Compiled with -mavx2 -mfma and only called after a CPU check. Flat
 * weighted sums are the portable loops, vectorized 8 floats wide by the
 * compiler. Quaternions go 8 joints a block as 4 registers of 2 joints
 * each (one per 128-bit lane): the 8 dot products come out of two rounds
 * of horizontal adds, one register, and each joint's scalar goes back
 * over its quaternion with an in-lane broadcast. Key design choice: the
 * same bits as the portable passes (multiplies and adds, never FMA; the
 * horizontal adds sum (x + y) + (z + w) as blend_dot4 does), so the job's
 * result does not depend on the CPU. */
#include <immintrin.h>

#include "blend_simd.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

void anim__blend_flat_set_avx2(float *restrict sum, const float *restrict v,
                               float w, uint32_t m) {
  blend_flat_set(sum, v, w, m);
}

void anim__blend_flat_add_avx2(float *restrict sum, const float *restrict v,
                               float w, uint32_t m) {
  blend_flat_add(sum, v, w, m);
}

/* The 4-component sums of p[0..3] (2 quaternions each): lane 0 of the
 * result holds those of the low halves, in order, lane 1 the high ones'. */
static ALWAYS_INLINE __m256 sums4(const __m256 p[4]) {
  __m256 h01 = _mm256_hadd_ps(p[0], p[1]);
  __m256 h23 = _mm256_hadd_ps(p[2], p[3]);
  return _mm256_hadd_ps(h01, h23);
}

/* Element k of each lane of v, over the lane. */
static ALWAYS_INLINE __m256 lane_broadcast(__m256 v, int k) {
  switch (k) {
  case 0: return _mm256_permute_ps(v, 0x00);
  case 1: return _mm256_permute_ps(v, 0x55);
  case 2: return _mm256_permute_ps(v, 0xaa);
  default: return _mm256_permute_ps(v, 0xff);
  }
}

void anim__blend_quat_add_aligned_avx2(float *restrict sum,
                                       const float *restrict first,
                                       const float *restrict q, float w,
                                       uint32_t n) {
  const __m256 vw = _mm256_set1_ps(w), sign = _mm256_set1_ps(-0.f);
  const __m256 zero = _mm256_setzero_ps();
  uint32_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 l[4], p[4];
    for (int k = 0; k < 4; k++) {
      l[k] = _mm256_loadu_ps(q + 4 * j + 8 * k);
      p[k] = _mm256_mul_ps(_mm256_loadu_ps(first + 4 * j + 8 * k), l[k]);
    }
    __m256 neg = _mm256_cmp_ps(sums4(p), zero, _CMP_LT_OQ);
    __m256 sw = _mm256_xor_ps(vw, _mm256_and_ps(neg, sign));
    for (int k = 0; k < 4; k++) {
      float *o = sum + 4 * j + 8 * k;
      __m256 c = _mm256_mul_ps(lane_broadcast(sw, k), l[k]);
      _mm256_storeu_ps(o, _mm256_add_ps(_mm256_loadu_ps(o), c));
    }
  }
  blend_quat_add_aligned(sum + 4 * j, first + 4 * j, q + 4 * j, w, n - j);
}

/* Stores the 4 registers v (8 joints) normalized at out: blend_quat_
 * normalize_one's operations lane by lane. */
static ALWAYS_INLINE void normalize_block(float *out, const __m256 v[4]) {
  const __m256 one = _mm256_set1_ps(1.f), tiny = _mm256_set1_ps(1e-24f);
  const __m256 zero = _mm256_setzero_ps();
  __m256 p[4];
  for (int k = 0; k < 4; k++) p[k] = _mm256_mul_ps(v[k], v[k]);
  __m256 l2 = sums4(p);
  __m256 ok = _mm256_cmp_ps(l2, tiny, _CMP_GT_OQ);
  __m256 r = _mm256_div_ps(one, _mm256_sqrt_ps(_mm256_blendv_ps(one, l2, ok)));
  __m256 k8 = _mm256_and_ps(ok, r);
  __m256 o[4];
  for (int k = 0; k < 4; k++) o[k] = _mm256_mul_ps(v[k], lane_broadcast(k8, k));
  /* Where the sum is near zero (rare), w is 1 (the identity). */
  __m256 bad = _mm256_cmp_ps(l2, tiny, _CMP_NGT_UQ);
  if (_mm256_movemask_ps(bad) != 0)
    for (int k = 0; k < 4; k++) {
      __m256 bad_w = _mm256_blend_ps(zero, lane_broadcast(bad, k), 0x88);
      o[k] = _mm256_blendv_ps(o[k], one, bad_w);
    }
  for (int k = 0; k < 4; k++) _mm256_storeu_ps(out + 8 * k, o[k]);
}

void anim__blend_quat_normalize_avx2(float *restrict out,
                                     const float *restrict q, uint32_t n) {
  uint32_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 v[4];
    for (int k = 0; k < 4; k++) v[k] = _mm256_loadu_ps(q + 4 * j + 8 * k);
    normalize_block(out + 4 * j, v);
  }
  blend_quat_normalize(out + 4 * j, q + 4 * j, n - j);
}

void anim__blend_flat_finish_avx2(float *out, const float *sum, const float *v0,
                                  float w0, const float *va, float wa,
                                  const float *v, float w, float inv,
                                  uint32_t m) {
  blend_flat_finish(out, sum, v0, w0, va, wa, v, w, inv, m);
}

/* The 4 registers of lq's 8 joints, each times w negated where its dot
 * with the same joint of f is negative. */
static ALWAYS_INLINE void signed_terms(__m256 c[4], const __m256 f[4],
                                       const __m256 lq[4], float w) {
  const __m256 vw = _mm256_set1_ps(w), sign = _mm256_set1_ps(-0.f);
  __m256 p[4];
  for (int k = 0; k < 4; k++) p[k] = _mm256_mul_ps(f[k], lq[k]);
  __m256 neg = _mm256_cmp_ps(sums4(p), _mm256_setzero_ps(), _CMP_LT_OQ);
  __m256 sw = _mm256_xor_ps(vw, _mm256_and_ps(neg, sign));
  for (int k = 0; k < 4; k++)
    c[k] = _mm256_mul_ps(lane_broadcast(sw, k), lq[k]);
}

/* anim__blend_quat_finish_avx2 with sum, qa and normalize known at
 * compile time. */
static ALWAYS_INLINE void quat_finish(float *out, const float *sum, float w0,
                                      const float *first, const float *qa,
                                      float wa, const float *q, float w,
                                      uint32_t n, bool normalize) {
  const __m256 vw0 = _mm256_set1_ps(w0);
  uint32_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 l[4], f[4], la[4], c[4], ca[4], v[4];
    for (int k = 0; k < 4; k++) {
      l[k] = _mm256_loadu_ps(q + 4 * j + 8 * k);
      f[k] = _mm256_loadu_ps(first + 4 * j + 8 * k);
      if (qa != NULL) la[k] = _mm256_loadu_ps(qa + 4 * j + 8 * k);
    }
    signed_terms(c, f, l, w);
    if (qa != NULL) signed_terms(ca, f, la, wa);
    for (int k = 0; k < 4; k++) {
      __m256 a = sum != NULL ? _mm256_loadu_ps(sum + 4 * j + 8 * k)
                             : _mm256_mul_ps(vw0, f[k]);
      if (qa != NULL) a = _mm256_add_ps(a, ca[k]);
      v[k] = _mm256_add_ps(a, c[k]);
    }
    if (normalize)
      normalize_block(out + 4 * j, v);
    else
      for (int k = 0; k < 4; k++) _mm256_storeu_ps(out + 4 * j + 8 * k, v[k]);
  }
  blend_quat_finish(out + 4 * j, sum != NULL ? sum + 4 * j : NULL, w0,
                    first + 4 * j, qa != NULL ? qa + 4 * j : NULL, wa,
                    q + 4 * j, w, n - j, normalize);
}

void anim__blend_quat_finish_avx2(float *out, const float *sum, float w0,
                                  const float *first, const float *qa, float wa,
                                  const float *q, float w, uint32_t n,
                                  bool normalize) {
  if (!normalize && sum == NULL && qa == NULL)
    quat_finish(out, NULL, w0, first, NULL, 0.f, q, w, n, false);
  else if (!normalize)
    blend_quat_finish(out, sum, w0, first, qa, wa, q, w, n, false);
  else if (sum != NULL && qa != NULL)
    quat_finish(out, sum, w0, first, qa, wa, q, w, n, true);
  else if (sum != NULL)
    quat_finish(out, sum, w0, first, NULL, 0.f, q, w, n, true);
  else if (qa != NULL)
    quat_finish(out, NULL, w0, first, qa, wa, q, w, n, true);
  else
    quat_finish(out, NULL, w0, first, NULL, 0.f, q, w, n, true);
}
