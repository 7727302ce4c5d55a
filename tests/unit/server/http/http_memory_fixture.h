/* A server without a socket for the HTTP unit tests: a real server object
 * (demo assets, one worker, one stream loop) on a test loop, and clients
 * that talk to it through the in-memory transport (server/http/memory.h).
 * Helpers send request text, run the loop and flush the client's reads
 * until an answer is complete, and split it into status, headers and
 * body. Every wait is bounded (60 s of loop turns). */
#ifndef ANIMD_TESTS_HTTP_MEMORY_FIXTURE_H
#define ANIMD_TESTS_HTTP_MEMORY_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_answer.h"
#include "server/http/memory.h"
#include "server/server.h"

typedef struct mem_server_s {
  uv_loop_t loop;
  srv_server_t *server;
  int drained;
} mem_server_t;

static mem_server_t mem_srv;

static inline void mem_server_start_cfg(srv_config_t *cfg) {
  ck_assert_int_eq(uv_loop_init(&mem_srv.loop), 0);
  cfg->access_log[0] = '\0';
  cfg->listen[0] = '\0';
  cfg->workers = 1;
  cfg->stream_threads = 1;
  cfg->demo = true;
  /* The tests address this server as "x" or "h" (Host: x). */
  if (cfg->allowed_hosts[0] == '\0')
    snprintf(cfg->allowed_hosts, sizeof cfg->allowed_hosts, "x h");
  char err[256] = "";
  int rc = srv_server_new(&mem_srv.loop, cfg, &mem_srv.server, err, sizeof err);
  ck_assert_msg(rc == 0, "server: %s", err);
  mem_srv.drained = 0;
}

static inline void mem_server_start(void) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  mem_server_start_cfg(&cfg);
}

static void mem_server_on_drained(srv_server_t *s) {
  (void)s;
  mem_srv.drained++;
}

static inline void mem_server_stop(void) {
  srv_server_drain(mem_srv.server, mem_server_on_drained);
  uint64_t end = uv_hrtime() + 5000000000ull;
  while (mem_srv.drained == 0 && uv_hrtime() < end)
    uv_run(&mem_srv.loop, UV_RUN_NOWAIT);
  ck_assert_int_eq(mem_srv.drained, 1);
  ck_assert_int_eq(uv_run(&mem_srv.loop, UV_RUN_DEFAULT), 0);
  srv_server_free(mem_srv.server);
  ck_assert_int_eq(uv_loop_close(&mem_srv.loop), 0);
}

static inline srv_http_memory_t *mem_client(void) {
  srv_http_memory_t *m =
      srv_http_memory_new(srv_server_http_host(mem_srv.server));
  ck_assert_ptr_nonnull(m);
  return m;
}

/* Turns the test loop for ms milliseconds. */
static inline void mem_run_for(int ms) {
  uint64_t end = uv_hrtime() + (uint64_t)ms * 1000000;
  while (uv_hrtime() < end) uv_run(&mem_srv.loop, UV_RUN_NOWAIT);
}

typedef http_answer_t mem_answer_t;

/* Runs the loop and reads until an answer is complete (or 60 s pass), then
 * takes it from the client's output. Returns false when none came. */
static inline bool mem_read_answer(srv_http_memory_t *m, mem_answer_t *a,
                                   bool head_request) {
  return http_answer_read(&mem_srv.loop, m, a, head_request, 60000000000ull);
}

static inline void mem_answer_free(mem_answer_t *a) {
  free(a->body);
  a->body = NULL;
}

/* Sends one request text and reads its answer. */
static inline mem_answer_t mem_request(srv_http_memory_t *m, const char *text) {
  mem_answer_t a;
  srv_http_memory_send(m, text, strlen(text));
  ck_assert_msg(mem_read_answer(m, &a, strncmp(text, "HEAD ", 5) == 0),
                "no answer to %.60s", text);
  return a;
}

/* A one-request conversation on a fresh client: GET target. */
static inline mem_answer_t mem_get(const char *target) {
  srv_http_memory_t *m = mem_client();
  char req[2048];
  snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", target);
  mem_answer_t a = mem_request(m, req);
  srv_http_memory_free(m);
  return a;
}

/* The JSON error code of an answer ("" when none). */
static inline const char *mem_error_code(const mem_answer_t *a, char *buf,
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

#endif
