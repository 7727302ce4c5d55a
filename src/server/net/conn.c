/* server: connections: accept, the read buffer, queued writes, graceful
 * and immediate close, references (see conn.h).
 *
 * Key choice: a connection owns two handles (the TCP stream and the HTTP
 * timer) and is freed only when both have closed and no job holds a
 * reference, so a pool job finishing after its client left finds valid
 * memory and a closing flag instead of a dangling pointer. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "server/internal.h"
#include "server/server.h"
#include "server/net/socket_write.h"

#define READ_MIN_FREE 4096
#define READ_INITIAL 16384
#define LINGER_MS 2000

typedef struct wreq_s {
  uv_write_t req;
  srv_conn_t *conn;
  srv_conn_write_cb cb;
  void *arg;
  size_t len;
  char data[];
} wreq_t;

static size_t read_limit(const srv_conn_t *c) {
  size_t lim = 2 * c->server->cfg.max_header_size;
  return lim < 65536 ? 65536 : lim;
}

static void maybe_free(srv_conn_t *c) {
  if (!c->closing || c->pending_closes > 0 || c->refs > 0) return;
  free(c->rbuf);
  free(c->http.hbuf);
  free(c->http.pbuf);
  free(c->http.body);
  free(c);
}

static void on_handle_closed(uv_handle_t *h) {
  srv_conn_t *c = h->data;
  if (--c->pending_closes > 0) return;
  if (c->close_cb) c->close_cb(c, c->close_arg);
  maybe_free(c);
}

void srv_conn_close(srv_conn_t *c, srv_conn_close_cb cb, void *arg) {
  if (c->closing) return;
  c->closing = true;
  c->close_cb = cb;
  c->close_arg = arg;
  if (c->proto && c->proto->on_close) c->proto->on_close(c, c->proto_user);
  srv__server_conn_closed(c->server, c);
  c->pending_closes = 2;
  uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&c->http.timer, on_handle_closed);
}

bool srv_conn_is_closing(const srv_conn_t *c) {
  return c->closing;
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

void srv_conn_unread(const srv_conn_t *c, const char **data, size_t *len) {
  *data = c->rbuf + c->roff;
  *len = c->rlen - c->roff;
}

void srv_conn_ref(srv_conn_t *c) {
  c->refs++;
}

void srv_conn_unref(srv_conn_t *c) {
  c->refs--;
  maybe_free(c);
}

uv_loop_t *srv_conn_loop(const srv_conn_t *c) {
  return c->server->loop;
}

srv_server_t *srv_conn_server(const srv_conn_t *c) {
  return c->server;
}

srv_pool_t *srv_conn_pool(const srv_conn_t *c) {
  return &c->server->pool;
}

const char *srv_conn_peer(const srv_conn_t *c) {
  return c->peer;
}

size_t srv_conn_queued(const srv_conn_t *c) {
  return c->queued;
}

/* ---- graceful close: shutdown, then discard what the peer still sends
 * for a moment so our last answer is not lost to a reset. ---------------- */

static void on_linger_timer(uv_timer_t *t) {
  srv_conn_close(t->data, NULL, NULL);
}

static void on_shutdown(uv_shutdown_t *req, int status) {
  srv_conn_t *c = req->data;
  if (c->closing) return;
  if (status < 0) {
    srv_conn_close(c, NULL, NULL);
    return;
  }
  if (c->eof) {
    srv_conn_close(c, NULL, NULL);
    return;
  }
  c->lingering = true;
  uv_timer_start(&c->http.timer, on_linger_timer, LINGER_MS, 0);
  srv__conn_start_reading(c);
}

static void begin_shutdown(srv_conn_t *c) {
  if (c->lingering || c->shutdown_req.data != NULL) return;
  c->shutdown_req.data = c;
  uv_timer_stop(&c->http.timer);
  if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, on_shutdown) !=
      0)
    srv_conn_close(c, NULL, NULL);
}

void srv_conn_close_after_writes(srv_conn_t *c) {
  if (c->closing) return;
  c->close_when_drained = true;
  if (c->queued == 0) begin_shutdown(c);
}

/* ---- writes ---------------------------------------------------------------- */

static void on_write(uv_write_t *r, int status) {
  wreq_t *w = (wreq_t *)r;
  srv_conn_t *c = w->conn;
  c->queued -= w->len;
  if (w->cb) w->cb(c, status, w->arg);
  free(w);
  if (c->closing) return;
  if (status < 0) {
    srv_conn_close(c, NULL, NULL);
    return;
  }
  if (c->close_when_drained) {
    if (c->queued == 0) begin_shutdown(c);
    return;
  }
  if (c->proto == &srv__http_proto) srv__http_on_drain(c);
}

