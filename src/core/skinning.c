/* animd core: the skinning job (validate, dispatch) and the scalar LBS path.
 *
 * The scalar kernel is the reference the SIMD kernel is tested against: one
 * vertex at a time, blend the 3x4 part of the influencing matrices with the
 * weights (in slot order, so identity matrices give the bind pose exactly),
 * transform the position and the normal, renormalize. Key design choice:
 * the kernel is picked per run from anim__cpu_isa() (core/cpu.h), so one
 * binary runs everywhere and uses AVX2 + FMA or AVX-512 where the CPU has
 * them. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "animd/morph.h"
#include "skinning_internal.h"

/* ---- validate and dispatch ----------------------------------------------- */

static bool range_of(const anim_skinning_job_t *job, uint32_t *count) {
  const anim_mesh_t *m = job->mesh;
  if (job->first_vertex > m->vertex_count) return false;
  uint32_t left = m->vertex_count - job->first_vertex;
  if (job->vertex_count > left) return false;
  *count = job->vertex_count ? job->vertex_count : left;
  return true;
}

anim_result anim_skinning_job_validate(const anim_skinning_job_t *job) {
  if (!job || !job->mesh || !job->matrices || !job->out_positions)
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_mesh_t *m = job->mesh;
  if ((unsigned)job->method > ANIM_SKIN_DQS ||
      (unsigned)job->normals > ANIM_NORMALS_INVERSE_TRANSPOSE)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (m->influences != 4 && m->influences != 8)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (job->normals != ANIM_NORMALS_NONE && (!m->normals || !job->out_normals))
    return ANIM_ERR_INVALID_ARGUMENT;
  uint32_t count = 0;
  if (!range_of(job, &count)) return ANIM_ERR_INVALID_ARGUMENT;
  if (job->matrix_count < m->joint_count) return ANIM_ERR_BUFFER_TOO_SMALL;
  const size_t need = (size_t)count * 3;
  /* A count of 0: the caller vouches for the size (skinning.h). */
  if (job->out_positions_count != 0 && job->out_positions_count < need)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  if (job->normals != ANIM_NORMALS_NONE && job->out_normals_count != 0 &&
      job->out_normals_count < need)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  if (job->method == ANIM_SKIN_DQS &&
      (!job->scratch || job->scratch_count < (size_t)m->joint_count *
                                                 ANIM_DQS_SCRATCH_PER_MATRIX))
    return ANIM_ERR_BUFFER_TOO_SMALL;
  const size_t morph_need =
      (size_t)(count < ANIM_MORPH_CHUNK ? count : ANIM_MORPH_CHUNK) *
      (job->normals != ANIM_NORMALS_NONE ? 6u : 3u);
  if (job->morph_weights != NULL && m->target_count > 0 &&
      (!job->morph_scratch || job->morph_scratch_count < morph_need))
    return ANIM_ERR_BUFFER_TOO_SMALL;
  return ANIM_OK;
}

const char *anim_skinning_backend(void) {
  static const char *const names[] = {"scalar", "avx2", "avx512"};
  return names[anim__job_isa(ANIM__JOB_SKINNING)];
}

/* The SIMD kernels load whole matrices (64 bytes): from a palette that is
 * not 64-byte aligned most loads straddle two cache lines, which costs
 * about 40% of the AVX-512 kernel's time. Palettes of up to this many
 * matrices are then copied to an aligned block on the stack (16 KiB) when
 * the range is long enough to pay for the copy. */
#define ALIGNED_PALETTE_MAX 256u
#define ALIGNED_PALETTE_MIN_VERTICES 256u

static void skin_lbs_simd(const anim_skinning_job_t *job, uint32_t count,
                          anim__isa isa) {
  _Alignas(64) anim_mat4_t palette[ALIGNED_PALETTE_MAX];
  anim_skinning_job_t aligned;
  const uint32_t joints = job->mesh->joint_count;
  if ((uintptr_t)job->matrices % 64u != 0 && joints <= ALIGNED_PALETTE_MAX &&
      count >= ALIGNED_PALETTE_MIN_VERTICES) {
    memcpy(palette, job->matrices, joints * sizeof palette[0]);
    aligned = *job;
    aligned.matrices = palette;
    job = &aligned;
  }
  if (isa == ANIM__ISA_AVX512)
    anim__skin_lbs_avx512(job, job->first_vertex, count);
  else
    anim__skin_lbs_avx2(job, job->first_vertex, count);
}

/* The job over vertices [job->first_vertex + at, ... + count) morphed
 * into the job's morph scratch (positions, then normals): a view of them
 * that the kernels skin as any mesh, writing at offset at of the job's
 * outputs. */
static anim_skinning_job_t morphed(const anim_skinning_job_t *job, uint32_t at,
                                   uint32_t count, anim_mesh_t *view) {
  const anim_mesh_t *m = job->mesh;
  const size_t first = (size_t)job->first_vertex + at;
  float *pos = job->morph_scratch;
  float *nrm =
      job->normals != ANIM_NORMALS_NONE ? pos + 3u * (size_t)count : NULL;
  anim_morph_vertices(m, job->morph_weights, (uint32_t)first, count, pos, nrm);
  *view = *m;
  view->vertex_count = count;
  view->positions = pos;
  view->normals = nrm;
  view->joints = m->joints + first * m->influences;
  view->weights = m->weights + first * m->influences;
  view->target_count = 0;
  anim_skinning_job_t j = *job;
  j.mesh = view;
  j.first_vertex = 0;
  j.vertex_count = count;
  j.out_positions = job->out_positions + 3u * (size_t)at;
  j.out_positions_count = 0;
  j.out_normals = nrm ? job->out_normals + 3u * (size_t)at : NULL;
  j.out_normals_count = 0;
  j.morph_weights = NULL;
  return j;
}

