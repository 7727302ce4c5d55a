/* animd core: pose helpers (rest pose, caller-order export).
 *
 * Jobs work in the skeleton's storage order; these helpers are the one
 * place where poses and matrices are put back into the caller's joint
 * order (through skeleton->to_caller) as flat float arrays ready to be
 * written out as trs10 or mat4. */
#include <string.h>

#include "animd/pose.h"
#include "pose_kernels.h"

static bool pose_ok(const anim_pose_t *p) {
  return p != NULL && p->translation != NULL && p->rotation != NULL &&
         p->scale != NULL;
}

anim_result anim_pose_set_rest(const anim_skeleton_t *sk, anim_pose_t *pose) {
  if (sk == NULL || !pose_ok(pose)) return ANIM_ERR_INVALID_ARGUMENT;
  if (pose->joint_count < sk->joint_count) return ANIM_ERR_BUFFER_TOO_SMALL;
  for (uint32_t j = 0; j < sk->joint_count; j++) {
    pose->translation[j] = sk->rest[j].translation;
    pose->rotation[j] = anim_quat_mul_inl(sk->orient[j], sk->rest[j].rotation);
    pose->scale[j] = sk->rest[j].scale;
  }
  return ANIM_OK;
}

anim_result anim_pose_to_caller_trs10(const anim_skeleton_t *sk,
                                      const anim_pose_t *pose, float *out,
                                      size_t out_count) {
  if (sk == NULL || !pose_ok(pose) || out == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (pose->joint_count < sk->joint_count ||
      out_count < 10u * (size_t)sk->joint_count)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  for (uint32_t j = 0; j < sk->joint_count; j++) {
    float *d = out + 10u * (size_t)sk->to_caller[j];
    anim_vec3_t t = pose->translation[j], s = pose->scale[j];
    anim_quat_t q = pose->rotation[j];
    d[0] = t.x;
    d[1] = t.y;
    d[2] = t.z;
    d[3] = q.x;
    d[4] = q.y;
    d[5] = q.z;
    d[6] = q.w;
    d[7] = s.x;
    d[8] = s.y;
    d[9] = s.z;
  }
  return ANIM_OK;
}

anim_result anim_mat4_to_caller(const anim_skeleton_t *sk,
                                const anim_mat4_t *matrices, float *out,
                                size_t out_count) {
  if (sk == NULL || matrices == NULL || out == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (out_count < 16u * (size_t)sk->joint_count)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  for (uint32_t j = 0; j < sk->joint_count; j++)
    memcpy(out + 16u * (size_t)sk->to_caller[j], matrices[j].m,
           sizeof(anim_mat4_t));
  return ANIM_OK;
}
