/* server/net: TCP connections: accept or open, the read buffer, queued
 * writes, graceful and immediate close, references (see conn.h).
 *
 * Key choice: a connection owns two handles (the TCP stream and a timer
 * that bounds its graceful close) and is freed only when both have closed
 * and no reference remains, so a job that finishes after its client left
 * finds valid memory and a closing flag instead of a dangling pointer. */
#include "server/net/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/net/socket_close.h"
#include "server/net/socket_write.h"

#define READ_MIN_FREE 4096
#define READ_INITIAL 16384
#define DEFAULT_READ_LIMIT 65536
#define DEFAULT_LINGER_MS 2000

struct srv_conn_s {
  uv_tcp_t tcp;
  uv_timer_t timer; /* Bounds a graceful close. */
  uv_shutdown_t shutdown_req;
  srv_conn_set_t *set;
  srv_conn_t *prev, *next; /* In set. */
  unsigned refs;
  unsigned pending_closes; /* Handles still closing. */
  bool closing;
  bool close_when_drained; /* srv_conn_close_after_writes was called. */
  bool shutdown_sent;
  bool reading;
  bool eof;     /* The peer half-closed. */
  bool batched; /* A write waits in a send batch (batch_done, batch_arg). */
  bool close_after_batch; /* srv_conn_close came meanwhile. */
  srv_conn_cause cause;   /* Why it closed itself (srv_conn_close_cause). */
  srv_write_cb batch_done;
  void *batch_arg;
  size_t queued;
  size_t read_limit;
  uint64_t linger_ms;
  uint64_t write_timeout_ms;
  size_t progress_mark; /* Bytes still to write when the timer was armed. */
  const srv_conn_proto_t *proto;
  void *user;
  char peer[96];
  /* Bytes read but not yet consumed by the protocol. */
  char *rbuf;
  size_t roff, rlen, rcap;
};

typedef struct wreq_s {
  uv_write_t req;
  srv_conn_t *conn;
  srv_write_cb cb;
  void *arg;
  size_t len;
  char data[];
} wreq_t;

static void start_reading(srv_conn_t *c);

/* ---- life cycle
 * -------------------------------------------------------------- */

static void set_remove(srv_conn_t *c) {
  srv_conn_set_t *set = c->set;
  if (set == NULL) return;
  if (c->prev)
    c->prev->next = c->next;
  else
    set->head = c->next;
  if (c->next) c->next->prev = c->prev;
  c->prev = c->next = NULL;
  c->set = NULL;
  if (set->total) atomic_fetch_sub(set->total, 1);
  if (--set->count == 0 && set->on_empty) set->on_empty(set);
}

static void maybe_free(srv_conn_t *c) {
  if (!c->closing || c->pending_closes > 0 || c->refs > 0) return;
  free(c->rbuf);
  free(c);
}

static void on_handle_closed(uv_handle_t *h) {
  srv_conn_t *c = h->data;
  c->pending_closes--;
  maybe_free(c);
}

void srv_conn_close(srv_conn_t *c) {
  if (c->closing) return;
  /* The batch holds the socket's number: it is closed once the batch has
   * run, so the write cannot reach a socket opened meanwhile. */
  if (c->batched) {
    c->close_after_batch = true;
    return;
  }
  c->closing = true;
  c->pending_closes = 2;
  /* Freed only after the handles: a reference keeps it through on_close
   * and the set's on_empty. */
  c->refs++;
  if (c->proto && c->proto->on_close) c->proto->on_close(c, c->user);
  c->proto = NULL;
  set_remove(c);
  srv_socket_close((uv_handle_t *)&c->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&c->timer, on_handle_closed);
  srv_conn_unref(c);
}

static srv_conn_t *conn_new(uv_loop_t *loop, const srv_conn_opts_t *o) {
  srv_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->read_limit = o && o->read_limit ? o->read_limit : DEFAULT_READ_LIMIT;
  c->linger_ms = o && o->linger_ms ? o->linger_ms : DEFAULT_LINGER_MS;
  c->write_timeout_ms = o ? o->write_timeout_ms : 0;
  uv_tcp_init(loop, &c->tcp);
  uv_timer_init(loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  snprintf(c->peer, sizeof c->peer, "-");
  /* From here the connection closes through srv_conn_close like any
   * other. */
  srv_conn_set_t *set = o ? o->set : NULL;
  if (set != NULL) {
    c->set = set;
    c->next = set->head;
    if (set->head) set->head->prev = c;
    set->head = c;
    set->count++;
    if (set->total) atomic_fetch_add(set->total, 1);
  }
  return c;
}

static void name_peer(srv_conn_t *c) {
  struct sockaddr_storage ss;
  int len = sizeof ss;
  if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) != 0) return;
  char ip[INET6_ADDRSTRLEN];
  if (ss.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    uv_ip6_name(a, ip, sizeof ip);
    snprintf(c->peer, sizeof c->peer, "[%s]:%d", ip, ntohs(a->sin6_port));
  } else if (ss.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    uv_ip4_name(a, ip, sizeof ip);
    snprintf(c->peer, sizeof c->peer, "%s:%d", ip, ntohs(a->sin_port));
  }
}

