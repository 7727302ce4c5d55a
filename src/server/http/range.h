/* server: streamed range answers (from/to/fps): frames are computed in
 * batches on the pool and sent as chunks as soon as each batch is done.
 *
 * Memory stays bounded: one batch (about 64 KiB of answer) is computed at
 * a time, and the next batch starts only while the connection has less
 * than stream_high_water bytes queued (pull-based backpressure). A client
 * that leaves mid-range stops the production; the range frees itself once
 * its job and its writes are finished. A gzip-coded range is compressed
 * by the job that made each batch, off the loop thread. */
#ifndef ANIMD_SERVER_RANGE_H
#define ANIMD_SERVER_RANGE_H

#include "formats/buf.h"
#include "server/http/http.h"
#include "server/pool.h"

typedef struct srv_range_s srv_range_t;
struct srv_range_s {
  srv_job_t job; /* private: first member */
  /* Filled by the handler. */
  uint32_t frame_count;
  uint32_t batch;           /* Frames per job (>= 1). */
  unsigned long frame_cost; /* Work estimate per frame (task.h). */
  /* Worker thread: append frames [first, first + n) to out. 0 or -1. */
  int (*produce)(srv_range_t *r, uint32_t first, uint32_t n, fmt_buf_t *out);
  /* Loop thread, once, last: free what the handler attached. */
  void (*dispose)(srv_range_t *r);
  /* private */
  srv_request_t *_req;
  fmt_buf_t _out;
  struct srv_gzip_s *_gz; /* The answer's deflate, or NULL (gzip.h). */
  fmt_buf_t _zout;        /* A batch compressed, swapped into _out. */
  uint32_t _next, _first, _n;
  unsigned _writes;
  int _result;
  bool _busy, _waiting, _dead;
};

/* Sends the head (status 200, ctype, extra headers) and streams. r must be
 * heap-allocated with malloc (it is freed with free after dispose). */
void srv__range_start(srv_range_t *r, srv_request_t *req, const char *ctype,
                      const char *extra);

#endif
