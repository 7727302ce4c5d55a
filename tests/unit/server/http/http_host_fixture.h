/* An HTTP host without a server for the session-level unit tests: a test
 * loop, a configuration, a one-worker pool and a scheduling policy, and a
 * route callback the test chooses. Clients talk to it through the
 * in-memory transport (server/http/memory.h), so the HTTP glue (parser,
 * answers, ranges, tasks) runs without the router or the API. Helpers
 * read complete answers (every wait bounded to 10 s of loop turns). */
#ifndef ANIMD_TESTS_HTTP_HOST_FIXTURE_H
#define ANIMD_TESTS_HTTP_HOST_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_answer.h"
#include "server/config.h"
#include "server/http/memory.h"
#include "server/http/session.h"
#include "server/pool.h"
#include "server/schedule.h"

typedef struct host_fx_s {
  uv_loop_t loop;
  srv_config_t cfg;
  srv_pool_t pool;
  srv_schedule_t schedule;
  srv_http_host_t host;
  /* request_done: how many answers finished, and the last one's status,
   * method and target as the access log would see them. */
  int done;
  int done_status;
  char done_method[16];
  char done_target[256];
} host_fx_t;

static host_fx_t hfx;

static void hfx_request_done(srv_request_t *req, void *arg) {
  (void)arg;
  hfx.done++;
  hfx.done_status = req->_status;
  snprintf(hfx.done_method, sizeof hfx.done_method, "%s", req->method_name);
  snprintf(hfx.done_target, sizeof hfx.done_target, "%s", req->target);
}

/* Starts the host with cfg as it is (defaults when NULL), inline_cost
 * for the scheduling policy, and route. */
static inline void hfx_start(const srv_config_t *cfg, unsigned inline_cost,
                             void (*route)(srv_request_t *req)) {
  memset(&hfx, 0, sizeof hfx);
  ck_assert_int_eq(uv_loop_init(&hfx.loop), 0);
  if (cfg != NULL)
    hfx.cfg = *cfg;
  else
    srv_config_defaults(&hfx.cfg);
  ck_assert_int_eq(srv_pool_init(&hfx.pool, &hfx.loop, 1, 64), 0);
  srv_schedule_init(&hfx.schedule, &hfx.loop, &hfx.pool, NULL, inline_cost,
                    false);
  hfx.host.cfg = &hfx.cfg;
  hfx.host.server = NULL;
  hfx.host.schedule = &hfx.schedule;
  hfx.host.loop = &hfx.loop;
  hfx.host.route = route;
  hfx.host.accepts = NULL;
  hfx.host.request_done = hfx_request_done;
  hfx.host.arg = NULL;
  hfx.host.draining = false;
}

/* Stops it: every client must have been freed. */
static inline void hfx_stop(void) {
  srv_schedule_close(&hfx.schedule);
  srv_pool_close(&hfx.pool);
  ck_assert_int_eq(uv_run(&hfx.loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&hfx.loop), 0);
}

static inline srv_http_memory_t *hfx_client(void) {
  srv_http_memory_t *m = srv_http_memory_new(&hfx.host);
  ck_assert_ptr_nonnull(m);
  return m;
}

static inline void hfx_send(srv_http_memory_t *m, const char *text) {
  srv_http_memory_send(m, text, strlen(text));
}

/* Turns the loop until done() is true or 10 s pass; returns done(). */
static inline bool hfx_run_until(bool (*cond)(void *arg), void *arg) {
  uint64_t end = uv_hrtime() + 10000000000ull;
  while (!cond(arg) && uv_hrtime() < end) uv_run(&hfx.loop, UV_RUN_NOWAIT);
  return cond(arg);
}

typedef http_answer_t hfx_answer_t;

/* Runs the loop and reads until an answer is complete (or 10 s pass),
 * then takes it from the client's output. Returns false when none came. */
static inline bool hfx_read(srv_http_memory_t *m, hfx_answer_t *a,
                            bool head_request) {
  return http_answer_read(&hfx.loop, m, a, head_request, 10000000000ull);
}

static inline void hfx_free(hfx_answer_t *a) {
  free(a->body);
  a->body = NULL;
}

/* Sends text and reads one answer (asserted). */
static inline hfx_answer_t hfx_request(srv_http_memory_t *m, const char *text) {
  hfx_answer_t a;
  hfx_send(m, text);
  ck_assert_msg(hfx_read(m, &a, strncmp(text, "HEAD ", 5) == 0),
                "no answer to %.60s", text);
  return a;
}

/* The JSON error code of an answer ("" when none). */
static inline const char *hfx_code(const hfx_answer_t *a, char *buf,
                                   size_t cap) {
  buf[0] = '\0';
  const char *p = strstr(a->body, "{\"error\":{\"code\":\"");
  if (p == NULL) return buf;
  p += 18;
  size_t n = 0;
  while (p[n] && p[n] != '"' && n + 1 < cap) n++;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

/* The value of header name in an answer's head, into buf ("" when
 * absent). */
static inline const char *hfx_header(const hfx_answer_t *a, const char *name,
                                     char *buf, size_t cap) {
  buf[0] = '\0';
  char key[128];
  snprintf(key, sizeof key, "\r\n%s: ", name);
  const char *p = strcasestr(a->head, key);
  if (p == NULL) return buf;
  p += strlen(key);
  size_t n = strcspn(p, "\r");
  if (n >= cap) n = cap - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

#endif
