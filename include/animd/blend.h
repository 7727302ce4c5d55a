/* animd core: the blending job (weighted and additive layers -> pose).
 *
 * Per joint j, each normal layer contributes with w = layer weight times
 * its mask weight for j (clamped to [0, 1]). Translations and scales are
 * weighted averages; rotations are sign-aligned to the first contributing
 * layer (negated when their dot with it is negative), summed with their
 * weights, then normalized. When the total weight is below the threshold
 * the rest pose (orient applied) joins with weight threshold - total, so a
 * joint no layer covers takes the rest pose and weights fading to zero
 * fade into it without a jump. Additive layers are then applied on top, in
 * order: each contributes the difference between its pose p and its
 * reference pose r, scaled by its (masked) weight w:
 *   translation += w * (p - r);
 *   rotation = slerp(I, p * r^-1, w) * rotation   (shortest arc);
 *   scale *= lerp(1, p / r, w)   per component (a zero r component: 1).
 * The output may be the same arrays as one of the layers' poses. */
#ifndef ANIMD_BLEND_H
#define ANIMD_BLEND_H

#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_blend_layer_s {
  anim_pose_t pose;
  float weight; /* Finite, >= 0. */
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
  /* Zero means 0.1. Below it the rest pose is mixed in with weight
   * threshold - total. Must be finite and >= 0. */
  float threshold;
  anim_pose_t output; /* joint_count entries, storage order. */
} anim_blend_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job or skeleton, NULL layer arrays with a
 * non-zero count, a NULL pose array, a negative or non-finite weight or
 * threshold, a reference pose with only some arrays set;
 * ANIM_ERR_BUFFER_TOO_SMALL: a pose (output, layer or reference) with
 * fewer joints than the skeleton. */
anim_result anim_blend_job_validate(const anim_blend_job_t *job);
anim_result anim_blend_job_run(const anim_blend_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
