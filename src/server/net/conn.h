/* server: one client connection as seen by the protocol that speaks on it.
 *
 * A connection is a TCP stream owned by the loop thread. It starts with the
 * HTTP/1.1 protocol; a handler may hand it to another protocol (WebSocket
 * after `GET /v1/stream` with `Upgrade: websocket`) by installing a
 * srv_conn_proto_t, after which every byte read goes to that protocol's
 * on_read instead of llhttp. The type is opaque: protocols use only the
 * functions below, so the HTTP side can change without touching them.
 *
 * Threading: every function here must be called on the loop thread. Memory:
 * a connection is freed after its close callback has run and the last
 * reference taken with srv_conn_ref is dropped, so a job that holds a
 * reference may look at srv_conn_is_closing() safely when it completes. */
#ifndef ANIMD_SERVER_CONN_H
#define ANIMD_SERVER_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

typedef struct srv_conn_s srv_conn_t;
typedef struct srv_server_s srv_server_t;
typedef struct srv_pool_s srv_pool_t;

/* A write finished: status is 0, or a negative errno (UV_ECANCELED when the
 * connection closed before the bytes left, UV_EPIPE, ...). Runs on the loop
 * thread; the connection is still valid during the call. */
typedef void (*srv_conn_write_cb)(srv_conn_t *conn, int status, void *arg);

/* The connection's handle is closed. Runs once, on the loop thread; the
 * connection is still valid during the call and freed after it (unless
 * references remain). */
typedef void (*srv_conn_close_cb)(srv_conn_t *conn, void *arg);

/* The protocol speaking on a connection. */
typedef struct srv_conn_proto_s {
  /* Bytes arrived (nread > 0, data valid only during the call), or the peer
   * is gone (nread is UV_EOF or another negative errno, data NULL). After a
   * negative nread no more reads come; the protocol should close. */
  void (*on_read)(srv_conn_t *conn, ssize_t nread, const char *data,
                  void *user);
  /* The connection is closing (srv_conn_close by anyone, a fatal error, the
   * server shutting down): the protocol's last call, made once, before the
   * queued writes are cancelled. Release what user holds. May be NULL. */
  void (*on_close)(srv_conn_t *conn, void *user);
} srv_conn_proto_t;

/* Queues len bytes (copied: data may be reused when the call returns).
 * Writes go out in call order. Returns 0 (cb will run exactly once) or a
 * negative errno (UV_EPIPE when closing; cb never runs). cb may be NULL. */
int srv_conn_write(srv_conn_t *conn, const void *data, size_t len,
                   srv_conn_write_cb cb, void *arg);

/* As srv_conn_write for nbufs buffers sent as one write. */
int srv_conn_writev(srv_conn_t *conn, const uv_buf_t *bufs, unsigned nbufs,
                    srv_conn_write_cb cb, void *arg);

/* Bytes accepted by srv_conn_write(v) whose callbacks have not run yet:
 * what a producer compares against its high-water mark (backpressure). */
size_t srv_conn_queued(const srv_conn_t *conn);

/* Installs the protocol that gets the connection's bytes from now on, and
 * stops the HTTP timers. user is passed back to the hooks. Used by an
 * upgrade handler before it returns; bytes the client sent after the
 * upgrade request are then delivered to proto->on_read at once. */
void srv_conn_set_proto(srv_conn_t *conn, const srv_conn_proto_t *proto,
                        void *user);

/* Closes the connection: the protocol's on_close runs, queued writes
 * complete with UV_ECANCELED, then cb (may be NULL) when the handle is
 * closed. Idempotent: later calls do nothing (their cb does not run). */
void srv_conn_close(srv_conn_t *conn, srv_conn_close_cb cb, void *arg);

/* Closes after every queued write has completed (a graceful end). */
void srv_conn_close_after_writes(srv_conn_t *conn);

bool srv_conn_is_closing(const srv_conn_t *conn);

/* For handing the connection to another loop: a duplicate of its socket
 * (close-on-exec; the caller owns it), and the bytes read from the peer
 * but not consumed yet (valid until the connection is freed). Returns 0
 * or a negative errno. */
int srv_conn_dup_socket(const srv_conn_t *conn, uv_os_sock_t *fd);
void srv_conn_unread(const srv_conn_t *conn, const char **data,
                     size_t *len);

/* Keeps the connection's memory alive past its close (for a job in
 * flight). Every ref needs one unref. */
void srv_conn_ref(srv_conn_t *conn);
void srv_conn_unref(srv_conn_t *conn);

/* What a protocol needs around it. The store is reached through
 * srv_server_store(srv_conn_server(conn)) (server.h). */
uv_loop_t *srv_conn_loop(const srv_conn_t *conn);
srv_server_t *srv_conn_server(const srv_conn_t *conn);
srv_pool_t *srv_conn_pool(const srv_conn_t *conn);

/* "ip:port" of the peer, for logs. Never NULL. */
const char *srv_conn_peer(const srv_conn_t *conn);

#endif
