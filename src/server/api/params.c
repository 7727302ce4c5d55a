/* server: request helpers shared by the handlers (params.h). */
#include "server/api/params.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/shared_store.h"
#include "server/services.h"

store_t *srv__store(srv_request_t *req) {
  return srv_server_store(srv_request_server(req));
}

srv_query_t srv__query(const srv_request_t *req) {
  srv_query_t q = {
      .params = req->params,
      .count = req->param_count,
      .accept = srv_request_header(req, "Accept"),
      .max_frames = srv_server_config(srv_request_server(req))->max_frames,
  };
  return q;
}

int srv__check_query(srv_request_t *req, srv_endpoint ep) {
  srv_query_t q = srv__query(req);
  srv_error_t err;
  if (srv_query_check(&q, ep, &err) == 0) return 0;
  srv__respond_err(req, &err);
  return -1;
}

/* A lookup's error: with a shared store, a miss loads the asset and runs
 * req again (srv__load_then_resume answers or resumes); otherwise the error is
 * the answer. Returns -1. */
static int lookup_failed(srv_request_t *req, const srv_error_t *err,
                         const srv_lookup_miss_t *miss) {
  if (miss->missed && srv__load_then_resume(req, miss)) return -1;
  srv__respond_err(req, err);
  return -1;
}

int srv__lookup(srv_request_t *req, store_kind kind, const char *at,
                const char *name, const store_asset_t *skeleton,
                store_asset_t **out) {
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_lookup(srv__store(req), kind, at, name, skeleton, out, &err, &miss) !=
      0)
    return lookup_failed(req, &err, &miss);
  return 0;
}

int srv__resolve(srv_request_t *req, const srv_target_query_t *q,
                 srv_target_t *out) {
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_target_resolve(srv__store(req), q, out, &err, &miss) != 0)
    return lookup_failed(req, &err, &miss);
  return 0;
}

void srv__respond_deleted(srv_request_t *req, store_kind kind, const char *id) {
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(&b, "{\"deleted\":{\"kind\":\"%s\",\"id\":\"%s\"}}\n",
                 store_kind_name(kind), id);
  srv__respond_buf(req, 200, &b, NULL, NULL);
  fmt_buf_free(&b);
}

/* Two FNV-1a 64-bit hashes with different offsets: 128 bits is plenty to
 * tell apart the answers of one server, and ETags need no secrecy. */
void srv__etag(char *out, const void *parts, size_t len) {
  const unsigned char *p = parts;
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < len; i++) {
    h1 = (h1 ^ p[i]) * 0x100000001b3ull;
    h2 = (h2 ^ p[i]) * 0x100000001b3ull;
    h2 ^= h2 >> 29;
  }
  snprintf(out, 40, "\"%016llx%016llx\"", (unsigned long long)h1,
           (unsigned long long)h2);
}

bool srv__etag_matches(const srv_request_t *req, const char *etag) {
  const char *inm = srv_request_header(req, "If-None-Match");
  if (inm == NULL) return false;
  size_t elen = strlen(etag);
  const char *s = inm;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '\t') s++;
    if (*s == '*') return true;
    if (strncmp(s, "W/", 2) == 0) s += 2;
    const char *e = s;
    while (*e && *e != ',') e++;
    size_t n = (size_t)(e - s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n == elen && memcmp(s, etag, n) == 0) return true;
    s = e;
  }
  return false;
}

bool srv__respond_if_not_modified(srv_request_t *req, const char *etag) {
  if (!srv__etag_matches(req, etag)) return false;
  char extra[80];
  snprintf(extra, sizeof extra, "ETag: %s\r\n", etag);
  srv_respond(req, 304, NULL, extra, NULL, 0);
  return true;
}

void srv__fail(srv_request_t *req, srv_error_code code, const char *at,
               const char *fmt, ...) {
  srv_error_t err;
  srv_error_set(&err, code, at, NULL);
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
  }
  srv__respond_err(req, &err);
}

void srv__respond_err(srv_request_t *req, const srv_error_t *err) {
  srv_respond_error(req, srv_error_status(err->code), srv_error_name(err->code),
                    err->at[0] != '\0' ? err->at : NULL, "%s",
                    err->message[0] != '\0' ? err->message
                                            : srv_error_message(err->code));
}

void srv__fail_result(srv_request_t *req, anim_result r, const char *what) {
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  else
    srv__fail(req, SRV_ERR_INTERNAL, NULL, "%s: %s", what, anim_result_str(r));
}

void srv__respond_buf(srv_request_t *req, int status, fmt_buf_t *b,
                      const char *ctype, const char *extra) {
  if (b->failed) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  srv_respond(req, status, ctype ? ctype : "application/json", extra, b->data,
              b->len);
}

/* The table's status of a code (formats/error_codes.h): one status per
 * code, whichever layer reports it. */
int srv_error_kind_status(fmt_error_kind kind) {
  return fmt_error_status(kind);
}

void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err) {
  srv_respond_error(req, fmt_error_status(err->code), fmt_error_name(err->code),
                    err->at[0] ? err->at : NULL, "%s",
                    err->message[0] ? err->message
                                    : fmt_error_message(err->code));
}

void srv__range_run(srv_range_t *r, srv_request_t *req,
                    const srv_range_query_t *q, size_t frame_floats, bool bin,
                    unsigned long frame_cost, const char *extra) {
  r->frame_count = q->frames;
  size_t frame_bytes = frame_floats * (bin ? 4 : 12) + 64;
  r->batch = (uint32_t)(65536 / frame_bytes) + 1;
  r->frame_cost = frame_cost;
  srv__range_start(
      r, req, bin ? "application/octet-stream" : "application/x-ndjson", extra);
}
