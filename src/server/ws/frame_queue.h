/* server: a client's data frames of one tick, written with one writev.
 *
 * A server-to-client data frame is an RFC 6455 header (2 to 10 bytes,
 * unmasked), the message's own prefix (the 32-byte binary stream header,
 * which names the stream and its frame number) and a payload. Payloads
 * are shared (blob.h): every subscriber of the same stream state points
 * at the same bytes, so a tick costs one small header per frame and one
 * system call per client, whatever the number of frames. Queued frames
 * hold their payload's reference until the queue is flushed or cleared.
 *
 * These frames are written beside the client's wslay session, which keeps
 * control frames, answers and the close: the owner flushes the session
 * before the queue and the queue before the session sends anything else
 * (srv_ws_session_direct_begin), so frames leave in the order they were
 * made. Loop thread only. */
#ifndef ANIMD_SERVER_WS_FRAME_QUEUE_H
#define ANIMD_SERVER_WS_FRAME_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/ws/blob.h"

/* Bytes of the longest frame header (RFC 6455 5.2, unmasked). */
#define SRV_WS_FRAME_HEADER_MAX 10
/* Bytes of a message prefix kept in the queue itself. */
#define SRV_WS_FRAME_PREFIX_MAX 32

typedef struct srv_ws_queued_frame_s {
  uint8_t head[SRV_WS_FRAME_HEADER_MAX + SRV_WS_FRAME_PREFIX_MAX];
  uint8_t head_len;
  srv_ws_blob_t *blob; /* Holds payload (one reference), or NULL. */
  const uint8_t *payload;
  size_t payload_len;
} srv_ws_queued_frame_t;

typedef struct srv_ws_frame_queue_s {
  srv_ws_queued_frame_t *frames;
  unsigned count, cap;
  size_t bytes; /* Of every frame queued, headers included. */
} srv_ws_frame_queue_t;

/* Writes the header of an unmasked final frame of opcode carrying len
 * payload bytes into out (SRV_WS_FRAME_HEADER_MAX bytes); returns its
 * length. */
size_t srv_ws_frame_header(uint8_t *out, uint8_t opcode, uint64_t len);

void srv_ws_frame_queue_init(srv_ws_frame_queue_t *q);
/* Drops every queued frame (their references go) and frees the memory. */
void srv_ws_frame_queue_free(srv_ws_frame_queue_t *q);

/* Queues one message of opcode: prefix (prefix_len <=
 * SRV_WS_FRAME_PREFIX_MAX bytes, copied) then payload_len bytes at
 * payload, which lie in blob (a reference is taken; blob NULL only
 * without payload bytes). Returns 0 or UV_ENOMEM (nothing queued). */
int srv_ws_frame_queue_push(srv_ws_frame_queue_t *q, uint8_t opcode,
                            const void *prefix, size_t prefix_len,
                            srv_ws_blob_t *blob, const uint8_t *payload,
                            size_t payload_len);

/* How bytes leave: one call with every buffer of the queue, in order.
 * Returns 0 or a negative errno (or, through srv_ws_frame_queue_send,
 * anything the caller gives a meaning). */
typedef int (*srv_ws_writev_fn)(void *ctx, const uv_buf_t *bufs,
                                unsigned nbufs);

/* Writes every queued frame with one call of writev (none when the queue
 * is empty) and empties the queue, dropping its references. Returns what
 * writev returned (0 when empty), or UV_ENOMEM (the frames are dropped). */
int srv_ws_frame_queue_flush(srv_ws_frame_queue_t *q, srv_ws_writev_fn writev,
                             void *ctx);

/* Calls writev once with every queued frame's buffers, as flush does,
 * but keeps the frames (the buffers point into them) for a write that
 * completes later. Returns what writev returned (0 when empty), or
 * UV_ENOMEM (writev not called). */
int srv_ws_frame_queue_send(const srv_ws_frame_queue_t *q,
                            srv_ws_writev_fn writev, void *ctx);

/* Empties the queue without writing (a closing client). */
void srv_ws_frame_queue_clear(srv_ws_frame_queue_t *q);

#endif
