/* animd core: the sampling job (clip + time -> local pose).
 *
 * Joints without a track keep their rest value. The job never allocates;
 * an optional sampling context (caller memory, one cursor per track) makes
 * forward playback O(1) per track by remembering the last key found. */
#ifndef ANIMD_SAMPLING_H
#define ANIMD_SAMPLING_H

#include "animd/clip.h"
#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-stream cursor cache. Bind it to one clip; it may be reused for any
 * time (a cursor that is wrong for the time asked is simply searched
 * again). Not thread-safe: one context per stream. */
typedef struct anim_sampling_context_s {
  const anim_clip_t *clip; /* The clip the cursors belong to. */
  uint32_t *cursors;       /* cursor_count >= clip->track_count entries. */
  uint32_t cursor_count;
} anim_sampling_context_t;

/* Binds ctx to clip using caller memory of count cursors (must be at least
 * clip->track_count). */
anim_result anim_sampling_context_init(anim_sampling_context_t *ctx,
                                       const anim_clip_t *clip,
                                       uint32_t *cursors, uint32_t count);

typedef struct anim_sampling_job_s {
  const anim_skeleton_t *skeleton; /* The skeleton the clip was built for. */
  const anim_clip_t *clip;
  float time;          /* Seconds, before wrapping. */
  anim_wrap wrap;      /* Zero means clamp. */
  anim_sampling_context_t *context; /* Optional (NULL: binary search). */
  anim_pose_t output;  /* joint_count entries, storage order. */
  float *sampled_time; /* Optional out: the clip time after wrapping. */
} anim_sampling_job_t;

anim_result anim_sampling_job_validate(const anim_sampling_job_t *job);
/* Validates, then samples. Never allocates. */
anim_result anim_sampling_job_run(const anim_sampling_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
