/* animd core: retargeting, a clip of one skeleton baked for another.
 *
 * Exact rule. Source skeleton S1 with clip C, target skeleton S2, and
 * mapped pairs (source joint, target joint). The rest pose of each is its
 * bind pose: the inverses of its inverse bind matrices (which are the
 * inverses of the rest model matrices when none were given, as for BVH;
 * a glTF skin's are its modelling pose, whatever its nodes hold). Model
 * rotations at t are the products of the full local rotations (orient
 * included) from the root down; scale does not enter them. For each frame
 * time t:
 *   - a mapped target joint d of source joint s gets the model rotation
 *       Rd(t) = Rs(t) * inverse(Rs0) * Rd0
 *     (Rs0, Rd0: rest model rotations, scale removed; the source's change
 *     from its rest, applied to the target's rest), and the local rotation
 *     inverse(Rd_parent(t)) * Rd(t), stored without its orient;
 *   - an unmapped target joint keeps its rest local transform (the
 *     skeleton's rest, orient * rest rotation);
 *   - the root pair's target joint gets the model translation
 *       Td(t) = Td0 + k * (Ts(t) - Ts0)
 *     (rest model positions Td0, Ts0), where k is the target root's rest
 *     height above its lowest rest joint over the source root's (along up;
 *     k = 1 when the source's height is below 1e-6), stored as the local
 *     translation under its parent's model transform at t. The root pair
 *     is the one whose target joint is nearest the top of the target
 *     hierarchy (anim_retarget_root_pair) unless the caller names one.
 * Keys sit at i / fps for i = 0 .. frame_count - 1, the last one at the
 * clip's duration (anim_retarget_frame_count). A pair's rotations keep
 * the sign nearest the previous frame's, so LINEAR keys turn the short way.
 *
 * The job never allocates: scratch comes from the caller
 * (anim_retarget_scratch_bytes), as do the outputs, laid out so each pair's
 * rotations and the root translations are the values of a raw LINEAR
 * track (animd/clip.h) over the times. */
#ifndef ANIMD_RETARGET_H
#define ANIMD_RETARGET_H

#include "animd/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One mapped pair, storage-order joint indices. */
typedef struct anim_retarget_pair_s {
  uint32_t source;
  uint32_t target;
} anim_retarget_pair_t;

/* Keys for a clip of duration seconds at fps (> 0): 1 + ceil(duration *
 * fps - 1e-3), so the last key is at the duration; 0 when fps is not a
 * positive finite number or the count exceeds UINT32_MAX / 8. */
uint32_t anim_retarget_frame_count(float duration, float fps);

/* Bytes of scratch a job on these skeletons and clip needs. */
size_t anim_retarget_scratch_bytes(const anim_skeleton_t *source,
                                   const anim_clip_t *clip,
                                   const anim_skeleton_t *target);

/* The index of the pair whose target joint is nearest the top of the
 * target hierarchy (fewest ancestors; ties: the lower storage index), or
 * -1 when count is 0. */
int32_t anim_retarget_root_pair(const anim_skeleton_t *target,
                                const anim_retarget_pair_t *pairs,
                                size_t count);

typedef struct anim_retarget_job_s {
  const anim_skeleton_t *source;
  const anim_clip_t *clip; /* Built for source. */
  const anim_skeleton_t *target;
  /* Storage-order pairs: each joint in range, no target joint twice (a
   * source joint may drive several); 1 .. target joint_count pairs. */
  const anim_retarget_pair_t *pairs;
  size_t pair_count;
  uint32_t root_pair;   /* Index into pairs (anim_retarget_root_pair). */
  anim_vec3_t up;       /* The up axis of both; all zero means +y. */
  float fps;            /* Keys per second, > 0. */
  uint32_t frame_count; /* anim_retarget_frame_count(clip->duration, fps). */
  void *scratch;        /* anim_retarget_scratch_bytes, overwritten. */
  size_t scratch_bytes;
  /* Outputs, caller-owned: */
  float *times;        /* frame_count key times, seconds. */
  float *rotations;    /* pair_count * frame_count * 4: pair-major, the
                          target joint's local rotation without its orient,
                          [x y z w] per frame. */
  float *translations; /* frame_count * 3: the root pair target's local
                          translation per frame. */
  float *scale;        /* Optional: k. */
} anim_retarget_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: a NULL skeleton, clip, pairs, output or
 * scratch, fps not positive and finite, no pairs, a pair out of range,
 * root_pair out of range; ANIM_ERR_MISMATCH: the
 * clip was not built for a skeleton of the source's joint count, or
 * frame_count is not what the duration and fps give;
 * ANIM_ERR_BUFFER_TOO_SMALL: scratch_bytes below what is needed. */