anim_result anim__skinning_job_run_isa(const anim_skinning_job_t *job,
                                       anim__isa isa) {
  anim_result r = anim_skinning_job_validate(job);
  if (r != ANIM_OK) return r;
  uint32_t count = 0;
  range_of(job, &count);
  if (count == 0) return ANIM_OK;
  if (job->morph_weights != NULL && job->mesh->target_count > 0) {
    for (uint32_t at = 0; at < count; at += ANIM_MORPH_CHUNK) {
      anim_mesh_t view;
      uint32_t n =
          count - at < ANIM_MORPH_CHUNK ? count - at : ANIM_MORPH_CHUNK;
      anim_skinning_job_t part = morphed(job, at, n, &view);
      r = anim__skinning_job_run_isa(&part, isa);
      if (r != ANIM_OK) return r;
    }
    return ANIM_OK;
  }
  isa = anim__isa_cap(isa);
  if (job->method == ANIM_SKIN_DQS)
    anim__skin_dqs(job, job->first_vertex, count, isa);
  else if (isa >= ANIM__ISA_AVX2)
    skin_lbs_simd(job, count, isa);
  else
    anim__skin_lbs_scalar(job, job->first_vertex, count);
  return ANIM_OK;
}

anim_result anim_skinning_job_run(const anim_skinning_job_t *job) {
  return anim__skinning_job_run_isa(job, anim__job_isa(ANIM__JOB_SKINNING));
}

/* ---- scalar LBS ---------------------------------------------------------- */

/* Writes v / |v|, or zero when v is zero. Same formula as the SIMD path:
 * v / sqrt(max(|v|^2, FLT_MIN)). */
static void put_normal(float *out, float x, float y, float z) {
  float d = x * x + y * y + z * z;
  float len = sqrtf(d > FLT_MIN ? d : FLT_MIN);
  out[0] = x / len;
  out[1] = y / len;
  out[2] = z / len;
}

void anim__skin_lbs_scalar(const anim_skinning_job_t *job, uint32_t first,
                           uint32_t count) {
  const anim_mesh_t *m = job->mesh;
  const uint32_t k = m->influences;
  const anim_mat4_t *mats = job->matrices;
  const anim_skin_normals mode = job->normals;
  for (uint32_t o = 0; o < count; o++) {
    const size_t v = (size_t)first + o;
    const uint16_t *jv = m->joints + v * k;
    const float *wv = m->weights + v * k;
    /* b: columns 0..3 of the blended matrix, rows 0..2 (b[4c + r]). */
    float b[16];
    const float *m0 = mats[jv[0]].m;
    for (int e = 0; e < 16; e++) b[e] = wv[0] * m0[e];
    for (uint32_t i = 1; i < k; i++) {
      const float *mi = mats[jv[i]].m;
      const float w = wv[i];
      for (int e = 0; e < 16; e++) b[e] = b[e] + w * mi[e];
    }
    const float *p = m->positions + 3 * v;
    float *op = job->out_positions + 3 * (size_t)o;
    for (int r = 0; r < 3; r++)
      op[r] = ((b[12 + r] + p[0] * b[r]) + p[1] * b[4 + r]) + p[2] * b[8 + r];
    if (mode == ANIM_NORMALS_NONE) continue;
    const float *n = m->normals + 3 * v;
    float *on = job->out_normals + 3 * (size_t)o;
    if (mode == ANIM_NORMALS_LINEAR) {
      float t[3];
      for (int r = 0; r < 3; r++)
        t[r] = (n[0] * b[r] + n[1] * b[4 + r]) + n[2] * b[8 + r];
      put_normal(on, t[0], t[1], t[2]);
    } else {
      /* inverse(L)^T = cofactor(L) / det L; columns of the cofactor
       * matrix are a1 x a2, a2 x a0, a0 x a1 for L's columns a0, a1, a2. */
      const float *a0 = b, *a1 = b + 4, *a2 = b + 8;
      float c0[3] = {a1[1] * a2[2] - a1[2] * a2[1],
                     a1[2] * a2[0] - a1[0] * a2[2],
                     a1[0] * a2[1] - a1[1] * a2[0]};
      float c1[3] = {a2[1] * a0[2] - a2[2] * a0[1],
                     a2[2] * a0[0] - a2[0] * a0[2],
                     a2[0] * a0[1] - a2[1] * a0[0]};
      float c2[3] = {a0[1] * a1[2] - a0[2] * a1[1],
                     a0[2] * a1[0] - a0[0] * a1[2],
                     a0[0] * a1[1] - a0[1] * a1[0]};
      float det = a0[0] * c0[0] + a0[1] * c0[1] + a0[2] * c0[2];
      float s = det < 0.0f ? -1.0f : 1.0f;
      float t[3];
      for (int r = 0; r < 3; r++)
        t[r] = s * ((n[0] * c0[r] + n[1] * c1[r]) + n[2] * c2[r]);
      put_normal(on, t[0], t[1], t[2]);
    }
  }
}
