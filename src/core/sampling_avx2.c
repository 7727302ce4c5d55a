/* animd core: the AVX2 kernel that samples a clip's shared key grid.
 *
 * Compiled with -mavx2 -mfma and only called after a CPU check. The same
 * work as the AVX-512 kernel (sampling_avx512.c) on 8 lanes: each 16-joint
 * block of the grid is two halves, each component one 256-bit load from
 * each key row, lerp or slerp on 8 lanes, then back to the pose's AoS
 * arrays with in-lane shuffles and 128-bit lane swaps (consecutive
 * joints) or lane by lane (joints with gaps, a partial half). Key design
 * choice, as there: bit-for-bit agreement with the scalar kernel (same
 * Eberly terms per lane through blends, separate multiplies and adds in
 * the scalar order, the closed form for the rare wide lanes). */
#include <immintrin.h>

#include "clip_grid.h"
#include "pose_kernels.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define HALF 8

/* 1 + (t2 - i2) * inv * xm1 * inner, in that order (pk_eberly_step). */
static ALWAYS_INLINE __m256 eberly_step(float t2, float i2, float inv,
                                        __m256 xm1, __m256 inner) {
  __m256 v = _mm256_mul_ps(_mm256_set1_ps((t2 - i2) * inv), xm1);
  return _mm256_add_ps(_mm256_set1_ps(1.f), _mm256_mul_ps(v, inner));
}

/* pk_eberly per lane: 7 terms where m7, 4 where m4, 3 where m3, else 2
 * (masks as all-ones lanes); steps no lane needs are skipped. */
static ALWAYS_INLINE __m256 eberly(float t2, __m256 xm1, __m256 m7, __m256 m4,
                                   __m256 m3) {
  __m256 a = _mm256_set1_ps(1.f);
  if (_mm256_movemask_ps(m7)) {
    a = _mm256_blendv_ps(a, eberly_step(t2, 49.f, 1.f / 105.f, xm1, a), m7);
    a = _mm256_blendv_ps(a, eberly_step(t2, 36.f, 1.f / 78.f, xm1, a), m7);
    a = _mm256_blendv_ps(a, eberly_step(t2, 25.f, 1.f / 55.f, xm1, a), m7);
  }
  if (_mm256_movemask_ps(m4))
    a = _mm256_blendv_ps(a, eberly_step(t2, 16.f, 1.f / 36.f, xm1, a), m4);
  if (_mm256_movemask_ps(m3))
    a = _mm256_blendv_ps(a, eberly_step(t2, 9.f, 1.f / 21.f, xm1, a), m3);
  a = eberly_step(t2, 4.f, 1.f / 10.f, xm1, a);
  return eberly_step(t2, 1.f, 1.f / 3.f, xm1, a);
}

/* Shortest-path slerp of 8 lanes (pk_quat_slerp_dot's formulas). */
static ALWAYS_INLINE void slerp8(const __m256 *a, __m256 *b, float u,
                                 __m256 *r) {
  __m256 x = _mm256_add_ps(
      _mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
      _mm256_add_ps(_mm256_mul_ps(a[2], b[2]), _mm256_mul_ps(a[3], b[3])));
  const __m256 neg = _mm256_and_ps(
      _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_set1_ps(-0.f));
  x = _mm256_xor_ps(x, neg);
  for (int c = 0; c < 4; c++) b[c] = _mm256_xor_ps(b[c], neg);
  x = _mm256_min_ps(x, _mm256_set1_ps(1.f));
  const float d = 1.f - u;
  const __m256 xm1 = _mm256_sub_ps(x, _mm256_set1_ps(1.f));
  const __m256 m3 = _mm256_cmp_ps(x, _mm256_set1_ps(0.99f), _CMP_LT_OQ);
  const __m256 m4 = _mm256_cmp_ps(x, _mm256_set1_ps(0.97f), _CMP_LT_OQ);
  const __m256 m7 = _mm256_cmp_ps(x, _mm256_set1_ps(0.9f), _CMP_LT_OQ);
  const int wide =
      _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(0.7f), _CMP_LT_OQ));
  __m256 w0 = _mm256_mul_ps(_mm256_set1_ps(d), eberly(d * d, xm1, m7, m4, m3));
  __m256 w1 = _mm256_mul_ps(_mm256_set1_ps(u), eberly(u * u, xm1, m7, m4, m3));
  if (wide) {
    _Alignas(32) float xs[HALF], f0[HALF], f1[HALF];
    _mm256_store_ps(xs, x);
    _mm256_store_ps(f0, w0);
    _mm256_store_ps(f1, w1);
    for (int l = 0; l < HALF; l++)
      if (wide & (1 << l)) pk_slerp_weights(xs[l], u, &f0[l], &f1[l]);
    w0 = _mm256_load_ps(f0);
    w1 = _mm256_load_ps(f1);
  }
  for (int c = 0; c < 4; c++)
    r[c] = _mm256_add_ps(_mm256_mul_ps(a[c], w0), _mm256_mul_ps(b[c], w1));
}

