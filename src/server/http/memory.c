/* server/http: the in-memory transport (memory.h).
 *
 * Key design choice: writes are kept as a FIFO of copies whose callbacks
 * run only from srv_http_memory_flush (or with UV_ECANCELED on close),
 * never inside the write call, as on a real socket. */
#include "server/http/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct mwrite_s {
  struct mwrite_s *next;
  srv_write_cb cb;
  void *arg;
  size_t len;
  char data[];
} mwrite_t;

struct srv_http_memory_s {
  srv_http_t *http;
  bool closed;      /* The server closed (or the client reset). */
  bool close_after; /* The server asked to close after its writes. */
  bool freed;       /* The client side is gone; free with the session. */
  mwrite_t *head, *tail;
  size_t queued;
  char *in; /* Client bytes not consumed by the session. */
  size_t in_off, in_len, in_cap;
  char *out; /* What the client has read. */
  size_t out_len, out_cap;
};

static int append(char **buf, size_t *len, size_t *cap, const void *data,
                  size_t n) {
  if (*len + n + 1 > *cap) {
    size_t c = *cap ? *cap : 4096;
    while (c < *len + n + 1) c *= 2;
    char *p = realloc(*buf, c);
    if (p == NULL) return UV_ENOMEM;
    *buf = p;
    *cap = c;
  }
  if (n) memcpy(*buf + *len, data, n);
  *len += n;
  (*buf)[*len] = '\0';
  return 0;
}

/* ---- the transport the session sees
 * ------------------------------------------- */

static int m_writev(void *ctx, const uv_buf_t *bufs, unsigned n,
                    srv_write_cb cb, void *arg) {
  srv_http_memory_t *m = ctx;
  if (m->closed || m->close_after) return UV_EPIPE;
  size_t len = 0;
  for (unsigned i = 0; i < n; i++) len += bufs[i].len;
  mwrite_t *w = malloc(sizeof *w + (len ? len : 1));
  if (w == NULL) return UV_ENOMEM;
  w->next = NULL;
  w->cb = cb;
  w->arg = arg;
  w->len = len;
  size_t off = 0;
  for (unsigned i = 0; i < n; i++) {
    if (bufs[i].len) memcpy(w->data + off, bufs[i].base, bufs[i].len);
    off += bufs[i].len;
  }
  if (m->tail)
    m->tail->next = w;
  else
    m->head = w;
  m->tail = w;
  m->queued += len;
  return 0;
}

static size_t m_queued(void *ctx) { return ((srv_http_memory_t *)ctx)->queued; }

static void m_unread(void *ctx, const char **data, size_t *len) {
  srv_http_memory_t *m = ctx;
  *data = m->in ? m->in + m->in_off : "";
  *len = m->in_len - m->in_off;
}

static void m_consume(void *ctx, size_t n) {
  srv_http_memory_t *m = ctx;
  m->in_off += n;
  if (m->in_off >= m->in_len) m->in_off = m->in_len = 0;
}

static void cancel_writes(srv_http_memory_t *m) {
  while (m->head != NULL) {
    mwrite_t *w = m->head;
    m->head = w->next;
    m->queued -= w->len;
    if (w->cb) w->cb(UV_ECANCELED, w->arg);
    free(w);
  }
  m->tail = NULL;
}

static void close_now(srv_http_memory_t *m) {
  if (m->closed) return;
  m->closed = true;
  srv_http_t *h = m->http;
  m->http = NULL;
  srv_http_on_close(h);
  cancel_writes(m);
  if (m->freed) free(m);
}

static void m_close(void *ctx) { close_now(ctx); }

static void m_close_after_writes(void *ctx) {
  srv_http_memory_t *m = ctx;
  m->close_after = true;
  if (m->queued == 0) close_now(m);
}

static const char *m_peer(void *ctx) {
  (void)ctx;
  return "memory";
}

static const srv_http_io_t memory_io = {
    m_writev, m_queued, m_unread, m_consume, m_close, m_close_after_writes,
    m_peer,   NULL,
};

/* ---- the client's side
 * ------------------------------------------------------------- */

srv_http_memory_t *srv_http_memory_new(srv_http_host_t *host) {
  srv_http_memory_t *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  if (srv_http_new(host, &memory_io, m, &m->http) != 0) {
    free(m);
    return NULL;
  }
  return m;
}

void srv_http_memory_send(srv_http_memory_t *m, const void *data, size_t len) {
  if (m->closed || m->close_after) return;
  if (append(&m->in, &m->in_len, &m->in_cap, data, len) != 0) return;
  srv_http_on_read(m->http, (ssize_t)len);
}

void srv_http_memory_eof(srv_http_memory_t *m) {
  if (!m->closed) srv_http_on_read(m->http, UV_EOF);
}

size_t srv_http_memory_flush(srv_http_memory_t *m, size_t max) {
  size_t done = 0;
  while (m->head != NULL && done < max && !m->closed) {
    mwrite_t *w = m->head;
    m->head = w->next;
    if (m->head == NULL) m->tail = NULL;
    m->queued -= w->len;
    done += w->len;
    append(&m->out, &m->out_len, &m->out_cap, w->data, w->len);
    if (w->cb) w->cb(0, w->arg);
    free(w);
    if (m->close_after) {
      if (m->queued == 0) close_now(m);
    } else if (m->http != NULL) {
      srv_http_on_drain(m->http);
    }
  }
  return done;
}

const char *srv_http_memory_output(const srv_http_memory_t *m, size_t *len) {
  if (len) *len = m->out_len;
  return m->out ? m->out : "";
}

void srv_http_memory_take(srv_http_memory_t *m, size_t n) {
  if (n > m->out_len) n = m->out_len;
  memmove(m->out, m->out + n, m->out_len - n);
  m->out_len -= n;
  if (m->out) m->out[m->out_len] = '\0';
}

size_t srv_http_memory_queued(const srv_http_memory_t *m) { return m->queued; }

bool srv_http_memory_closed(const srv_http_memory_t *m) { return m->closed; }

void srv_http_memory_reset(srv_http_memory_t *m) { close_now(m); }

void srv_http_memory_free(srv_http_memory_t *m) {
  if (m == NULL) return;
  free(m->in);
  free(m->out);
  m->in = m->out = NULL;
  m->in_len = m->in_off = m->out_len = 0;
  if (m->closed) {
    free(m);
    return;
  }
  m->freed = true;
  close_now(m);
}
