/* animd core: rotations from joint positions (seed 000).
 *
 * Given model-space joint positions per frame (motion capture), the solver
 * gives each joint's local rotation per frame and the delta rotation from
 * the previous frame. A joint's local rotation turns its rest bone
 * direction (rest offset from its parent, in the parent's frame) onto the
 * observed bone direction expressed in the parent's solved frame; roots
 * take the rotation of their first child's bone (identity when they have
 * none). Degenerate bones (zero length, or a frame where the bone cannot be
 * measured) keep the previous frame's rotation (the rest rotation on the
 * first frame), never NaN. delta[f] = inverse(local[f-1]) * local[f], and
 * delta[0] is the identity. */
#ifndef ANIMD_SOLVE_H
#define ANIMD_SOLVE_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_solve_job_s {
  const anim_skeleton_t *skeleton;
  const float *positions;     /* frame_count * joint_count * 3, caller order. */
  size_t frame_count;
  anim_quat_t *local_rotations; /* frame_count * joint_count, caller order. */
  anim_quat_t *delta_rotations; /* frame_count * joint_count, caller order. */
  size_t output_count;        /* Entries in each output array. */
} anim_solve_job_t;

anim_result anim_solve_job_validate(const anim_solve_job_t *job);
anim_result anim_solve_job_run(const anim_solve_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
