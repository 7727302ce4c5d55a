/* server: GET /v1/clips/{id}/check: the clip's motion checked
 * (verdict/check.h) on the pool, answered as JSON.
 *
 * The query's parameters are the check's own (verdict_check_param_set),
 * refused by name when the endpoint does not take them (SRV_EP_CLIP_CHECK).
 */
#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/http/task.h"
#include "server/verdict/check.h"

typedef struct check_task_s {
  srv_task_t task;
  store_asset_t *clip;
  verdict_check_params_t params;
  unsigned max_frames;
  srv_error_t err;
  bool failed;
  fmt_buf_t out;
} check_task_t;

static void check_work(srv_task_t *t) {
  check_task_t *c = (check_task_t *)t;
  verdict_check_report_t report;
  if (verdict_check_run(c->clip->skeleton_asset->skeleton, c->clip->clip,
                        &c->params, c->max_frames, &report, &c->err) != 0) {
    c->failed = true;
    /* The query names its feet as one parameter. */
    if (c->err.code == SRV_ERR_UNKNOWN_JOINT &&
        strncmp(c->err.at, "feet[", 5) == 0)
      strcpy(c->err.at, "feet");
    return;
  }
  verdict_check_report_json(&c->out, c->clip->id, &report);
  fmt_buf_putc(&c->out, '\n');
  verdict_check_report_free(&report);
}

static void check_respond(srv_task_t *t) {
  check_task_t *c = (check_task_t *)t;
  if (c->failed)
    srv__respond_err(t->req, &c->err);
  else
    srv__respond_large(t->req, 200, &c->out, NULL, NULL);
}

static void check_free(srv_task_t *t) {
  check_task_t *c = (check_task_t *)t;
  store_asset_release(c->clip);
  verdict_check_params_free(&c->params);
  fmt_buf_free(&c->out);
  free(c);
}

void srv__handle_clip_check(srv_request_t *req, const char *id) {
  if (srv__check_query(req, SRV_EP_CLIP_CHECK) != 0) return;
  check_task_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  fmt_buf_init(&c->out);
  c->task.work = check_work;
  c->task.respond = check_respond;
  c->task.free = check_free;
  verdict_check_params_defaults(&c->params);
  srv_query_t q = srv__query(req);
  c->max_frames = q.max_frames;
  for (unsigned i = 0; i < q.count; i++)
    if (verdict_check_param_set(&c->params, q.params[i].name, q.params[i].value,
                                &c->err) != 0) {
      srv__respond_err(req, &c->err);
      check_free(&c->task);
      return;
    }
  if (srv__lookup(req, STORE_CLIP, "id", id, NULL, &c->clip) != 0) {
    check_free(&c->task);
    return;
  }
  /* Two poses per sample (local and model space), and the answer. */
  double samples =
      verdict_check_sample_count(c->clip->clip->duration, c->params.fps);
  if (samples > c->max_frames) samples = c->max_frames;
  unsigned long joints = c->clip->clip->joint_count;
  srv__task_run(&c->task, req, (unsigned long)samples * joints * 3 + 1000);
}
