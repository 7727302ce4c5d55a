/* animd core: animation clips, built once from a validated raw form.
 *
 * A clip is a set of tracks, each animating one joint's translation,
 * rotation or scale with keys (times in seconds, strictly increasing, >= 0)
 * and one interpolation. anim_clip_build checks the raw form against its
 * skeleton and produces an immutable runtime clip whose tracks refer to
 * joints in the skeleton's storage order. Tracks whose keys sit on a fixed
 * frame grid (BVH, MD5) are detected and sampled in O(1); LINEAR tracks
 * that share their key times (the usual exported clip) are also stored
 * key-major, so a pose reads two contiguous rows of keys.
 *
 * Sampling is a job (anim_sampling_job_t in animd/sampling.h). */
#ifndef ANIMD_CLIP_H
#define ANIMD_CLIP_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum anim_path {
  ANIM_PATH_TRANSLATION = 0, /* 3 components per value. */
  ANIM_PATH_ROTATION = 1,    /* 4 components, [x, y, z, w]. */
  ANIM_PATH_SCALE = 2        /* 3 components. */
} anim_path;

typedef enum anim_interp {
  ANIM_INTERP_LINEAR = 0, /* lerp; rotations: shortest-path slerp. */
  ANIM_INTERP_STEP,       /* The value of the key at or before t. */
  /* glTF 2.0 Hermite spline: per key in-tangent, value, out-tangent;
   * tangents scaled by the key interval; rotations normalized after. */
  ANIM_INTERP_CUBICSPLINE,
  /* Per-key cubic easing curve (x1, y1, x2, y2 in [0, 1]) on the segment
   * that starts at that key: the curve parameter s solving x(s) = u is
   * found, and y(s) becomes the lerp/slerp factor (seed keyframe code). */
  ANIM_INTERP_BEZIER,
  /* D3DX squad through the keys with squad-setup control points
   * (neighbours clamped at the ends); vectors use Catmull-Rom. */
  ANIM_INTERP_SQUAD,
  ANIM_INTERP_COUNT_
} anim_interp;

typedef enum anim_wrap {
  ANIM_WRAP_CLAMP = 0, /* min(max(t, 0), d). */
  ANIM_WRAP_LOOP,      /* t - d * floor(t / d): t = d gives the first pose. */
  ANIM_WRAP_PINGPONG,  /* Forward then backward, period 2d. */
  ANIM_WRAP_COUNT_
} anim_wrap;

/* The most events a clip holds, and the longest event name in bytes. */
#define ANIM_EVENT_MAX 1024
#define ANIM_EVENT_NAME_MAX 128

/* A named instant of a clip: t (seconds, finite, within [0, duration])
 * and a name (non-empty, at most ANIM_EVENT_NAME_MAX bytes; several events
 * may share a name or a time). A built clip holds its events sorted by t,
 * events of equal t in the raw form's order. */
typedef struct anim_event_s {
  float t;
  const char *name;
} anim_event_t;

typedef struct anim_raw_track_s {
  uint32_t joint; /* Caller-order joint index of the skeleton. */
  anim_path path;
  anim_interp interpolation;
  const float *times; /* key_count entries, strictly increasing, >= 0. */
  size_t key_count;   /* >= 1. */
  /* key_count * components values, or 3 * key_count * components for
   * CUBICSPLINE (in-tangent, value, out-tangent per key). */
  const float *values;
  size_t value_count; /* Number of floats in values (checked). */
  /* BEZIER only: 4 floats per key (x1, y1, x2, y2), each in [0, 1]. */
  const float *bezier;
} anim_raw_track_t;

/* Morph target weights of one mesh (glTF "weights" channels): n weights
 * per key, LINEAR, STEP or CUBICSPLINE (per key a1..an, v1..vn, b1..bn:
 * in-tangents, values, out-tangents). Sampled by anim_weight_track_sample
 * (animd/morph.h), never by the pose sampler. */
typedef struct anim_raw_weight_track_s {
  const char *mesh; /* The mesh's name, not empty. */
  anim_interp interpolation;
  uint32_t target_count; /* n, 1..ANIM_MAX_MORPH_TARGETS. */
  const float *times;    /* key_count entries, strictly increasing, >= 0. */
  size_t key_count;      /* >= 1. */
  const float *values;   /* key_count * n, or 3 * key_count * n. */
  size_t value_count;
} anim_raw_weight_track_t;

typedef struct anim_raw_clip_s {
  const char *name; /* May be NULL or empty. */
  const anim_raw_track_t *tracks;
  size_t track_count; /* May be 0: the clip holds the rest pose. */
  /* 0 means: the latest key time of any track. A larger value extends the
   * clip; a smaller positive one is refused. */
  float duration;
  /* Morph weight tracks, at most one per mesh name (may be none). */
  const anim_raw_weight_track_t *weight_tracks;
  size_t weight_track_count;
  /* Events (markers such as footsteps), in any order; may be NULL when
   * event_count is 0. See anim_event_t for the rules. */
  const struct anim_event_s *events;
  size_t event_count;
} anim_raw_clip_t;

