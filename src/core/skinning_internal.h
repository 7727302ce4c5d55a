/* animd core (private): interface between the skinning job and its kernels.
 *
 * skinning.c validates a job and picks a kernel; each kernel skins the
 * vertex range [first, first + count) of an already validated job and
 * writes outputs relative to first. The AVX2 and AVX-512 kernels live in
 * their own files (compiled for those instruction sets) and are only called
 * after a CPU check. anim__skinning_job_run_isa is the job's run with a
 * ceiling on the instruction set: tests and benchmarks use it to compare
 * the kernels on one input. */
#ifndef ANIMD_SKINNING_INTERNAL_H
#define ANIMD_SKINNING_INTERNAL_H

#include "animd/skinning.h"
#include "cpu.h"

/* anim_skinning_job_run with kernels no wider than isa (and than the CPU
 * runs). anim_skinning_job_run(job) is
 * anim__skinning_job_run_isa(job, anim__cpu_isa()). */
anim_result anim__skinning_job_run_isa(const anim_skinning_job_t *job,
                                       anim__isa isa);

void anim__skin_lbs_scalar(const anim_skinning_job_t *job, uint32_t first,
                           uint32_t count);
void anim__skin_lbs_avx2(const anim_skinning_job_t *job, uint32_t first,
                         uint32_t count);
void anim__skin_lbs_avx512(const anim_skinning_job_t *job, uint32_t first,
                           uint32_t count);
/* The streams of a validated job from vertex first on (k influences). */
typedef struct anim__lbs_streams_s {
  const float *mats; /* The skinning matrices, 16 floats each. */
  const uint16_t *joints;
  const float *weights, *positions, *normals; /* normals may be NULL. */
  float *out_positions, *out_normals;
} anim__lbs_streams_t;

static inline anim__lbs_streams_t
anim__lbs_streams(const anim_skinning_job_t *job, uint32_t first, uint32_t k) {
  const anim_mesh_t *m = job->mesh;
  anim__lbs_streams_t s = {job->matrices[0].m,
                           m->joints + (size_t)first * k,
                           m->weights + (size_t)first * k,
                           m->positions + (size_t)first * 3,
                           m->normals ? m->normals + (size_t)first * 3 : NULL,
                           job->out_positions,
                           job->out_normals};
  return s;
}

/* Defines void name(job, first, count), an LBS kernel entry point, from
 * the file's static always-inline kernel(job, first, count, k, mode):
 * one copy specialized per influence count (4, 8) and normals mode, so
 * their loops have no mode branches, picked through a table. */
#define ANIM__LBS_KERNEL_ENTRY(name)                                           \
  ANIM__LBS_KERNEL_FOR(4, ANIM_NORMALS_NONE)                                   \
  ANIM__LBS_KERNEL_FOR(4, ANIM_NORMALS_LINEAR)                                 \
  ANIM__LBS_KERNEL_FOR(4, ANIM_NORMALS_INVERSE_TRANSPOSE)                      \
  ANIM__LBS_KERNEL_FOR(8, ANIM_NORMALS_NONE)                                   \
  ANIM__LBS_KERNEL_FOR(8, ANIM_NORMALS_LINEAR)                                 \
  ANIM__LBS_KERNEL_FOR(8, ANIM_NORMALS_INVERSE_TRANSPOSE)                      \
  void name(const anim_skinning_job_t *job, uint32_t first, uint32_t count) {  \
    typedef void (*kernel_fn)(const anim_skinning_job_t *, uint32_t,           \
                              uint32_t);                                       \
    static const kernel_fn table[2][3] = {                                     \
        {kernel_4_ANIM_NORMALS_NONE, kernel_4_ANIM_NORMALS_LINEAR,             \
         kernel_4_ANIM_NORMALS_INVERSE_TRANSPOSE},                             \
        {kernel_8_ANIM_NORMALS_NONE, kernel_8_ANIM_NORMALS_LINEAR,             \
         kernel_8_ANIM_NORMALS_INVERSE_TRANSPOSE}};                            \
    table[job->mesh->influences == 8][job->normals](job, first, count);        \
  }
#define ANIM__LBS_KERNEL_FOR(K, MODE)                                          \
  static void kernel_##K##_##MODE(const anim_skinning_job_t *job,              \
                                  uint32_t first, uint32_t count) {            \
    kernel(job, first, count, K, MODE);                                        \
  }

/* DQS: converts the matrices into job->scratch, then skins; uses
 * anim__skin_dqs_rigid_avx2 when every matrix is rigid and isa allows. */
void anim__skin_dqs(const anim_skinning_job_t *job, uint32_t first,
                    uint32_t count, anim__isa isa);
void anim__skin_dqs_rigid_avx2(const anim_skinning_job_t *job, uint32_t first,
                               uint32_t count);

#endif
