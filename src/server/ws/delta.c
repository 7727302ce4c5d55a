/* server/ws: delta frames (encoding "delta", docs/api.md "Delta frames"):
 * each frame of a stream is encoded against the frames sent to its client
 * before it (formats/q16_delta.h), and the bytes are shared between the
 * streams whose clients hold the same frames.
 *
 * A stream's chain is what its client's decoder holds: the last two q16
 * payloads it was sent (references to the frame cache's buffers, and the
 * cache's serials of those frames), the parents of its last key frame and
 * the seq it expects. A delta frame's bytes depend on nothing else than
 * that and the frame itself, so they are cached beside the frame's q16
 * payload (frame_cache.h, srv_ws_delta_key_t) and every stream whose chain
 * is equal sends the same bytes: N viewers in step cost one encoding per
 * frame time. A key frame's seq is free (a decoder takes any), so a
 * stream sending a cached key frame takes its seq and its chain becomes
 * the others'.
 *
 * Key design choice: shared key frames and parents. The parents are
 * chosen once per mesh on a hub (from the first frame of it encoded) and
 * used by every chain of that mesh. Key frames fall on a grid of the clip
 * time: when the frame's index on the stream's time grid (sampled clip
 * time over the frame period, speed / fps) is a multiple of key_every, so
 * streams at the same clip times send their key frames together and share
 * the chain from there. A stream also starts with a key frame, after a
 * set, when its client asks (set "key": true), after a frame not queued,
 * and when key_every frames passed without one (a clip's wrap, a ping-pong
 * turn); a frame the pacing skipped or backpressure dropped was never
 * encoded, so the next one goes against the last one sent. Such a
 * stream's deltas stay its own until the next key frame of the grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/q16.h"
#include "formats/q16_delta.h"
#include "server/ws/stream_internal.h"

/* The parents of a mesh on a hub, shared by its chains. */
struct ws_delta_parents_s {
  srv_ws_hub_t *hub;
  ws_delta_parents_t *prev, *next; /* In hub->delta_parents. */
  store_asset_t *mesh;             /* Retained. */
  uint32_t vertices;
  uint32_t *d;      /* NULL: the previous vertex (out of memory). */
  int32_t *scratch; /* The encoder's, a value a vertex. */
  uint64_t serial;  /* Never given to other parents on the hub. */
  unsigned refs;
};

struct ws_delta_s {
  ws_delta_parents_t *parents;
  srv_ws_blob_t *held[2]; /* q16 payloads sent: held[last] the last. */
  uint64_t serial[2];     /* Their frames' serials in the frame cache. */
  size_t bytes;           /* Of one payload. */
  unsigned have;          /* Payloads held: 0, 1, 2. */
  unsigned last;          /* 0 or 1. */
  uint32_t seq;           /* Of the next frame. */
  uint32_t since_key;
};

static void parents_release(ws_delta_parents_t *p) {
  if (p == NULL || --p->refs > 0) return;
  if (p->prev != NULL)
    p->prev->next = p->next;
  else
    p->hub->delta_parents = p->next;
  if (p->next != NULL) p->next->prev = p->prev;
  store_asset_release(p->mesh);
  free(p->d);
  free(p->scratch);
  free(p);
}

/* The parents of mesh on hub h (vertices vertices), chosen from the q16
 * payload q16 when the hub has none yet; a reference. NULL on ENOMEM. */
static ws_delta_parents_t *parents_get(srv_ws_hub_t *h, store_asset_t *mesh,
                                       uint32_t vertices, const uint8_t *q16) {
  for (ws_delta_parents_t *p = h->delta_parents; p != NULL; p = p->next) {
    if (p->mesh == mesh && p->vertices == vertices) {
      p->refs++;
      return p;
    }
  }
  ws_delta_parents_t *p = calloc(1, sizeof *p);
  size_t n = vertices ? vertices : 1;
  int32_t *scratch = malloc(sizeof *scratch * n);
  if (p == NULL || scratch == NULL) {
    free(p);
    free(scratch);
    return NULL;
  }
  p->d = malloc(sizeof *p->d * n);
  if (p->d != NULL && fmt_q16_delta_parents(q16, vertices, p->d) != 0) {
    free(p->d);
    p->d = NULL;
  }
  p->hub = h;
  p->mesh = mesh;
  store_asset_retain(mesh);
  p->vertices = vertices;
  p->scratch = scratch;
  p->serial = ++h->delta_serials;
  p->refs = 1;
  p->next = h->delta_parents;
  if (p->next != NULL) p->next->prev = p;
  h->delta_parents = p;
  return p;
}

