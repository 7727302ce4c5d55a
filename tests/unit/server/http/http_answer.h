/* An HTTP/1.1 answer as the unit tests read it from an in-memory client's
 * output: status, head, and the body (Content-Length, chunked, or up to
 * the close), shared by the fixtures of a whole server
 * (http_memory_fixture.h) and of a bare HTTP host (http_host_fixture.h),
 * and the loop that waits for one. */
#ifndef ANIMD_TESTS_HTTP_ANSWER_H
#define ANIMD_TESTS_HTTP_ANSWER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uv.h>

#include "server/http/memory.h"

/* One parsed answer. */
typedef struct http_answer_s {
  int status;
  char head[4096]; /* Status line and headers, NUL-terminated. */
  char *body;      /* malloc'd, NUL-terminated (chunked bodies joined). */
  size_t body_len;
  bool chunked;
} http_answer_t;

/* needle in the first len bytes of text, case-insensitively (NULL when
 * not there). */
static inline const char *http_answer_find_ci(const char *text, size_t len,
                                              const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= len; i++)
    if (strncasecmp(text + i, needle, n) == 0) return text + i;
  return NULL;
}

/* Length of a complete answer at the start of text (0 when incomplete);
 * fills a when given. A body without Content-Length or chunked framing
 * runs to the end of the output, complete only once closed. */
static inline size_t http_answer_parse(const char *text, size_t len,
                                       http_answer_t *a, bool head_request,
                                       bool closed) {
  /* Every search is bounded by len: a megabyte answer arrives in many
   * reads and is parsed again after them. */
  const char *end = memmem(text, len, "\r\n\r\n", 4);
  if (end == NULL) return 0;
  size_t hlen = (size_t)(end - text) + 4;
  int status = 0;
  if (sscanf(text, "HTTP/1.1 %d", &status) != 1) return 0;
  const char *cl = http_answer_find_ci(text, hlen, "\r\nContent-Length: ");
  const char *te =
      http_answer_find_ci(text, hlen, "\r\nTransfer-Encoding: chunked");
  size_t total = hlen;
  char *body = NULL;
  size_t blen = 0, cap = 0;
  bool no_body = head_request || status == 304 || status == 204 || status < 200;
  if (!no_body && cl != NULL) {
    size_t n = strtoull(cl + 18, NULL, 10);
    if (hlen + n > len) return 0;
    total = hlen + n;
    if (a) {
      body = malloc(n + 1);
      memcpy(body, text + hlen, n);
      body[n] = '\0';
      blen = n;
    }
  } else if (!no_body && te != NULL) {
    size_t pos = hlen;
    if (a) body = calloc(1, 1);
    for (;;) {
      const char *crlf = memmem(text + pos, len - pos, "\r\n", 2);
      if (crlf == NULL) {
        free(body);
        return 0;
      }
      size_t n = strtoull(text + pos, NULL, 16);
      size_t data = (size_t)(crlf - text) + 2;
      if (data + n + 2 > len) {
        free(body);
        return 0;
      }
      if (a && n > 0) {
        if (blen + n + 1 > cap) {
          cap = 2 * (blen + n + 1);
          body = realloc(body, cap);
        }
        memcpy(body + blen, text + data, n);
        blen += n;
        body[blen] = '\0';
      }
      pos = data + n + 2;
      if (n == 0) break;
    }
    total = pos;
  } else if (!no_body) {
    /* Delimited by the close (HTTP/1.0 streams). */
    if (!closed) return 0;
    total = len;
    if (a) {
      blen = len - hlen;
      body = malloc(blen + 1);
      memcpy(body, text + hlen, blen);
      body[blen] = '\0';
    }
  }
  if (a) {
    a->status = status;
    size_t c = hlen < sizeof a->head ? hlen : sizeof a->head - 1;
    memcpy(a->head, text, c);
    a->head[c] = '\0';
    a->body = body ? body : calloc(1, 1);
    a->body_len = blen;
    a->chunked = te != NULL;
  }
  return total;
}

/* Turns loop and reads m's output until an answer is complete (or
 * timeout_ns pass, or m is closed with nothing left), then takes it from
 * the output. Returns false when none came. */
static inline bool http_answer_read(uv_loop_t *loop, srv_http_memory_t *m,
                                    http_answer_t *a, bool head_request,
                                    uint64_t timeout_ns) {
  uint64_t end = uv_hrtime() + timeout_ns;
  memset(a, 0, sizeof *a);
  /* A parse reads the whole output: it is tried again when the output
   * stopped growing, doubled, or the connection closed, not on every
   * pass (a streamed answer of megabytes would be read once a chunk). */
  size_t tried = 0, before = 0;
  bool any_tried = false;
  while (uv_hrtime() < end) {
    uv_run(loop, UV_RUN_NOWAIT);
    srv_http_memory_flush(m, SIZE_MAX);
    size_t len;
    const char *out = srv_http_memory_output(m, &len);
    bool closed = srv_http_memory_closed(m);
    bool stalled = len == before;
    before = len;
    if (!any_tried ||
        (len != tried && (closed || stalled || len >= 2 * tried))) {
      any_tried = true;
      tried = len;
      size_t n = http_answer_parse(out, len, NULL, head_request, closed);
      if (n > 0) {
        http_answer_parse(out, len, a, head_request, closed);
        srv_http_memory_take(m, n);
        return true;
      }
    }
    if (closed && len == tried && srv_http_memory_queued(m) == 0) break;
  }
  return false;
}

#endif
