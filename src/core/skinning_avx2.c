/* animd core: the AVX2 + FMA linear blend skinning kernel.
 *
 * Compiled with -mavx2 -mfma and called only after a run-time CPU check.
 * Key design choice: blend per vertex, transform eight vertices at once in
 * SoA form. Each vertex blends its matrices as whole columns, two columns
 * per 256-bit register (no gathers: 2k loads and FMAs, the palette stays in
 * L1); the blended matrices of eight consecutive vertices are then
 * transposed so that each register holds one matrix element of all eight
 * (12 registers, the w row dropped), their positions and normals are read
 * as three 256-bit streams and split into x, y and z registers, and the
 * transform, the inverse-transpose cofactors and the renormalization are
 * plain 8-lane FMAs (one rsqrt and one Newton step for eight normals).
 * Measured on a Zen 3 (J = 67, 4 influences, both kernels in one process,
 * V = 1k to 100k): positions+normals 4.4 ns per vertex against 6.3 for a
 * kernel that transformed two vertices per step, one per 128-bit half
 * (lane permutes per vertex, two horizontal adds per normal: it waited on
 * its long per-pair dependency chain more than it computed), positions
 * only 3.1 against 3.4. Streaming stores for long outputs were slower at
 * V = 100k (the outputs stay in L3 otherwise) and are not used. A tail
 * of fewer than eight vertices goes through the same block from a padded
 * copy on the stack. The kernel is specialised per influence count and
 * normals mode, so the inner loop has no mode branches, and it runs the
 * scalar kernel's operations in the same order (the blend in slot order,
 * the transform from the translation on), so the two differ only by FMA
 * and rsqrt rounding. */
#include <float.h>
#include <immintrin.h>
#include <string.h>

#include "skinning_internal.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Blends a vertex's k matrices with its weights in slot order: lo =
 * (c0 | c1), hi = (c2 | c3). */
static ALWAYS_INLINE void blend(const float *mats, const uint16_t *jv,
                                const float *wv, const uint32_t k,
                                __m256 *lo_out, __m256 *hi_out) {
  const float *m0 = mats + 16 * (size_t)jv[0];
  __m256 w = _mm256_broadcast_ss(wv);
  __m256 lo = _mm256_mul_ps(w, _mm256_loadu_ps(m0));
  __m256 hi = _mm256_mul_ps(w, _mm256_loadu_ps(m0 + 8));
  for (uint32_t i = 1; i < k; i++) {
    const float *mi = mats + 16 * (size_t)jv[i];
    w = _mm256_broadcast_ss(wv + i);
    lo = _mm256_fmadd_ps(w, _mm256_loadu_ps(mi), lo);
    hi = _mm256_fmadd_ps(w, _mm256_loadu_ps(mi + 8), hi);
  }
  *lo_out = lo;
  *hi_out = hi;
}

/* Four registers r[i] = (a_i | b_i) of two 4-float columns a, b of vertex
 * i to x, y, z of both columns: out[0] = (a.x of the four | b.x of the
 * four), out[1] the y's, out[2] the z's (the w's are dropped). */
static ALWAYS_INLINE void transpose4(const __m256 r[4], __m256 out[3]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]);
  const __m256 t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]);
  const __m256 t3 = _mm256_unpackhi_ps(r[2], r[3]);
  out[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  out[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  out[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
}

/* The 3-vectors of eight vertices (24 floats at in) as x, y, z registers
 * (lane i: vertex i). */
static ALWAYS_INLINE void load_xyz8(const float *in, __m256 *x, __m256 *y,
                                    __m256 *z) {
  /* (x0 y0 z0 x1 | x4 y4 z4 x5), (y1 z1 x2 y2 | ...), (z2 x3 y3 z3 | ...) */
  const __m256 m03 = _mm256_insertf128_ps(
      _mm256_castps128_ps256(_mm_loadu_ps(in)), _mm_loadu_ps(in + 12), 1);
  const __m256 m14 = _mm256_insertf128_ps(
      _mm256_castps128_ps256(_mm_loadu_ps(in + 4)), _mm_loadu_ps(in + 16), 1);
  const __m256 m25 = _mm256_insertf128_ps(
      _mm256_castps128_ps256(_mm_loadu_ps(in + 8)), _mm_loadu_ps(in + 20), 1);
  const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));
  const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));
  *x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
  *y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
  *z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}

