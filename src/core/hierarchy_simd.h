/* animd core (private): the kernels behind the hierarchy jobs.
 *
 * Each job has a portable kernel (SSE2 where the compiler targets it, plain
 * C otherwise) and an AVX2+FMA kernel in hierarchy_avx2.c; the job picks
 * one at run time with anim__cpu_isa(). Both are declared here so
 * the tests can run them side by side on the same input. Arguments are
 * already validated; [from, to] is an inclusive storage-order range. */
#ifndef ANIMD_CORE_HIERARCHY_SIMD_H
#define ANIMD_CORE_HIERARCHY_SIMD_H

#include "animd/hierarchy.h"

void anim__local_to_model_portable(const anim_skeleton_t *sk,
                                   const anim_pose_t *in,
                                   const anim_mat4_t *root, uint32_t from,
                                   uint32_t to, anim_mat4_t *out);
void anim__skinning_matrices_portable(const anim_mat4_t *model,
                                      const anim_mat4_t *inverse_bind,
                                      uint32_t count, anim_mat4_t *out);

/* Only callable when anim__cpu_isa() >= ANIM__ISA_AVX2 (core/cpu.h). */
void anim__local_to_model_avx2(const anim_skeleton_t *sk, const anim_pose_t *in,
                               const anim_mat4_t *root, uint32_t from,
                               uint32_t to, anim_mat4_t *out);
void anim__skinning_matrices_avx2(const anim_mat4_t *model,
                                  const anim_mat4_t *inverse_bind,
                                  uint32_t count, anim_mat4_t *out);

/* Only callable when anim__cpu_isa() >= ANIM__ISA_AVX512. */
void anim__local_to_model_avx512(const anim_skeleton_t *sk,
                                 const anim_pose_t *in, const anim_mat4_t *root,
                                 uint32_t from, uint32_t to, anim_mat4_t *out);

#endif
