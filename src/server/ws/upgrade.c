/* server/ws: WebSocket streaming as the server owns it (upgrade.h).
 *
 * Key design choice: one home for streaming clients, the stream loops,
 * started with the server. The HTTP loop only checks the handshake; a
 * connection whose earlier answers are still being written (a pipelined
 * upgrade) waits for them before it moves, so nothing is reordered and
 * nothing streams from the HTTP loop. */
#include "server/ws/upgrade.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/config.h"
#include "server/cors.h"
#include "server/ws/handshake.h"
#include "server/ws/loops.h"

struct srv_ws_s {
  srv_ws_loops_t *loops;
  atomic_bool draining; /* Read by every HTTP loop. */
};

/* A handshake accepted, waiting for the connection's earlier answers. */
typedef struct upgrade_s {
  srv_ws_t *ws;
  srv_ws_credential_t credential;
  size_t head_len;
  char head[256];
} upgrade_t;

int srv_ws_new(unsigned threads, store_t *store, srv_pool_t *pool,
               const srv_ws_limits_t *lim, srv_access_log_t *log,
               srv_ws_t **out) {
  srv_ws_t *ws = calloc(1, sizeof *ws);
  if (ws == NULL) return UV_ENOMEM;
  int rc = srv_ws_loops_new(threads ? threads : 1, store, pool, lim, log,
                            &ws->loops);
  if (rc != 0) {
    free(ws);
    return rc;
  }
  *out = ws;
  return 0;
}

static int give_to_loop(uv_os_sock_t fd, const char *in, size_t in_len,
                        void *arg) {
  upgrade_t *u = arg;
  return srv_ws_loops_hand_off(u->ws->loops, fd, u->head, u->head_len, in,
                               in_len, &u->credential);
}

static void on_flushed(srv_request_t *req, void *arg) {
  upgrade_t *u = arg;
  int rc = u->ws->draining ? UV_ESHUTDOWN
                           : srv_request_hand_off(req, give_to_loop, u);
  free(u);
  if (rc == 0) return;
  req->upgrade = true; /* No more HTTP on this connection. */
  if (rc == UV_ESHUTDOWN)
    srv_respond_fail_h(req, SRV_ERR_SHUTTING_DOWN, "Retry-After: 1\r\n", NULL,
                       "the server is shutting down");
  else
    srv_respond_fail(req, SRV_ERR_INTERNAL, NULL, "upgrade failed: %s",
                     uv_strerror(rc));
}

int srv_ws_upgrade(srv_ws_t *ws, srv_request_t *req,
                   const srv_ws_credential_t *cred) {
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
    req->upgrade = true; /* No more HTTP on this connection. */
    srv_respond_fail_h(req, hs.code, hs.extra_headers, hs.at, "%s", hs.message);
    return 0;
  }
  if (!srv_cors_allowed(srv_request_config(req)->allowed_origins,
                        srv_request_header(req, "Origin"),
                        srv_request_own_host(req))) {
    req->upgrade = true;
    srv_respond_fail(req, SRV_ERR_ORIGIN_NOT_ALLOWED, "Origin",
                     "pages from this origin may not open streams (see "
                     "allowed_origins)");
    return 0;
  }
  if (ws->draining) {
    req->upgrade = true;
    srv_respond_fail_h(req, SRV_ERR_SHUTTING_DOWN, "Retry-After: 1\r\n", NULL,
                       "the server is shutting down");
    return 0;
  }
  upgrade_t *u = calloc(1, sizeof *u);
  if (u == NULL) return UV_ENOMEM;
  u->ws = ws;
  if (cred != NULL) u->credential = *cred;
  u->credential.epoch = srv_ws_loops_epoch(ws->loops);
  u->head_len = srv_ws_handshake_response(hs.accept, u->head, sizeof u->head);
  srv_request_when_flushed(req, on_flushed, u);
  return 0;
}

void srv_ws_revoke(srv_ws_t *ws, srv_ws_credential_valid_cb valid, void *arg) {
  if (ws != NULL) srv_ws_loops_revoke(ws->loops, valid, arg);
}

void srv_ws_drain(srv_ws_t *ws) {
  if (ws == NULL || ws->draining) return;
  ws->draining = true;
  srv_ws_loops_drain(ws->loops, 1001, "server shutting down");
}

void srv_ws_free(srv_ws_t *ws) {
  if (ws == NULL) return;
  srv_ws_loops_free(ws->loops);
  free(ws);
}

unsigned srv_ws_connections(const srv_ws_t *ws) {
  return ws != NULL ? srv_ws_loops_clients(ws->loops) : 0;
}

int srv_ws_metrics_render(srv_ws_t *ws, char **text, size_t *len) {
  srv_ws_hub_stats_t st;
  memset(&st, 0, sizeof st);
  if (ws != NULL) srv_ws_loops_stats(ws->loops, &st);
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
      "animd_ws_errors_total %llu\n"
      "# HELP animd_ws_batched_writes_total Client writes of a tick handed "
      "to the kernel together.\n"
      "# TYPE animd_ws_batched_writes_total counter\n"
      "animd_ws_batched_writes_total %llu\n"
      "# HELP animd_ws_io_uring_writes_total Of those, the writes that went "
      "through io_uring (the rest: one system call each).\n"
      "# TYPE animd_ws_io_uring_writes_total counter\n"
      "animd_ws_io_uring_writes_total %llu\n",
      (unsigned long long)st.clients, (unsigned long long)st.streams,
      (unsigned long long)st.frames_sent, (unsigned long long)st.frames_dropped,
      (unsigned long long)st.frames_skipped, (unsigned long long)st.evaluations,
      (unsigned long long)st.cache_hits, (unsigned long long)st.prefetched,
      (unsigned long long)st.messages_in, (unsigned long long)st.errors,
      (unsigned long long)st.batched_writes,
      (unsigned long long)st.io_uring_writes);
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
