/* server: request bodies parsed as tasks (body_task.h). */
#include "server/api/body_task.h"

#include <stdlib.h>

#include "server/api/answer.h"
#include "server/http/task.h"

typedef struct body_task_s {
  srv_task_t task;
  const srv_body_parser_t *p;
  srv_error_t err;
  int rc;
  bool handed; /* then owns the parsed form. */
  max_align_t parsed[];
} body_task_t;

static void body_work(srv_task_t *t) {
  body_task_t *b = (body_task_t *)t;
  b->rc =
      b->p->parse(t->req->body, t->req->body_len, t->req, b->parsed, &b->err);
}

static void body_respond(srv_task_t *t) {
  body_task_t *b = (body_task_t *)t;
  if (b->rc != 0) {
    srv__respond_err(t->req, &b->err);
    return;
  }
  b->handed = true;
  b->p->then(t->req, b->parsed);
}

static void body_free(srv_task_t *t) {
  body_task_t *b = (body_task_t *)t;
  if (b->rc == 0 && !b->handed) b->p->free_parsed(b->parsed);
  srv__task_delete(b);
}

void srv__parse_body(srv_request_t *req, const srv_body_parser_t *p) {
  body_task_t *b = srv__task_new(req, sizeof *b + p->size);
  if (b == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  b->p = p;
  /* Until the parse has run there is nothing to free. */
  b->rc = -1;
  b->task.work = body_work;
  b->task.respond = body_respond;
  b->task.free = body_free;
  srv__task_run(&b->task, req, req->body_len + 1);
}
