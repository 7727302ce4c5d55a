/* animd core: the AVX-512 linear blend skinning kernel.
 *
 * Compiled for AVX-512 (F, VL, DQ, BW) and called only after a run-time
 * CPU check. Key design choice: one blended matrix per 512-bit register.
 * Each vertex blends its k matrices whole (k loads and k FMAs, the palette
 * stays in L1), four consecutive vertices are then transposed by 128-bit
 * blocks into column registers (C0 holds column 0 of all four, and so on)
 * and transformed together, one vertex per 128-bit lane: the four
 * positions (and normals) are read with one masked load and spread with
 * lane permutes, and the results are packed back to 12 floats with one
 * permute and one store. Against the AVX2 kernel (two vertices per step,
 * two registers per matrix) this halves the blend's loads and FMAs. It runs
 * the scalar kernel's operations in the same order, so the two differ only
 * by FMA and rsqrt rounding. */
#include <float.h>
#include <immintrin.h>

#include "skinning_internal.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

#define SHUF_YZX _MM_SHUFFLE(3, 0, 2, 1)
#define SHUF_ZXY _MM_SHUFFLE(3, 1, 0, 2)

/* k matrices of one vertex blended with its weights, in slot order. */
static ALWAYS_INLINE __m512 blend(const float *mats, const uint16_t *jv,
                                  const float *wv, const uint32_t k) {
  __m512 b = _mm512_mul_ps(_mm512_set1_ps(wv[0]),
                           _mm512_loadu_ps(mats + 16 * (size_t)jv[0]));
  for (uint32_t i = 1; i < k; i++)
    b = _mm512_fmadd_ps(_mm512_set1_ps(wv[i]),
                        _mm512_loadu_ps(mats + 16 * (size_t)jv[i]), b);
  return b;
}

/* a x b in each 128-bit lane (x, y, z). */
static ALWAYS_INLINE __m512 cross3x4(__m512 a, __m512 b) {
  __m512 a_yzx = _mm512_permute_ps(a, SHUF_YZX);
  __m512 a_zxy = _mm512_permute_ps(a, SHUF_ZXY);
  __m512 b_yzx = _mm512_permute_ps(b, SHUF_YZX);
  __m512 b_zxy = _mm512_permute_ps(b, SHUF_ZXY);
  return _mm512_fmsub_ps(a_yzx, b_zxy, _mm512_mul_ps(a_zxy, b_yzx));
}

/* x * x + y * y + z * z of each 128-bit lane, in its x, y and z. */
static ALWAYS_INLINE __m512 dot3x4(__m512 a, __m512 b) {
  __m512 sq = _mm512_mul_ps(a, b);
  return _mm512_add_ps(_mm512_add_ps(sq, _mm512_permute_ps(sq, SHUF_YZX)),
                       _mm512_permute_ps(sq, SHUF_ZXY));
}

/* t / |t| per lane, zero for a zero vector: rsqrt14 refined by one Newton
 * step (relative error about 1e-7). */
static ALWAYS_INLINE __m512 normalize3x4(__m512 t) {
  __m512 d = _mm512_max_ps(dot3x4(t, t), _mm512_set1_ps(FLT_MIN));
  __m512 y = _mm512_rsqrt14_ps(d);
  /* y * (1.5 - 0.5 * d * y * y); d * y first, so that d = FLT_MIN (the w
   * lanes, zero vectors) never makes a subnormal, which costs a microcode
   * assist per instruction. */
  __m512 hy = _mm512_mul_ps(_mm512_mul_ps(d, y), _mm512_set1_ps(0.5f));
  y = _mm512_mul_ps(y, _mm512_fnmadd_ps(hy, y, _mm512_set1_ps(1.5f)));
  return _mm512_mul_ps(t, y);
}

/* x, y and z of the 3-vectors of four vertices (12 floats in v), each
 * repeated over its vertex's lane. */
static ALWAYS_INLINE void spread(__m512 v, __m512 *x, __m512 *y, __m512 *z) {
  *x = _mm512_permutexvar_ps(
      _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3, 6, 6, 6, 6, 9, 9, 9, 9), v);
  *y = _mm512_permutexvar_ps(
      _mm512_setr_epi32(1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 7, 7, 10, 10, 10, 10), v);
  *z = _mm512_permutexvar_ps(
      _mm512_setr_epi32(2, 2, 2, 2, 5, 5, 5, 5, 8, 8, 8, 8, 11, 11, 11, 11), v);
}

/* Stores x, y, z of each lane as 3 * n consecutive floats (n <= 4). With
 * room, one 16-float store whose last 4 floats the next group overwrites. */
