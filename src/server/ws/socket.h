/* server/ws: a streaming client's socket on a stream loop (loops.h).
 *
 * After the HTTP loop has checked a WebSocket handshake it hands the
 * connected socket to a stream loop; there the socket is this: a TCP
 * handle that carries one streaming client (ws/stream.h) as its transport.
 * It writes the handshake answer first, feeds the client the bytes the
 * peer sent after its upgrade request, then everything it reads.
 *
 * The socket is a net/conn.h connection: writes and their backpressure
 * count, and a graceful close (the client asks through transport.close)
 * writes what is queued, shuts the sending side down and waits for the
 * peer's end, giving up after close_timeout_ms without progress. Loop
 * thread only. */
#ifndef ANIMD_SERVER_WS_SOCKET_H
#define ANIMD_SERVER_WS_SOCKET_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/access_log.h"
#include "server/ws/stream.h"

typedef struct srv_ws_socket_s srv_ws_socket_t;

/* Runs once the socket is closed and its client freed. */
typedef void (*srv_ws_socket_gone_cb)(void *arg);

typedef struct srv_ws_socket_opts_s {
  const void *head; /* Written first (the handshake answer). */
  size_t head_len;
  const void *in; /* Bytes the peer sent after the upgrade request. */
  size_t in_len;
  uint64_t close_timeout_ms;
  srv_ws_socket_gone_cb on_gone;
  void *arg;
  srv_access_log_t *log; /* One line when the session ends (may be NULL). */
  const srv_ws_credential_t *credential; /* What it was admitted with. */
} srv_ws_socket_opts_t;

/* Opens fd (a connected TCP socket, owned from now on) on loop as a client
 * of hub. Returns 0 (on_gone will run exactly once) or a negative errno
 * (fd is closed; on_gone does not run). */
int srv_ws_socket_open(uv_loop_t *loop, srv_ws_hub_t *hub, uv_os_sock_t fd,
                       const srv_ws_socket_opts_t *opts);

#endif
