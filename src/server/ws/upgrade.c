/* server: the WebSocket endpoint: handshake over the HTTP request, then
 * the connection carries a streaming client (ws_stream.h).
 *
 * Key design choice: streaming clients live on the stream loops
 * (ws_loops.h), started on the first upgrade: once the handshake is
 * checked here, the socket is handed over with the answer still to write.
 * A connection that cannot move (its HTTP answers still queued, or the
 * loops failed to start) is served by a hub on the server's own loop,
 * closed after the drain has ended its last connection; there a
 * connection is only a transport for its client, so the streaming code
 * never sees conn.h. */
#include "server/ws/upgrade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/config.h"
#include "server/server.h"
#include "server/ws/handshake.h"
#include "server/ws/loops.h"
#include "server/ws/stream.h"

static srv_ws_hub_t *hub;
static srv_ws_loops_t *loops;
static bool loops_failed; /* Tried once; streams stay on the server loop. */
static bool draining;

/* ---- transport over a connection ----------------------------------------- */

static int t_write(void *ctx, const uint8_t *data, size_t len) {
  return srv_conn_write(ctx, data, len, NULL, NULL);
}

static size_t t_queued(void *ctx) { return srv_conn_queued(ctx); }

static void t_close(void *ctx) { srv_conn_close_after_writes(ctx); }

static const srv_ws_transport_t transport = {t_write, t_queued, t_close};

static void maybe_free_hub(void) {
  srv_ws_hub_stats_t st;
  if (hub == NULL || !draining) return;
  srv_ws_hub_stats(hub, &st);
  if (st.clients > 0) return;
  srv_ws_hub_free(hub);
  hub = NULL;
}

static void on_read(srv_conn_t *conn, ssize_t nread, const char *data,
                    void *user) {
  srv_ws_client_t *c = user;
  if (nread < 0) srv_ws_client_eof(c);
  else if (nread > 0) srv_ws_client_feed(c, data, (size_t)nread);
}

static void on_close(srv_conn_t *conn, void *user) {
  srv_ws_client_free(user);
  maybe_free_hub();
}

static const srv_conn_proto_t ws_proto = {on_read, on_close};

/* ---- upgrade ------------------------------------------------------------- */

