/* animd core: private interface between the skinning job and its kernels.
 *
 * skinning.c validates a job and picks a kernel; each kernel skins the
 * vertex range [first, first + count) of an already validated job and
 * writes outputs relative to first. The AVX2 kernel lives in its own file
 * (compiled with -mavx2 -mfma) and is only called after a CPU check. */
#ifndef ANIMD_SKINNING_INTERNAL_H
#define ANIMD_SKINNING_INTERNAL_H

#include "animd/skinning.h"

void anim__skin_lbs_scalar(const anim_skinning_job_t *job, uint32_t first,
                           uint32_t count);
void anim__skin_lbs_avx2(const anim_skinning_job_t *job, uint32_t first,
                         uint32_t count);
/* DQS: converts the matrices into job->scratch, then skins; uses
 * anim__skin_dqs_rigid_avx2 when every matrix is rigid and SIMD is on. */
void anim__skin_dqs(const anim_skinning_job_t *job, uint32_t first,
                    uint32_t count);
void anim__skin_dqs_rigid_avx2(const anim_skinning_job_t *job, uint32_t first,
                               uint32_t count);

/* Whether the CPU has AVX2 and FMA (checked at run time). */
bool anim__cpu_has_avx2(void);

#endif
