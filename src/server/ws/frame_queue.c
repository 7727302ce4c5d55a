/* server: a client's data frames of one tick (see frame_queue.h).
 *
 * Key design choice: each frame keeps its header and prefix inline and
 * points into its shared payload, so flushing is building an array of
 * two buffers per frame and one writev; nothing is copied unless the
 * kernel does not take it all (then the connection copies the rest). */
#include "server/ws/frame_queue.h"

#include <stdlib.h>
#include <string.h>

/* Frames whose buffers are built on the stack when flushing. */
#define STACK_FRAMES 16

size_t srv_ws_frame_header(uint8_t *out, uint8_t opcode, uint64_t len) {
  out[0] = (uint8_t)(0x80 | (opcode & 0x0f)); /* FIN, no RSV bits. */
  if (len < 126) {
    out[1] = (uint8_t)len; /* Mask bit clear: server frames are not. */
    return 2;
  }
  if (len <= 0xffff) {
    out[1] = 126;
    out[2] = (uint8_t)(len >> 8);
    out[3] = (uint8_t)len;
    return 4;
  }
  out[1] = 127;
  for (int i = 0; i < 8; i++) out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
  return 10;
}

void srv_ws_frame_queue_init(srv_ws_frame_queue_t *q) {
  memset(q, 0, sizeof *q);
}

void srv_ws_frame_queue_clear(srv_ws_frame_queue_t *q) {
  for (unsigned i = 0; i < q->count; i++) srv_ws_blob_unref(q->frames[i].blob);
  q->count = 0;
  q->bytes = 0;
}

void srv_ws_frame_queue_free(srv_ws_frame_queue_t *q) {
  srv_ws_frame_queue_clear(q);
  free(q->frames);
  srv_ws_frame_queue_init(q);
}

int srv_ws_frame_queue_push(srv_ws_frame_queue_t *q, uint8_t opcode,
                            const void *prefix, size_t prefix_len,
                            srv_ws_blob_t *blob, const uint8_t *payload,
                            size_t payload_len) {
  if (prefix_len > SRV_WS_FRAME_PREFIX_MAX) return UV_EINVAL;
  if (q->count == q->cap) {
    unsigned cap = q->cap ? 2 * q->cap : 4;
    srv_ws_queued_frame_t *f = realloc(q->frames, cap * sizeof *f);
    if (f == NULL) return UV_ENOMEM;
    q->frames = f;
    q->cap = cap;
  }
  srv_ws_queued_frame_t *f = &q->frames[q->count++];
  size_t h = srv_ws_frame_header(f->head, opcode, prefix_len + payload_len);
  if (prefix_len > 0) memcpy(f->head + h, prefix, prefix_len);
  f->head_len = (uint8_t)(h + prefix_len);
  f->blob = payload_len > 0 ? srv_ws_blob_ref(blob) : NULL;
  f->payload = payload;
  f->payload_len = payload_len;
  q->bytes += f->head_len + payload_len;
  return 0;
}

int srv_ws_frame_queue_send(const srv_ws_frame_queue_t *q,
                            srv_ws_writev_fn writev, void *ctx) {
  if (q->count == 0) return 0;
  uv_buf_t stack[2 * STACK_FRAMES];
  uv_buf_t *bufs = stack;
  if (q->count > STACK_FRAMES) {
    bufs = malloc(2 * (size_t)q->count * sizeof *bufs);
    if (bufs == NULL) return UV_ENOMEM;
  }
  unsigned n = 0;
  for (unsigned i = 0; i < q->count; i++) {
    const srv_ws_queued_frame_t *f = &q->frames[i];
    bufs[n++] = uv_buf_init((char *)f->head, f->head_len);
    if (f->payload_len > 0)
      bufs[n++] = uv_buf_init((char *)f->payload, (unsigned)f->payload_len);
  }
  int r = writev(ctx, bufs, n);
  if (bufs != stack) free(bufs);
  return r;
}

int srv_ws_frame_queue_flush(srv_ws_frame_queue_t *q, srv_ws_writev_fn writev,
                             void *ctx) {
  int r = srv_ws_frame_queue_send(q, writev, ctx);
  srv_ws_frame_queue_clear(q);
  return r;
}