int srv_conn_accept(uv_stream_t *listener, const srv_conn_opts_t *o,
                    srv_conn_t **out) {
  srv_conn_t *c = conn_new(listener->loop, o);
  if (c == NULL) return UV_ENOMEM;
  int rc = uv_accept(listener, (uv_stream_t *)&c->tcp);
  if (rc != 0) {
    srv_conn_close(c);
    return rc;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  name_peer(c);
  *out = c;
  return 0;
}

int srv_conn_open(uv_loop_t *loop, uv_os_sock_t fd, const srv_conn_opts_t *o,
                  srv_conn_t **out) {
  srv_conn_t *c = conn_new(loop, o);
  if (c == NULL) {
    close(fd);
    return UV_ENOMEM;
  }
  int rc = uv_tcp_open(&c->tcp, fd);
  if (rc != 0) {
    close(fd);
    srv_conn_close(c);
    return rc;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  name_peer(c);
  *out = c;
  return 0;
}

bool srv_conn_is_closing(const srv_conn_t *c) { return c->closing; }

srv_conn_cause srv_conn_close_cause(const srv_conn_t *c) { return c->cause; }

/* Closes now for cause (the first cause given stays). */
static void close_for(srv_conn_t *c, srv_conn_cause cause) {
  if (!c->closing && c->cause == SRV_CONN_CAUSE_NONE) c->cause = cause;
  srv_conn_close(c);
}

int srv_conn_dup_socket(const srv_conn_t *c, uv_os_sock_t *fd) {
  uv_os_fd_t own;
  int rc = uv_fileno((const uv_handle_t *)&c->tcp, &own);
  if (rc != 0) return rc;
  int d = fcntl(own, F_DUPFD_CLOEXEC, 0);
  if (d < 0) return -errno;
  *fd = d;
  return 0;
}

void srv_conn_ref(srv_conn_t *c) { c->refs++; }

void srv_conn_unref(srv_conn_t *c) {
  c->refs--;
  maybe_free(c);
}

void srv_conn_set_each(srv_conn_set_t *set,
                       void (*fn)(srv_conn_t *conn, void *arg), void *arg) {
  /* fn may close any of them, which unlinks it: walk a referenced copy. */
  unsigned n = set->count, i = 0;
  srv_conn_t **all = malloc((n ? n : 1) * sizeof *all);
  if (all == NULL) return;
  for (srv_conn_t *c = set->head; c != NULL && i < n; c = c->next) {
    c->refs++;
    all[i++] = c;
  }
  for (unsigned k = 0; k < i; k++) {
    if (!all[k]->closing) fn(all[k], arg);
    srv_conn_unref(all[k]);
  }
  free(all);
}

void *srv_conn_user(const srv_conn_t *c) { return c->user; }

bool srv_conn_speaks(const srv_conn_t *c, const srv_conn_proto_t *proto) {
  return c->proto == proto;
}

uv_loop_t *srv_conn_loop(const srv_conn_t *c) { return c->tcp.loop; }

const char *srv_conn_peer(const srv_conn_t *c) { return c->peer; }

size_t srv_conn_queued(const srv_conn_t *c) { return c->queued; }

/* ---- the timer: a graceful close (flush, FIN, wait for the peer's FIN)
 * bounded by linger_ms without progress, and writes that make no progress
 * for write_timeout_ms. ------------------------------------------------------
 */

static size_t bytes_pending(const srv_conn_t *c) {
  return c->queued + uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
}

static void on_timer(uv_timer_t *t) {
  srv_conn_t *c = t->data;
  size_t now = bytes_pending(c);
  if (!c->shutdown_sent && now > 0 && now < c->progress_mark) {
    /* Still flushing, slowly: give it another period. */
    c->progress_mark = now;
    uv_timer_start(&c->timer, on_timer,
                   c->close_when_drained ? c->linger_ms : c->write_timeout_ms,
                   0);
    return;
  }
  close_for(c, c->close_when_drained || c->shutdown_sent
                   ? SRV_CONN_CAUSE_LINGER
                   : SRV_CONN_CAUSE_WRITE_TIMEOUT);
}

/* Watches a write queue that has just become non-empty. */
static void watch_writes(srv_conn_t *c) {
  if (c->close_when_drained || c->write_timeout_ms == 0 ||
      uv_is_active((uv_handle_t *)&c->timer))
    return;
  c->progress_mark = bytes_pending(c);
  uv_timer_start(&c->timer, on_timer, c->write_timeout_ms, 0);
}

static void on_shutdown(uv_shutdown_t *req, int status) {
  srv_conn_t *c = req->data;
  if (c->closing) return;
  if (status < 0 || c->eof) srv_conn_close(c);
  /* Otherwise the peer's FIN (on_read) or the timer ends it. */
}

static void begin_shutdown(srv_conn_t *c) {
  if (c->shutdown_sent || c->closing) return;
  c->shutdown_sent = true;
  c->shutdown_req.data = c;
  uv_timer_start(&c->timer, on_timer, c->linger_ms, 0);
  if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, on_shutdown) != 0)
    srv_conn_close(c);
  else
    start_reading(c); /* To see the peer's FIN; the rest is discarded. */
}