static unsigned stream_threads(const srv_config_t *cfg) {
  if (cfg->stream_threads > 0) return cfg->stream_threads;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

int srv_ws_upgrade(srv_conn_t *conn, const srv_request_t *req) {
  srv_request_t *r = (srv_request_t *)req;
  srv_ws_handshake_req_t hr = {
      .is_get = req->method == SRV_GET,
      .http_major = 1,
      .http_minor = req->http_minor,
      .upgrade = srv_request_header(req, "Upgrade"),
      .connection = srv_request_header(req, "Connection"),
      .key = srv_request_header(req, "Sec-WebSocket-Key"),
      .version = srv_request_header(req, "Sec-WebSocket-Version"),
  };
  srv_ws_handshake_t hs;
  if (srv_ws_handshake_check(&hr, &hs) != 101) {
    r->upgrade = true; /* No more HTTP on this connection. */
    srv_respond_error_h(r, hs.status, hs.extra_headers, hs.code, hs.at, "%s",
                        hs.message);
    return 0;
  }
  srv_server_t *server = srv_conn_server(conn);
  if (draining) {
    r->upgrade = true;
    srv_respond_error_h(r, 503, "Retry-After: 1\r\n", "shutting_down", NULL,
                        "the server is shutting down");
    return 0;
  }
  const srv_config_t *cfg = srv_server_config(server);
  srv_ws_limits_t lim;
  srv_ws_limits_defaults(&lim);
  if (cfg->stream_high_water > 0) lim.high_water = cfg->stream_high_water;
  char head[256];
  size_t n = srv_ws_handshake_response(hs.accept, head, sizeof head);
  if (loops == NULL && !loops_failed) {
    int rc = srv_ws_loops_new(stream_threads(cfg), srv_server_store(server),
                              srv_conn_pool(conn), &lim, &loops);
    if (rc != 0) {
      loops_failed = true;
      fprintf(stderr, "animd: stream loops: %s; streams run on the HTTP "
                      "loop\n", uv_strerror(rc));
    }
  }
  uv_os_sock_t fd;
  if (loops != NULL && srv_conn_queued(conn) == 0 &&
      srv_conn_dup_socket(conn, &fd) == 0) {
    const char *in;
    size_t in_len;
    srv_conn_unread(conn, &in, &in_len);
    if (srv_ws_loops_hand_off(loops, fd, head, n, in, in_len) == 0) {
      /* The stream loop owns the socket now: this side only lets go of
       * its descriptor (no shutdown, nothing more written). */
      srv_conn_close(conn, NULL, NULL);
      return 0;
    }
  }
  if (hub == NULL) {
    hub = srv_ws_hub_new(srv_conn_loop(conn), srv_server_store(server),
                         srv_conn_pool(conn), NULL, &lim);
    if (hub == NULL) return UV_ENOMEM;
  }
  srv_ws_client_t *c = srv_ws_client_new(hub, &transport, conn);
  if (c == NULL) return UV_ENOMEM;
  int rc = srv_conn_write(conn, head, n, NULL, NULL);
  if (rc != 0) {
    srv_ws_client_free(c);
    return rc;
  }
  srv_conn_set_proto(conn, &ws_proto, c);
  return 0;
}

void srv_ws_drain(srv_server_t *server) {
  (void)server;
  draining = true;
  if (loops != NULL) srv_ws_loops_drain(loops, 1001, "server shutting down");
  if (hub == NULL) return;
  srv_ws_hub_shutdown(hub, 1001, "server shutting down");
  maybe_free_hub();
}

void srv_ws_release(srv_server_t *server) {
  (void)server;
  srv_ws_loops_free(loops);
  loops = NULL;
  loops_failed = false;
  draining = false;
}

unsigned srv_ws_moved_connections(void) {
  return loops != NULL ? srv_ws_loops_clients(loops) : 0;
}

int srv_ws_metrics_render(char **text, size_t *len) {
  srv_ws_hub_stats_t st;
  memset(&st, 0, sizeof st);
  if (hub != NULL) srv_ws_hub_stats(hub, &st);
  if (loops != NULL) srv_ws_loops_stats(loops, &st);
  char buf[4096];
  int n = snprintf(
      buf, sizeof buf,
      "# HELP animd_ws_connections Open WebSocket connections.\n"
      "# TYPE animd_ws_connections gauge\n"
      "animd_ws_connections %llu\n"
      "# HELP animd_ws_streams Streams playing or paused.\n"
      "# TYPE animd_ws_streams gauge\n"
      "animd_ws_streams %llu\n"
      "# HELP animd_ws_frames_sent_total Frames sent to stream clients.\n"
      "# TYPE animd_ws_frames_sent_total counter\n"
      "animd_ws_frames_sent_total %llu\n"
      "# HELP animd_ws_frames_dropped_total Frames dropped because a client "
      "had too much unsent data.\n"
      "# TYPE animd_ws_frames_dropped_total counter\n"
      "animd_ws_frames_dropped_total %llu\n"
      "# HELP animd_ws_frames_skipped_total Frames skipped by late ticks.\n"
      "# TYPE animd_ws_frames_skipped_total counter\n"
      "animd_ws_frames_skipped_total %llu\n"
      "# HELP animd_ws_evaluations_total Stream frames evaluated.\n"
      "# TYPE animd_ws_evaluations_total counter\n"
      "animd_ws_evaluations_total %llu\n"
      "# HELP animd_ws_eval_shared_total Stream frames shared from an "
      "evaluation made for another subscriber.\n"
      "# TYPE animd_ws_eval_shared_total counter\n"
      "animd_ws_eval_shared_total %llu\n"
      "# HELP animd_ws_prefetched_total Skinned-mesh frames computed ahead "
      "on the worker pool.\n"
      "# TYPE animd_ws_prefetched_total counter\n"
      "animd_ws_prefetched_total %llu\n"
      "# HELP animd_ws_messages_total Control messages received.\n"
      "# TYPE animd_ws_messages_total counter\n"
      "animd_ws_messages_total %llu\n"
      "# HELP animd_ws_errors_total Error messages sent to clients.\n"
      "# TYPE animd_ws_errors_total counter\n"
      "animd_ws_errors_total %llu\n",
      (unsigned long long)st.clients, (unsigned long long)st.streams,
      (unsigned long long)st.frames_sent,
      (unsigned long long)st.frames_dropped,
      (unsigned long long)st.frames_skipped,
      (unsigned long long)st.evaluations, (unsigned long long)st.cache_hits,
      (unsigned long long)st.prefetched, (unsigned long long)st.messages_in,
      (unsigned long long)st.errors);
  if (n < 0 || (size_t)n >= sizeof buf) return UV_ENOMEM;
  int m = snprintf(buf + n, sizeof buf - (size_t)n,
                   "# HELP animd_ws_frame_lateness_seconds Time from a "
                   "frame's due time to its write to the socket.\n"
                   "# TYPE animd_ws_frame_lateness_seconds histogram\n");
  uint64_t cum = 0;
  for (unsigned b = 0; m >= 0 && b <= SRV_WS_LATE_BUCKETS; b++) {
    n += m;
    if ((size_t)n >= sizeof buf) return UV_ENOMEM;
    cum += st.late[b];
    if (b < SRV_WS_LATE_BUCKETS)
      m = snprintf(buf + n, sizeof buf - (size_t)n,
                   "animd_ws_frame_lateness_seconds_bucket{le=\"%g\"} %llu\n",
                   srv_ws_late_bounds[b], (unsigned long long)cum);
    else
      m = snprintf(buf + n, sizeof buf - (size_t)n,
                   "animd_ws_frame_lateness_seconds_bucket{le=\"+Inf\"} "
                   "%llu\nanimd_ws_frame_lateness_seconds_sum %.9f\n"
                   "animd_ws_frame_lateness_seconds_count %llu\n",
                   (unsigned long long)cum, st.late_sum,
                   (unsigned long long)cum);
  }
  if (m < 0) return UV_ENOMEM;
  n += m;
  if ((size_t)n >= sizeof buf) return UV_ENOMEM;
  char *p = realloc(*text, *len + (size_t)n + 1);
  if (p == NULL) return UV_ENOMEM;
  memcpy(p + *len, buf, (size_t)n + 1);
  *text = p;
  *len += (size_t)n;
  return 0;
}