anim_result anim_retarget_job_validate(const anim_retarget_job_t *job);
/* Validates, then bakes every frame. Also ANIM_ERR_INVALID_ARGUMENT for
 * a target joint in two pairs (found in linear time, with the scratch),
 * ANIM_ERR_SINGULAR when an inverse bind matrix cannot be inverted. */
anim_result anim_retarget_job_run(const anim_retarget_job_t *job);

/* ---- names (retarget_map.c) */

/* The longest key anim_retarget_name_key writes, NUL included. */
#define ANIM_RETARGET_KEY_MAX 64
/* Scratch bytes per joint (source and target) of anim_retarget_auto_map. */
#define ANIM_RETARGET_MAP_SCRATCH_PER_JOINT (2 * ANIM_RETARGET_KEY_MAX + 8)

/* Normalizes a joint name for matching. key: the name lowercased without
 * separators (space _ - . : |), without a namespace ("mixamorig:", up to
 * the last ':' or '|') or a rig prefix word (bip01, bip001, def, mch, org,
 * mixamorig), its side moved to the front as "l." or "r." (a word l, left,
 * r or right, or an l or r glued to a vocabulary word, as in "lhand").
 * canon: the side and the humanoid word of the vocabulary the rest
 * names, trailing digits ignored ("l.thigh" for LeftUpLeg, Thigh_L or
 * "Bip01 L Thigh"), or "" when it names none. The vocabulary: hips (hips,
 * pelvis, an unsided hip), spine (spine, lowerback, lowerspine, abdomen),
 * chest (chest, torso, upperspine), neck, head, shoulder (shoulder,
 * clavicle, collar), upperarm (upperarm, arm, uparm), forearm (forearm,
 * lowerarm, elbow), hand (hand, wrist), thigh (thigh, upperleg, upleg, a
 * sided hip), shin (shin, calf, leg, lowerleg, knee), foot (foot, ankle),
 * toe (toe, toes, toebase). Both buffers hold ANIM_RETARGET_KEY_MAX
 * bytes; longer names are cut. */
void anim_retarget_name_key(const char *name, char key[ANIM_RETARGET_KEY_MAX],
                            char canon[ANIM_RETARGET_KEY_MAX]);

/* Pairs joints by name: first the target joints (storage order) whose key
 * equals a source joint's key, then the remaining ones whose canon (not
 * "") equals a remaining source joint's, the source joint nearest the top
 * (lowest storage index) first. Last, a target with no joint named for
 * the hips gives the source's hips (when still unpaired) to the nearest
 * common ancestor of its paired left and right thighs, when that joint is
 * unpaired (a "Root" that holds the legs and the spine). Writes at most
 * capacity pairs, in target storage order, and returns how many it found (which
 * may exceed capacity; capacity >= target joint_count always suffices).
 * scratch: ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * (source + target joint counts)
 * bytes; 0 pairs when it is shorter. */
size_t anim_retarget_auto_map(const anim_skeleton_t *source,
                              const anim_skeleton_t *target,
                              anim_retarget_pair_t *pairs, size_t capacity,
                              char *scratch, size_t scratch_bytes);

#ifdef __cplusplus
}
#endif
#endif
