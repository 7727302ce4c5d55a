/* animd core: root motion, taken out of a pose and given back beside it,
 * and the blending of several such motions.
 *
 * Meaning of ozz-animation 0.16's MotionExtractor, at run time: the root
 * joint's local transform (T, R) is compared with a reference (Tr, Rr):
 * the rest pose, the clip's first frame, or the identity ("absolute").
 *   translation motion p = (T - Tr) * mask    (selected x, y, z components)
 *   rotation motion    q = yaw (heading about the up axis) of R * Rr^-1,
 *                          all of it (full), or the identity (none)
 * The pose keeps the rest: T' = q^-1 (T - p), R' = q^-1 R, so that the
 * motion M = (p, q), a translation after a rotation, composed with the
 * in-place local transform gives the original back: p + q T' = T and
 * q R' = R. M lives in the joint's parent space (model space for a root
 * joint, the usual choice): a client moves its character by M.
 *
 * Yaw is ozz's heading (ToEuler's first angle): the angle about the up
 * axis of the rotated forward axis (x for up y; the axes turned cyclically
 * for up z or x), with ozz's pole rule when forward turns within 0.2% of
 * up; only that angle is kept.
 *
 * Loops: with wrap LOOP at time t the motion accumulates, so a character
 * moved by it never snaps back. With d the clip's duration, k =
 * floor(t / d) and L = M(d) * M(0)^-1 the motion of one loop, the answer
 * is L^k * M(t - k d) (k < 0 uses L^-1); at each loop boundary the two
 * sides meet. PINGPONG and CLAMP give M(wrapped t): a pingpong walks back.
 *
 * Blending (ozz's MotionBlendingJob): translations blend as a weighted
 * direction (normalized) scaled by the weighted average length, rotations
 * as a sign-aligned weighted sum, normalized. Nothing here allocates. */
#ifndef ANIMD_MOTION_H
#define ANIMD_MOTION_H

#include "animd/clip.h"
#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum anim_motion_rotation {
  ANIM_MOTION_YAW = 0, /* Heading about the up axis only. */
  ANIM_MOTION_FULL,    /* The whole rotation relative to the reference. */
  ANIM_MOTION_NONE,    /* No rotation leaves the pose. */
  ANIM_MOTION_ROTATION_COUNT_
} anim_motion_rotation;

typedef enum anim_motion_reference {
  ANIM_MOTION_REF_SKELETON = 0, /* The joint's rest transform. */
  ANIM_MOTION_REF_FIRST,        /* The clip's first frame (time 0). */
  ANIM_MOTION_REF_ABSOLUTE,     /* The identity. */
  ANIM_MOTION_REFERENCE_COUNT_
} anim_motion_reference;

/* Translation components, any of them (0: no translation leaves). */
enum {
  ANIM_MOTION_X = 1u << 0,
  ANIM_MOTION_Y = 1u << 1,
  ANIM_MOTION_Z = 1u << 2
};

/* A root motion: the translation after the rotation (M = T(p) * R(q)). */
typedef struct anim_motion_s {
  anim_vec3_t translation;
  anim_quat_t rotation;
} anim_motion_t;

typedef struct anim_motion_settings_s {
  uint32_t joint;       /* Storage-order index of the root joint. */
  unsigned translation; /* ANIM_MOTION_X | _Y | _Z, or 0. */
  anim_motion_rotation rotation;
  anim_axis up; /* The yaw axis. */
  anim_motion_reference reference;
} anim_motion_settings_t;

typedef struct anim_motion_extract_job_s {
  const anim_skeleton_t *skeleton;
  /* The clip the pose was sampled from (its first and last frames give
   * the reference "first" and a loop's motion); NULL: the rest pose. */
  const anim_clip_t *clip;
  double time; /* The time the pose was sampled at, before wrapping. */
  anim_wrap wrap;
  anim_motion_settings_t settings;
  anim_pose_t pose;      /* In and out: the motion leaves the root joint. */
  anim_motion_t *output; /* The motion, accumulated over loops. */
  /* Optional: the motion at the sampled time, before accumulation. */
  anim_motion_t *current;
  /* Only measure: the pose is left as it is (a blend's layers are
   * measured one by one, then the blended motion leaves the blended pose
   * through anim_motion_remove). */
  bool keep_pose;
} anim_motion_extract_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job, skeleton, output or pose array,
 * an unknown rotation, axis, reference or wrap, translation bits beyond
 * x, y, z; ANIM_ERR_JOINT_RANGE: joint outside the skeleton;
 * ANIM_ERR_MISMATCH: a clip of another skeleton;
 * ANIM_ERR_BUFFER_TOO_SMALL: a pose with fewer joints than the skeleton. */
anim_result
anim_motion_extract_job_validate(const anim_motion_extract_job_t *job);
/* Validates, then extracts. Never allocates. ANIM_ERR_NOT_FINITE when the
 * accumulated motion leaves a float's range (a time of ~1e38 loops). */
anim_result anim_motion_extract_job_run(const anim_motion_extract_job_t *job);

/* The motion of one local transform (t, r) against the reference (tr, rr)
 * under settings (its joint is not read). */
anim_motion_t anim_motion_of(const anim_motion_settings_t *settings,
                             anim_vec3_t t, anim_quat_t r, anim_vec3_t tr,
                             anim_quat_t rr);

/* Takes motion m out of the joint's local transform (storage index) of
 * pose: T' = q^-1 (T - p), R' = q^-1 R. */
void anim_motion_remove(anim_pose_t *pose, uint32_t joint, anim_motion_t m);

/* a * b: b first, then a. */
anim_motion_t anim_motion_mul(anim_motion_t a, anim_motion_t b);
/* The inverse motion. */
anim_motion_t anim_motion_inverse(anim_motion_t m);

typedef struct anim_motion_blend_job_s {
  const anim_motion_t *motions; /* count entries. */
  const float *weights;         /* count entries; <= 0 (or NaN) ignored. */
  size_t count;
  anim_motion_t *output; /* The identity when no weight is positive. */
} anim_motion_blend_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job or output, NULL arrays with a
 * non-zero count. */
anim_result anim_motion_blend_job_run(const anim_motion_blend_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
