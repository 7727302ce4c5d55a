/* server: writing to a libuv stream without copying in the common case.
 *
 * A connection (conn.h) and a streaming socket (ws/socket.h) both write
 * this way: when nothing of theirs is queued, the bytes go straight to the
 * kernel (uv_try_write) and only what it does not take is copied into a
 * write request and queued behind. The request is the caller's own struct
 * (its first member a uv_write_t) followed by the copy. Loop thread only. */
#ifndef ANIMD_SERVER_SOCKET_WRITE_H
#define ANIMD_SERVER_SOCKET_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

/* Writes bufs to stream: first straight to the kernel when try_first,
 * then what is left is copied into a new request of head_size bytes plus
 * the copy (the copy starts at head_size) and queued with uv_write (cb);
 * without try_first a request is always queued, even of no bytes, so cb
 * always runs. Returns 0 with *req NULL when everything went out (only
 * with try_first), 0 with *req the
 * queued request (malloc'd; the caller fills its own fields before the
 * loop runs again and frees it in cb) and *len the bytes it holds, or a
 * negative errno (nothing queued). */
int srv_socket_write(uv_stream_t *stream, const uv_buf_t *bufs, unsigned nbufs,
                     bool try_first, size_t head_size, uv_write_cb cb,
                     uv_write_t **req, size_t *len);

/* Queues bufs past their first skip bytes (skip <= their total; those
 * went out some other way, such as a send batch) as srv_socket_write
 * without try_first queues them: a request of head_size bytes plus the
 * copy, even of no bytes. Same returns, *req never NULL on success. */
int srv_socket_write_rest(uv_stream_t *stream, const uv_buf_t *bufs,
                          unsigned nbufs, size_t skip, size_t head_size,
                          uv_write_cb cb, uv_write_t **req, size_t *len);

#endif
