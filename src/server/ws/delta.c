/* server/ws: delta frames (encoding "delta", docs/api.md "Delta frames"):
 * each frame of a stream is encoded against the frames sent to its client
 * before it (formats/q16_delta.h), so the chain is the stream's own: the
 * frame cache shares the q16 payload of a frame time between subscribers,
 * and every stream keeps the last two payloads it sent. A frame skipped by
 * the pacing or dropped under backpressure was never encoded, so it is not
 * in the chain; the next frame goes against the last one sent. A key frame
 * starts the chain, then every key_every frames, and when the client asks
 * (set "key": true) or the encoding was just set (stream_internal.h).
 * The chain's parents (formats/q16_delta.h) are chosen once, from its
 * first frame, and sent with every key frame. */
#include <stdlib.h>
#include <string.h>

#include "formats/q16.h"
#include "formats/q16_delta.h"
#include "server/ws/stream_internal.h"

struct ws_delta_s {
  uint8_t *sent;     /* Two q16 payloads: the last sent at last. */
  size_t bytes;      /* Of one payload. */
  uint32_t vertices; /* Of the payloads held. */
  uint32_t *parents; /* Of the chain (NULL: the previous vertex). */
  int32_t *scratch;  /* The encoder's, a value a vertex. */
  bool parents_made; /* Chosen (parents may be NULL: out of memory). */
  unsigned have;     /* Payloads held: 0, 1, 2. */
  unsigned last;     /* 0 or 1. */
  uint32_t seq;      /* Of the next frame. */
  uint32_t since_key;
};

void ws__delta_free(stream_t *s) {
  if (s->delta == NULL) return;
  free(s->delta->sent);
  free(s->delta->parents);
  free(s->delta->scratch);
  free(s->delta);
  s->delta = NULL;
}

void ws__delta_key(const stream_t *s) {
  if (s->delta != NULL) s->delta->have = 0;
}

/* The stream's chain for payloads of vertices vertices (made, or remade
 * for another size: it then starts with a key frame). */
static ws_delta_t *chain(const stream_t *s, uint32_t vertices, size_t bytes) {
  ws_delta_t *d = s->delta;
  if (d != NULL && d->vertices == vertices && d->bytes == bytes) return d;
  uint8_t *sent = malloc(2 * bytes);
  int32_t *scratch = malloc(sizeof *scratch * (vertices ? vertices : 1));
  if (sent == NULL || scratch == NULL) {
    free(sent);
    free(scratch);
    return NULL;
  }
  if (d == NULL) {
    d = calloc(1, sizeof *d);
    if (d == NULL) {
      free(sent);
      free(scratch);
      return NULL;
    }
    ((stream_t *)s)->delta = d;
  }
  free(d->sent);
  free(d->parents);
  free(d->scratch);
  d->scratch = scratch;
  d->parents = NULL;
  d->parents_made = false;
  d->sent = sent;
  d->bytes = bytes;
  d->vertices = vertices;
  d->have = 0;
  return d;
}

int ws__delta_frame(srv_ws_hub_t *h, const stream_t *s, int64_t frame,
                    float t) {
  srv_ws_eval_key_t key = ws__stream_key(s, t, s->mesh);
  srv_ws_frame_data_t fd;
  int r = srv_ws_eval_get(h->eval, &key, &fd);
  if (r != 0) return r;
  if (fd.q16 == NULL) return UV_EINVAL;
  size_t bytes = 4 * (size_t)fd.q16_words;
  ws_delta_t *d = chain(s, fd.elements, bytes);
  if (d == NULL) return UV_ENOMEM;
  if (d->since_key >= s->key_every) d->have = 0;
  if (!d->parents_made) {
    d->parents = malloc(sizeof *d->parents * (fd.elements ? fd.elements : 1));
    if (d->parents != NULL &&
        fmt_q16_delta_parents(fd.q16, fd.elements, d->parents) != 0) {
      free(d->parents);
      d->parents = NULL;
    }
    d->parents_made = true;
  }
  const uint8_t *a = NULL, *b = NULL;
  if (d->have >= 1) a = d->sent + d->last * bytes;
  if (d->have >= 2) b = d->sent + (1 - d->last) * bytes;
  fmt_buf_t *o = &h->out;
  fmt_buf_reset(o);
  size_t bound = fmt_q16_delta_bound(fd.elements, s->normals);
  if (!fmt_buf_reserve(o, WS_BIN_HEADER + bound)) return UV_ENOMEM;
  uint8_t *p = (uint8_t *)o->data + WS_BIN_HEADER;
  size_t n = fmt_q16_delta_encode(fd.q16, a, b, d->parents, fd.elements,
                                  s->normals, d->seq, d->scratch, p);
  srv_ws_frame_data_t head = fd;
  head.q16 = p;
  head.q16_words = (uint32_t)(n / 4);
  ws__bin_header((uint8_t *)o->data, s->index, ws__stream_layout(s), frame, t,
                 &head);
  o->len = WS_BIN_HEADER + n;
  if (fd.answer_count > 0) fmt_buf_f32le(o, fd.answer, fd.answer_count);
  if (o->failed) return UV_ENOMEM;
  /* The chain moves on: this payload is the last sent. */
  unsigned slot = d->have == 0 ? 0 : 1 - d->last;
  memcpy(d->sent + slot * bytes, fd.q16, bytes);
  d->last = slot;
  d->since_key = a == NULL ? 1 : d->since_key + 1;
  if (d->have < 2) d->have++;
  d->seq++;
  return 0;
}
