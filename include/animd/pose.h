/* animd core: local poses as caller-owned arrays, and pose helpers.
 *
 * A pose is three parallel arrays (translation, rotation, scale) of
 * joint_count entries each, in the skeleton's storage order. The caller
 * owns the memory; jobs only read or write through these pointers. */
#ifndef ANIMD_POSE_H
#define ANIMD_POSE_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_pose_s {
  anim_vec3_t *translation;
  anim_quat_t *rotation; /* Full local rotation: orient * animated. */
  anim_vec3_t *scale;
  uint32_t joint_count;
} anim_pose_t;

/* Fills pose with the skeleton's rest pose in storage order: the rest
 * translation and scale, and orient * rest rotation. pose->joint_count must
 * be at least skeleton->joint_count (else ANIM_ERR_BUFFER_TOO_SMALL). */
anim_result anim_pose_set_rest(const anim_skeleton_t *skeleton,
                               anim_pose_t *pose);

/* Writes pose (storage order) as trs10 floats (tx ty tz rx ry rz rw sx sy
 * sz per joint) in the skeleton's caller order into out, which must hold
 * 10 * joint_count floats (else ANIM_ERR_BUFFER_TOO_SMALL). */
anim_result anim_pose_to_caller_trs10(const anim_skeleton_t *skeleton,
                                      const anim_pose_t *pose, float *out,
                                      size_t out_count);

/* Writes joint_count matrices (storage order) as 16 column-major floats per
 * joint in the caller's order into out, which must hold 16 * joint_count
 * floats (else ANIM_ERR_BUFFER_TOO_SMALL). */
anim_result anim_mat4_to_caller(const anim_skeleton_t *skeleton,
                                const anim_mat4_t *matrices, float *out,
                                size_t out_count);

#ifdef __cplusplus
}
#endif
#endif