int srv_conn_writev(srv_conn_t *c, const uv_buf_t *bufs, unsigned nbufs,
                    srv_conn_write_cb cb, void *arg) {
  if (c->closing || c->lingering || c->shutdown_req.data != NULL)
    return UV_EPIPE;
  /* Straight to the socket when nothing is queued and nobody waits for a
   * callback: no copy and no request. */
  uv_write_t *r;
  size_t len;
  int rc = srv_socket_write((uv_stream_t *)&c->tcp, bufs, nbufs,
                            cb == NULL && c->queued == 0,
                            offsetof(wreq_t, data), on_write, &r, &len);
  if (rc != 0 || r == NULL) return rc;
  wreq_t *w = (wreq_t *)r;
  w->conn = c;
  w->cb = cb;
  w->arg = arg;
  w->len = len;
  c->queued += len;
  return 0;
}

int srv_conn_write(srv_conn_t *c, const void *data, size_t len,
                   srv_conn_write_cb cb, void *arg) {
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
  return srv_conn_writev(c, &b, 1, cb, arg);
}

/* ---- reads ----------------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  srv_conn_t *c = h->data;
  if (c->roff == c->rlen) c->roff = c->rlen = 0;
  if (c->rcap - c->rlen < READ_MIN_FREE && c->roff > 0) {
    memmove(c->rbuf, c->rbuf + c->roff, c->rlen - c->roff);
    c->rlen -= c->roff;
    c->roff = 0;
  }
  if (c->rcap - c->rlen < READ_MIN_FREE && c->rcap < read_limit(c)) {
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

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  srv_conn_t *c = s->data;
  if (nread == 0 || c->closing) return;
  if (c->lingering) {
    if (nread < 0) srv_conn_close(c, NULL, NULL);
    c->roff = c->rlen = 0;
    return; /* Discarded. */
  }
  if (nread < 0) {
    if (nread == UV_EOF) c->eof = true;
    c->proto->on_read(c, nread, NULL, c->proto_user);
    return;
  }
  c->rlen += (size_t)nread;
  if (c->proto == &srv__http_proto) {
    c->proto->on_read(c, nread, c->rbuf + c->rlen - nread, c->proto_user);
  } else {
    /* Other protocols take every byte as it comes. */
    const char *data = c->rbuf + c->roff;
    size_t n = c->rlen - c->roff;
    c->roff = c->rlen = 0;
    c->proto->on_read(c, (ssize_t)n, data, c->proto_user);
  }
  /* A parser that paused with a full buffer stops reading until the
   * request in flight is answered. */
  if (!c->closing && c->reading && c->rcap - (c->rlen - c->roff) <
                                       READ_MIN_FREE &&
      c->rcap >= read_limit(c)) {
    uv_read_stop(s);
    c->reading = false;
  }
}

void srv__conn_start_reading(srv_conn_t *c) {
  if (c->reading || c->closing) return;
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0)
    c->reading = true;
}

void srv__conn_consume(srv_conn_t *c, size_t n) {
  c->roff += n;
  if (c->roff >= c->rlen) c->roff = c->rlen = 0;
}

void srv_conn_set_proto(srv_conn_t *c, const srv_conn_proto_t *proto,
                        void *user) {
  c->proto = proto;
  c->proto_user = user;
  c->http.state = HTTP_DONE;
  uv_timer_stop(&c->http.timer);
}

int srv__conn_accept(srv_server_t *server, srv_conn_t **out) {
  srv_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL) return UV_ENOMEM;
  c->server = server;
  int rc = uv_tcp_init(server->loop, &c->tcp);
  if (rc != 0) {
    free(c);
    return rc;
  }
  c->tcp.data = c;
  uv_timer_init(server->loop, &c->http.timer);
  c->http.timer.data = c;
  /* From here the connection is on the server's list and closes through
   * srv_conn_close like any other. */
  c->next = server->conns;
  if (server->conns) server->conns->prev = c;
  server->conns = c;
  server->conn_count++;
  server->metrics.connections_total++;
  c->proto = &srv__http_proto;
  rc = uv_accept((uv_stream_t *)&server->listener, (uv_stream_t *)&c->tcp);
  if (rc != 0) {
    srv_conn_close(c, NULL, NULL);
    return rc;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  struct sockaddr_storage ss;
  int len = sizeof ss;
  snprintf(c->peer, sizeof c->peer, "-");
  if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
    char ip[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET6) {
      struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
      uv_ip6_name(a, ip, sizeof ip);
      snprintf(c->peer, sizeof c->peer, "[%s]:%d", ip, ntohs(a->sin6_port));
    } else {
      struct sockaddr_in *a = (struct sockaddr_in *)&ss;
      uv_ip4_name(a, ip, sizeof ip);
      snprintf(c->peer, sizeof c->peer, "%s:%d", ip, ntohs(a->sin_port));
    }
  }
  rc = srv__http_init(c);
  if (rc != 0) {
    srv_conn_close(c, NULL, NULL);
    return rc;
  }
  *out = c;
  return 0;
}
