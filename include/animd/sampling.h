/* animd core: the sampling job (clip + time -> local pose).
 *
 * The time is wrapped (anim_wrap_time), then every track is evaluated:
 * exactly on a key gives that key's value, before the first key the first
 * value, after the last key the last value. Rotations come out as orient *
 * animated rotation. Joints (and paths) without a track keep their rest
 * value (rotation: orient * rest rotation). The segment holding t is found
 * in O(1) for fixed-rate tracks, once for consecutive tracks with equal key
 * times, from the context's cursor when playback moves forward, and by
 * binary search otherwise; all of these find the same segment, so the
 * result never depends on the context. LINEAR tracks on the clip's shared
 * key times are read from its key-major copy (16 joints per AVX-512
 * instruction where the CPU has it), which gives the same floats bit for
 * bit. The job never allocates, takes no locks and only writes the output
 * (and the context's cursors). */
#ifndef ANIMD_SAMPLING_H
#define ANIMD_SAMPLING_H

#include "animd/clip.h"
#include "animd/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-stream cursor cache. Bind it to one clip; it may be reused for any
 * time (a cursor that is wrong for the time asked, even garbage, is simply
 * searched again). Not thread-safe: one context per stream. */
typedef struct anim_sampling_context_s {
  const anim_clip_t *clip; /* The clip the cursors belong to. */
  uint32_t *cursors;       /* cursor_count >= clip->track_count entries. */
  uint32_t cursor_count;
} anim_sampling_context_t;

/* Binds ctx to clip using caller memory of count cursors (at least
 * clip->track_count, else ANIM_ERR_BUFFER_TOO_SMALL) and resets them. */
anim_result anim_sampling_context_init(anim_sampling_context_t *ctx,
                                       const anim_clip_t *clip,
                                       uint32_t *cursors, uint32_t count);

typedef struct anim_sampling_job_s {
  const anim_skeleton_t *skeleton; /* The skeleton the clip was built for. */
  const anim_clip_t *clip;
  double time;    /* Seconds, before wrapping (wrapped in double). */
  anim_wrap wrap; /* Zero means clamp. */
  anim_sampling_context_t *context; /* Optional (NULL: binary search). */
  anim_pose_t output;               /* joint_count entries, storage order. */
  float *sampled_time; /* Optional out: the clip time after wrapping. */
} anim_sampling_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job, skeleton, clip or output array, an
 * unknown wrap, a context without cursors; ANIM_ERR_MISMATCH: the clip was
 * built for a skeleton of another joint count, or the context is bound to
 * another clip; ANIM_ERR_BUFFER_TOO_SMALL: output.joint_count below the
 * skeleton's, or fewer cursors than tracks. */
anim_result anim_sampling_job_validate(const anim_sampling_job_t *job);
/* Validates, then samples. Never allocates. */
anim_result anim_sampling_job_run(const anim_sampling_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
