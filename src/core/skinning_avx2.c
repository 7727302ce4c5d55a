/* animd core: the AVX2 + FMA linear blend skinning kernel.
 *
 * Compiled with -mavx2 -mfma and called only after a run-time CPU check.
 * Key design choice (measured against an 8-lane gather of SoA matrices,
 * which was slower here): blend each vertex's matrices as whole columns,
 * two columns per 256-bit register (8 loads and 8 FMAs for 4 influences),
 * then transform the position and the normal with 128-bit FMAs. The kernel
 * is specialised per influence count and normals mode so the inner loop
 * has no branches. Operations run in the scalar kernel's order, so the two
 * differ only by FMA rounding. */
#include <float.h>
#include <immintrin.h>

#include "skinning_internal.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

#define SHUF_YZX _MM_SHUFFLE(3, 0, 2, 1)
#define SHUF_ZXY _MM_SHUFFLE(3, 1, 0, 2)

static ALWAYS_INLINE __m128 cross3(__m128 a, __m128 b) {
  __m128 a_yzx = _mm_shuffle_ps(a, a, SHUF_YZX);
  __m128 a_zxy = _mm_shuffle_ps(a, a, SHUF_ZXY);
  __m128 b_yzx = _mm_shuffle_ps(b, b, SHUF_YZX);
  __m128 b_zxy = _mm_shuffle_ps(b, b, SHUF_ZXY);
  return _mm_fmsub_ps(a_yzx, b_zxy, _mm_mul_ps(a_zxy, b_yzx));
}

/* t / |t| for the x, y, z lanes of each 128-bit half (w must be 0 or is
 * ignored by the caller), zero for a zero vector: rsqrt refined by one
 * Newton step (relative error about 1e-7). */