void srv_conn_close_after_writes(srv_conn_t *c) {
  if (c->closing || c->close_when_drained) return;
  c->close_when_drained = true;
  if (c->queued == 0 && !c->batched) {
    begin_shutdown(c);
    return;
  }
  c->progress_mark = bytes_pending(c);
  uv_timer_stop(&c->timer);
  uv_timer_start(&c->timer, on_timer, c->linger_ms, 0);
}

/* ---- writes ----------------------------------------------------------------
 */

static void on_write(uv_write_t *r, int status) {
  wreq_t *w = (wreq_t *)r;
  srv_conn_t *c = w->conn;
  c->queued -= w->len;
  if (w->cb) w->cb(status, w->arg);
  free(w);
  if (c->closing) return;
  if (status < 0) {
    close_for(c, SRV_CONN_CAUSE_WRITE_ERROR);
    return;
  }
  if (c->close_when_drained) {
    if (c->queued == 0) begin_shutdown(c);
    return;
  }
  if (c->queued == 0) uv_timer_stop(&c->timer);
  if (c->proto && c->proto->on_drain) c->proto->on_drain(c, c->user);
}

/* Nothing closes it, and no write of it waits in a send batch. */
static bool accepts_writes(const srv_conn_t *c) {
  return !c->closing && !c->close_when_drained && !c->batched &&
         !c->close_after_batch;
}

/* Takes over request r of len bytes queued by srv_socket_write(_rest). */
static void track_queued(srv_conn_t *c, uv_write_t *r, size_t len,
                         srv_write_cb cb, void *arg) {
  wreq_t *w = (wreq_t *)r;
  w->conn = c;
  w->cb = cb;
  w->arg = arg;
  w->len = len;
  c->queued += len;
  watch_writes(c);
}

int srv_conn_writev(srv_conn_t *c, const uv_buf_t *bufs, unsigned nbufs,
                    srv_write_cb cb, void *arg) {
  if (!accepts_writes(c)) return UV_EPIPE;
  /* Straight to the socket when nothing is queued and nobody waits for a
   * callback: no copy and no request. */
  uv_write_t *r;
  size_t len;
  int rc = srv_socket_write((uv_stream_t *)&c->tcp, bufs, nbufs,
                            cb == NULL && c->queued == 0,
                            offsetof(wreq_t, data), on_write, &r, &len);
  if (rc != 0 || r == NULL) return rc;
  track_queued(c, r, len, cb, arg);
  return 0;
}

static void on_batch_sent(void *arg, const uv_buf_t *bufs, unsigned nbufs,
                          ssize_t sent) {
  srv_conn_t *c = arg;
  c->batched = false;
  int rc = sent < 0 ? (int)sent : 0;
  size_t total = 0;
  for (unsigned i = 0; i < nbufs; i++) total += bufs[i].len;
  if (rc == 0 && (size_t)sent < total) {
    if (c->closing || c->close_after_batch) {
      rc = UV_EPIPE;
    } else {
      uv_write_t *r;
      size_t len;
      rc = srv_socket_write_rest((uv_stream_t *)&c->tcp, bufs, nbufs,
                                 (size_t)sent, offsetof(wreq_t, data), on_write,
                                 &r, &len);
      if (rc == 0) track_queued(c, r, len, NULL, NULL);
    }
  }
  srv_write_cb done = c->batch_done;
  void *done_arg = c->batch_arg;
  done(rc, done_arg);
  if (c->close_after_batch)
    srv_conn_close(c);
  else if (c->close_when_drained && c->queued == 0)
    begin_shutdown(c);
  srv_conn_unref(c);
}

