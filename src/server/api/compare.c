/* server: POST /v1/compare: two pose sources compared over a time grid
 * with the shell metric (verdict/compare.h), on the pool.
 *
 * The body is parsed as a task (body_task.h), its names resolved on the
 * loop thread through the API's one lookup (a fleet's miss loads the
 * asset and runs the route again), the grid checked against max_frames,
 * then every frame of both sources evaluated and compared on the pool.
 * 200 for any valid comparison: the verdict is in the body. */
#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/body_task.h"
#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/http/task.h"
#include "server/request/requests.h"
#include "server/verdict/compare.h"

typedef struct compare_task_s {
  srv_task_t task;
  verdict_compare_t compare;
  unsigned max_frames;
  int rc;
  srv_error_t err;
  verdict_compare_result_t result;
  fmt_buf_t out;
} compare_task_t;

static void compare_work(srv_task_t *t) {
  compare_task_t *c = (compare_task_t *)t;
  c->rc = verdict_compare_run(&c->compare, c->max_frames, &c->result, &c->err);
  if (c->rc != 0) return;
  verdict_compare_result_json(&c->out, &c->result);
  fmt_buf_putc(&c->out, '\n');
}

static void compare_respond(srv_task_t *t) {
  compare_task_t *c = (compare_task_t *)t;
  if (c->rc != 0) {
    srv__respond_err(t->req, &c->err);
    return;
  }
  srv__respond_large(t->req, 200, &c->out, NULL, NULL);
}

static void compare_free(srv_task_t *t) {
  compare_task_t *c = (compare_task_t *)t;
  verdict_compare_free(&c->compare);
  verdict_compare_result_free(&c->result);
  fmt_buf_free(&c->out);
  free(c);
}

/* The body parsed: its sources are resolved here, on the loop thread; the
 * comparison runs on the pool. */
static void compare_then(srv_request_t *req, void *parsed) {
  compare_task_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    verdict_compare_free(parsed);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  c->compare = *(verdict_compare_t *)parsed;
  c->max_frames = srv__query(req).max_frames;
  fmt_buf_init(&c->out);
  c->task.work = compare_work;
  c->task.respond = compare_respond;
  c->task.free = compare_free;
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (verdict_compare_resolve(srv__store(req), &c->compare, &err, &miss) != 0) {
    srv__lookup_failed(req, &err, &miss);
    compare_free(&c->task);
    return;
  }
  if (verdict_compare_frames(&c->compare) > (double)c->max_frames) {
    /* Refused before any work: the run would refuse it the same way. */
    verdict_compare_run(&c->compare, c->max_frames, &c->result, &err);
    srv__respond_err(req, &err);
    compare_free(&c->task);
    return;
  }
  srv__task_run(&c->task, req,
                req->body_len + verdict_compare_cost(&c->compare));
}

static int compare_parse(const char *body, size_t len, const srv_request_t *req,
                         void *parsed, srv_error_t *err) {
  (void)req;
  json_t *root;
  if (srv_json_body_parse(body, len, &root, err) != 0) return -1;
  int rc = verdict_compare_parse(root, "", parsed, err);
  json_decref(root);
  return rc;
}

static void compare_parsed_free(void *parsed) { verdict_compare_free(parsed); }

const srv_body_parser_t srv__compare_body = {
    .size = sizeof(verdict_compare_t),
    .parse = compare_parse,
    .then = compare_then,
    .free_parsed = compare_parsed_free,
};
