/* server/ws: a streaming client's socket on a stream loop (see socket.h).
 *
 * Key design choice: the socket is a net/conn.h connection like every
 * other (the same writes, graceful close and linger), whose protocol
 * feeds a streaming client; the client is freed when the connection
 * closes, and the loop is told then. */
#include "server/ws/socket.h"

#include <stdlib.h>
#include <unistd.h>

#include "server/net/conn.h"

typedef struct ws_socket_s {
  srv_ws_client_t *client;
  srv_ws_socket_gone_cb on_gone;
  void *arg;
  srv_access_log_t *log;
  uint64_t opened_ns;
} ws_socket_t;

/* ---- transport --------------------------------------------------------------
 */

static int t_write(void *ctx, const uint8_t *data, size_t len) {
  if (len == 0) return 0;
  return srv_conn_write(ctx, data, len, NULL, NULL);
}

static int t_writev(void *ctx, const uv_buf_t *bufs, unsigned nbufs) {
  return srv_conn_writev(ctx, bufs, nbufs, NULL, NULL);
}

static int t_writev_batched(void *ctx, srv_send_batch_t *b,
                            const uv_buf_t *bufs, unsigned nbufs,
                            void (*done)(int status, void *arg), void *arg) {
  return srv_conn_writev_batched(ctx, b, bufs, nbufs, done, arg);
}

static size_t t_queued(void *ctx) { return srv_conn_queued(ctx); }

static void t_close(void *ctx) { srv_conn_close_after_writes(ctx); }

static const srv_ws_transport_t transport = {t_write, t_queued, t_close,
                                             t_writev, t_writev_batched};

/* ---- protocol
 * ----------------------------------------------------------------- */

static void on_read(srv_conn_t *conn, ssize_t nread, void *user) {
  ws_socket_t *s = user;
  if (nread < 0) {
    srv_ws_client_eof(s->client);
    return;
  }
  const char *data;
  size_t n;
  srv_conn_unread(conn, &data, &n);
  srv_conn_consume(conn, n); /* The data stays valid until the next read. */
  srv_ws_client_feed(s->client, data, n);
}

/* The session's line: who, how it ended (close codes sent and received,
 * 0 for none), how long, and what it was sent. */
static void log_session(const ws_socket_t *s, srv_conn_t *conn) {
  if (!srv_access_log_enabled(s->log)) return;
  srv_ws_client_summary_t sum;
  srv_ws_client_summary(s->client, &sum);
  double secs = (double)(uv_hrtime() - s->opened_ns) / 1e9;
  srv_access_log_write(s->log,
                       "%s \"WS /v1/stream\" close %u/%u %.3fs frames %llu "
                       "skipped %llu dropped %llu messages %llu stream",
                       srv_conn_peer(conn), sum.close_sent, sum.close_received,
                       secs, (unsigned long long)sum.frames_sent,
                       (unsigned long long)sum.frames_skipped,
                       (unsigned long long)sum.frames_dropped,
                       (unsigned long long)sum.messages);
}

static void on_close(srv_conn_t *conn, void *user) {
  ws_socket_t *s = user;
  log_session(s, conn);
  srv_ws_client_free(s->client);
  srv_ws_socket_gone_cb cb = s->on_gone;
  void *arg = s->arg;
  free(s);
  if (cb) cb(arg);
}

static const srv_conn_proto_t proto = {on_read, NULL, on_close};

int srv_ws_socket_open(uv_loop_t *loop, srv_ws_hub_t *hub, uv_os_sock_t fd,
                       const srv_ws_socket_opts_t *o) {
  ws_socket_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    close(fd);
    return UV_ENOMEM;
  }
  srv_conn_opts_t co = {.linger_ms = o->close_timeout_ms};
  srv_conn_t *conn;
  int rc = srv_conn_open(loop, fd, &co, &conn);
  if (rc != 0) {
    free(s);
    return rc;
  }
  s->client = srv_ws_client_new(hub, &transport, conn);
  if (s->client == NULL) {
    free(s);
    srv_conn_close(conn);
    return UV_ENOMEM;
  }
  srv_ws_client_set_credential(s->client, o->credential);
  if (o->head_len > 0 &&
      (rc = srv_conn_write(conn, o->head, o->head_len, NULL, NULL)) != 0) {
    srv_ws_client_free(s->client);
    free(s);
    srv_conn_close(conn);
    return rc;
  }
  s->on_gone = o->on_gone;
  s->arg = o->arg;
  s->log = o->log;
  s->opened_ns = uv_hrtime();
  srv_conn_start(conn, &proto, s);
  if (o->in_len > 0) srv_ws_client_feed(s->client, o->in, o->in_len);
  return 0;
}
