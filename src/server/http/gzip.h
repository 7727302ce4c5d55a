/* server/http: gzip content coding of HTTP answers (RFC 9110 8.4.1,
 * zlib's deflate with a gzip wrapper).
 *
 * Which answers: those the client accepts gzip for (Accept-Encoding) whose
 * type is JSON (application/json, application/x-ndjson: JSON answers and
 * JSON ranges) and, for one-shot answers, of at least SRV_GZIP_MIN_BYTES.
 * Binary answers are not compressed: measured on CesiumMan frames, gzip
 * keeps 72-77% of float32 and 80-82% of q16 for a deflate per frame,
 * while q16 alone is 42% of float32 for nothing (docs/performance.md).
 *
 * Key design choice: a stream, not a buffer. A chunked answer keeps one
 * deflate state and compresses each chunk as it is sent, flushed to a
 * byte boundary (Z_SYNC_FLUSH) so every chunk can be decoded as soon as
 * it arrives; memory is the deflate state (about 256 KiB) plus one
 * chunk's output, however long the range.
 *
 * The loop thread deflates at most SRV_GZIP_WHOLE_MAX bytes at a time: a
 * one-shot answer up to that size whole, a larger one a slice per turn
 * (api/large_answer.h), and a range's chunks are deflated by the worker
 * that made them (http/range.h, srv_respond_take_gzip). A stream is used
 * by one thread at a time. */
#ifndef ANIMD_SERVER_HTTP_GZIP_H
#define ANIMD_SERVER_HTTP_GZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/buf.h"

/* One-shot answers shorter than this go out as they are: one packet
 * either way, and gzip adds 18 bytes of its own. */
#define SRV_GZIP_MIN_BYTES 1024
/* zlib's level: 1, the fastest, keeps 42% of a JSON skin answer against
 * 36% at level 6 for a third of the CPU. */
#define SRV_GZIP_LEVEL 1
/* The most bytes the loop thread deflates in one go (about 2 ms at level
 * 1): a one-shot answer larger than this goes out sliced, or as it is. */
#define SRV_GZIP_WHOLE_MAX (256u << 10)

/* True when an Accept-Encoding value (NULL: none) accepts gzip: "gzip"
 * or "x-gzip" with a q above 0, or "*" with a q above 0 and gzip not
 * listed. */
bool srv_gzip_accepted(const char *accept_encoding);

/* True for the content types compressed (JSON, JSON lines and SVG). */
bool srv_gzip_type(const char *content_type);

typedef struct srv_gzip_s srv_gzip_t;

/* A deflate stream with a gzip wrapper, or NULL when out of memory. */
srv_gzip_t *srv_gzip_new(void);
void srv_gzip_free(srv_gzip_t *z); /* NULL is allowed. */

/* Compresses len bytes of in, appending to out: flushed to a byte
 * boundary, or, with finish, the end of the gzip member (len may then be
 * 0). 0, or -1 (zlib failed, or out has failed). */
int srv_gzip_deflate(srv_gzip_t *z, const void *in, size_t len, bool finish,
                     fmt_buf_t *out);

#endif
