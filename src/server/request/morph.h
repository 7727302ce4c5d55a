/* server/request: the morph weights of a mesh for one evaluation: the
 * mesh's default weights, replaced by the weight track of the job's clip
 * for that mesh (sampled at the job's wrapped time), or with layers by the
 * weight-normalized blend of the non-additive layers whose clips have one.
 * The pipeline (evaluate.c) morphs a mesh with them before skinning; pose
 * answers list them (frame_answer.c). Any thread. */
#ifndef ANIMD_SERVER_REQUEST_MORPH_H
#define ANIMD_SERVER_REQUEST_MORPH_H

#include <stdbool.h>
#include <stddef.h>

#include "server/request/evaluate.h"

/* Writes n weights for the mesh named mesh into out, starting from
 * defaults (n floats, or NULL for zeros). */
void srv_morph_weights(const srv_eval_job_t *job, const char *mesh, uint32_t n,
                       const float *defaults, float *out);

/* The clip whose weight tracks a pose answer lists: the job's clip, or its
 * first layer's; NULL when there is none or it has no weight track. */
const anim_clip_t *srv_morph_clip(const srv_eval_job_t *job);

/* The morph weights a pose answer lists: one entry per weight track of
 * srv_morph_clip(job), in the clip's order (none without one). */
typedef struct srv_morph_list_s {
  fmt_morph_weights_t *items;
  size_t count;
  float *values; /* private: the weights, one block */
} srv_morph_list_t;

/* Floats the weight tracks of clip add to a binary pose answer: the sum
 * of their weight counts (0 for NULL or none). */
size_t srv_morph_clip_floats(const anim_clip_t *clip);

/* Appends "X-Animd-Morph-Weights: 2,3\r\n" (the weight count of each
 * weight track of clip, in the clip's order: the order of the trailing
 * floats; the mesh names are the clip's, GET /v1/clips/{id}) to the
 * NUL-terminated headers in out (cap bytes) when binary and clip has
 * weight tracks (and at most about 20 of them). */
void srv_morph_header(char *out, size_t cap, bool binary,
                      const anim_clip_t *clip);

/* 0, or -1 when out of memory. */
int srv_morph_list(const srv_eval_job_t *job, srv_morph_list_t *out);
void srv_morph_list_free(srv_morph_list_t *list);

#endif