int srv_conn_writev_batched(srv_conn_t *c, srv_send_batch_t *b,
                            const uv_buf_t *bufs, unsigned nbufs,
                            srv_write_cb done, void *arg) {
  if (!accepts_writes(c)) return UV_EPIPE;
  size_t total = 0;
  for (unsigned i = 0; i < nbufs; i++) total += bufs[i].len;
  uv_os_fd_t fd;
  if (c->queued != 0 || total == 0 ||
      uv_fileno((uv_handle_t *)&c->tcp, &fd) != 0)
    return srv_conn_writev(c, bufs, nbufs, NULL, NULL);
  int rc = srv_send_batch_add(b, fd, bufs, nbufs, on_batch_sent, c);
  if (rc != 0) return srv_conn_writev(c, bufs, nbufs, NULL, NULL);
  c->batched = true;
  c->batch_done = done;
  c->batch_arg = arg;
  srv_conn_ref(c);
  return 1;
}

int srv_conn_write(srv_conn_t *c, const void *data, size_t len, srv_write_cb cb,
                   void *arg) {
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
  return srv_conn_writev(c, &b, 1, cb, arg);
}

/* ---- reads -----------------------------------------------------------------
 */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  srv_conn_t *c = h->data;
  if (c->roff == c->rlen) c->roff = c->rlen = 0;
  if (c->rcap - c->rlen < READ_MIN_FREE && c->roff > 0) {
    memmove(c->rbuf, c->rbuf + c->roff, c->rlen - c->roff);
    c->rlen -= c->roff;
    c->roff = 0;
  }
  if (c->rcap - c->rlen < READ_MIN_FREE && c->rcap < c->read_limit) {
    size_t cap = c->rcap ? c->rcap * 2 : READ_INITIAL;
    char *p = realloc(c->rbuf, cap);
    if (p != NULL) {
      c->rbuf = p;
      c->rcap = cap;
    }
  }
  *buf = uv_buf_init(c->rbuf + c->rlen, (unsigned)(c->rcap - c->rlen));
  if (c->rbuf == NULL) *buf = uv_buf_init(NULL, 0);
}

static bool buffer_full(const srv_conn_t *c) {
  return c->rcap - (c->rlen - c->roff) < READ_MIN_FREE &&
         c->rcap >= c->read_limit;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  srv_conn_t *c = s->data;
  if (nread == 0 || c->closing) return;
  if (c->shutdown_sent) {
    /* Closing gracefully: what the peer sends is discarded; its FIN (or
     * an error) ends the connection. */
    c->roff = c->rlen = 0;
    if (nread < 0) srv_conn_close(c);
    return;
  }
  if (nread < 0) {
    if (nread == UV_EOF) c->eof = true;
    uv_read_stop(s);
    c->reading = false;
    if (c->proto)
      c->proto->on_read(c, nread, c->user);
    else
      srv_conn_close(c);
    return;
  }
  c->rlen += (size_t)nread;
  if (c->close_when_drained) {
    c->roff = c->rlen = 0; /* Nobody will read these. */
    return;
  }
  srv_conn_ref(c);
  c->proto->on_read(c, nread, c->user);
  /* A protocol that paused with a full buffer stops the reading until it
   * consumes. */
  if (!c->closing && c->reading && buffer_full(c)) {
    uv_read_stop(s);
    c->reading = false;
  }
  srv_conn_unref(c);
}

static void start_reading(srv_conn_t *c) {
  if (c->reading || c->closing || (c->eof && !c->shutdown_sent)) return;
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0)
    c->reading = true;
}

void srv_conn_unread(const srv_conn_t *c, const char **data, size_t *len) {
  *data = c->rbuf ? c->rbuf + c->roff : "";
  *len = c->rlen - c->roff;
}

void srv_conn_consume(srv_conn_t *c, size_t n) {
  c->roff += n;
  if (c->roff >= c->rlen) c->roff = c->rlen = 0;
  if (!buffer_full(c) && !c->close_when_drained) start_reading(c);
}

void srv_conn_start(srv_conn_t *c, const srv_conn_proto_t *proto, void *user) {
  if (c->closing) return;
  c->proto = proto;
  c->user = user;
  start_reading(c);
  if (c->rlen > c->roff) {
    srv_conn_ref(c);
    proto->on_read(c, (ssize_t)(c->rlen - c->roff), user);
    srv_conn_unref(c);
  }
}