static ALWAYS_INLINE __m256 normalize3x2(__m256 t) {
  const __m256 xyz = _mm256_castsi256_ps(
      _mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
  __m256 sq = _mm256_and_ps(_mm256_mul_ps(t, t), xyz);
  __m256 d = _mm256_hadd_ps(sq, sq);
  d = _mm256_hadd_ps(d, d);
  d = _mm256_max_ps(d, _mm256_set1_ps(FLT_MIN));
  __m256 y = _mm256_rsqrt_ps(d);
  /* y * (1.5 - 0.5 * d * y * y) */
  __m256 hy = _mm256_mul_ps(_mm256_mul_ps(d, _mm256_set1_ps(0.5f)), y);
  y = _mm256_mul_ps(y, _mm256_fnmadd_ps(hy, y, _mm256_set1_ps(1.5f)));
  return _mm256_mul_ps(t, y);
}

/* Stores x, y, z of r at out. When more vertices follow, one 4-float store
 * whose fourth float the next vertex overwrites; otherwise exactly 3. */
static ALWAYS_INLINE void store3(float *out, __m128 r, bool more) {
  if (more) {
    _mm_storeu_ps(out, r);
  } else {
    _mm_storel_pi((__m64 *)out, r);
    _mm_store_ss(out + 2, _mm_movehl_ps(r, r));
  }
}

static ALWAYS_INLINE void kernel(const anim_skinning_job_t *job,
                                 uint32_t first, uint32_t count,
                                 const uint32_t k,
                                 const anim_skin_normals mode) {
  const anim_mesh_t *m = job->mesh;
  const float *mats = job->matrices[0].m;
  const uint16_t *joints = m->joints + (size_t)first * k;
  const float *weights = m->weights + (size_t)first * k;
  const float *pos = m->positions + (size_t)first * 3;
  const float *nrm = m->normals ? m->normals + (size_t)first * 3 : NULL;
  float *out_p = job->out_positions;
  float *out_n = job->out_normals;
  const __m128 sign = _mm_set1_ps(-0.0f);
  __m128 pending = _mm_setzero_ps(); /* Unnormalized normal of vertex o-1. */
  for (uint32_t o = 0; o < count; o++) {
    const uint16_t *jv = joints + (size_t)o * k;
    const float *wv = weights + (size_t)o * k;
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
    const __m128 c0 = _mm256_castps256_ps128(lo);
    const __m128 c1 = _mm256_extractf128_ps(lo, 1);
    const __m128 c2 = _mm256_castps256_ps128(hi);
    const __m128 c3 = _mm256_extractf128_ps(hi, 1);
    const bool more = o + 1 < count;
    const float *p = pos + 3 * (size_t)o;
    __m128 r = _mm_fmadd_ps(_mm_broadcast_ss(p), c0, c3);
    r = _mm_fmadd_ps(_mm_broadcast_ss(p + 1), c1, r);
    r = _mm_fmadd_ps(_mm_broadcast_ss(p + 2), c2, r);
    store3(out_p + 3 * (size_t)o, r, more);
    if (mode == ANIM_NORMALS_NONE)
      continue;
    const float *n = nrm + 3 * (size_t)o;
    __m128 t;
    if (mode == ANIM_NORMALS_LINEAR) {
      t = _mm_mul_ps(_mm_broadcast_ss(n), c0);
      t = _mm_fmadd_ps(_mm_broadcast_ss(n + 1), c1, t);
      t = _mm_fmadd_ps(_mm_broadcast_ss(n + 2), c2, t);
    } else {
      const __m128 k0 = cross3(c1, c2);
      const __m128 k1 = cross3(c2, c0);
      const __m128 k2 = cross3(c0, c1);
      const __m128 det = _mm_dp_ps(c0, k0, 0x7F);
      const __m128 flip =
          _mm_and_ps(_mm_cmplt_ps(det, _mm_setzero_ps()), sign);
      t = _mm_mul_ps(_mm_broadcast_ss(n), k0);
      t = _mm_fmadd_ps(_mm_broadcast_ss(n + 1), k1, t);
      t = _mm_fmadd_ps(_mm_broadcast_ss(n + 2), k2, t);
      t = _mm_xor_ps(t, flip);
    }
    /* Normalize two vertices' normals at once: odd o completes a pair. */
    if (o & 1) {
      __m256 u = normalize3x2(_mm256_set_m128(t, pending));
      _mm_storeu_ps(out_n + 3 * (size_t)(o - 1), _mm256_castps256_ps128(u));
      store3(out_n + 3 * (size_t)o, _mm256_extractf128_ps(u, 1), more);
    } else if (!more) {
      __m256 u = normalize3x2(_mm256_castps128_ps256(t));
      store3(out_n + 3 * (size_t)o, _mm256_castps256_ps128(u), false);
    } else {
      pending = t;
    }
  }
}

#define KERNEL_FOR(K, MODE)                                                 \
  static void kernel_##K##_##MODE(const anim_skinning_job_t *job,          \
                                  uint32_t first, uint32_t count) {        \
    kernel(job, first, count, K, MODE);                                     \
  }
KERNEL_FOR(4, ANIM_NORMALS_NONE)
KERNEL_FOR(4, ANIM_NORMALS_LINEAR)
KERNEL_FOR(4, ANIM_NORMALS_INVERSE_TRANSPOSE)
KERNEL_FOR(8, ANIM_NORMALS_NONE)
KERNEL_FOR(8, ANIM_NORMALS_LINEAR)
KERNEL_FOR(8, ANIM_NORMALS_INVERSE_TRANSPOSE)

void anim__skin_lbs_avx2(const anim_skinning_job_t *job, uint32_t first,
                         uint32_t count) {
  typedef void (*kernel_fn)(const anim_skinning_job_t *, uint32_t, uint32_t);
  static const kernel_fn table[2][3] = {
      {kernel_4_ANIM_NORMALS_NONE, kernel_4_ANIM_NORMALS_LINEAR,
       kernel_4_ANIM_NORMALS_INVERSE_TRANSPOSE},
      {kernel_8_ANIM_NORMALS_NONE, kernel_8_ANIM_NORMALS_LINEAR,
       kernel_8_ANIM_NORMALS_INVERSE_TRANSPOSE}};
  table[job->mesh->influences == 8][job->normals](job, first, count);
}