/* Forgets the frames held: the next frame is a key frame. */
static void chain_reset(ws_delta_t *d) {
  srv_ws_blob_unref(d->held[0]);
  srv_ws_blob_unref(d->held[1]);
  d->held[0] = d->held[1] = NULL;
  d->have = 0;
}

void ws__delta_free(stream_t *s) {
  if (s->delta == NULL) return;
  chain_reset(s->delta);
  parents_release(s->delta->parents);
  free(s->delta);
  s->delta = NULL;
}

void ws__delta_key(const stream_t *s) {
  if (s->delta != NULL) chain_reset(s->delta);
}

/* Whether the frame at sampled clip time t is on the stream's grid of
 * key frames. */
static bool on_key_grid(const stream_t *s, float t) {
  double period = fabs(s->clock.speed) / s->clock.fps;
  if (!(period > 0)) return false;
  double g = nearbyint((double)t / period);
  return isfinite(g) && fmod(g, (double)s->key_every) == 0;
}

/* The delta frame of s at t: its frame's data into *fd, its payload into
 * *out (a reference the caller drops) and *len, and the chain moved on
 * (the frame counts as sent). 0 or a negative errno. */
static int delta_make(srv_ws_hub_t *h, const stream_t *s, float t,
                      srv_ws_frame_data_t *fd, srv_ws_blob_t **out,
                      size_t *len) {
  srv_ws_eval_key_t ek = ws__stream_key(s, t, s->mesh);
  int r = srv_ws_eval_get(h->eval, &ek, fd);
  if (r != 0) return r;
  if (fd->q16 == NULL || fd->q16_blob == NULL) return UV_EINVAL;
  size_t bytes = 4 * (size_t)fd->q16_words;
  ws_delta_t *d = s->delta;
  if (d == NULL) {
    d = calloc(1, sizeof *d);
    if (d == NULL) return UV_ENOMEM;
    ((stream_t *)s)->delta = d;
  }
  /* Another mesh or size (a set): a new chain, with its mesh's parents. */
  if (d->parents == NULL || d->parents->mesh != s->mesh ||
      d->parents->vertices != fd->elements || d->bytes != bytes) {
    chain_reset(d);
    parents_release(d->parents);
    d->parents = parents_get(h, s->mesh, fd->elements, fd->q16);
    if (d->parents == NULL) return UV_ENOMEM;
    d->bytes = bytes;
  }
  bool key = d->have == 0 || d->since_key >= s->key_every || on_key_grid(s, t);
  srv_ws_delta_key_t dk = {.parents = d->parents->serial};
  if (!key) {
    dk.a = d->serial[d->last];
    dk.b = d->have >= 2 ? d->serial[1 - d->last] : 0;
    dk.seq = d->seq;
  }
  srv_ws_blob_t *b = srv_ws_eval_delta_find(h->eval, fd->serial, &dk, len);
  if (b != NULL) {
    srv_ws_blob_ref(b);
  } else {
    const uint8_t *pa = key ? NULL : d->held[d->last]->data;
    const uint8_t *pb = key || d->have < 2 ? NULL : d->held[1 - d->last]->data;
    fmt_buf_t *o = &h->out;
    fmt_buf_reset(o);
    if (!fmt_buf_reserve(o, fmt_q16_delta_bound(fd->elements, s->normals)))
      return UV_ENOMEM;
    size_t n = fmt_q16_delta_encode(fd->q16, pa, pb, d->parents->d,
                                    fd->elements, s->normals, d->seq,
                                    d->parents->scratch, (uint8_t *)o->data);
    b = srv_ws_blob_new(n);
    if (b == NULL) return UV_ENOMEM;
    memcpy(b->data, o->data, n);
    *len = n;
    srv_ws_eval_delta_put(h->eval, fd->serial, &dk, b, n);
  }
  /* The chain moves on: this payload is the last sent, and the next seq
   * follows this frame's (a cached key frame's may be another stream's). */
  uint32_t seq = (uint32_t)b->data[0] | (uint32_t)b->data[1] << 8 |
                 (uint32_t)b->data[2] << 16 | (uint32_t)b->data[3] << 24;
  srv_ws_blob_t *sent = srv_ws_blob_ref(fd->q16_blob);
  if (key) chain_reset(d);
  unsigned slot = d->have == 0 ? 0 : 1 - d->last;
  srv_ws_blob_unref(d->held[slot]);
  d->held[slot] = sent;
  d->serial[slot] = fd->serial;
  d->last = slot;
  d->since_key = key ? 1 : d->since_key + 1;
  if (d->have < 2) d->have++;
  d->seq = seq + 1;
  *out = b;
  return 0;
}

