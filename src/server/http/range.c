/* server: streamed ranges (range.h). */
#include "server/http/range.h"

#include <stdlib.h>

#include "server/config.h"
#include "server/http/gzip.h"
#include "server/schedule.h"

static void pump(srv_range_t *r);

static size_t high_water(const srv_range_t *r) {
  return srv_request_config(r->_req)->stream_high_water;
}

static void maybe_free(srv_range_t *r) {
  if (!r->_dead || r->_busy || r->_writes > 0) return;
  srv_request_t *req = r->_req;
  fmt_buf_free(&r->_out);
  fmt_buf_free(&r->_zout);
  srv_gzip_free(r->_gz);
  if (r->dispose) r->dispose(r);
  free(r);
  srv_request_release(req);
}

static void on_written(int status, void *arg) {
  srv_range_t *r = arg;
  r->_writes--;
  if (r->_dead) {
    maybe_free(r);
    return;
  }
  if (status < 0 || srv_request_gone(r->_req)) {
    /* The client is gone. A job in flight finds out when it completes;
     * otherwise nothing else will come back to this range. */
    r->_dead = true;
    maybe_free(r);
    return;
  }
  if (r->_waiting && srv_request_queued(r->_req) <= high_water(r) / 2) {
    r->_waiting = false;
    pump(r);
  }
}

static void work(srv_job_t *job) {
  srv_range_t *r = (srv_range_t *)job;
  r->_result = r->produce(r, r->_first, r->_n, &r->_out);
  if (r->_result != 0 || r->_gz == NULL || r->_out.failed) return;
  /* Compressed here, on the worker that made the batch. */
  fmt_buf_reset(&r->_zout);
  if (srv_gzip_deflate(r->_gz, r->_out.data, r->_out.len, false, &r->_zout) !=
      0) {
    r->_result = -1;
    return;
  }
  fmt_buf_t t = r->_out;
  r->_out = r->_zout;
  r->_zout = t;
}

/* The end of the gzip member (its CRC and length) as the last chunk. */
static bool finish_gzip(srv_range_t *r) {
  if (r->_gz == NULL) return true;
  fmt_buf_reset(&r->_out);
  if (srv_gzip_deflate(r->_gz, "", 0, true, &r->_out) != 0) return false;
  if (srv_respond_chunk(r->_req, r->_out.data, r->_out.len, on_written, r) == 0)
    r->_writes++;
  return true;
}

/* Sends the batch just produced; false when the range ended. */
static bool emit(srv_range_t *r) {
  if (r->_result != 0 || r->_out.failed) {
    r->_dead = true;
    srv_respond_abort(r->_req);
    return false;
  }
  if (srv_respond_chunk(r->_req, r->_out.data, r->_out.len, on_written, r) == 0)
    r->_writes++;
  fmt_buf_reset(&r->_out);
  r->_next += r->_n;
  return true;
}

static void done(srv_job_t *job, int status) {
  srv_range_t *r = (srv_range_t *)job;
  r->_busy = false;
  if (status != 0 || srv_request_gone(r->_req)) {
    r->_dead = true;
    maybe_free(r);
    return;
  }
  if (emit(r))
    pump(r);
  else
    maybe_free(r);
}

static void pump(srv_range_t *r) {
  srv_schedule_t *s = srv_request_schedule(r->_req);
  for (;;) {
    if (srv_request_gone(r->_req)) {
      r->_dead = true;
      break;
    }
    if (r->_next >= r->frame_count) {
      r->_dead = true;
      if (finish_gzip(r))
        srv_respond_end(r->_req);
      else
        srv_respond_abort(r->_req);
      break;
    }
    if (srv_request_queued(r->_req) > high_water(r)) {
      r->_waiting = true;
      return;
    }
    r->_first = r->_next;
    r->_n = r->frame_count - r->_next;
    if (r->_n > r->batch) r->_n = r->batch;
    unsigned long cost = r->frame_cost * r->_n;
    if (!srv_schedule_inline(s, cost)) {
      r->_busy = true;
      if (srv_schedule_submit(s, &r->job) == 0) return;
      /* A full pool: this range keeps going on the loop thread rather than
       * failing an answer that has started. */
      r->_busy = false;
    }
    work(&r->job);
    if (!emit(r)) break;
  }
  maybe_free(r);
}

void srv__range_start(srv_range_t *r, srv_request_t *req, const char *ctype,
                      const char *extra) {
  r->_req = req;
  r->job.work = work;
  r->job.done = done;
  if (r->batch == 0) r->batch = 1;
  fmt_buf_init(&r->_out);
  fmt_buf_init(&r->_zout);
  srv_request_hold(req);
  if (srv_respond_start(req, 200, ctype, extra) != 0) {
    r->_dead = true;
    srv_respond_abort(req);
    maybe_free(r);
    return;
  }
  r->_gz = srv_respond_take_gzip(req);
  if (req->method == SRV_HEAD) {
    /* The headers are the whole answer: no frame is computed. */
    r->_dead = true;
    srv_respond_end(req);
    maybe_free(r);
    return;
  }
  pump(r);
}
