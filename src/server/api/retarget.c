/* server: POST /v1/retarget: a clip baked for another skeleton and stored
 * as an upload (request/retarget.h), on the pool.
 *
 * The body is parsed as a task (body_task.h); the clip and the target
 * skeleton are looked up on the loop thread through the API's one lookup
 * (a fleet's miss loads the asset and runs the route again); the map
 * paired against both skeletons, the key count checked against
 * max_frames, the bake and the store's ingest run on the pool. The answer is
 * the upload answer (201 when the clip is new, 200 when it was there) plus
 * "retarget"; in a fleet the clip is published to the shared store first,
 * as an upload is. */
#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/body_task.h"
#include "server/api/handlers.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/api/shared_store.h"
#include "server/http/task.h"
#include "server/request/requests.h"
#include "server/request/retarget.h"
#include "store/cache.h"

typedef struct retarget_task_s {
  srv_task_t task;
  store_t *store;
  store_asset_t *clip, *target;
  srv_retarget_body_t body;
  srv_retarget_plan_t plan;
  unsigned max_frames;
  bool shared;      /* A shared backend stores it before the answer. */
  fmt_buf_t *texts; /* shared: the canonical text of each entry. */
  int rc;
  bool stored; /* result holds the stored clip. */
  srv_error_t err;
  store_ingest_result_t result;
  fmt_buf_t out;
} retarget_task_t;

/* The map is paired here too: an "auto" map compares every name of one
 * skeleton with every name of the other, which is not loop work. */
static void retarget_work(srv_task_t *t) {
  retarget_task_t *r = (retarget_task_t *)t;
  r->rc = srv_retarget_plan(&r->body, r->clip, r->target, r->max_frames,
                            &r->plan, &r->err);
  if (r->rc == 0)
    r->rc = srv_retarget_store(r->store, &r->plan, r->target, &r->result,
                               &r->out, &r->err);
  r->stored = r->rc == 0;
  if (r->rc != 0 || !r->shared) return;
  r->texts = calloc(r->result.count ? r->result.count : 1, sizeof *r->texts);
  for (size_t i = 0; r->texts && i < r->result.count; i++)
    store_asset_encode(r->result.entries[i].asset, &r->texts[i]);
  if (r->texts == NULL) r->out.failed = true;
}

static void retarget_respond(srv_task_t *t) {
  retarget_task_t *r = (retarget_task_t *)t;
  if (r->rc != 0) {
    srv__respond_err(t->req, &r->err);
    return;
  }
  if (r->shared && !r->out.failed) {
    srv__publish_then_answer(t->req, &r->result, r->texts, &r->out, false,
                             false);
    r->texts = NULL;
    return;
  }
  srv__respond_buf(t->req, r->result.any_created ? 201 : 200, &r->out, NULL,
                   NULL);
}

static void retarget_free(srv_task_t *t) {
  retarget_task_t *r = (retarget_task_t *)t;
  for (size_t i = 0; r->texts && i < r->result.count; i++)
    fmt_buf_free(&r->texts[i]);
  free(r->texts);
  if (r->stored) store_ingest_result_free(&r->result);
  srv_retarget_plan_free(&r->plan);
  srv_retarget_body_free(&r->body);
  store_asset_release(r->clip);
  store_asset_release(r->target);
  fmt_buf_free(&r->out);
  free(r);
}

/* The body parsed: the clip and the target are looked up here, on the
 * loop thread; the rest runs on the pool. */
static void retarget_then(srv_request_t *req, void *parsed) {
  retarget_task_t *r = calloc(1, sizeof *r);
  if (r == NULL) {
    srv_retarget_body_free(parsed);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  r->body = *(srv_retarget_body_t *)parsed;
  r->store = srv__store(req);
  r->shared = srv__backend(req) != NULL;
  fmt_buf_init(&r->out);
  if (srv__lookup(req, STORE_CLIP, "clip", r->body.clip, NULL, &r->clip) != 0 ||
      srv__lookup(req, STORE_SKELETON, "to", r->body.to, NULL, &r->target) !=
          0) {
    retarget_free(&r->task);
    return;
  }
  r->max_frames = srv__query(req).max_frames;
  r->task.work = retarget_work;
  r->task.respond = retarget_respond;
  r->task.free = retarget_free;
  /* Storing writes files: never on the loop. */
  srv__task_run(&r->task, req, SRV_COST_POOL);
}

static int retarget_parse(const char *body, size_t len,
                          const srv_request_t *req, void *parsed,
                          srv_error_t *err) {
  (void)req;
  json_t *root;
  if (srv_json_body_parse(body, len, &root, err) != 0) return -1;
  int rc = srv_retarget_body_parse(root, parsed, err);
  json_decref(root);
  return rc;
}

static void retarget_parsed_free(void *parsed) {
  srv_retarget_body_free(parsed);
}

const srv_body_parser_t srv__retarget_body = {
    .size = sizeof(srv_retarget_body_t),
    .parse = retarget_parse,
    .then = retarget_then,
    .free_parsed = retarget_parsed_free,
};