/* The binary header of a delta frame of len bytes. */
static void delta_header(uint8_t head[WS_BIN_HEADER], const stream_t *s,
                         int64_t frame, float t, const srv_ws_frame_data_t *fd,
                         size_t len) {
  srv_ws_frame_data_t h = *fd;
  h.q16_words = (uint32_t)(len / 4);
  ws__bin_header(head, s->index, ws__stream_layout(s), frame, t, &h);
}

/* The stream's delta frame at t: its header into head, the shared
 * payload (a reference) and its length. 0 or a libuv error. */
static int delta_prepare(srv_ws_hub_t *h, const stream_t *s, int64_t frame,
                         float t, uint8_t head[WS_BIN_HEADER],
                         srv_ws_frame_data_t *fd, srv_ws_blob_t **b,
                         size_t *len) {
  int r = delta_make(h, s, t, fd, b, len);
  if (r == 0) delta_header(head, s, frame, t, fd, *len);
  return r;
}

int ws__delta_frame(srv_ws_hub_t *h, const stream_t *s, int64_t frame,
                    float t) {
  srv_ws_frame_data_t fd;
  srv_ws_blob_t *b;
  size_t len;
  uint8_t head[WS_BIN_HEADER];
  int r = delta_prepare(h, s, frame, t, head, &fd, &b, &len);
  if (r != 0) return r;
  fmt_buf_t *o = &h->out;
  fmt_buf_reset(o);
  fmt_buf_append(o, head, sizeof head);
  fmt_buf_append(o, b->data, len);
  srv_ws_blob_unref(b);
  if (fd.answer_count > 0) fmt_buf_f32le(o, fd.answer, fd.answer_count);
  return o->failed ? UV_ENOMEM : 0;
}

int ws__delta_queue(srv_ws_hub_t *h, const stream_t *s, int64_t frame,
                    float t) {
  srv_ws_frame_data_t fd;
  srv_ws_blob_t *b;
  size_t len;
  uint8_t head[WS_BIN_HEADER];
  int r = delta_prepare(h, s, frame, t, head, &fd, &b, &len);
  if (r != 0) return r;
  if (fd.answer_count == 0) {
    /* The header the stream's own, the payload shared. */
    r = srv_ws_frame_queue_push(&s->client->frames, WSLAY_BINARY_FRAME, head,
                                sizeof head, b, b->data, len);
    srv_ws_blob_unref(b);
    return r;
  }
  /* With the fields' answer after it: the frame whole, in a buffer. */
  size_t total = sizeof head + len + 4 * (size_t)fd.answer_count;
  srv_ws_blob_t *m = srv_ws_blob_new(total);
  if (m == NULL) {
    srv_ws_blob_unref(b);
    return UV_ENOMEM;
  }
  memcpy(m->data, head, sizeof head);
  memcpy(m->data + sizeof head, b->data, len);
  srv_ws_blob_unref(b);
  fmt_buf_t *o = &h->out;
  fmt_buf_reset(o);
  fmt_buf_f32le(o, fd.answer, fd.answer_count);
  if (o->failed) {
    srv_ws_blob_unref(m);
    return UV_ENOMEM;
  }
  memcpy(m->data + sizeof head + len, o->data, o->len);
  r = srv_ws_frame_queue_push(&s->client->frames, WSLAY_BINARY_FRAME, NULL, 0,
                              m, m->data, total);
  srv_ws_blob_unref(m);
  return r;
}
