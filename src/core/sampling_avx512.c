/* animd core: the AVX-512 kernel that samples a clip's shared key grid.
 *
 * Compiled for AVX-512 (F, VL, DQ, BW) and only called after a CPU check.
 * One block of the grid is 16 joints of one path: each component is one
 * 512-bit load from each of the two key rows, the lerp or slerp runs on 16
 * lanes at once, and the result is turned back into the pose's AoS arrays
 * with two-table permutes (consecutive joints: full or masked stores) or
 * written lane by lane (joints with gaps). Key design choice: bit-for-bit
 * agreement with the scalar kernel. The slerp weights come from the same
 * Eberly series with the same number of terms per lane (lanes with fewer
 * terms keep the factor 1 through masked steps), every step is a separate
 * multiply and add in the scalar kernel's order (no fused multiply-add:
 * -std=c11 keeps the compiler from contracting), and the rare lanes whose
 * keys are more than about 45 degrees apart take the scalar closed form. */
#include <immintrin.h>

#include "clip_grid.h"
#include "pose_kernels.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* 1 + (t2 - i2) * inv * xm1 * inner, in that order (pk_eberly_step). */
static ALWAYS_INLINE __m512 eberly_step(float t2, float i2, float inv,
                                        __m512 xm1, __m512 inner) {
  __m512 v = _mm512_mul_ps(_mm512_set1_ps((t2 - i2) * inv), xm1);
  return _mm512_add_ps(_mm512_set1_ps(1.f), _mm512_mul_ps(v, inner));
}

/* pk_eberly per lane: 7 terms where m7, 4 where m4, 3 where m3, else 2.
 * Steps no lane needs are skipped (keys 30 fps apart need only two). */
static ALWAYS_INLINE __m512 eberly(float t2, __m512 xm1, __mmask16 m7,
                                   __mmask16 m4, __mmask16 m3) {
  __m512 a = _mm512_set1_ps(1.f);
  if (m7) {
    a = _mm512_mask_mov_ps(a, m7, eberly_step(t2, 49.f, 1.f / 105.f, xm1, a));
    a = _mm512_mask_mov_ps(a, m7, eberly_step(t2, 36.f, 1.f / 78.f, xm1, a));
    a = _mm512_mask_mov_ps(a, m7, eberly_step(t2, 25.f, 1.f / 55.f, xm1, a));
  }
  if (m4)
    a = _mm512_mask_mov_ps(a, m4, eberly_step(t2, 16.f, 1.f / 36.f, xm1, a));
  if (m3)
    a = _mm512_mask_mov_ps(a, m3, eberly_step(t2, 9.f, 1.f / 21.f, xm1, a));
  a = eberly_step(t2, 4.f, 1.f / 10.f, xm1, a);
  return eberly_step(t2, 1.f, 1.f / 3.f, xm1, a);
}

/* Shortest-path slerp of 16 lanes (pk_quat_slerp's formulas). */
static ALWAYS_INLINE void slerp16(const __m512 *a, __m512 *b, float u,
                                  __m512 *r) {
  __m512 x = _mm512_add_ps(
      _mm512_add_ps(_mm512_mul_ps(a[0], b[0]), _mm512_mul_ps(a[1], b[1])),
      _mm512_add_ps(_mm512_mul_ps(a[2], b[2]), _mm512_mul_ps(a[3], b[3])));
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 sign = _mm512_set1_ps(-0.f);
  x = _mm512_mask_xor_ps(x, neg, x, sign);
  for (int c = 0; c < 4; c++) b[c] = _mm512_mask_xor_ps(b[c], neg, b[c], sign);
  x = _mm512_min_ps(x, _mm512_set1_ps(1.f));
  const float d = 1.f - u;
  const __m512 xm1 = _mm512_sub_ps(x, _mm512_set1_ps(1.f));
  const __mmask16 m3 = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.99f), _CMP_LT_OQ);
  const __mmask16 m4 = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.97f), _CMP_LT_OQ);
  const __mmask16 m7 = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.9f), _CMP_LT_OQ);
  const __mmask16 wide =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.7f), _CMP_LT_OQ);
  __m512 w0 = _mm512_mul_ps(_mm512_set1_ps(d), eberly(d * d, xm1, m7, m4, m3));
  __m512 w1 = _mm512_mul_ps(_mm512_set1_ps(u), eberly(u * u, xm1, m7, m4, m3));
  if (wide) {
    _Alignas(64) float xs[16], f0[16], f1[16];
    _mm512_store_ps(xs, x);
    _mm512_store_ps(f0, w0);
    _mm512_store_ps(f1, w1);
    for (int l = 0; l < 16; l++)
      if (wide & (1u << l)) pk_slerp_weights(xs[l], u, &f0[l], &f1[l]);
    w0 = _mm512_load_ps(f0);
    w1 = _mm512_load_ps(f1);
  }
  for (int c = 0; c < 4; c++)
    r[c] = _mm512_add_ps(_mm512_mul_ps(a[c], w0), _mm512_mul_ps(b[c], w1));
}

