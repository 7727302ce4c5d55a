/* animd core: AVX2+FMA kernels of the hierarchy jobs.
 *
 * Compiled with -mavx2 -mfma and only called after anim__cpu_isa() says
 * AVX2. Local-to-model computes the local matrices' rotation entries eight
 * joints at a time (one register per entry, a joint per lane), the part
 * that does not wait for the parent, then chains the parent products
 * joint by joint through hierarchy_chain.h, broadcasting each entry
 * straight from the block (loads, no shuffles); the last joints of a
 * range that fill no block take the scalar entries. Doing the entries
 * eight to an instruction took local-to-model of a 67-joint skeleton from
 * 809 to 434 ns on an AMD EPYC (Zen 3; make bench, bench_sampling), where
 * computing them joint by joint had left it little ahead of the scalar
 * kernel. A general 4x4 product (for skinning matrices) does two result
 * columns per 256-bit register. FMA rounds once per step, so results
 * differ from the portable kernel by a few ulps (the tests bound it). */
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

/* The nine scaled-rotation entries of the local matrices of eight joints
 * at once, one register per entry and a joint per lane (the quaternions
 * transposed from their xyzw layout, which leaves the lanes in the order
 * of LANE below): the part of local-to-model that does not wait for the
 * parent, done eight joints to an instruction instead of one. Same
 * formulas as local_entries. */
static const int lane_of[8] = {0, 4, 1, 5, 2, 6, 3, 7};

static inline __attribute__((always_inline)) void
rotation_entries8(float e[9][8], const anim_quat_t *q, const anim_vec3_t *s) {
  const float *f = &q[0].x;
  __m256 q01 = _mm256_loadu_ps(f), q23 = _mm256_loadu_ps(f + 8);
  __m256 q45 = _mm256_loadu_ps(f + 16), q67 = _mm256_loadu_ps(f + 24);
  /* Lanes 0..7 hold joints 0 2 4 6 | 1 3 5 7. */
  __m256 t0 = _mm256_unpacklo_ps(q01, q23), t1 = _mm256_unpackhi_ps(q01, q23);
  __m256 t2 = _mm256_unpacklo_ps(q45, q67), t3 = _mm256_unpackhi_ps(q45, q67);
  __m256 x = _mm256_shuffle_ps(t0, t2, 0x44),
         y = _mm256_shuffle_ps(t0, t2, 0xee);
  __m256 z = _mm256_shuffle_ps(t1, t3, 0x44),
         w = _mm256_shuffle_ps(t1, t3, 0xee);
  __m256 sx = _mm256_setr_ps(s[0].x, s[2].x, s[4].x, s[6].x, s[1].x, s[3].x,
                             s[5].x, s[7].x);
  __m256 sy = _mm256_setr_ps(s[0].y, s[2].y, s[4].y, s[6].y, s[1].y, s[3].y,
                             s[5].y, s[7].y);
  __m256 sz = _mm256_setr_ps(s[0].z, s[2].z, s[4].z, s[6].z, s[1].z, s[3].z,
                             s[5].z, s[7].z);
  const __m256 one = _mm256_set1_ps(1.f), two = _mm256_set1_ps(2.f);
  __m256 xx = _mm256_mul_ps(x, x), yy = _mm256_mul_ps(y, y);
  __m256 zz = _mm256_mul_ps(z, z), xy = _mm256_mul_ps(x, y);
  __m256 xz = _mm256_mul_ps(x, z), yz = _mm256_mul_ps(y, z);
  __m256 wx = _mm256_mul_ps(w, x), wy = _mm256_mul_ps(w, y);
  __m256 wz = _mm256_mul_ps(w, z);
#define DIAG(a, b, sc)                                                         \
  _mm256_mul_ps(_mm256_sub_ps(one, _mm256_mul_ps(two, _mm256_add_ps(a, b))), sc)
#define OFF(v, sc) _mm256_mul_ps(_mm256_mul_ps(two, v), sc)
  _mm256_store_ps(e[0], DIAG(yy, zz, sx));
  _mm256_store_ps(e[1], OFF(_mm256_add_ps(xy, wz), sx));
  _mm256_store_ps(e[2], OFF(_mm256_sub_ps(xz, wy), sx));
  _mm256_store_ps(e[3], OFF(_mm256_sub_ps(xy, wz), sy));
  _mm256_store_ps(e[4], DIAG(xx, zz, sy));
  _mm256_store_ps(e[5], OFF(_mm256_add_ps(yz, wx), sy));
  _mm256_store_ps(e[6], OFF(_mm256_add_ps(xz, wy), sz));
  _mm256_store_ps(e[7], OFF(_mm256_sub_ps(yz, wx), sz));
  _mm256_store_ps(e[8], DIAG(xx, yy, sz));
#undef DIAG
#undef OFF
}

void anim__local_to_model_avx2(const anim_skeleton_t *sk, const anim_pose_t *in,
                               const anim_mat4_t *root, uint32_t from,
                               uint32_t to, anim_mat4_t *out) {
  /* Read once: the output stores could alias them as far as the compiler
   * knows. */
  const int16_t *parents = sk->parents;
  const anim_vec3_t *tr = in->translation, *sc = in->scale;
  const anim_quat_t *rot = in->rotation;
  chain_mat_t m = chain_identity();
  uint32_t j = from;
  /* Eight joints at a time: their rotation entries first, in one go, then
   * the chain of parent products, one joint after the other. */
  _Alignas(32) float block[9][8];
  for (; to >= 7 && j <= to - 7; j += 8) {
    rotation_entries8(block, rot + j, sc + j);
    for (int i = 0; i < 8; i++) {
      const int l = lane_of[i];
      __m128 e[12];
      for (int k = 0; k < 9; k++) e[k] = _mm_broadcast_ss(&block[k][l]);
      e[9] = _mm_broadcast_ss(&tr[j + i].x);
      e[10] = _mm_broadcast_ss(&tr[j + i].y);
      e[11] = _mm_broadcast_ss(&tr[j + i].z);
      uint32_t k = j + (uint32_t)i;
      m = chain_mul(chain_parent(parents[k], k, from, m, root, out), e);
      chain_store(out[k].m, m);
    }
  }
  for (; j <= to; j++) {
    __m128 e[12];
    local_entries(e, tr[j], rot[j], sc[j]);
    m = chain_mul(chain_parent(parents[j], j, from, m, root, out), e);
    chain_store(out[j].m, m);
  }
}

void anim__skinning_matrices_avx2(const anim_mat4_t *model,
                                  const anim_mat4_t *inverse_bind,
                                  uint32_t count, anim_mat4_t *out) {
  for (uint32_t j = 0; j < count; j++)
    mul_avx2(out[j].m, model[j].m, inverse_bind[j].m);
}
