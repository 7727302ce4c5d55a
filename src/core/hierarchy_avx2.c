/* animd core: AVX2+FMA kernels of the hierarchy jobs.
 *
 * Compiled with -mavx2 -mfma and only called after anim__cpu_isa() says
 * AVX2. Local-to-model computes the local matrices' rotation entries eight
 * joints at a time (one register per entry, a joint per lane: quaternions
 * transposed in two 4x4 halves, scales gathered with two blends and a
 * permute each), the part that does not wait for the parent, then does the
 * parent products joint by joint (hierarchy_chain.h), broadcasting each
 * entry straight from the block (loads, no shuffles); the last joints of a
 * range that fill no block take the scalar entries. The parent is always
 * read back from the output through a pointer select: no branch per joint
 * and no dependency between joints that are not parent and child, so the
 * CPU overlaps independent branches of the skeleton. Keeping a chain's
 * matrix in registers instead (a branch per joint) measured slower, and a
 * branch-free select between the two made every joint wait for the one
 * before. On an AMD EPYC (Zen 3) this took local-to-model of the 67-joint
 * ozz-compare skeleton from 0.82x to 0.70x of ozz-animation 0.16's time
 * (medians of interleaved runs). A general 4x4 product (for skinning
 * matrices) does two result columns per 256-bit register. FMA rounds once
 * per step, so results differ from the portable kernel by a few ulps (the
 * tests bound it). */
#include <immintrin.h>

#include "hierarchy_chain.h"
#include "hierarchy_simd.h"

/* Two result columns c and c + 1 of a * b; ak are a's columns doubled. */
static inline __m256 two_cols(__m256 a0, __m256 a1, __m256 a2, __m256 a3,
                              const float *b, int c) {
  const float *x = b + 4 * c, *y = x + 4;
  __m256 r = _mm256_mul_ps(
      a0, _mm256_setr_ps(x[0], x[0], x[0], x[0], y[0], y[0], y[0], y[0]));
  r = _mm256_fmadd_ps(
      a1, _mm256_setr_ps(x[1], x[1], x[1], x[1], y[1], y[1], y[1], y[1]), r);
  r = _mm256_fmadd_ps(
      a2, _mm256_setr_ps(x[2], x[2], x[2], x[2], y[2], y[2], y[2], y[2]), r);
  return _mm256_fmadd_ps(
      a3, _mm256_setr_ps(x[3], x[3], x[3], x[3], y[3], y[3], y[3], y[3]), r);
}

static inline void mul_avx2(float *restrict out, const float *a,
                            const float *b) {
  __m256 a0 = _mm256_broadcast_ps((const __m128 *)(const void *)a);
  __m256 a1 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 4));
  __m256 a2 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 8));
  __m256 a3 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 12));
  _mm256_storeu_ps(out, two_cols(a0, a1, a2, a3, b, 0));
  _mm256_storeu_ps(out + 8, two_cols(a0, a1, a2, a3, b, 2));
}

/* The 12 entries of T * R * S (columns 0..2 of the scaled rotation, then
 * the translation), each broadcast over a register. */
static inline __attribute__((always_inline)) void
local_entries(__m128 *e, anim_vec3_t t, anim_quat_t q, anim_vec3_t s) {
  float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  e[0] = _mm_set1_ps((1.f - 2.f * (yy + zz)) * s.x);
  e[1] = _mm_set1_ps(2.f * (xy + wz) * s.x);
  e[2] = _mm_set1_ps(2.f * (xz - wy) * s.x);
  e[3] = _mm_set1_ps(2.f * (xy - wz) * s.y);
  e[4] = _mm_set1_ps((1.f - 2.f * (xx + zz)) * s.y);
  e[5] = _mm_set1_ps(2.f * (yz + wx) * s.y);
  e[6] = _mm_set1_ps(2.f * (xz + wy) * s.z);
  e[7] = _mm_set1_ps(2.f * (yz - wx) * s.z);
  e[8] = _mm_set1_ps((1.f - 2.f * (xx + yy)) * s.z);
  e[9] = _mm_set1_ps(t.x);
  e[10] = _mm_set1_ps(t.y);
  e[11] = _mm_set1_ps(t.z);
}

/* Component o of eight xyz items (24 floats in a, b, c), item i in lane i:
 * each lane's float sits at the same position in exactly one of a, b, c
 * (8 = 2 mod 3), so two blends gather the component and one permute puts
 * it in lane order. */
#define SOA3(a, b, c, mask_b, mask_c, p0, p1, p2, p3, p4, p5, p6, p7)          \
  _mm256_permutevar8x32_ps(                                                    \
      _mm256_blend_ps(_mm256_blend_ps(a, b, mask_b), c, mask_c),               \
      _mm256_setr_epi32(p0, p1, p2, p3, p4, p5, p6, p7))

/* Quaternions i and i + 4 in the two halves of one register. */
static inline __attribute__((always_inline)) __m256
quat_pair(const anim_quat_t *q, int i) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(&q[i].x)),
                              _mm_loadu_ps(&q[i + 4].x), 1);
}

/* The nine scaled-rotation entries of the local matrices of eight joints
 * at once, one register per entry and joint i in lane i: the part of
 * local-to-model that does not wait for the parent, done eight joints to
 * an instruction instead of one. The formulas of local_entries,
 * rearranged for fused steps. */
