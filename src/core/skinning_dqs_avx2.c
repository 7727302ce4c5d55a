/* animd core: the AVX2 + FMA dual-quaternion skinning kernel (rigid case).
 *
 * Compiled with -mavx2 -mfma and called only after a run-time CPU check,
 * and only when every skinning matrix is rigid (the per-vertex non-rigid
 * blend stays scalar). Key design choice: a dual quaternion is 8 floats,
 * exactly one 256-bit register, so blending k influences is k loads and k
 * FMAs; the blended rotation and translation are then applied with 128-bit
 * cross products (two lane shuffles each). Same formulas and order as the
 * scalar kernel in skinning_dqs.c, so the two differ only by rounding. */
#include <float.h>
#include <immintrin.h>

#include "skinning_internal.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

#define SHUF_YZX _MM_SHUFFLE(3, 0, 2, 1)
#define SHUF_ZXY _MM_SHUFFLE(3, 1, 0, 2)

/* a x b given a's shuffles (a_yzx, a_zxy) precomputed. */
static ALWAYS_INLINE __m128 cross_q(__m128 a_yzx, __m128 a_zxy, __m128 b) {
  __m128 b_yzx = _mm_permute_ps(b, SHUF_YZX);
  __m128 b_zxy = _mm_permute_ps(b, SHUF_ZXY);
  return _mm_fmsub_ps(a_yzx, b_zxy, _mm_mul_ps(a_zxy, b_yzx));
}

static ALWAYS_INLINE __m128 load3(const float *p) {
  return _mm_setr_ps(p[0], p[1], p[2], 0.0f);
}

static ALWAYS_INLINE void store3(float *out, __m128 r) {
  _mm_storel_pi((__m64 *)out, r);
  _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
}

static ALWAYS_INLINE void kernel(const anim_skinning_job_t *job, uint32_t first,
                                 uint32_t count, const uint32_t k,
                                 const anim_skin_normals mode) {
  const anim_mesh_t *m = job->mesh;
  const float *dq = job->scratch;
  const __m128 two = _mm_set1_ps(2.0f);
  for (uint32_t o = 0; o < count; o++) {
    const size_t v = (size_t)first + o;
    const uint16_t *jv = m->joints + v * k;
    const float *wv = m->weights + v * k;
    uint32_t piv = 0;
    for (uint32_t i = 1; i < k; i++)
      if (wv[i] > wv[piv]) piv = i;
    const float *qp = dq + ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)jv[piv];
    __m256 acc = _mm256_setzero_ps();
    for (uint32_t i = 0; i < k; i++) {
      const float *qi = dq + ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)jv[i];
      float w = wv[i];
      if (qi[0] * qp[0] + qi[1] * qp[1] + qi[2] * qp[2] + qi[3] * qp[3] < 0)
        w = -w;
      acc = _mm256_fmadd_ps(_mm256_set1_ps(w), _mm256_loadu_ps(qi), acc);
    }
    __m128 q = _mm256_castps256_ps128(acc);
    __m128 d = _mm256_extractf128_ps(acc, 1);
    const __m128 len = _mm_sqrt_ps(_mm_dp_ps(q, q, 0xFF));
    q = _mm_div_ps(q, len);
    d = _mm_div_ps(d, len);
    const __m128 q_yzx = _mm_permute_ps(q, SHUF_YZX);
    const __m128 q_zxy = _mm_permute_ps(q, SHUF_ZXY);
    const __m128 qw = _mm_permute_ps(q, _MM_SHUFFLE(3, 3, 3, 3));
    const __m128 dw = _mm_permute_ps(d, _MM_SHUFFLE(3, 3, 3, 3));
    /* t = 2 (q.w d.v - d.w q.v + q.v x d.v) */
    __m128 t = _mm_fmsub_ps(qw, d, _mm_mul_ps(dw, q));
    t = _mm_mul_ps(two, _mm_add_ps(t, cross_q(q_yzx, q_zxy, d)));
    /* q p q* = p + w t1 + q.v x t1, t1 = 2 q.v x p */
    const __m128 p = load3(m->positions + 3 * v);
    __m128 t1 = _mm_mul_ps(two, cross_q(q_yzx, q_zxy, p));
    __m128 r = _mm_add_ps(_mm_fmadd_ps(qw, t1, p), cross_q(q_yzx, q_zxy, t1));
    store3(job->out_positions + 3 * (size_t)o, _mm_add_ps(r, t));
    if (mode == ANIM_NORMALS_NONE) continue;
    const __m128 n = load3(m->normals + 3 * v);
    __m128 t2 = _mm_mul_ps(two, cross_q(q_yzx, q_zxy, n));
    __m128 rn = _mm_add_ps(_mm_fmadd_ps(qw, t2, n), cross_q(q_yzx, q_zxy, t2));
    __m128 dn = _mm_dp_ps(rn, rn, 0x7F);
    rn = _mm_div_ps(rn, _mm_sqrt_ps(_mm_max_ps(dn, _mm_set1_ps(FLT_MIN))));
    store3(job->out_normals + 3 * (size_t)o, rn);
  }
}

#define KERNEL_FOR(K, NORMALS)                                                 \
  static void kernel_##K##_##NORMALS(const anim_skinning_job_t *job,           \
                                     uint32_t first, uint32_t count) {         \
    kernel(job, first, count, K,                                               \
           NORMALS ? ANIM_NORMALS_LINEAR : ANIM_NORMALS_NONE);                 \
  }
KERNEL_FOR(4, 0)
KERNEL_FOR(4, 1)
KERNEL_FOR(8, 0)
KERNEL_FOR(8, 1)

/* For rigid matrices both normal modes are the rotation itself. */
void anim__skin_dqs_rigid_avx2(const anim_skinning_job_t *job, uint32_t first,
                               uint32_t count) {
  const bool normals = job->normals != ANIM_NORMALS_NONE;
  if (job->mesh->influences == 8)
    (normals ? kernel_8_1 : kernel_8_0)(job, first, count);
  else
    (normals ? kernel_4_1 : kernel_4_0)(job, first, count);
}
