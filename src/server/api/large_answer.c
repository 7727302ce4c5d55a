/* server: large answers streamed a slice at a time (large_answer.h). */
#include "server/api/large_answer.h"

#include <stdint.h>
#include <stdlib.h>

#include "server/api/answer.h"
#include "server/config.h"
#include "server/http/gzip.h"

/* Bytes handed to the connection per slice: at most what the loop may
 * deflate in one go. */
#define SLICE SRV_GZIP_WHOLE_MAX

typedef struct large_s {
  srv_request_t *req;
  fmt_buf_t buf;
  size_t off;
  unsigned writes; /* Slices not yet written. */
  bool waiting;    /* For a write to complete (and the queue to drain). */
  bool done;       /* Nothing more will be sent. */
} large_t;

static size_t high_water(const large_t *a) {
  return srv_request_config(a->req)->stream_high_water;
}

static void maybe_free(large_t *a) {
  if (!a->done || a->writes > 0) return;
  srv_request_t *req = a->req;
  fmt_buf_free(&a->buf);
  free(a);
  srv_request_release(req);
}

static void pump(large_t *a);

static void on_written(int status, void *arg) {
  large_t *a = arg;
  a->writes--;
  if (!a->done && (status < 0 || srv_request_gone(a->req))) a->done = true;
  if (!a->done && a->waiting &&
      srv_request_queued(a->req) <= high_water(a) / 2) {
    a->waiting = false;
    pump(a);
    return;
  }
  maybe_free(a);
}

static void pump(large_t *a) {
  while (!a->done) {
    if (srv_request_gone(a->req)) {
      a->done = true;
      break;
    }
    if (a->off == a->buf.len) {
      a->done = true;
      srv_respond_end(a->req);
      break;
    }
    if (srv_request_queued(a->req) > high_water(a)) {
      a->waiting = true;
      return;
    }
    size_t n = a->buf.len - a->off;
    if (n > SLICE) n = SLICE;
    if (srv_respond_chunk(a->req, a->buf.data + a->off, n, on_written, a) !=
        0) {
      /* The connection is closing: it cannot be answered any more. */
      a->done = true;
      srv_respond_abort(a->req);
      break;
    }
    a->writes++;
    a->off += n;
    /* One slice per turn: the next when its write completes (a
     * transport that completed it already goes on). */
    if (a->writes > 0) {
      a->waiting = true;
      return;
    }
  }
  maybe_free(a);
}

/* Answers b, streamed from identity_min bytes on (gzip-coded: past
 * SRV_GZIP_WHOLE_MAX). */
static void respond(srv_request_t *req, int status, fmt_buf_t *b,
                    const char *ctype, const char *extra, size_t identity_min) {
  large_t *a = NULL;
  const char *type = ctype ? ctype : "application/json";
  bool large = b->len >= identity_min ||
               (b->len > SRV_GZIP_WHOLE_MAX && srv_respond_gzips(req, type));
  if (!b->failed && large && req->method != SRV_HEAD) a = calloc(1, sizeof *a);
  if (a == NULL) {
    /* Small, a HEAD (no body is sent), failed, or no memory for the
     * stream: the answer as a whole. */
    srv__respond_buf(req, status, b, ctype, extra);
    fmt_buf_free(b);
    return;
  }
  a->req = req;
  a->buf = *b;
  fmt_buf_init(b);
  srv_request_hold(req);
  if (srv_respond_start(req, status, type, extra) != 0) {
    a->done = true;
    srv_respond_abort(req);
    maybe_free(a);
    return;
  }
  pump(a);
}

void srv__respond_large(srv_request_t *req, int status, fmt_buf_t *b,
                        const char *ctype, const char *extra) {
  respond(req, status, b, ctype, extra, SRV_LARGE_ANSWER);
}

void srv__respond_evaluated(srv_request_t *req, int status, fmt_buf_t *b,
                            const char *ctype, const char *extra) {
  respond(req, status, b, ctype, extra, SIZE_MAX);
}
