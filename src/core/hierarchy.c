/* animd core: the local-to-model and skinning-matrix jobs.
 *
 * One forward loop over storage order: every parent is final before its
 * children read it, so no recursion and no scratch memory. The 4x4
 * products run in SSE2 columns (the portable kernel) or, when the CPU has
 * them, in the AVX2+FMA kernel of hierarchy_avx2.c, chosen per call with
 * anim__cpu_isa() (a cached CPU-feature read: no locks, no state). */
#include "animd/hierarchy.h"
#include "cpu.h"
#include "hierarchy_simd.h"
#include "pose_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- kernels ------------------------------------------------------------- */

/* out = a * b. */
static inline void mul_portable(float *restrict out, const float *a,
                                const float *b) {
#if defined(__SSE2__)
  __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4);
  __m128 a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
  for (int c = 0; c < 4; c++) {
    const float *bc = b + 4 * c;
    __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(bc[0])),
                                     _mm_mul_ps(a1, _mm_set1_ps(bc[1]))),
                          _mm_mul_ps(a2, _mm_set1_ps(bc[2])));
    r = _mm_add_ps(r, _mm_mul_ps(a3, _mm_set1_ps(bc[3])));
    _mm_storeu_ps(out + 4 * c, r);
  }
#else
  /* Every caller passes the m[] of an anim_mat4_t. */
  anim_mat4_mul_inl((anim_mat4_t *)out, (const anim_mat4_t *)a,
                    (const anim_mat4_t *)b);
#endif
}

/* out = p * (T * R * S): the local matrix's columns are scale * (rotation
 * column, 0) and (t, 1), so each result column is a sum of p's columns
 * weighted by the local matrix's elements. */
static inline void mul_trs_portable(float *restrict out, const float *p,
                                    anim_vec3_t t, anim_quat_t q,
                                    anim_vec3_t s) {
#if defined(__SSE2__)
  __m128 p0 = _mm_loadu_ps(p), p1 = _mm_loadu_ps(p + 4);
  __m128 p2 = _mm_loadu_ps(p + 8), p3 = _mm_loadu_ps(p + 12);
  float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
#define COL(a, b, c)                                                           \
  _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(a)),                        \
                        _mm_mul_ps(p1, _mm_set1_ps(b))),                       \
             _mm_mul_ps(p2, _mm_set1_ps(c)))
  _mm_storeu_ps(out, COL((1.f - 2.f * (yy + zz)) * s.x, 2.f * (xy + wz) * s.x,
                         2.f * (xz - wy) * s.x));
  _mm_storeu_ps(out + 4,
                COL(2.f * (xy - wz) * s.y, (1.f - 2.f * (xx + zz)) * s.y,
                    2.f * (yz + wx) * s.y));
  _mm_storeu_ps(out + 8, COL(2.f * (xz + wy) * s.z, 2.f * (yz - wx) * s.z,
                             (1.f - 2.f * (xx + yy)) * s.z));
  _mm_storeu_ps(out + 12, _mm_add_ps(COL(t.x, t.y, t.z), p3));
#undef COL
#else
  anim_mat4_t local;
  anim_mat4_from_trs_inl(&local, t, q, s);
  mul_portable(out, p, local.m);
#endif
}

void anim__local_to_model_portable(const anim_skeleton_t *sk,
                                   const anim_pose_t *in,
                                   const anim_mat4_t *root, uint32_t from,
                                   uint32_t to, anim_mat4_t *out) {
  for (uint32_t j = from; j <= to; j++) {
    int p = sk->parents[j];
    if (p < 0 && root == NULL)
      anim_mat4_from_trs_inl(&out[j], in->translation[j], in->rotation[j],
                             in->scale[j]);
    else
      mul_trs_portable(out[j].m, p < 0 ? root->m : out[p].m, in->translation[j],
                       in->rotation[j], in->scale[j]);
  }
}

void anim__skinning_matrices_portable(const anim_mat4_t *model,
                                      const anim_mat4_t *inverse_bind,
                                      uint32_t count, anim_mat4_t *out) {
  for (uint32_t j = 0; j < count; j++)
    mul_portable(out[j].m, model[j].m, inverse_bind[j].m);
}

/* ---- local to model ------------------------------------------------------ */

anim_result
anim_local_to_model_job_validate(const anim_local_to_model_job_t *job) {
  if (job == NULL || job->skeleton == NULL || job->output == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_pose_t *in = &job->input;
  if (in->translation == NULL || in->rotation == NULL || in->scale == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  uint32_t n = job->skeleton->joint_count;
  if (in->joint_count < n || job->output_count < n)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  if ((job->from != 0 || job->to != 0) && (job->from > job->to || job->to >= n))
    return ANIM_ERR_INVALID_ARGUMENT;
  return ANIM_OK;
}

anim_result anim_local_to_model_job_run(const anim_local_to_model_job_t *job) {
  anim_result r = anim_local_to_model_job_validate(job);
  if (r != ANIM_OK) return r;
  uint32_t from = job->from, to = job->to;
  if (from == 0 && to == 0) to = job->skeleton->joint_count - 1;
  const anim__isa isa = anim__job_isa(ANIM__JOB_LOCAL_TO_MODEL);
  if (isa >= ANIM__ISA_AVX512)
    anim__local_to_model_avx512(job->skeleton, &job->input, job->root, from, to,
                                job->output);
  else if (isa >= ANIM__ISA_AVX2)
    anim__local_to_model_avx2(job->skeleton, &job->input, job->root, from, to,
                              job->output);
  else
    anim__local_to_model_portable(job->skeleton, &job->input, job->root, from,
                                  to, job->output);
  return ANIM_OK;
}

/* ---- skinning matrices --------------------------------------------------- */

anim_result
anim_skinning_matrices_job_validate(const anim_skinning_matrices_job_t *job) {
  if (job == NULL || job->skeleton == NULL || job->model == NULL ||
      job->output == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (job->output_count < job->skeleton->joint_count)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  return ANIM_OK;
}

anim_result
anim_skinning_matrices_job_run(const anim_skinning_matrices_job_t *job) {
  anim_result r = anim_skinning_matrices_job_validate(job);
  if (r != ANIM_OK) return r;
  const anim_skeleton_t *sk = job->skeleton;
  if (anim__cpu_isa() >= ANIM__ISA_AVX2)
    anim__skinning_matrices_avx2(job->model, sk->inverse_bind, sk->joint_count,
                                 job->output);
  else
    anim__skinning_matrices_portable(job->model, sk->inverse_bind,
                                     sk->joint_count, job->output);
  return ANIM_OK;
}
