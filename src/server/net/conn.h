/* server/net: one TCP connection on one event loop, and the protocol that
 * speaks on it. Knows no HTTP and no WebSocket.
 *
 * A connection owns its socket, a read buffer, the writes queued behind
 * the kernel and a timer that bounds a graceful close. A protocol
 * (srv_conn_proto_t) is installed with srv_conn_start: it is told when
 * bytes arrive and takes them from the read buffer at its own pace
 * (srv_conn_unread / srv_conn_consume), so a protocol that pauses (HTTP
 * between pipelined requests) leaves the rest buffered; reading stops
 * while read_limit bytes wait unconsumed. The HTTP loop accepts
 * connections (srv_conn_accept); a stream loop opens a socket handed over
 * from it (srv_conn_open): both carry the same connection.
 *
 * Threading: every function must be called on the connection's loop
 * thread. Memory: a connection is freed after its handles have closed and
 * the last reference (srv_conn_ref) is dropped, so whoever holds a
 * reference may call srv_conn_is_closing safely. */
#ifndef ANIMD_SERVER_NET_CONN_H
#define ANIMD_SERVER_NET_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/net/send_batch.h"

typedef struct srv_conn_s srv_conn_t;

/* A write finished: status 0, or a negative errno (UV_ECANCELED when the
 * connection closed before the bytes left, UV_EPIPE, ...). Runs on the
 * loop thread. */
typedef void (*srv_write_cb)(int status, void *arg);

/* The protocol speaking on a connection. */
typedef struct srv_conn_proto_s {
  /* nread > 0: that many new bytes are in the read buffer (with any the
   * protocol left unconsumed before; srv_conn_unread). nread < 0: the peer
   * is gone (UV_EOF: it half-closed; another errno: reset); no more reads
   * come. */
  void (*on_read)(srv_conn_t *conn, ssize_t nread, void *user);
  /* A queued write completed (srv_conn_queued dropped): producers waiting
   * for backpressure may go on. May be NULL. */
  void (*on_drain)(srv_conn_t *conn, void *user);
  /* The connection is closing: the protocol's last call, made once,
   * before the queued writes are cancelled. Release what user holds. May
   * be NULL. */
  void (*on_close)(srv_conn_t *conn, void *user);
} srv_conn_proto_t;

/* The open connections of one loop, for a drain that must close them
 * all. on_empty (may be NULL) runs when the count drops to 0. total (may
 * be NULL) counts the connections of every set sharing it: the daemon's
 * count over all its loops, changed atomically as connections join and
 * leave. */
typedef struct srv_conn_set_s {
  srv_conn_t *head;
  unsigned count;
  atomic_uint *total;
  void (*on_empty)(struct srv_conn_set_s *set);
  void *data;
} srv_conn_set_t;

typedef struct srv_conn_opts_s {
  /* Bytes buffered and not consumed before reading pauses (64 KiB when
   * 0). */
  size_t read_limit;
  /* A graceful close gives up when nothing moves (no queued byte leaves,
   * no peer FIN) for this long (2000 ms when 0). */
  uint64_t linger_ms;
  /* A connection with bytes queued that makes no write progress for this
   * long (the peer does not read) is closed; 0: never. */
  uint64_t write_timeout_ms;
  /* The set the connection joins while open (may be NULL). */
  srv_conn_set_t *set;
} srv_conn_opts_t;

/* Accepts the next connection of listener (its loop is the connection's).
 * Returns 0 and *out, or a negative errno. Nothing is read until
 * srv_conn_start. */
int srv_conn_accept(uv_stream_t *listener, const srv_conn_opts_t *opts,
                    srv_conn_t **out);

/* Opens fd, a connected TCP socket owned from now on (closed on failure),
 * on loop. Returns 0 and *out, or a negative errno. */
int srv_conn_open(uv_loop_t *loop, uv_os_sock_t fd, const srv_conn_opts_t *opts,
                  srv_conn_t **out);

/* Installs the protocol (user is passed back to its hooks) and starts
 * reading. A protocol may hand the connection to another one this way;
 * bytes already buffered are then the new protocol's (it is told at once
 * when there are any). */