/* Stores x, y, z of eight vertices as 24 consecutive floats at out. */
static ALWAYS_INLINE void store_xyz8(float *out, __m256 x, __m256 y, __m256 z) {
  const __m256 xy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0));
  const __m256 yz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1));
  const __m256 zx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0));
  const __m256 m03 = _mm256_shuffle_ps(xy, zx, _MM_SHUFFLE(2, 0, 2, 0));
  const __m256 m14 = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
  const __m256 m25 = _mm256_shuffle_ps(zx, yz, _MM_SHUFFLE(3, 1, 3, 1));
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(m03, m14, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(m25, m03, 0x30));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(m14, m25, 0x31));
}

/* Skins eight consecutive vertices whose joints, weights, positions and
 * normals start at jv, wv, p, nv into op and on. */
static ALWAYS_INLINE void block8(const float *mats, const uint16_t *jv,
                                 const float *wv, const float *p,
                                 const float *nv, float *op, float *on,
                                 const uint32_t k,
                                 const anim_skin_normals mode) {
  /* a[c][e]: element e (x, y, z) of column c for vertices 0..3 in the low
   * half and columns c ^ 1 in the high one, per group of four vertices;
   * then m[c][e] with vertices 0..7. */
  __m256 lo[4], hi[4], a_lo[2][3], a_hi[2][3];
#pragma GCC unroll 2
  for (int g = 0; g < 2; g++) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++)
      blend(mats, jv + (size_t)(4 * g + v) * k, wv + (size_t)(4 * g + v) * k, k,
            &lo[v], &hi[v]);
    transpose4(lo, a_lo[g]);
    transpose4(hi, a_hi[g]);
  }
  __m256 m[4][3];
  for (int e = 0; e < 3; e++) {
    m[0][e] = _mm256_permute2f128_ps(a_lo[0][e], a_lo[1][e], 0x20);
    m[1][e] = _mm256_permute2f128_ps(a_lo[0][e], a_lo[1][e], 0x31);
    m[2][e] = _mm256_permute2f128_ps(a_hi[0][e], a_hi[1][e], 0x20);
    m[3][e] = _mm256_permute2f128_ps(a_hi[0][e], a_hi[1][e], 0x31);
  }
  __m256 x, y, z, r[3];
  load_xyz8(p, &x, &y, &z);
  for (int e = 0; e < 3; e++)
    r[e] = _mm256_fmadd_ps(
        z, m[2][e],
        _mm256_fmadd_ps(y, m[1][e], _mm256_fmadd_ps(x, m[0][e], m[3][e])));
  store_xyz8(op, r[0], r[1], r[2]);
  if (mode == ANIM_NORMALS_NONE) return;
  /* n[c][e]: the normal matrix, column c element e. */
  __m256 n[3][3];
  if (mode == ANIM_NORMALS_LINEAR) {
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 3; e++) n[c][e] = m[c][e];
  } else {
    /* inverse(L)^T = cofactor(L) / det L: columns a1 x a2, a2 x a0,
     * a0 x a1 for L's columns a0, a1, a2; the sign of det flips them. */
    for (int c = 0; c < 3; c++) {
      const __m256 *a = m[(c + 1) % 3], *b = m[(c + 2) % 3];
      for (int e = 0; e < 3; e++) {
        const int e1 = (e + 1) % 3, e2 = (e + 2) % 3;
        n[c][e] = _mm256_fmsub_ps(a[e1], b[e2], _mm256_mul_ps(a[e2], b[e1]));
      }
    }
    const __m256 det = _mm256_fmadd_ps(
        m[0][2], n[0][2],
        _mm256_fmadd_ps(m[0][1], n[0][1], _mm256_mul_ps(m[0][0], n[0][0])));
    const __m256 flip =
        _mm256_and_ps(_mm256_cmp_ps(det, _mm256_setzero_ps(), _CMP_LT_OQ),
                      _mm256_set1_ps(-0.0f));
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 3; e++) n[c][e] = _mm256_xor_ps(n[c][e], flip);
  }
  load_xyz8(nv, &x, &y, &z);
  __m256 t[3];
  for (int e = 0; e < 3; e++)
    t[e] = _mm256_fmadd_ps(
        z, n[2][e], _mm256_fmadd_ps(y, n[1][e], _mm256_mul_ps(x, n[0][e])));
  /* t / |t|, zero for a zero vector: rsqrt of max(|t|^2, FLT_MIN) refined
   * by one Newton step, y * (1.5 - 0.5 * d * y * y) with d * y first so
   * that d = FLT_MIN never makes a subnormal. */
  __m256 d = _mm256_fmadd_ps(
      t[2], t[2], _mm256_fmadd_ps(t[1], t[1], _mm256_mul_ps(t[0], t[0])));
  d = _mm256_max_ps(d, _mm256_set1_ps(FLT_MIN));
  __m256 s = _mm256_rsqrt_ps(d);
  const __m256 hs = _mm256_mul_ps(_mm256_mul_ps(d, s), _mm256_set1_ps(0.5f));
  s = _mm256_mul_ps(s, _mm256_fnmadd_ps(hs, s, _mm256_set1_ps(1.5f)));
  store_xyz8(on, _mm256_mul_ps(t[0], s), _mm256_mul_ps(t[1], s),
             _mm256_mul_ps(t[2], s));
}