/* One runtime track: its keys are copied and owned by the clip. */
typedef struct anim_track_s {
  uint32_t joint;        /* Storage-order joint index. */
  uint8_t path;          /* anim_path */
  uint8_t interpolation; /* anim_interp */
  uint8_t components;    /* 3 or 4 */
  /* Keys on a grid: key i within 1% of an interval of times[0] + i / rate
   * (the sampler guesses the segment from the grid, then checks times). */
  uint8_t fixed_rate;
  /* private: 1 when the key times equal those of the previous track that
   * is sampled on its own (not on the clip's shared grid): the sampler
   * locates the segment once for both. */
  uint8_t _same_times;
  uint32_t key_count;
  float rate; /* Keys per second when fixed_rate. */
  /* Shared with the previous track when their key times are equal. */
  const float *times;
  const float *values; /* As in the raw form, rotation values normalized. */
  const float *bezier; /* BEZIER only. */
  /* SQUAD rotations: a, b, c per segment k (keys k, k + 1), from
   * anim_quat_squad_setup with neighbours clamped at the ends, so the
   * segment is anim_quat_squad(q_k, a, b, c, u). NULL otherwise. */
  const anim_quat_t *squad_controls;
} anim_track_t;

/* One runtime weight track (keys copied, owned by the clip). */
typedef struct anim_weight_track_s {
  const char *mesh;
  uint8_t interpolation; /* LINEAR, STEP or CUBICSPLINE. */
  uint32_t target_count;
  uint32_t key_count;
  const float *times;
  const float *values; /* As in the raw form. */
} anim_weight_track_t;

typedef struct anim_clip_s {
  char *name;           /* Never NULL. */
  float duration;       /* Seconds, >= 0. */
  uint32_t joint_count; /* Of the skeleton it was built for. */
  uint32_t track_count;
  anim_track_t *tracks; /* Sorted by (storage joint, path). */
  uint32_t event_count;
  const anim_event_t *events; /* Sorted by t (anim_event_t), in the block. */
  /* private */
  /* (joint * 4 + path) for every joint and path no track animates, in
   * storage order: the sampler copies the rest value there. */
  uint32_t *_missing;
  uint32_t _missing_count;
  /* The LINEAR tracks that share one set of key times, also stored
   * key-major for the sampler (NULL when there are none), and the indices
   * of the other tracks, which are sampled one by one. */
  const struct anim__grid_s *_grid;
  uint32_t *_others;
  uint32_t _other_count;
  size_t _bytes; /* The size of the clip's one allocation. */
  anim_allocator_t _alloc;
  /* public: morph weight tracks in raw order (their own allocation,
   * _weights_block, counted in _bytes). */
  uint32_t weight_track_count;
  anim_weight_track_t *weight_tracks;
  void *_weights_block;
} anim_clip_t;

/* Validates raw against skeleton and builds a clip (one block from alloc,
 * or malloc when alloc is NULL). Keys are copied; rotation values (not
 * CUBICSPLINE tangents) are normalized; fixed-rate tracks are detected
 * (every key within 1% of an interval of its grid time) and SQUAD controls
 * precomputed. On failure *out is NULL and err (optional) names the first
 * problem: track (caller order), joint (the track's raw joint index, -1 if
 * out of range), key, component and field ("tracks", "joint", "path",
 * "interpolation", "times", "values", "bezier", "duration", "events";
 * weight tracks: "weight_tracks" with track = the weight track's raw
 * index). For "values", component is the offset within the key's floats
 * (so the flat index is key * stride + component, stride = components, or
 * 3 * components for
 * CUBICSPLINE); for "bezier" it is 0..3 (x1, y1, x2, y2). Tracks are
 * checked in caller order, field by field, then duplicate (joint, path)
 * pairs (the later track of the pair is named, field "path"); more tracks
 * than 3 per joint is ANIM_ERR_DUPLICATE_TRACK with field "tracks". Events
 * are checked last: field "events", key the raw event index, component 0
 * for its t (ANIM_ERR_NOT_FINITE, or ANIM_ERR_INVALID_ARGUMENT outside
 * [0, duration]) and 1 for its name (empty or too long); more than
 * ANIM_EVENT_MAX events is field "events" with key -1. */
anim_result anim_clip_build(const anim_raw_clip_t *raw,
                            const anim_skeleton_t *skeleton,
                            const anim_allocator_t *alloc, anim_clip_t **out,
                            anim_build_error_t *err);
void anim_clip_free(anim_clip_t *clip);

/* Bytes the clip holds (its one allocation: tracks, keys, and the
 * key-major copy of the tracks on its shared key grid, which about doubles
 * their values), for memory accounting; 0 for NULL. */
size_t anim_clip_memory(const anim_clip_t *clip);

/* The clip time actually sampled for time t (DESIGN.md wrap rules). t is a
 * double and the wrap is computed in double, so a long-running clock (t in
 * hours or days) keeps sub-microsecond precision; only the wrapped result,
 * which lies in [0, duration], is rounded to float (LOOP stays below
 * duration: a result that would round up to it gives the float just
 * below). A duration of 0 always gives 0; non-finite t gives 0. */
float anim_wrap_time(double t, float duration, anim_wrap wrap);

#ifdef __cplusplus
}
#endif
#endif
