/* animd core: the blending job (weighted and additive layers -> pose).
 *
 * Normal layers are blended with normalized weights (per joint: layer
 * weight times the layer's mask weight for that joint); rotations are
 * sign-aligned to the first contributing layer, summed, then normalized.
 * Joints where the total weight is below the threshold take the rest pose.
 * Additive layers are then applied on top: each contributes the difference
 * between its pose and its reference pose, scaled by its weight
 * (translation += w * (p - r); rotation = slerp(I, p * r^-1, w) * rotation;
 * scale *= lerp(1, p / r, w)). */
#ifndef ANIMD_BLEND_H
#define ANIMD_BLEND_H

#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_blend_layer_s {
  anim_pose_t pose;
  float weight;               /* >= 0. */
  /* Optional per-joint weights in [0, 1], storage order (a mask: 0 leaves
   * the joint out). NULL means 1 everywhere. */
  const float *joint_weights;
  /* Additive layers only: the pose the difference is taken from. An empty
   * pose (NULL arrays) means the skeleton's rest pose. */
  anim_pose_t reference;
} anim_blend_layer_t;

typedef struct anim_blend_job_s {
  const anim_skeleton_t *skeleton;
  const anim_blend_layer_t *layers; /* Normal layers. */
  size_t layer_count;
  const anim_blend_layer_t *additive_layers;
  size_t additive_count;
  float threshold; /* Zero means 0.1: below it the rest pose is mixed in. */
  anim_pose_t output; /* joint_count entries, storage order. */
} anim_blend_job_t;

anim_result anim_blend_job_validate(const anim_blend_job_t *job);
anim_result anim_blend_job_run(const anim_blend_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
