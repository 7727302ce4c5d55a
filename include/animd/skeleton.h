/* animd core: skeletons, built once from a validated raw form.
 *
 * The raw form is what importers fill in: joints in the caller's order, each
 * with a parent index into the same array. anim_skeleton_build validates it
 * (parents in range, no cycles, unique non-empty names, finite numbers,
 * non-zero quaternions) and stores the joints parents-first (a stable
 * depth-first order), keeping maps between that storage order and the
 * caller's order. Every job works in storage order; answers go back to
 * clients in the caller's order through to_caller / from_caller.
 *
 * A built skeleton is immutable, so any number of threads may read it. */
#ifndef ANIMD_SKELETON_H
#define ANIMD_SKELETON_H

#include "animd/math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_raw_joint_s {
  const char *name; /* Unique, non-empty, NUL-terminated. */
  int32_t parent;   /* Index into the raw joints, -1 for a root. */
  /* Rest (bind) local transform; its rotation is the animated part, so
   * the rest local rotation is orient * rest.rotation. */
  anim_transform_t rest;
  /* Joint orient (seed 001): local rotation = orient * animated rotation.
   * All zero means identity. */
  anim_quat_t orient;
} anim_raw_joint_t;

typedef struct anim_raw_skeleton_s {
  const char *name;               /* May be NULL or empty. */
  const anim_raw_joint_t *joints; /* joint_count entries, caller order. */
  size_t joint_count;             /* 1 .. ANIM_MAX_JOINTS. */
  /* 16 floats per joint (column-major), caller order, or NULL to compute
   * them as the inverses of the rest model matrices (seed 002), where the
   * rest local matrix is T * (orient * R) * S. */
  const float *inverse_bind;
} anim_raw_skeleton_t;

typedef struct anim_skeleton_s {
  char *name; /* Never NULL ("" when unnamed). */
  uint32_t joint_count;
  /* Storage order (parents before children): */
  int16_t *parents; /* -1 for roots. */
  char **names;
  /* Rest local transforms (the rotation excludes orient). */
  anim_transform_t *rest;
  anim_quat_t *orient; /* Identity where none was given. */
  bool has_orient;     /* Any joint has a non-identity orient. */
  anim_mat4_t *inverse_bind;
  /* Order maps: to_caller[storage] = caller index, from_caller[caller] =
   * storage index. */
  uint32_t *to_caller;
  uint32_t *from_caller;
  /* private */
  uint32_t *_by_name; /* Storage indices sorted by name (strcmp order). */
  anim_allocator_t _alloc;
} anim_skeleton_t;

/* Validates raw and builds a skeleton. On success *out owns everything it
 * points to (names are copied; one block from alloc, or malloc when alloc
 * is NULL). Rest and orient rotations are stored normalized. On failure
 * *out is NULL and err (optional) names the first problem found: the
 * caller-order joint, the field ("name", "parent", "translation",
 * "rotation", "scale", "orient", "inverse_bind", "joints") and, for a
 * non-finite number, the component. Checks run per joint in caller order
 * (name, parent range, numbers), then the inverse bind numbers, then
 * duplicate names (the later joint of the pair is named), then cycles (the
 * smallest index on the first cycle found). ANIM_ERR_SINGULAR means a rest
 * model matrix cannot be inverted (a zero scale) when inverse_bind is NULL. */
anim_result anim_skeleton_build(const anim_raw_skeleton_t *raw,
                                const anim_allocator_t *alloc,
                                anim_skeleton_t **out, anim_build_error_t *err);
void anim_skeleton_free(anim_skeleton_t *skeleton);

/* Storage index of the joint with that name, or -1 (also for NULL).
 * Binary search over the name index: O(log n). */
int32_t anim_skeleton_find(const anim_skeleton_t *skeleton, const char *name);

#ifdef __cplusplus
}
#endif
#endif
