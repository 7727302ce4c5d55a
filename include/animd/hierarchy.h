/* animd core: local-to-model and skinning-matrix jobs.
 *
 * local-to-model: M_model[j] = M_model[parent] * T * R * S over storage
 * order in one forward loop (parents come first), with an optional root
 * transform applied to roots (M_model[root] = root * T * R * S) and an
 * optional partial range [from, to]. The pose rotation is the full local
 * rotation (orient already applied, as the sampler and blender output it).
 * skinning matrices: M_skin[j] = M_model[j] * inverseBind[j].
 *
 * Both run an SSE2 kernel, or an AVX2+FMA one when the CPU has it, and
 * local-to-model an AVX-512 one where available (chosen per call); they
 * agree within 1e-5 relative. Neither allocates nor takes locks. */
#ifndef ANIMD_HIERARCHY_H
#define ANIMD_HIERARCHY_H

#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_local_to_model_job_s {
  const anim_skeleton_t *skeleton;
  anim_pose_t input;       /* Storage order. */
  const anim_mat4_t *root; /* Optional transform above every root. */
  /* Storage-order joint range to update, inclusive. Both zero means all.
   * Joints outside the range must already hold valid model matrices when
   * they are parents of joints inside it. */
  uint32_t from;
  uint32_t to;
  anim_mat4_t *output; /* joint_count matrices, storage order. */
  size_t output_count;
} anim_local_to_model_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job, skeleton, input array or output, or
 * a range with from > to or to >= joint_count; ANIM_ERR_BUFFER_TOO_SMALL:
 * input.joint_count or output_count below the skeleton's joint count. */
anim_result
anim_local_to_model_job_validate(const anim_local_to_model_job_t *job);
anim_result anim_local_to_model_job_run(const anim_local_to_model_job_t *job);

typedef struct anim_skinning_matrices_job_s {
  const anim_skeleton_t *skeleton;
  const anim_mat4_t *model; /* joint_count, storage order. */
  anim_mat4_t *output;      /* joint_count, storage order. */
  size_t output_count;
} anim_skinning_matrices_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job, skeleton, model or output;
 * ANIM_ERR_BUFFER_TOO_SMALL: output_count below the joint count. The
 * inverse bind matrices are the skeleton's. */
anim_result
anim_skinning_matrices_job_validate(const anim_skinning_matrices_job_t *job);
anim_result
anim_skinning_matrices_job_run(const anim_skinning_matrices_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
