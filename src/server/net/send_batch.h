/* server/net: writes to many sockets handed to the kernel together.
 *
 * A stream loop's tick sends a frame to each of hundreds of clients, and
 * one writev per client costs one system call each. A send batch collects
 * the tick's writes (a socket and its buffers) and hands them to the
 * kernel through io_uring, up to SRV_SEND_BATCH_DEPTH writes per
 * io_uring_enter. Each write is a non-blocking sendmsg (MSG_DONTWAIT): it
 * completes during that call and takes what the socket has room for,
 * exactly as a writev on a non-blocking socket would, so the callers'
 * buffers need to stay valid only until srv_send_batch_run returns.
 * Where io_uring is turned off or the kernel refuses it (an old kernel, a
 * seccomp filter, io_uring_disabled), the batch writes with one writev
 * per entry instead: the same results, one system call each.
 *
 * Loop thread only: a batch belongs to one event loop. */
#ifndef ANIMD_SERVER_NET_SEND_BATCH_H
#define ANIMD_SERVER_NET_SEND_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <uv.h>

/* Writes handed to the kernel per io_uring_enter (the ring's size). */
#define SRV_SEND_BATCH_DEPTH 256

typedef struct srv_send_batch_s srv_send_batch_t;

/* One write's outcome, in srv_send_batch_run: sent is the bytes the
 * kernel took (from 0, when the socket had no room, up to all of them) or
 * a negative errno (UV_EPIPE, UV_ECONNRESET, ...). bufs and nbufs are the
 * write's buffers as given to srv_send_batch_add, still valid, so the
 * caller can queue what was not taken. */
typedef void (*srv_send_done_cb)(void *arg, const uv_buf_t *bufs,
                                 unsigned nbufs, ssize_t sent);

/* A batch that uses io_uring when use_io_uring and the kernel allows it
 * (the ring is made at the first run, on the loop's thread). NULL when
 * out of memory. */
srv_send_batch_t *srv_send_batch_new(bool use_io_uring);
void srv_send_batch_free(srv_send_batch_t *b);

/* Adds a write of nbufs buffers (nbufs >= 1, at most IOV_MAX) to socket
 * fd. The buffers (not the array) must stay valid, and nothing else may
 * be written to fd, until srv_send_batch_run has called done(arg, ...).
 * Returns 0 or UV_ENOMEM (nothing added). */
int srv_send_batch_add(srv_send_batch_t *b, int fd, const uv_buf_t *bufs,
                       unsigned nbufs, srv_send_done_cb done, void *arg);

/* Writes everything added since the last run, in the order added, and
 * calls each write's done before returning; the batch is then empty. */
void srv_send_batch_run(srv_send_batch_t *b);

/* Writes added and not yet run. */
unsigned srv_send_batch_pending(const srv_send_batch_t *b);

/* Whether the last run went through io_uring (false before any run, when
 * turned off, or when the kernel refused it). */
bool srv_send_batch_uses_io_uring(const srv_send_batch_t *b);

#endif
