/* server: a request body parsed as a task. JSON bodies can be tens of
 * megabytes, and parsing one takes seconds: the parse runs under the
 * scheduling policy (http/task.h, schedule.h) with a cost of one unit per
 * byte, so a small body is parsed inline on the loop thread and a large
 * one on the worker pool, and the loop goes on answering meanwhile. */
#ifndef ANIMD_SERVER_BODY_TASK_H
#define ANIMD_SERVER_BODY_TASK_H

#include <stddef.h>

#include "server/errors.h"
#include "server/http/http.h"

typedef struct srv_body_parser_s {
  /* Bytes of the parsed form (what parse fills, then owns). */
  size_t size;
  /* Any thread: parses body (len bytes) into parsed. 0, or -1 with err
   * set and nothing held. */
  int (*parse)(const char *body, size_t len, const srv_request_t *req,
               void *parsed, srv_error_t *err);
  /* Loop thread, the client connected: goes on with the parsed form,
   * which it now owns (it frees it with free_parsed when done). */
  void (*then)(srv_request_t *req, void *parsed);
  /* Frees what parse holds. */
  void (*free_parsed)(void *parsed);
} srv_body_parser_t;

/* Parses req's body with p (inline or on the pool), then answers the
 * parse error or runs p->then. A full pool answers 503. */
void srv__parse_body(srv_request_t *req, const srv_body_parser_t *p);

#endif
