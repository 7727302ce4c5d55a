/* server/ws: the messages a client sends while an answer of its own is
 * still being computed on the worker pool (a one-shot pose with a mesh:
 * its skinning is no work for a stream loop). They wait here, copied and
 * in order, and are handled once that answer is sent, so a client's
 * answers keep the order of its messages. Bounded in bytes: a client
 * that sends more meanwhile is refused (the caller closes it). Loop
 * thread only. */
#ifndef ANIMD_SERVER_WS_ONESHOT_H
#define ANIMD_SERVER_WS_ONESHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_ws_held_msg_s srv_ws_held_msg_t;

typedef struct srv_ws_held_s {
  /* private */
  srv_ws_held_msg_t *_head, *_tail;
  size_t _bytes;
} srv_ws_held_t;

/* Copies a message to the end of the queue. 0, UV_ENOBUFS when the queue
 * would hold more than max_bytes, or UV_ENOMEM. */
int srv_ws_held_push(srv_ws_held_t *q, uint8_t opcode, const uint8_t *data,
                     size_t len, size_t max_bytes);

/* Takes the first message: true with *opcode, *data (malloc'd, NUL-
 * terminated; the caller frees it) and *len; false when empty. */
bool srv_ws_held_pop(srv_ws_held_t *q, uint8_t *opcode, uint8_t **data,
                     size_t *len);

/* Frees every message. */
void srv_ws_held_clear(srv_ws_held_t *q);

#endif