static ALWAYS_INLINE void store(float *out, __m512 r, uint32_t n, bool room) {
  r = _mm512_permutexvar_ps(
      _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15),
      r);
  if (room)
    _mm512_storeu_ps(out, r);
  else
    _mm512_mask_storeu_ps(out, (__mmask16)((1u << (3 * n)) - 1), r);
}

/* Skins n (1..4) consecutive vertices, whose joints, weights, position
 * and normal streams start at jv, wv, p and nv; vertex i of the group is
 * vertex min(i, n - 1), so a short tail repeats its last vertex and stores
 * only the real ones. room: 16 floats fit at op and on, and can be read at
 * p and nv: whole-register loads then, not masked ones (measured: with
 * masked loads a mesh streaming from memory, V = 1M, skinned at half the
 * speed). */
static ALWAYS_INLINE void group(const float *mats, const uint16_t *jv,
                                const float *wv, const float *p,
                                const float *nv, float *op, float *on,
                                uint32_t n, bool room, const uint32_t k,
                                const anim_skin_normals mode) {
  const uint32_t vb = n > 1 ? k : 0, vc = n > 2 ? 2 * k : (n - 1) * k;
  const uint32_t vd = (n - 1) * k;
  const __m512 ba = blend(mats, jv, wv, k);
  const __m512 bb = blend(mats, jv + vb, wv + vb, k);
  const __m512 bc = blend(mats, jv + vc, wv + vc, k);
  const __m512 bd = blend(mats, jv + vd, wv + vd, k);
  const __m512 t0 = _mm512_shuffle_f32x4(ba, bb, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 t1 = _mm512_shuffle_f32x4(ba, bb, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 t2 = _mm512_shuffle_f32x4(bc, bd, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 t3 = _mm512_shuffle_f32x4(bc, bd, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 c0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
  const __m512 c1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
  const __m512 c2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
  const __m512 c3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
  const __mmask16 in = (__mmask16)((1u << (3 * n)) - 1);
  __m512 x, y, z;
  spread(room ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(in, p), &x, &y, &z);
  __m512 r = _mm512_fmadd_ps(x, c0, c3);
  r = _mm512_fmadd_ps(y, c1, r);
  r = _mm512_fmadd_ps(z, c2, r);
  store(op, r, n, room);
  if (mode == ANIM_NORMALS_NONE) return;
  __m512 n0 = c0, n1 = c1, n2 = c2;
  if (mode == ANIM_NORMALS_INVERSE_TRANSPOSE) {
    n0 = cross3x4(c1, c2);
    n1 = cross3x4(c2, c0);
    n2 = cross3x4(c0, c1);
    /* det = c0 . (c1 x c2); flip where negative. */
    const __mmask16 neg =
        _mm512_cmp_ps_mask(dot3x4(c0, n0), _mm512_setzero_ps(), _CMP_LT_OQ);
    const __m512 sign = _mm512_set1_ps(-0.0f);
    n0 = _mm512_mask_xor_ps(n0, neg, n0, sign);
    n1 = _mm512_mask_xor_ps(n1, neg, n1, sign);
    n2 = _mm512_mask_xor_ps(n2, neg, n2, sign);
  }
  spread(room ? _mm512_loadu_ps(nv) : _mm512_maskz_loadu_ps(in, nv), &x, &y,
         &z);
  __m512 t = _mm512_mul_ps(x, n0);
  t = _mm512_fmadd_ps(y, n1, t);
  t = _mm512_fmadd_ps(z, n2, t);
  store(on, normalize3x4(t), n, room);
}

static ALWAYS_INLINE void kernel(const anim_skinning_job_t *job, uint32_t first,
                                 uint32_t count, const uint32_t k,
                                 const anim_skin_normals mode) {
  const anim__lbs_streams_t s = anim__lbs_streams(job, first, k);
  const float *mats = s.mats;
  const uint16_t *jv = s.joints;
  const float *wv = s.weights, *p = s.positions, *nv = s.normals;
  float *op = s.out_positions, *on = s.out_normals;
  uint32_t o = 0;
  /* Whole groups: 16 floats fit at the outputs while 6 vertices are left. */
  for (; o + 4 <= count; o += 4) {
    group(mats, jv, wv, p, nv, op, on, 4, count - o >= 6, k, mode);
    jv += 4 * k;
    wv += 4 * k;
    p += 12;
    nv = mode == ANIM_NORMALS_NONE ? nv : nv + 12;
    op += 12;
    on = mode == ANIM_NORMALS_NONE ? on : on + 12;
  }
  if (o < count) group(mats, jv, wv, p, nv, op, on, count - o, false, k, mode);
}

ANIM__LBS_KERNEL_ENTRY(anim__skin_lbs_avx512)