/* 8 joints' SoA x, y, z to 24 AoS floats. */
static ALWAYS_INLINE void store_vec3(float *dst, const __m256 *r) {
  /* In each 128-bit lane (joints i..i+3): x0 y0 z0 x1 | y1 z1 x2 y2 |
   * z2 x3 y3 z3, built from x, y, z with in-lane shuffles. */
  const __m256 x = r[0], y = r[1], z = r[2];
  const __m256 xy = _mm256_unpacklo_ps(x, y);  /* x0 y0 x1 y1 */
  const __m256 xy2 = _mm256_unpackhi_ps(x, y); /* x2 y2 x3 y3 */
  /* x0 y0 z0 x1 */
  const __m256 a =
      _mm256_blend_ps(_mm256_shuffle_ps(xy, xy, _MM_SHUFFLE(2, 0, 1, 0)),
                      _mm256_shuffle_ps(z, z, _MM_SHUFFLE(0, 0, 0, 0)), 0x44);
  /* y1 z1 x2 y2 */
  const __m256 b =
      _mm256_blend_ps(_mm256_shuffle_ps(xy, xy2, _MM_SHUFFLE(1, 0, 3, 3)),
                      _mm256_shuffle_ps(z, z, _MM_SHUFFLE(1, 1, 1, 1)), 0x22);
  /* z2 x3 y3 z3 */
  const __m256 c =
      _mm256_blend_ps(_mm256_shuffle_ps(xy2, xy2, _MM_SHUFFLE(3, 3, 2, 2)),
                      _mm256_shuffle_ps(z, z, _MM_SHUFFLE(3, 3, 3, 2)), 0x99);
  /* Joints 0-3 from the low lanes, 4-7 from the high ones. */
  _mm256_storeu_ps(dst, _mm256_permute2f128_ps(a, b, 0x20));
  _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(c, a, 0x30));
  _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(b, c, 0x31));
}

/* 8 joints' SoA x, y, z, w to 32 AoS floats. */
static ALWAYS_INLINE void store_quat(float *dst, const __m256 *r) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]); /* x0 y0 x1 y1 */
  const __m256 t1 = _mm256_unpackhi_ps(r[0], r[1]); /* x2 y2 x3 y3 */
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]); /* z0 w0 z1 w1 */
  const __m256 t3 = _mm256_unpackhi_ps(r[2], r[3]); /* z2 w2 z3 w3 */
  const __m256 q0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 q1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 q2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 q3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(dst, _mm256_permute2f128_ps(q0, q1, 0x20));
  _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(q2, q3, 0x20));
  _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(q0, q1, 0x31));
  _mm256_storeu_ps(dst + 24, _mm256_permute2f128_ps(q2, q3, 0x31));
}

/* One path of the grid, C components per joint (3 or 4, a constant after
 * inlining). */
static ALWAYS_INLINE void sample_path(const anim__grid_path_t *gp, float *out,
                                      uint32_t k, uint32_t k1, float u,
                                      const uint32_t C) {
  const __m256 uu = _mm256_set1_ps(u);
  const float *ra = gp->values + k * gp->row;
  const float *rb = gp->values + k1 * gp->row;
  for (uint32_t lo = 0; lo < gp->count; lo += HALF) {
    const uint32_t blk = lo / GRID_LANES, half = lo % GRID_LANES;
    const uint32_t n = gp->count - lo < HALF ? gp->count - lo : HALF;
    const size_t at = (size_t)blk * C * GRID_LANES + half;
    __m256 va[4], vb[4], r[4];
    for (uint32_t e = 0; e < C; e++)
      r[e] = va[e] = _mm256_load_ps(ra + at + e * GRID_LANES);
    if (u != 0.f) {
      for (uint32_t e = 0; e < C; e++)
        vb[e] = _mm256_load_ps(rb + at + e * GRID_LANES);
      if (C == 4)
        slerp8(va, vb, u, r);
      else
        for (uint32_t e = 0; e < C; e++)
          r[e] = _mm256_add_ps(va[e],
                               _mm256_mul_ps(_mm256_sub_ps(vb[e], va[e]), uu));
    }
    const uint32_t first = gp->first[blk];
    if (first != UINT32_MAX && n == HALF) {
      float *dst = out + (size_t)C * (first + half);
      if (C == 4)
        store_quat(dst, r);
      else
        store_vec3(dst, r);
      continue;
    }
    _Alignas(32) float soa[4][HALF];
    for (uint32_t e = 0; e < C; e++) _mm256_store_ps(soa[e], r[e]);
    anim__grid_scatter(out, C, gp->joints + lo, soa[0], HALF, n);
  }
}

void anim__grid_sample_avx2(const anim__grid_t *g, uint32_t k, uint32_t k1,
                            float u, const anim_pose_t *o) {
  ANIM__GRID_SAMPLE_PATHS(sample_path, g, k, k1, u, o);
}