static ALWAYS_INLINE void kernel(const anim_skinning_job_t *job, uint32_t first,
                                 uint32_t count, const uint32_t k,
                                 const anim_skin_normals mode) {
  const anim__lbs_streams_t s = anim__lbs_streams(job, first, k);
  const bool nrm = mode != ANIM_NORMALS_NONE;
  uint32_t o = 0;
  for (; o + 8 <= count; o += 8)
    block8(s.mats, s.joints + (size_t)o * k, s.weights + (size_t)o * k,
           s.positions + 3 * (size_t)o, nrm ? s.normals + 3 * (size_t)o : NULL,
           s.out_positions + 3 * (size_t)o,
           nrm ? s.out_normals + 3 * (size_t)o : NULL, k, mode);
  if (o == count) return;
  /* The tail, padded to eight vertices with joint 0 at weight 0 and zero
   * vectors; only the real vertices are copied out. */
  const size_t n = count - o;
  uint16_t jv[8 * 8] = {0};
  float wv[8 * 8] = {0}, p[24] = {0}, nv[24] = {0}, op[24], on[24];
  memcpy(jv, s.joints + (size_t)o * k, n * k * sizeof jv[0]);
  memcpy(wv, s.weights + (size_t)o * k, n * k * sizeof wv[0]);
  memcpy(p, s.positions + 3 * (size_t)o, 3 * n * sizeof p[0]);
  if (nrm) memcpy(nv, s.normals + 3 * (size_t)o, 3 * n * sizeof nv[0]);
  block8(s.mats, jv, wv, p, nv, op, on, k, mode);
  memcpy(s.out_positions + 3 * (size_t)o, op, 3 * n * sizeof op[0]);
  if (nrm) memcpy(s.out_normals + 3 * (size_t)o, on, 3 * n * sizeof on[0]);
}

ANIM__LBS_KERNEL_ENTRY(anim__skin_lbs_avx2)