/* SoA x, y, z of 16 joints to 48 AoS floats (vec3 n = count <= 16). */
static ALWAYS_INLINE void store_vec3(float *dst, const __m512 *r, uint32_t n) {
  static const int32_t xy[3][16] = {
      {0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
      {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
      {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0}};
  static const int32_t zi[3][16] = {
      {0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0},
      {0, 5, 0, 0, 6, 0, 0, 7, 0, 0, 8, 0, 0, 9, 0, 0},
      {10, 0, 0, 11, 0, 0, 12, 0, 0, 13, 0, 0, 14, 0, 0, 15}};
  static const __mmask16 zm[3] = {0x4924, 0x2492, 0x9249};
  const uint32_t floats = 3 * n;
  for (uint32_t part = 0; part < 3 && 16 * part < floats; part++) {
    __m512 v = _mm512_permutex2var_ps(r[0], _mm512_loadu_si512(xy[part]), r[1]);
    v = _mm512_mask_permutexvar_ps(v, zm[part], _mm512_loadu_si512(zi[part]),
                                   r[2]);
    const uint32_t left = floats - 16 * part;
    if (left >= 16)
      _mm512_storeu_ps(dst + 16 * part, v);
    else
      _mm512_mask_storeu_ps(dst + 16 * part, (__mmask16)((1u << left) - 1), v);
  }
}

/* SoA x, y, z, w of 16 joints to 64 AoS floats (n <= 16 quaternions). */
static ALWAYS_INLINE void store_quat(float *dst, const __m512 *r, uint32_t n) {
  const __m512i base =
      _mm512_setr_epi32(0, 16, 0, 16, 1, 17, 1, 17, 2, 18, 2, 18, 3, 19, 3, 19);
  for (uint32_t part = 0; part < 4 && 4 * part < n; part++) {
    const __m512i idx = _mm512_add_epi32(base, _mm512_set1_epi32(4 * part));
    const __m512 xy = _mm512_permutex2var_ps(r[0], idx, r[1]);
    const __m512 zw = _mm512_permutex2var_ps(r[2], idx, r[3]);
    const __m512 v = _mm512_mask_blend_ps((__mmask16)0xcccc, xy, zw);
    const uint32_t left = 4 * (n - 4 * part);
    if (left >= 16)
      _mm512_storeu_ps(dst + 16 * part, v);
    else
      _mm512_mask_storeu_ps(dst + 16 * part, (__mmask16)((1u << left) - 1), v);
  }
}

/* One path of the grid, C components per joint (3 or 4, a constant after
 * inlining, so the component loops unroll into registers). */
static ALWAYS_INLINE void sample_path(const anim__grid_path_t *gp, float *out,
                                      uint32_t k, uint32_t k1, float u,
                                      const uint32_t C) {
  const __m512 uu = _mm512_set1_ps(u);
  const float *ra = gp->values + k * gp->row;
  const float *rb = gp->values + k1 * gp->row;
  for (uint32_t blk = 0; blk < gp->blocks; blk++) {
    const uint32_t lo = blk * GRID_LANES;
    const uint32_t n =
        gp->count - lo < GRID_LANES ? gp->count - lo : GRID_LANES;
    const float *a = ra + (size_t)blk * C * GRID_LANES;
    const float *b = rb + (size_t)blk * C * GRID_LANES;
    __m512 va[4], vb[4], r[4];
    for (uint32_t e = 0; e < C; e++)
      r[e] = va[e] = _mm512_load_ps(a + e * GRID_LANES);
    if (u != 0.f) {
      for (uint32_t e = 0; e < C; e++)
        vb[e] = _mm512_load_ps(b + e * GRID_LANES);
      if (C == 4)
        slerp16(va, vb, u, r);
      else
        for (uint32_t e = 0; e < C; e++)
          r[e] = _mm512_add_ps(va[e],
                               _mm512_mul_ps(_mm512_sub_ps(vb[e], va[e]), uu));
    }
    if (gp->first[blk] != UINT32_MAX) {
      float *dst = out + (size_t)C * gp->first[blk];
      if (C == 4)
        store_quat(dst, r, n);
      else
        store_vec3(dst, r, n);
      continue;
    }
    _Alignas(64) float soa[4][16];
    for (uint32_t e = 0; e < C; e++) _mm512_store_ps(soa[e], r[e]);
    anim__grid_scatter(out, C, gp->joints + lo, soa[0], 16, n);
  }
}

void anim__grid_sample_avx512(const anim__grid_t *g, uint32_t k, uint32_t k1,
                              float u, const anim_pose_t *o) {
  ANIM__GRID_SAMPLE_PATHS(sample_path, g, k, k1, u, o);
}
