/* server/ws: messages held behind an answer on the pool (oneshot.h). */
#include "server/ws/oneshot.h"

#include <stdlib.h>
#include <string.h>

#include <uv.h>

struct srv_ws_held_msg_s {
  srv_ws_held_msg_t *next;
  uint8_t opcode;
  size_t len;
  uint8_t *data;
};

int srv_ws_held_push(srv_ws_held_t *q, uint8_t opcode, const uint8_t *data,
                     size_t len, size_t max_bytes) {
  if (q->_bytes + len > max_bytes) return UV_ENOBUFS;
  srv_ws_held_msg_t *m = malloc(sizeof *m);
  uint8_t *copy = malloc(len + 1);
  if (m == NULL || copy == NULL) {
    free(m);
    free(copy);
    return UV_ENOMEM;
  }
  if (len > 0) memcpy(copy, data, len);
  copy[len] = '\0';
  *m = (srv_ws_held_msg_t){NULL, opcode, len, copy};
  if (q->_tail != NULL)
    q->_tail->next = m;
  else
    q->_head = m;
  q->_tail = m;
  q->_bytes += len;
  return 0;
}

bool srv_ws_held_pop(srv_ws_held_t *q, uint8_t *opcode, uint8_t **data,
                     size_t *len) {
  srv_ws_held_msg_t *m = q->_head;
  if (m == NULL) return false;
  q->_head = m->next;
  if (q->_head == NULL) q->_tail = NULL;
  q->_bytes -= m->len;
  *opcode = m->opcode;
  *data = m->data;
  *len = m->len;
  free(m);
  return true;
}

void srv_ws_held_clear(srv_ws_held_t *q) {
  uint8_t opcode, *data;
  size_t len;
  while (srv_ws_held_pop(q, &opcode, &data, &len)) free(data);
}
