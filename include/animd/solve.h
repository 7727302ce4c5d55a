/* animd core: local rotations from joint positions (seed 000).
 *
 * Given model-space joint positions per frame (motion capture), the solver
 * gives each joint's local rotation per frame, in the same sense as a pose's
 * rotation (orient included: what anim_local_to_model_job consumes), and
 * the delta rotation from the previous frame. Seed 000 measures a joint's
 * rotation as the turn between the link that enters it and the link that
 * leaves it; here that turn is expressed in the parent's solved frame and
 * stored on the joint whose rotation moves the link, so that the result,
 * put back on the skeleton with its rest translations and scales, points
 * every measured bone where the positions say.
 *
 * Exact definition. Work in storage order (parents first). For joint j
 * with parent p (for a root, G_p = identity):
 *   R0_j  = orient_j * rest_j.rotation          (rest local rotation)
 *   aim_j = the child c of j with the smallest caller index whose rest
 *           offset o_c = rest_j.scale * rest_c.translation (per component)
 *           is longer than ANIM_EPS_LENGTH; none if there is no such child.
 *   C     = G_p * R0_j                           (candidate model rotation)
 *   u     = C o_c (rotated),   d = x_c - x_j     (observed, model space)
 *   L_j   = inverse(G_p) * from_to(u, d) * C      (local rotation)
 *   G_j   = G_p * L_j                            (solved model rotation)
 * where from_to is the shortest-arc unit rotation taking direction u to
 * direction d. So the solved rotation is the rest rotation followed by the
 * smallest swing that aims the joint at its aim child: twist about a bone
 * cannot be measured from positions and is taken from the rest pose.
 * Degenerate cases keep the previous frame's L_j (R0_j on frame 0) and
 * never give NaN: no aim child (leaves: always R0_j), |d| <= ANIM_EPS_LENGTH,
 * a non-finite d, or d anti-parallel to u (cos <= -1 + 1e-6: the swing axis
 * is undefined). Non-uniform scale on ancestors is not accounted for.
 *
 * Signs: L_j on frame 0 has w >= 0; on later frames it is the sign with
 * dot(L_j[f-1], L_j[f]) >= 0. delta[f] = inverse(L[f-1]) * L[f] (so
 * L[f] = L[f-1] * delta[f], and delta's w >= 0); delta[0] is the identity.
 * Outputs are unit quaternions in caller order, frame-major:
 * out[f * joint_count + caller joint index]. */
#ifndef ANIMD_SOLVE_H
#define ANIMD_SOLVE_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch floats per joint that a solve job needs. */
#define ANIM_SOLVE_SCRATCH_PER_JOINT 5

/* The caller owns every array; run() never allocates. */
typedef struct anim_solve_job_s {
  const anim_skeleton_t *skeleton;
  const float *positions; /* frame_count * joint_count * 3, caller order. */
  size_t position_count;  /* Floats in positions; 0: caller vouches. */
  size_t frame_count;     /* >= 1. */
  anim_quat_t *local_rotations; /* frame_count * joint_count, caller order. */
  anim_quat_t *delta_rotations; /* frame_count * joint_count, caller order. */
  size_t output_count;          /* Entries in each output array. */
  /* ANIM_SOLVE_SCRATCH_PER_JOINT * joint_count floats, overwritten. */
  float *scratch;
  size_t scratch_count;
} anim_solve_job_t;

/* ANIM_OK, or: ANIM_ERR_INVALID_ARGUMENT for a NULL job, skeleton,
 * positions, output or scratch, or frame_count 0 (or so large the sizes
 * overflow); ANIM_ERR_BUFFER_TOO_SMALL when output_count, a given
 * position_count or scratch_count is below what frame_count and the
 * skeleton need. Does not look at the numbers. */
anim_result anim_solve_job_validate(const anim_solve_job_t *job);
/* Validates, then solves every frame. */
anim_result anim_solve_job_run(const anim_solve_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
