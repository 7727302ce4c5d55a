/* server: pose and skin evaluation shared by the HTTP handlers and
 * `animd eval`: sampling, hierarchy, skinning matrices and the answer
 * bodies, so the offline command prints byte for byte what
 * GET /v1/pose answers.
 *
 * Scratch memory is sized once per request (or per range) and reused for
 * every frame; the functions run on any thread and touch only their
 * arguments. */
#ifndef ANIMD_SERVER_EVALUATE_H
#define ANIMD_SERVER_EVALUATE_H

#include "animd/animd.h"
#include "formats/answer.h"
#include "formats/buf.h"

typedef struct srv_scratch_s {
  uint32_t joints;
  anim_pose_t pose;         /* Storage order. */
  anim_mat4_t *model;       /* joints matrices. */
  anim_mat4_t *skin;        /* joints matrices. */
  float *out;               /* 16 * joints floats, caller order. */
  uint32_t *cursors;        /* Sampling context, one per track. */
  uint32_t cursor_count;
  anim_sampling_context_t ctx;
  bool ctx_ready;
} srv_scratch_t;

/* Allocates scratch for a skeleton of joints joints and a clip of tracks
 * tracks. Returns 0 or -1 (out of memory). */
int srv_scratch_init(srv_scratch_t *s, uint32_t joints, uint32_t tracks);
void srv_scratch_free(srv_scratch_t *s);

/* The calling thread's own scratch, grown to at least joints and tracks
 * (kept between calls: no allocation per request). NULL when out of
 * memory. Its sampling context is unbound on each call. */
srv_scratch_t *srv_scratch_thread(uint32_t joints, uint32_t tracks);

/* Floats per pose answer in that space. */
size_t srv_pose_float_count(fmt_space space, uint32_t joints);

/* Samples clip (NULL: the rest pose) at t with wrap into s->pose, storing
 * the clip time sampled in *sampled. Uses the scratch's sampling context
 * (forward playback of ranges is O(1) per track). */
anim_result srv_sample(const anim_skeleton_t *sk, const anim_clip_t *clip,
                       float t, anim_wrap wrap, srv_scratch_t *s,
                       float *sampled);

/* Converts s->pose to the answer floats of space in s->out (caller
 * order). */
anim_result srv_pose_output(const anim_skeleton_t *sk, fmt_space space,
                            srv_scratch_t *s);

/* Skinning matrices of s->pose into s->skin (storage order). */
anim_result srv_skin_matrices(const anim_skeleton_t *sk, srv_scratch_t *s);

/* Appends one pose answer: JSON (with a trailing newline) or binary. */
int srv_encode_pose(fmt_buf_t *b, bool binary, const fmt_pose_answer_t *a);

/* The whole body of a one-pose answer (GET /v1/pose and animd eval):
 * samples clip (NULL: rest pose) of skeleton at t, converts to space and
 * encodes (ids from the assets). Returns ANIM_OK or the failing result. */
struct store_asset_s;
anim_result srv_pose_answer(fmt_buf_t *out,
                            const struct store_asset_s *skeleton,
                            const struct store_asset_s *clip, float t,
                            anim_wrap wrap, fmt_space space, bool binary);

/* Parses "clamp"/"loop"/"pingpong" (NULL: clamp). -1 when unknown. */
int srv_wrap_parse(const char *s);

#endif
