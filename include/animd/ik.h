/* animd core: inverse kinematics on model-space matrices: a two-bone
 * chain reaching a target, and a joint aiming at a target.
 *
 * Semantics are those of ozz-animation 0.16's IKTwoBoneJob and IKAimJob
 * (our own code): a job reads the model matrices of its joints and writes
 * local-space correction quaternions, which the caller multiplies onto the
 * joints' local rotations (rotation = rotation * correction) before it
 * recomputes the model matrices of the corrected joints and of their
 * descendants. Jobs run on plain structs, never allocate, and never write
 * a NaN: a degenerate input (a zero-length bone, a singular matrix, a
 * target on the joint) gives identity corrections.
 *
 * Two-bone: start, mid and end are three joints of one chain (each an
 * ancestor of the next, not necessarily directly). The mid joint bends
 * about mid_axis (mid's local space) so that the distance start->end
 * equals start->target (clamped to what the chain can span), then the
 * start joint swings the end onto the start->target line and turns the
 * chain's plane to hold the pole vector (model space), then twist (radians)
 * turns it about that line. With soften < 1, a target farther than
 * da = soften * (l1 + l2) from the start (l1, l2 the bone lengths) is
 * pulled in: at distance d the chain aims at
 *   da + ds * (1 - 3^4 / (a + 3)^4),  ds = l1 + l2 - da, a = (d - da) / ds,
 * which tends to l1 + l2 smoothly (so the chain never snaps straight).
 * reached: the target distance (before softening) lies in
 * (|l1 - l2|, da] and weight >= 1.
 *
 * Aim: the joint turns so that its forward axis (local space), cast from
 * offset (local space), passes through the target, then about the target
 * direction so that up (local space) lies in the plane of the pole vector
 * (model space), then by twist. reached: false when the target is closer
 * to the joint than the offset's distance from the forward line (no
 * correction then).
 *
 * weight in [0, 1] blends the corrections from identity (shortest path
 * nlerp); 0 changes nothing (two-bone then reports reached = false). */
#ifndef ANIMD_IK_H
#define ANIMD_IK_H

#include <stdbool.h>

#include "animd/base.h"
#include "animd/math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_ik_two_bone_job_s {
  /* Model-space matrices of the three joints. */
  const anim_mat4_t *start, *mid, *end;
  anim_vec3_t target;   /* Model space. */
  anim_vec3_t pole;     /* Model space. Default (0, 1, 0). */
  anim_vec3_t mid_axis; /* Mid joint's local space, unit. Default z. */
  float twist;          /* Radians about start->target. Default 0. */
  float soften;         /* [0, 1]; 1 (default) never softens. */
  float weight;         /* [0, 1]; default 1. */
  /* Outputs: local-space corrections of start and mid. */
  anim_quat_t *start_correction;
  anim_quat_t *mid_correction;
  bool *reached; /* Optional. */
} anim_ik_two_bone_job_t;

/* A job with the defaults above and no joints or outputs. */
anim_ik_two_bone_job_t anim_ik_two_bone_job_defaults(void);

/* ANIM_ERR_INVALID_ARGUMENT: a NULL matrix or output, a non-finite input,
 * or mid_axis not unit (|len^2 - 1| > 2e-3). */
anim_result anim_ik_two_bone_job_validate(const anim_ik_two_bone_job_t *job);
anim_result anim_ik_two_bone_job_run(const anim_ik_two_bone_job_t *job);

typedef struct anim_ik_aim_job_s {
  const anim_mat4_t *joint; /* The joint's model-space matrix. */
  anim_vec3_t target;       /* Model space. */
  anim_vec3_t forward;      /* Local space, unit. Default x. */
  anim_vec3_t up;           /* Local space. Default y. */
  anim_vec3_t offset;       /* Local space. Default 0. */
  anim_vec3_t pole;         /* Model space. Default y. */
  float twist;              /* Radians about joint->target. Default 0. */
  float weight;             /* [0, 1]; default 1. */
  anim_quat_t *correction;  /* Output: local-space correction. */
  bool *reached;            /* Optional. */
} anim_ik_aim_job_t;

anim_ik_aim_job_t anim_ik_aim_job_defaults(void);

/* ANIM_ERR_INVALID_ARGUMENT: a NULL matrix or output, a non-finite input,
 * or forward not unit (|len^2 - 1| > 2e-3). */
anim_result anim_ik_aim_job_validate(const anim_ik_aim_job_t *job);
anim_result anim_ik_aim_job_run(const anim_ik_aim_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
