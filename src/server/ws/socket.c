/* server: a streaming client's socket on a stream loop (see ws_socket.h).
 *
 * Key design choice: the client is freed as soon as the socket starts
 * closing, before the handles are, so nothing is ever written to a socket
 * on its way out; the socket's memory goes once both of its handles (the
 * TCP stream and the close timer) have closed. Reads land in one buffer
 * per thread: the client consumes every byte during the call. */
#include "server/ws/socket.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/net/socket_write.h"

#define READ_BUFFER 65536

struct srv_ws_socket_s {
  uv_tcp_t tcp;
  uv_timer_t timer; /* Bounds a graceful close. */
  uv_shutdown_t shutdown_req;
  srv_ws_client_t *client;
  size_t queued;          /* Bytes in uv_write requests not yet done. */
  int open_handles;
  bool closing;           /* Handles closing; the client is freed. */
  bool close_requested;   /* transport.close was called. */
  bool shutdown_started;
  bool peer_eof;          /* The peer has shut down its sending side. */
  uint64_t close_timeout_ms;
  srv_ws_socket_gone_cb on_gone;
  void *arg;
};

typedef struct wreq_s {
  uv_write_t req;
  srv_ws_socket_t *sock;
  size_t len;
  char data[];
} wreq_t;

/* ---- closing --------------------------------------------------------------- */

static void gone_quietly(void *arg) { (void)arg; }

static void on_handle_closed(uv_handle_t *h) {
  srv_ws_socket_t *s = h->data;
  if (--s->open_handles > 0) return;
  srv_ws_socket_gone_cb cb = s->on_gone;
  void *arg = s->arg;
  free(s);
  cb(arg);
}

/* Closes now: the client goes first, then the handles. */
static void close_now(srv_ws_socket_t *s) {
  if (s->closing) return;
  s->closing = true;
  srv_ws_client_t *c = s->client;
  s->client = NULL;
  if (c != NULL) srv_ws_client_free(c);
  uv_close((uv_handle_t *)&s->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&s->timer, on_handle_closed);
}

static void on_close_timeout(uv_timer_t *t) { close_now(t->data); }

static void on_shutdown(uv_shutdown_t *req, int status) {
  srv_ws_socket_t *s = req->data;
  if (status == UV_ECANCELED) return; /* Closed meanwhile. */
  /* Done when the peer has ended too; otherwise its EOF (on_read) or the
   * timer finishes the close. */
  if (status < 0 || s->peer_eof) close_now(s);
}

/* Once every queued byte is out: FIN, then wait for the peer's. */
static void maybe_shutdown(srv_ws_socket_t *s) {
  if (s->closing || !s->close_requested || s->queued > 0 ||
      s->shutdown_started)
    return;
  s->shutdown_started = true;
  s->shutdown_req.data = s;
  if (uv_shutdown(&s->shutdown_req, (uv_stream_t *)&s->tcp, on_shutdown) !=
      0)
    close_now(s);
}

/* ---- transport ------------------------------------------------------------- */

static void on_write(uv_write_t *r, int status) {
  wreq_t *w = (wreq_t *)r;
  srv_ws_socket_t *s = w->sock;
  s->queued -= w->len;
  free(w);
  if (s->closing) return;
  if (status < 0) {
    close_now(s);
    return;
  }
  maybe_shutdown(s);
}

static int t_write(void *ctx, const uint8_t *data, size_t len) {
  srv_ws_socket_t *s = ctx;
  if (s->closing || s->close_requested) return UV_EPIPE;
  if (len == 0) return 0;
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
  uv_write_t *r;
  size_t queued;
  int rc = srv_socket_write((uv_stream_t *)&s->tcp, &b, 1, s->queued == 0,
                            offsetof(wreq_t, data), on_write, &r, &queued);
  if (rc != 0 || r == NULL) return rc;
  wreq_t *w = (wreq_t *)r;
  w->sock = s;
  w->len = queued;
  s->queued += queued;
  return 0;
}

static size_t t_queued(void *ctx) { return ((srv_ws_socket_t *)ctx)->queued; }

static void t_close(void *ctx) {
  srv_ws_socket_t *s = ctx;
  if (s->closing || s->close_requested) return;
  s->close_requested = true;
  uv_timer_start(&s->timer, on_close_timeout, s->close_timeout_ms, 0);
  maybe_shutdown(s);
}

static const srv_ws_transport_t transport = {t_write, t_queued, t_close};

/* ---- reads ----------------------------------------------------------------- */

static _Thread_local char read_buffer[READ_BUFFER];

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)h, (void)suggested;
  *buf = uv_buf_init(read_buffer, sizeof read_buffer);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  srv_ws_socket_t *s = stream->data;
  if (nread == 0 || s->closing) return;
  if (nread < 0) {
    /* The peer is gone, or has answered our shutdown with its own. */
    if (s->shutdown_started || nread != UV_EOF) {
      close_now(s);
      return;
    }
    s->peer_eof = true;
    srv_ws_client_eof(s->client);
    return;
  }
  if (s->close_requested) return; /* Discarded while closing. */
  srv_ws_client_feed(s->client, buf->base, (size_t)nread);
}

/* ---- open ------------------------------------------------------------------- */

int srv_ws_socket_open(uv_loop_t *loop, srv_ws_hub_t *hub, uv_os_sock_t fd,
                       const srv_ws_socket_opts_t *o) {
  srv_ws_socket_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    close(fd);
    return UV_ENOMEM;
  }
  s->close_timeout_ms = o->close_timeout_ms;
  s->arg = o->arg;
  uv_tcp_init(loop, &s->tcp);
  uv_timer_init(loop, &s->timer);
  s->tcp.data = s->timer.data = s;
  s->open_handles = 2;
  int rc = uv_tcp_open(&s->tcp, fd);
  if (rc != 0) close(fd);
  if (rc == 0) {
    uv_tcp_nodelay(&s->tcp, 1);
    s->client = srv_ws_client_new(hub, &transport, s);
    if (s->client == NULL) rc = UV_ENOMEM;
  }
  if (rc == 0 && o->head_len > 0) rc = t_write(s, o->head, o->head_len);
  if (rc == 0)
    rc = uv_read_start((uv_stream_t *)&s->tcp, on_alloc, on_read);
  if (rc != 0) {
    /* Nobody is told: the handles close and free the socket. */
    s->on_gone = gone_quietly;
    close_now(s);
    return rc;
  }
  s->on_gone = o->on_gone;
  if (o->in_len > 0) srv_ws_client_feed(s->client, o->in, o->in_len);
  return 0;
}
