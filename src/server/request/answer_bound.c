/* server/request: the bound on an answer's bytes (answer_bound.h). */
#include "server/request/answer_bound.h"

#include <string.h>

#include "formats/q16.h"

/* The head of one block besides its floats: keys, counts, t, the frame
 * number, a range frame's events and the separators. */
#define JSON_HEAD 4096u
/* A binary block's or range frame's header (docs/api.md). */
#define BIN_HEAD 16u

/* Bytes a string takes at most in JSON (every byte escaped as \u00XX). */
static uint64_t json_text(const char *s) {
  return s != NULL ? 6 * (uint64_t)strlen(s) + 2 : 4;
}

/* One block's bytes: job's frame for mesh (NULL: the job's own). */
static uint64_t block_bytes(const srv_answer_shape_t *a,
                            const store_asset_t *mesh) {
  srv_eval_job_t job = *a->job;
  if (mesh != NULL) job.mesh = mesh->mesh;
  uint64_t extra = srv_eval_answer_count(&job);
  /* Blocks of a multi-mesh answer and range frames have a header. */
  uint64_t head = a->range || a->mesh_count > 0 ? BIN_HEAD : 0;
  if (a->binary && a->q16 && job.mesh != NULL)
    return head +
           fmt_q16_size(srv_eval_element_count(&job),
                        job.normals != ANIM_NORMALS_NONE) +
           4 * extra;
  uint64_t floats = srv_eval_float_count(&job) + extra;
  if (a->binary) return head + 4 * floats;
  uint64_t names = 0;
  if (mesh != NULL) names += json_text(mesh->id) + json_text(mesh->name);
  return JSON_HEAD + names + SRV_JSON_FLOAT_MAX * floats;
}

uint64_t srv_answer_bytes(const srv_answer_shape_t *a) {
  uint64_t frame = 0;
  if (a->mesh_count == 0) frame = block_bytes(a, NULL);
  for (size_t k = 0; k < a->mesh_count; k++)
    frame += block_bytes(a, a->meshes[k]);
  uint64_t frames = a->frames > 0 ? a->frames : 1;
  return frame > UINT64_MAX / frames ? UINT64_MAX : frame * frames;
}

int srv_answer_check(const srv_answer_shape_t *a, size_t limit, const char *at,
                     srv_error_t *err) {
  if (limit == 0) return 0;
  uint64_t bytes = srv_answer_bytes(a);
  if (bytes <= limit) return 0;
  return srv_error_set(err, SRV_ERR_TOO_LARGE, at,
                       "the answer would take %llu bytes%s, over "
                       "max_answer_bytes (%zu)",
                       (unsigned long long)bytes, a->binary ? "" : " at most",
                       limit);
}
