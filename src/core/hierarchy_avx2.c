/* animd core: AVX2+FMA kernels of the hierarchy jobs.
 *
 * Compiled with -mavx2 -mfma and only called after anim__have_avx2(). A
 * 4x4 product is done two result columns per 256-bit register: both halves
 * hold the left matrix's columns, and fused multiply-adds accumulate the
 * right matrix's broadcast elements. FMA rounds once per step, so results
 * differ from the portable kernel by a few ulps (the tests bound it). */
#include <immintrin.h>

#include "hierarchy_simd.h"
#include "pose_kernels.h"

/* Two result columns c and c + 1 of a * b; ak are a's columns doubled. */
static inline __m256 two_cols(__m256 a0, __m256 a1, __m256 a2, __m256 a3,
                              const float *b, int c, bool affine_b) {
  const float *x = b + 4 * c, *y = x + 4;
  __m256 r = _mm256_mul_ps(
      a0, _mm256_setr_ps(x[0], x[0], x[0], x[0], y[0], y[0], y[0], y[0]));
  r = _mm256_fmadd_ps(
      a1, _mm256_setr_ps(x[1], x[1], x[1], x[1], y[1], y[1], y[1], y[1]), r);
  r = _mm256_fmadd_ps(
      a2, _mm256_setr_ps(x[2], x[2], x[2], x[2], y[2], y[2], y[2], y[2]), r);
  if (!affine_b)
    r = _mm256_fmadd_ps(
        a3, _mm256_setr_ps(x[3], x[3], x[3], x[3], y[3], y[3], y[3], y[3]), r);
  else if (c == 2)
    r = _mm256_add_ps(r, _mm256_insertf128_ps(_mm256_setzero_ps(),
                                              _mm256_castps256_ps128(a3), 1));
  return r;
}

static inline void mul_avx2(float *restrict out, const float *a,
                            const float *b, bool affine_b) {
  __m256 a0 = _mm256_broadcast_ps((const __m128 *)(const void *)a);
  __m256 a1 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 4));
  __m256 a2 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 8));
  __m256 a3 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 12));
  _mm256_storeu_ps(out, two_cols(a0, a1, a2, a3, b, 0, affine_b));
  _mm256_storeu_ps(out + 8, two_cols(a0, a1, a2, a3, b, 2, affine_b));
}

void anim__local_to_model_avx2(const anim_skeleton_t *sk,
                               const anim_pose_t *in, const anim_mat4_t *root,
                               uint32_t from, uint32_t to, anim_mat4_t *out) {
  for (uint32_t j = from; j <= to; j++) {
    int p = sk->parents[j];
    if (p < 0 && root == NULL) {
      pk_mat4_from_trs(out[j].m, in->translation[j], in->rotation[j],
                       in->scale[j]);
      continue;
    }
    float local[16];
    pk_mat4_from_trs(local, in->translation[j], in->rotation[j],
                     in->scale[j]);
    mul_avx2(out[j].m, p < 0 ? root->m : out[p].m, local, true);
  }
}

void anim__skinning_matrices_avx2(const anim_mat4_t *model,
                                  const anim_mat4_t *inverse_bind,
                                  uint32_t count, anim_mat4_t *out) {
  for (uint32_t j = 0; j < count; j++)
    mul_avx2(out[j].m, model[j].m, inverse_bind[j].m, false);
}
