/* animd core: AVX2+FMA kernels of the hierarchy jobs.
 *
 * Compiled with -mavx2 -mfma and only called after anim__cpu_isa() says AVX2.
 * Local-to-model builds each local matrix in registers and accumulates the
 * parent's columns with fused multiply-adds; a general 4x4 product (for
 * skinning matrices) does two result columns per 256-bit register. FMA
 * rounds once per step, so results differ from the portable kernel by a
 * few ulps (the tests bound it). */
#include <immintrin.h>

#include "hierarchy_simd.h"
#include "pose_kernels.h"

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

/* out = p * (T * R * S) with the local matrix built in registers: its
 * columns are scale * (rotation column, 0) and (t, 1), so each result
 * column is a sum of p's columns weighted by broadcast scalars. */
static inline void mul_trs_fma(float *restrict out, const float *p,
                               anim_vec3_t t, anim_quat_t q, anim_vec3_t s) {
  __m128 p0 = _mm_loadu_ps(p), p1 = _mm_loadu_ps(p + 4);
  __m128 p2 = _mm_loadu_ps(p + 8), p3 = _mm_loadu_ps(p + 12);
  float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  __m128 c0 = _mm_mul_ps(p0, _mm_set1_ps((1.f - 2.f * (yy + zz)) * s.x));
  c0 = _mm_fmadd_ps(p1, _mm_set1_ps(2.f * (xy + wz) * s.x), c0);
  c0 = _mm_fmadd_ps(p2, _mm_set1_ps(2.f * (xz - wy) * s.x), c0);
  __m128 c1 = _mm_mul_ps(p0, _mm_set1_ps(2.f * (xy - wz) * s.y));
  c1 = _mm_fmadd_ps(p1, _mm_set1_ps((1.f - 2.f * (xx + zz)) * s.y), c1);
  c1 = _mm_fmadd_ps(p2, _mm_set1_ps(2.f * (yz + wx) * s.y), c1);
  __m128 c2 = _mm_mul_ps(p0, _mm_set1_ps(2.f * (xz + wy) * s.z));
  c2 = _mm_fmadd_ps(p1, _mm_set1_ps(2.f * (yz - wx) * s.z), c2);
  c2 = _mm_fmadd_ps(p2, _mm_set1_ps((1.f - 2.f * (xx + yy)) * s.z), c2);
  __m128 c3 = _mm_fmadd_ps(p0, _mm_set1_ps(t.x), p3);
  c3 = _mm_fmadd_ps(p1, _mm_set1_ps(t.y), c3);
  c3 = _mm_fmadd_ps(p2, _mm_set1_ps(t.z), c3);
  _mm_storeu_ps(out, c0);
  _mm_storeu_ps(out + 4, c1);
  _mm_storeu_ps(out + 8, c2);
  _mm_storeu_ps(out + 12, c3);
}

void anim__local_to_model_avx2(const anim_skeleton_t *sk,
                               const anim_pose_t *in, const anim_mat4_t *root,
                               uint32_t from, uint32_t to, anim_mat4_t *out) {
  for (uint32_t j = from; j <= to; j++) {
    int p = sk->parents[j];
    if (p < 0 && root == NULL)
      anim_mat4_from_trs_inl(&out[j], in->translation[j], in->rotation[j],
                             in->scale[j]);
    else
      mul_trs_fma(out[j].m, p < 0 ? root->m : out[p].m, in->translation[j],
                  in->rotation[j], in->scale[j]);
  }
}

void anim__skinning_matrices_avx2(const anim_mat4_t *model,
                                  const anim_mat4_t *inverse_bind,
                                  uint32_t count, anim_mat4_t *out) {
  for (uint32_t j = 0; j < count; j++)
    mul_avx2(out[j].m, model[j].m, inverse_bind[j].m);
}