static inline __attribute__((always_inline)) void
rotation_entries8(float e[9][8], const anim_quat_t *q, const anim_vec3_t *s) {
  /* A 4x4 transpose in each half: joints 0..3 | 4..7. */
  __m256 q0 = quat_pair(q, 0), q1 = quat_pair(q, 1);
  __m256 q2 = quat_pair(q, 2), q3 = quat_pair(q, 3);
  __m256 t0 = _mm256_unpacklo_ps(q0, q1), t1 = _mm256_unpackhi_ps(q0, q1);
  __m256 t2 = _mm256_unpacklo_ps(q2, q3), t3 = _mm256_unpackhi_ps(q2, q3);
  __m256 x = _mm256_shuffle_ps(t0, t2, 0x44),
         y = _mm256_shuffle_ps(t0, t2, 0xee);
  __m256 z = _mm256_shuffle_ps(t1, t3, 0x44),
         w = _mm256_shuffle_ps(t1, t3, 0xee);
  const float *sf = &s[0].x;
  const __m256 s0 = _mm256_loadu_ps(sf), s1 = _mm256_loadu_ps(sf + 8),
               s2 = _mm256_loadu_ps(sf + 16);
  __m256 sx = SOA3(s0, s1, s2, 0x92, 0x24, 0, 3, 6, 1, 4, 7, 2, 5);
  __m256 sy = SOA3(s0, s1, s2, 0x24, 0x49, 1, 4, 7, 2, 5, 0, 3, 6);
  __m256 sz = SOA3(s0, s1, s2, 0x49, 0x92, 2, 5, 0, 3, 6, 1, 4, 7);
  /* 2s once: the off-diagonal entries are then one product each, the
   * diagonal ones s - (a + b) * 2s (one fused step). */
  const __m256 sx2 = _mm256_add_ps(sx, sx), sy2 = _mm256_add_ps(sy, sy),
               sz2 = _mm256_add_ps(sz, sz);
  __m256 xx = _mm256_mul_ps(x, x), yy = _mm256_mul_ps(y, y);
  __m256 zz = _mm256_mul_ps(z, z), xy = _mm256_mul_ps(x, y);
  __m256 xz = _mm256_mul_ps(x, z), yz = _mm256_mul_ps(y, z);
  __m256 wx = _mm256_mul_ps(w, x), wy = _mm256_mul_ps(w, y);
  __m256 wz = _mm256_mul_ps(w, z);
#define DIAG(a, b, sc, sc2) _mm256_fnmadd_ps(_mm256_add_ps(a, b), sc2, sc)
  _mm256_store_ps(e[0], DIAG(yy, zz, sx, sx2));
  _mm256_store_ps(e[1], _mm256_mul_ps(_mm256_add_ps(xy, wz), sx2));
  _mm256_store_ps(e[2], _mm256_mul_ps(_mm256_sub_ps(xz, wy), sx2));
  _mm256_store_ps(e[3], _mm256_mul_ps(_mm256_sub_ps(xy, wz), sy2));
  _mm256_store_ps(e[4], DIAG(xx, zz, sy, sy2));
  _mm256_store_ps(e[5], _mm256_mul_ps(_mm256_add_ps(yz, wx), sy2));
  _mm256_store_ps(e[6], _mm256_mul_ps(_mm256_add_ps(xz, wy), sz2));
  _mm256_store_ps(e[7], _mm256_mul_ps(_mm256_sub_ps(yz, wx), sz2));
  _mm256_store_ps(e[8], DIAG(xx, yy, sz, sz2));
#undef DIAG
}
#undef SOA3

void anim__local_to_model_avx2(const anim_skeleton_t *sk, const anim_pose_t *in,
                               const anim_mat4_t *root, uint32_t from,
                               uint32_t to, anim_mat4_t *out) {
  /* Read once: the output stores could alias them as far as the compiler
   * knows. */
  const int16_t *parents = sk->parents;
  const anim_vec3_t *tr = in->translation, *sc = in->scale;
  const anim_quat_t *rot = in->rotation;
  static const anim_mat4_t identity = {
      {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  const float *root_m = root != NULL ? root->m : identity.m;
  uint32_t j = from;
  /* Eight joints at a time: their rotation entries first, in one go, then
   * the parent products, one joint after the other. */
  _Alignas(32) float block[9][8];
  for (; to >= 7 && j <= to - 7; j += 8) {
    rotation_entries8(block, rot + j, sc + j);
    const float *t = &tr[j].x;
    anim_mat4_t *o = out + j;
    const int16_t *par = parents + j;
    for (int i = 0; i < 8; i++, t += 3, o++) {
      __m128 e[12];
      for (int n = 0; n < 9; n++) e[n] = _mm_broadcast_ss(&block[n][i]);
      e[9] = _mm_broadcast_ss(t);
      e[10] = _mm_broadcast_ss(t + 1);
      e[11] = _mm_broadcast_ss(t + 2);
      const int p = par[i];
      const float *pm = p >= 0 ? out[p].m : root_m;
      chain_store(o->m, chain_mul(chain_load(pm), e));
    }
  }
  for (; j <= to; j++) {
    __m128 e[12];
    local_entries(e, tr[j], rot[j], sc[j]);
    const int p = parents[j];
    const float *pm = p >= 0 ? out[p].m : root_m;
    chain_store(out[j].m, chain_mul(chain_load(pm), e));
  }
}

void anim__skinning_matrices_avx2(const anim_mat4_t *model,
                                  const anim_mat4_t *inverse_bind,
                                  uint32_t count, anim_mat4_t *out) {
  for (uint32_t j = 0; j < count; j++)
    mul_avx2(out[j].m, model[j].m, inverse_bind[j].m);
}
