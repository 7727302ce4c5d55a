/* server: POST /v1/test: a test suite (verdict/suite.h) run on the pool,
 * answered with its report (verdict/report.h) in ?format= (json, junit,
 * tap, html): 200 when every case passes, 422 tests_failed when any fails
 * (the body is the report either way, so `curl --fail-with-body -o
 * report.xml` keeps it), 400 for a malformed suite with its at.
 *
 * The body is parsed as a task (body_task.h: on the pool when large); its
 * names are resolved on the loop thread, a fleet's miss loading the asset
 * and running the handler again (lookup.h); the cases run on the pool as
 * one task costing their sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/config.h"
#include "server/http/task.h"
#include "server/verdict/report.h"
#include "server/verdict/suite.h"

typedef struct test_task_s {
  srv_task_t task;
  verdict_suite_t suite;
  verdict_report_format format;
  unsigned max_frames;
  bool failed; /* Some case failed: 422. */
  bool oom;
  fmt_buf_t out;
} test_task_t;

static void test_work(srv_task_t *t) {
  test_task_t *x = (test_task_t *)t;
  verdict_suite_result_t r;
  if (verdict_suite_run(&x->suite, x->max_frames,
                        x->format == VERDICT_REPORT_HTML, &r) != 0) {
    x->oom = true;
    return;
  }
  verdict_report_write(&x->out, x->format, &r);
  x->failed = r.failed > 0;
  verdict_suite_result_free(&r);
}

static void test_respond(srv_task_t *t) {
  test_task_t *x = (test_task_t *)t;
  if (x->oom) {
    srv__fail(t->req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  srv__respond_large(t->req,
                     x->failed ? srv_error_status(SRV_ERR_TESTS_FAILED) : 200,
                     &x->out, verdict_report_content_type(x->format), NULL);
}

static void test_free(srv_task_t *t) {
  test_task_t *x = (test_task_t *)t;
  verdict_suite_free(&x->suite);
  fmt_buf_free(&x->out);
  free(x);
}

/* The suite parsed (on the pool when large): its names are resolved here,
 * on the loop thread; its cases run on the pool. */
static void test_then(srv_request_t *req, void *parsed) {
  verdict_suite_t *suite = parsed;
  srv_query_t query = srv__query(req);
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  verdict_report_format format;
  if (verdict_report_format_parse(srv_query_value(&query, "format"), "format",
                                  &format, &err) != 0) {
    verdict_suite_free(suite);
    srv__respond_err(req, &err);
    return;
  }
  if (verdict_suite_resolve(srv__store(req), suite, &err, &miss) != 0) {
    verdict_suite_free(suite);
    srv__lookup_failed(req, &err, &miss);
    return;
  }
  test_task_t *x = calloc(1, sizeof *x);
  if (x == NULL) {
    verdict_suite_free(suite);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  x->suite = *suite;
  x->format = format;
  x->max_frames = query.max_frames;
  fmt_buf_init(&x->out);
  x->task.work = test_work;
  x->task.respond = test_respond;
  x->task.free = test_free;
  srv__task_run(&x->task, req, verdict_suite_cost(&x->suite));
}

static int test_parse(const char *body, size_t len, const srv_request_t *req,
                      void *parsed, srv_error_t *err) {
  return verdict_suite_parse(
      body, len, NULL, srv_request_config(req)->max_suite_cases, parsed, err);
}

static void test_parsed_free(void *parsed) { verdict_suite_free(parsed); }

const srv_body_parser_t srv__test_body = {
    .size = sizeof(verdict_suite_t),
    .parse = test_parse,
    .then = test_then,
    .free_parsed = test_parsed_free,
};
