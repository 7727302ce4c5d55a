/* server: answers made whole before they are sent (an asset in full, a
 * list, solved rotations) that can be tens or hundreds of megabytes.
 * Handing such a buffer to the connection at once costs the loop thread
 * a copy of all of it (and, for a client that takes gzip, compressing all
 * of it): a stall of hundreds of milliseconds. A large answer is sent as
 * a chunked stream instead, a slice at a time while the connection has
 * less than stream_high_water bytes queued (as ranges are, http/range.h),
 * so the loop does a slice's work per turn: one slice is handed over (and,
 * gzip-coded, compressed: SRV_GZIP_WHOLE_MAX bytes at most) per write
 * that completes. A JSON answer to a client that takes gzip is streamed
 * from SRV_GZIP_WHOLE_MAX on (http/gzip.h). The body's bytes are the
 * same. */
#ifndef ANIMD_SERVER_LARGE_ANSWER_H
#define ANIMD_SERVER_LARGE_ANSWER_H

#include "formats/buf.h"
#include "server/http/http.h"

/* Answers smaller than this go out whole, with a Content-Length (unless
 * gzip-coded and larger than SRV_GZIP_WHOLE_MAX). */
#define SRV_LARGE_ANSWER (1u << 20)

/* Answers b (application/json unless ctype) with status and extra
 * headers, taking its memory over (b is left empty). A failed b answers
 * 500 out_of_memory. */
void srv__respond_large(srv_request_t *req, int status, fmt_buf_t *b,
                        const char *ctype, const char *extra);

/* The same for an answer that has always gone out whole with a
 * Content-Length (a pose or skin answer): streamed only when it is
 * gzip-coded and larger than SRV_GZIP_WHOLE_MAX. */
void srv__respond_evaluated(srv_request_t *req, int status, fmt_buf_t *b,
                            const char *ctype, const char *extra);

#endif
