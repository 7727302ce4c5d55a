/* animd core: the AVX-512 local-to-model kernel.
 *
 * Compiled for AVX-512 (F, VL, DQ, BW) and only called after
 * anim__cpu_isa() says so. Key design choice: the local matrices are built
 * 16 joints at a time in SoA form (one 512-bit register per entry: the
 * pose's AoS translations, rotations and scales are gathered into lanes
 * with two-table permutes, then the quaternion-to-matrix formulas run once
 * for 16 joints), written to a small scratch block, and the dependent
 * product with the parent (hierarchy_chain.h) broadcasts each entry
 * straight from that block. So per joint only the 12 broadcast loads and
 * 16 multiply-adds of the product remain, and the product keeps the
 * parent in registers along chains. */
#include <immintrin.h>

#include "hierarchy_chain.h"
#include "hierarchy_simd.h"

#define BLOCK 16

/* Lane k of the result: component o of the 3-float item k of the 48 floats
 * in a, b, c (items past the block's end read zeros). */
static inline __attribute__((always_inline)) __m512 soa3(__m512 a, __m512 b,
                                                         __m512 c, int o) {
  int ab[16], cc[16];
  __mmask16 from_c = 0;
  for (int k = 0; k < 16; k++) {
    int g = 3 * k + o;
    ab[k] = g < 32 ? g : 0;
    cc[k] = g < 32 ? 0 : g - 32;
    if (g >= 32) from_c |= (__mmask16)(1u << k);
  }
  __m512 r = _mm512_permutex2var_ps(a, _mm512_loadu_si512(ab), b);
  return _mm512_mask_permutexvar_ps(r, from_c, _mm512_loadu_si512(cc), c);
}

/* Lane k: component o of the 4-float item k of the 64 floats in a..d. */
static inline __attribute__((always_inline)) __m512
soa4(__m512 a, __m512 b, __m512 c, __m512 d, int o) {
  const __m512i idx =
      _mm512_add_epi32(_mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8,
                                         12, 16, 20, 24, 28),
                       _mm512_set1_epi32(o));
  __m512 lo = _mm512_permutex2var_ps(a, idx, b);
  __m512 hi = _mm512_permutex2var_ps(c, idx, d);
  return _mm512_mask_blend_ps((__mmask16)0xff00, lo, hi);
}

/* Floats [16 * part, 16 * part + 16) of an array of n floats, zeros past
 * its end. */
static inline __attribute__((always_inline)) __m512
load_part(const float *f, uint32_t n, uint32_t part) {
  uint32_t at = 16 * part;
  uint32_t left = n > at ? n - at : 0;
  if (left >= 16) /* Masked loads are slower: only for the last block. */
    return _mm512_loadu_ps(f + at);
  return _mm512_maskz_loadu_ps((__mmask16)((1u << left) - 1), f + at);
}

/* The 12 local-matrix entries of joints [j, j + n) (n <= 16) into
 * e[12][16]: columns 0..2 of the scaled rotation, then the translation. */
