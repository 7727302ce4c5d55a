/* server: POST /v1/solve: local and delta rotations per frame from
 * model-space joint positions (seed 000), on the pool.
 *
 * Body: {"skeleton":ID,"frames":[F frames]}, a frame being either 3N
 * numbers (x y z per joint, the skeleton's joint order) or N [x,y,z]
 * arrays. Answer: {"skeleton","joints":N,"frames":F,"rotations":[[4N]...],
 * "deltas":[[4N]...]} with quaternions [x,y,z,w] in the same joint order. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "server/api/handlers.h"
#include "server/api/params.h"
#include "server/http/task.h"

#define SOLVE_MAX_FLOATS (64u * 1024 * 1024)

typedef struct solve_task_s {
  srv_task_t task;
  store_asset_t *skel;
  float *positions;
  size_t frames;
  anim_result result;
  fmt_buf_t out;
} solve_task_t;

static void solve_work(srv_task_t *t) {
  solve_task_t *s = (solve_task_t *)t;
  uint32_t n = s->skel->skeleton->joint_count;
  size_t count = s->frames * n;
  anim_quat_t *local = malloc(count * sizeof *local);
  anim_quat_t *delta = malloc(count * sizeof *delta);
  float *scratch = malloc((size_t)ANIM_SOLVE_SCRATCH_PER_JOINT * n *
                          sizeof(float));
  s->result = ANIM_ERR_OUT_OF_MEMORY;
  if (local && delta && scratch) {
    anim_solve_job_t job = {.skeleton = s->skel->skeleton,
                            .positions = s->positions,
                            .frame_count = s->frames,
                            .local_rotations = local,
                            .delta_rotations = delta,
                            .output_count = count,
                            .position_count = count * 3,
                            .scratch = scratch,
                            .scratch_count =
                                (size_t)ANIM_SOLVE_SCRATCH_PER_JOINT * n};
    s->result = anim_solve_job_run(&job);
  }
  if (s->result == ANIM_OK) {
    fmt_buf_t *b = &s->out;
    fmt_buf_puts(b, "{\"skeleton\":");
    fmt_buf_json_string(b, s->skel->id);
    fmt_buf_printf(b, ",\"joints\":%u,\"frames\":%zu,\"rotations\":[", n,
                   s->frames);
    for (size_t f = 0; f < s->frames; f++) {
      if (f) fmt_buf_putc(b, ',');
      fmt_buf_float_array(b, (const float *)(local + f * n), 4 * (size_t)n);
    }
    fmt_buf_puts(b, "],\"deltas\":[");
    for (size_t f = 0; f < s->frames; f++) {
      if (f) fmt_buf_putc(b, ',');
      fmt_buf_float_array(b, (const float *)(delta + f * n), 4 * (size_t)n);
    }
    fmt_buf_puts(b, "]}\n");
  }
  free(local);
  free(delta);
  free(scratch);
}

static void solve_respond(srv_task_t *t) {
  solve_task_t *s = (solve_task_t *)t;
  if (s->result != ANIM_OK) {
    if (s->result == ANIM_ERR_OUT_OF_MEMORY)
      srv__fail(t->req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    else
      srv__fail(t->req, SRV_ERR_BAD_INPUT, "frames", "solving failed: %s",
                anim_result_str(s->result));
    return;
  }
  srv__respond_buf(t->req, 200, &s->out, NULL, NULL);
}

static void solve_free(srv_task_t *t) {
  solve_task_t *s = (solve_task_t *)t;
  store_asset_release(s->skel);
  free(s->positions);
  fmt_buf_free(&s->out);
  free(s);
}

/* A finite JSON number within float range, as a float. */
static bool finite_value(json_t *v, float *out) {
  double d;
  if (!srv__json_number(v, -3.0e38, 3.0e38, &d)) return false;
  *out = (float)d;
  return true;
}

void srv__handle_solve(srv_request_t *req) {
  json_t *root;
  if (srv__request_json_body(req, &root) != 0) return;
  solve_task_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    json_decref(root);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  fmt_buf_init(&s->out);
  char at[96];
  json_t *jsk = json_is_object(root) ? json_object_get(root, "skeleton")
                                     : NULL;
  if (!json_is_string(jsk)) {
    srv__fail(req, jsk ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, "skeleton", "\"skeleton\" must be a skeleton id or "
                      "name");
    goto fail;
  }
  store_t *st = srv__store(req);
  s->skel = store_lookup(st, STORE_SKELETON, json_string_value(jsk), NULL);
  if (s->skel == NULL) {
    srv__fail(req, SRV_ERR_NOT_FOUND, "skeleton", "no skeleton '%s'",
                      json_string_value(jsk));
    goto fail;
  }
  size_t n = s->skel->skeleton->joint_count;
  json_t *jf = json_object_get(root, "frames");
  if (!json_is_array(jf) || json_array_size(jf) == 0) {
    srv__fail(req, jf ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, "frames",
                      "\"frames\" must be a non-empty array");
    goto fail;
  }
  s->frames = json_array_size(jf);
  if (s->frames * n * 3 > SOLVE_MAX_FLOATS) {
    srv__fail(req, SRV_ERR_TOO_LARGE, "frames", "too many positions");
    goto fail;
  }
  s->positions = malloc(s->frames * n * 3 * sizeof(float));
  if (s->positions == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  for (size_t f = 0; f < s->frames; f++) {
    json_t *fr = json_array_get(jf, f);
    float *dst = s->positions + f * n * 3;
    snprintf(at, sizeof at, "frames[%zu]", f);
    if (!json_is_array(fr)) {
      srv__fail(req, SRV_ERR_WRONG_TYPE, at,
                        "a frame is an array of positions");
      goto fail;
    }
    size_t m = json_array_size(fr);
    bool nested = m > 0 && json_is_array(json_array_get(fr, 0));
    if ((nested && m != n) || (!nested && m != 3 * n)) {
      srv__fail(req, SRV_ERR_VALUE_COUNT, at,
                        "expected %zu positions (%zu numbers), got %zu", n,
                        3 * n, m);
      goto fail;
    }
    for (size_t i = 0; i < m; i++) {
      json_t *v = json_array_get(fr, i);
      if (nested) {
        snprintf(at, sizeof at, "frames[%zu][%zu]", f, i);
        if (!json_is_array(v) || json_array_size(v) != 3) {
          srv__fail(req, SRV_ERR_VALUE_COUNT, at,
                            "a position is [x, y, z]");
          goto fail;
        }
        for (size_t k = 0; k < 3; k++)
          if (!finite_value(json_array_get(v, k), &dst[3 * i + k])) {
            snprintf(at, sizeof at, "frames[%zu][%zu][%zu]", f, i, k);
            srv__fail(req, SRV_ERR_NOT_FINITE, at,
                              "coordinates must be finite numbers");
            goto fail;
          }
      } else if (!finite_value(v, &dst[i])) {
        snprintf(at, sizeof at, "frames[%zu][%zu]", f, i);
        srv__fail(req, SRV_ERR_NOT_FINITE, at,
                          "coordinates must be finite numbers");
        goto fail;
      }
    }
  }
  json_decref(root);
  s->task.work = solve_work;
  s->task.respond = solve_respond;
  s->task.free = solve_free;
  srv__task_run(&s->task, req, (unsigned long)(s->frames * n * 4));
  return;

fail:
  json_decref(root);
  solve_free(&s->task);
}
