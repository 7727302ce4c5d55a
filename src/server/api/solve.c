/* server: POST /v1/solve: local and delta rotations per frame from
 * model-space joint positions (seed 000), on the pool.
 *
 * Body: {"skeleton":ID,"frames":[F frames]}, a frame being either 3N
 * numbers (x y z per joint, the skeleton's joint order) or N [x,y,z]
 * arrays. Answer: {"skeleton","joints":N,"frames":F,"rotations":[[4N]...],
 * "deltas":[[4N]...]} with quaternions [x,y,z,w] in the same joint order.
 * A large body is parsed on the pool too (body_task.h). */
#include <stdlib.h>
#include <string.h>

#include "server/api/body_task.h"
#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/answer.h"
#include "server/api/lookup.h"
#include "server/request/requests.h"
#include "server/http/task.h"

typedef struct solve_task_s {
  srv_task_t task;
  store_asset_t *skel;
  srv_solve_body_t body; /* Its frames become positions on the pool. */
  srv_error_t err;       /* When the frames are refused. */
  bool refused;
  float *positions;
  size_t frames;
  anim_result result;
  fmt_buf_t out;
} solve_task_t;

/* Reads the body's frames into positions; false (err set) when they are
 * refused. */
static bool solve_positions(solve_task_t *s) {
  size_t n = s->skel->skeleton->joint_count;
  s->refused = srv_solve_positions_parse(&s->body, n, &s->positions, &s->frames,
                                         &s->err) != 0;
  srv_solve_body_free(&s->body);
  return !s->refused;
}

static void solve_work(srv_task_t *t) {
  solve_task_t *s = (solve_task_t *)t;
  if (!solve_positions(s)) return;
  uint32_t n = s->skel->skeleton->joint_count;
  size_t count = s->frames * n;
  anim_quat_t *local = malloc(count * sizeof *local);
  anim_quat_t *delta = malloc(count * sizeof *delta);
  float *scratch =
      malloc((size_t)ANIM_SOLVE_SCRATCH_PER_JOINT * n * sizeof(float));
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
  if (s->refused) {
    srv__respond_err(t->req, &s->err);
    return;
  }
  if (s->result != ANIM_OK) {
    if (s->result == ANIM_ERR_OUT_OF_MEMORY)
      srv__fail(t->req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    else
      srv__fail(t->req, SRV_ERR_BAD_INPUT, "frames", "solving failed: %s",
                anim_result_str(s->result));
    return;
  }
  srv__respond_large(t->req, 200, &s->out, NULL, NULL);
}

static void solve_free(srv_task_t *t) {
  solve_task_t *s = (solve_task_t *)t;
  store_asset_release(s->skel);
  srv_solve_body_free(&s->body);
  free(s->positions);
  fmt_buf_free(&s->out);
  free(s);
}

/* The body parsed (on the pool when large): the skeleton is looked up
 * here, on the loop thread; its frames are read and solved on the pool. */
static void solve_then(srv_request_t *req, void *parsed) {
  srv_solve_body_t *body = parsed;
  solve_task_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    srv_solve_body_free(body);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  s->body = *body;
  fmt_buf_init(&s->out);
  s->task.work = solve_work;
  s->task.respond = solve_respond;
  s->task.free = solve_free;
  if (srv__lookup(req, STORE_SKELETON, "skeleton", body->skeleton, NULL,
                  &s->skel) != 0) {
    solve_free(&s->task);
    return;
  }
  /* Reading the frames costs about a unit per byte of body, and a frame
   * of n joints is at least 6n bytes of it: solving it costs 4n. */
  srv__task_run(&s->task, req,
                req->body_len + 4ul * s->skel->skeleton->joint_count);
}

static int solve_parse(const char *body, size_t len, const srv_request_t *req,
                       void *parsed, srv_error_t *err) {
  (void)req;
  return srv_solve_body_parse(body, len, parsed, err);
}

static void solve_parsed_free(void *parsed) { srv_solve_body_free(parsed); }

const srv_body_parser_t srv__solve_body = {
    .size = sizeof(srv_solve_body_t),
    .parse = solve_parse,
    .then = solve_then,
    .free_parsed = solve_parsed_free,
};