static inline __attribute__((always_inline)) void
local_block(float *e, const anim_pose_t *in, uint32_t j, uint32_t n) {
  const float *t = &in->translation[j].x, *s = &in->scale[j].x;
  const float *q = &in->rotation[j].x;
  __m512 t0 = load_part(t, 3 * n, 0), t1 = load_part(t, 3 * n, 1),
         t2 = load_part(t, 3 * n, 2);
  __m512 s0 = load_part(s, 3 * n, 0), s1 = load_part(s, 3 * n, 1),
         s2 = load_part(s, 3 * n, 2);
  __m512 q0 = load_part(q, 4 * n, 0), q1 = load_part(q, 4 * n, 1),
         q2 = load_part(q, 4 * n, 2), q3 = load_part(q, 4 * n, 3);
  const __m512 x = soa4(q0, q1, q2, q3, 0), y = soa4(q0, q1, q2, q3, 1);
  const __m512 z = soa4(q0, q1, q2, q3, 2), w = soa4(q0, q1, q2, q3, 3);
  const __m512 sx = soa3(s0, s1, s2, 0), sy = soa3(s0, s1, s2, 1);
  const __m512 sz = soa3(s0, s1, s2, 2);
  const __m512 one = _mm512_set1_ps(1.f), two = _mm512_set1_ps(2.f);
  const __m512 xx = _mm512_mul_ps(x, x), yy = _mm512_mul_ps(y, y);
  const __m512 zz = _mm512_mul_ps(z, z), xy = _mm512_mul_ps(x, y);
  const __m512 xz = _mm512_mul_ps(x, z), yz = _mm512_mul_ps(y, z);
  const __m512 wx = _mm512_mul_ps(w, x), wy = _mm512_mul_ps(w, y);
  const __m512 wz = _mm512_mul_ps(w, z);
#define DIAG(a, b, sc)                                                         \
  _mm512_mul_ps(_mm512_fnmadd_ps(two, _mm512_add_ps(a, b), one), sc)
#define OFF(a, op, b, sc) _mm512_mul_ps(_mm512_mul_ps(two, op(a, b)), sc)
  _mm512_store_ps(e + 0 * BLOCK, DIAG(yy, zz, sx));
  _mm512_store_ps(e + 1 * BLOCK, OFF(xy, _mm512_add_ps, wz, sx));
  _mm512_store_ps(e + 2 * BLOCK, OFF(xz, _mm512_sub_ps, wy, sx));
  _mm512_store_ps(e + 3 * BLOCK, OFF(xy, _mm512_sub_ps, wz, sy));
  _mm512_store_ps(e + 4 * BLOCK, DIAG(xx, zz, sy));
  _mm512_store_ps(e + 5 * BLOCK, OFF(yz, _mm512_add_ps, wx, sy));
  _mm512_store_ps(e + 6 * BLOCK, OFF(xz, _mm512_add_ps, wy, sz));
  _mm512_store_ps(e + 7 * BLOCK, OFF(yz, _mm512_sub_ps, wx, sz));
  _mm512_store_ps(e + 8 * BLOCK, DIAG(xx, yy, sz));
#undef DIAG
#undef OFF
  _mm512_store_ps(e + 9 * BLOCK, soa3(t0, t1, t2, 0));
  _mm512_store_ps(e + 10 * BLOCK, soa3(t0, t1, t2, 1));
  _mm512_store_ps(e + 11 * BLOCK, soa3(t0, t1, t2, 2));
}

void anim__local_to_model_avx512(const anim_skeleton_t *sk,
                                 const anim_pose_t *in, const anim_mat4_t *root,
                                 uint32_t from, uint32_t to, anim_mat4_t *out) {
  /* Read once: the output stores could alias them as far as the compiler
   * knows. */
  const int16_t *parents = sk->parents;
  const anim_pose_t pose = *in;
  _Alignas(64) float e[12 * BLOCK];
  chain_mat_t m = chain_identity();
  for (uint32_t j0 = from; j0 <= to; j0 += BLOCK) {
    const uint32_t n = to - j0 + 1 < BLOCK ? to - j0 + 1 : BLOCK;
    local_block(e, &pose, j0, n);
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t j = j0 + i;
      const float *ei = e + i;
      const __m128 b[12] = {
          _mm_broadcast_ss(ei + 0 * BLOCK),  _mm_broadcast_ss(ei + 1 * BLOCK),
          _mm_broadcast_ss(ei + 2 * BLOCK),  _mm_broadcast_ss(ei + 3 * BLOCK),
          _mm_broadcast_ss(ei + 4 * BLOCK),  _mm_broadcast_ss(ei + 5 * BLOCK),
          _mm_broadcast_ss(ei + 6 * BLOCK),  _mm_broadcast_ss(ei + 7 * BLOCK),
          _mm_broadcast_ss(ei + 8 * BLOCK),  _mm_broadcast_ss(ei + 9 * BLOCK),
          _mm_broadcast_ss(ei + 10 * BLOCK), _mm_broadcast_ss(ei + 11 * BLOCK)};
      m = chain_mul(chain_parent(parents[j], j, from, m, root, out), b);
      chain_store(out[j].m, m);
    }
  }
}
