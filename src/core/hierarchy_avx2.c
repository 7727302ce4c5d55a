/* animd core: AVX2+FMA kernels of the hierarchy jobs.
 *
 * Compiled with -mavx2 -mfma and only called after anim__cpu_isa() says
 * AVX2. Local-to-model computes each local matrix's 12 entries in scalar
 * code and broadcasts them (off the critical path: out-of-order execution
 * runs it ahead), then
 * chains the parent products through hierarchy_chain.h; a general 4x4
 * product (for skinning matrices) does two result columns per 256-bit
 * register. FMA rounds once per step, so results differ from the portable
 * kernel by a few ulps (the tests bound it). */
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

void anim__local_to_model_avx2(const anim_skeleton_t *sk, const anim_pose_t *in,
                               const anim_mat4_t *root, uint32_t from,
                               uint32_t to, anim_mat4_t *out) {
  /* Read once: the output stores could alias them as far as the compiler
   * knows. */
  const int16_t *parents = sk->parents;
  const anim_vec3_t *tr = in->translation, *sc = in->scale;
  const anim_quat_t *rot = in->rotation;
  chain_mat_t m = chain_identity();
  for (uint32_t j = from; j <= to; j++) {
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