void srv_conn_start(srv_conn_t *conn, const srv_conn_proto_t *proto,
                    void *user);

/* Queues nbufs buffers as one write (copied only when the kernel does not
 * take them at once; the caller may reuse them on return). Writes go out
 * in call order. Returns 0 (cb, if any, runs exactly once) or a negative
 * errno (UV_EPIPE once closing; cb never runs). */
int srv_conn_writev(srv_conn_t *conn, const uv_buf_t *bufs, unsigned nbufs,
                    srv_write_cb cb, void *arg);
int srv_conn_write(srv_conn_t *conn, const void *data, size_t len,
                   srv_write_cb cb, void *arg);

/* srv_conn_writev without a callback, through send batch b (send_batch.h)
 * when the buffers can go straight to the kernel: the write joins the
 * batch (returns 1), the buffers must stay valid and nothing else may be
 * written to the connection until the batch runs, and the run calls
 * done(status, arg) with what srv_conn_writev would have returned (what
 * the kernel did not take is queued as srv_conn_writev queues it).
 * Otherwise (something is queued, or the write is empty) it is
 * srv_conn_writev's: returns 0 or a negative errno, and done is not
 * called. */
int srv_conn_writev_batched(srv_conn_t *conn, srv_send_batch_t *b,
                            const uv_buf_t *bufs, unsigned nbufs,
                            srv_write_cb done, void *arg);

/* Bytes accepted by srv_conn_write(v) and not yet written out: what a
 * producer compares with its high-water mark. */
size_t srv_conn_queued(const srv_conn_t *conn);

/* The bytes read and not consumed yet (valid until the next read or
 * consume), and consuming n of them. Consuming resumes a paused read. */
void srv_conn_unread(const srv_conn_t *conn, const char **data, size_t *len);
void srv_conn_consume(srv_conn_t *conn, size_t n);

/* Closes now: the protocol's on_close runs, queued writes complete with
 * UV_ECANCELED. Idempotent. */
void srv_conn_close(srv_conn_t *conn);

/* Closes gracefully: once every queued byte is out, sends FIN and waits
 * for the peer's (discarding what it still sends), bounded by linger_ms
 * without progress. Nothing more may be written. */
void srv_conn_close_after_writes(srv_conn_t *conn);

bool srv_conn_is_closing(const srv_conn_t *conn);

/* Why the connection closed itself (read in the protocol's on_close):
 * none (its owner closed it, or the peer's FIN ended a graceful close), a
 * failed write, a write queue that made no progress for
 * write_timeout_ms, or a graceful close that lingered past linger_ms. */
typedef enum srv_conn_cause {
  SRV_CONN_CAUSE_NONE = 0,
  SRV_CONN_CAUSE_WRITE_ERROR,
  SRV_CONN_CAUSE_WRITE_TIMEOUT,
  SRV_CONN_CAUSE_LINGER
} srv_conn_cause;
srv_conn_cause srv_conn_close_cause(const srv_conn_t *conn);

/* A duplicate of the socket (close-on-exec; the caller owns it), for
 * handing the connection to another loop. Returns 0 or a negative
 * errno. */
int srv_conn_dup_socket(const srv_conn_t *conn, uv_os_sock_t *fd);

/* Keeps the connection's memory alive past its close. Every ref needs one
 * unref. */
void srv_conn_ref(srv_conn_t *conn);
void srv_conn_unref(srv_conn_t *conn);

/* Calls fn for every connection of set (fn may close the one it gets). */
void srv_conn_set_each(srv_conn_set_t *set,
                       void (*fn)(srv_conn_t *conn, void *arg), void *arg);

/* The protocol's user pointer, and whether proto is the one installed. */
void *srv_conn_user(const srv_conn_t *conn);
bool srv_conn_speaks(const srv_conn_t *conn, const srv_conn_proto_t *proto);

uv_loop_t *srv_conn_loop(const srv_conn_t *conn);

/* "ip:port" of the peer (IPv6 in brackets), "-" when unknown. */
const char *srv_conn_peer(const srv_conn_t *conn);

#endif
