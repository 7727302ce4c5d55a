/* server: WebSocket pose streaming: clients, streams and the scheduler.
 *
 * Key design choice: one timer per loop, not one per stream. Streams sit
 * in a min-heap keyed by the due time of their next frame; the timer is a
 * deadline (deadline.h) armed to the nanosecond for the earliest, so a
 * wake is never early and, on Linux, late only by the kernel's slack. A
 * tick pops every stream due within a short window, sends its latest due
 * frame (frames it is too late for are skipped and counted, never sent
 * as a burst) and pushes it back with its next due time. Due times come
 * from the stream's clock (ws_pace.h), never from the previous tick, so
 * they do not drift. */
#include "server/ws/stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/answer.h"
#include "formats/buf.h"
#include "formats/vocab.h"
#include "server/net/deadline.h"
#include "server/request/target.h"
#include "server/ws/fetch.h"
#include "server/ws/frame_cache.h"
#include "server/ws/frame_queue.h"
#include "server/ws/oneshot.h"
#include "server/ws/pace.h"
#include "server/ws/proto.h"
#include "server/ws/session.h"

#define WS_BIN_HEADER 32 /* Bytes before the floats of a binary frame. */
#define WS_ONE_SHOT UINT32_MAX

typedef struct stream_s {
  srv_ws_client_t *client;
  char id[SRV_WS_ID_MAX + 1];
  uint32_t index;      /* Stream index in binary headers. */
  char *skeleton_name; /* As the client named them (JSON answers). */
  char *clip_name;
  char *mesh_name;
  store_asset_t *skeleton, *clip, *mesh; /* Retained. */
  /* A stream of several meshes (play's "mesh" array or "mesh_all"):
   * mesh_count of them, retained, each frame carrying them all; mesh is
   * then the first (retained once more). NULL and 0 otherwise. */
  store_asset_t **meshes;
  uint32_t mesh_count;
  uint32_t *mask; /* Caller-order joints to send, or NULL. */
  uint32_t mask_count;
  srv_ws_clock_t clock;
  int64_t next; /* Next frame number to send. */
  uint64_t due; /* Due time of next (heap key). */
  int heap_pos; /* -1 when not scheduled (paused). */
  bool paused;
  double paused_t; /* Clip time to resume from. */
  int wrap, space, method;
  bool normals;
  srv_ws_format format;
  fmt_encoding encoding; /* q16: binary mesh frames only. */
  srv_fields_t fields;   /* The table's fields (request/fields.h). */
  uint64_t frames, skipped, dropped;
  float pose_t; /* A one-shot pose's sampled time. */
} stream_t;

struct srv_ws_client_s {
  srv_ws_hub_t *hub;
  srv_ws_client_t *prev, *next;
  srv_ws_transport_t t;
  void *tctx;
  srv_ws_session_t session;
  srv_ws_frame_queue_t frames; /* Data frames of this tick, unwritten. */
  stream_t **streams;
  unsigned stream_count;
  uint32_t next_index;
  uint64_t last_rx_ns;
  uint64_t close_ns; /* When the close handshake started, or 0. */
  bool ping_out;
  bool transport_closed;       /* transport.close was called. */
  int busy;                    /* Calls of this client on the stack. */
  srv_ws_client_t *dirty_next; /* In the tick's list of unflushed clients. */
  bool dirty;
  uint64_t dirty_due; /* Earliest due time of the frames queued. */
  bool free_pending;
  struct pose_wait_s *posing; /* A pose skinned on the pool, or NULL. */
  srv_ws_held_t held;         /* Messages that came meanwhile (oneshot.h). */
  uint64_t sent, dropped;
  uint64_t skipped, messages; /* Over the session, all streams. */
};

struct srv_ws_hub_s {
  store_t *store;
  srv_ws_limits_t lim;
  srv_deadline_t tick;
  uv_timer_t sweep;
  int open_handles;
  bool freeing;
  stream_t **heap;
  unsigned heap_len, heap_cap;
  srv_ws_client_t *clients;
  srv_ws_client_t *dirty;  /* Clients with frames queued in this tick. */
  srv_send_batch_t *batch; /* Their writes, sent together (NULL: no memory,
                            * each client writes on its own). */
  srv_ws_eval_t *eval;
  srv_ws_fetch_t *fetch; /* NULL without a shared store. */
  /* The command being run (its text), how many fetches led to this run,
   * and how the last one went. */
  const char *message;
  size_t message_len;
  unsigned fetches;
  srv_backend_status fetched;
  fmt_buf_t out; /* The message being built. */
  fmt_buf_t tmp;
  srv_ws_hub_stats_t stats;
};

void srv_ws_limits_defaults(srv_ws_limits_t *lim) {
  lim->high_water = 256 * 1024;
  lim->max_message = 64 * 1024;
  lim->max_streams = 64;
  lim->ping_interval_ms = 15000;
  lim->ping_timeout_ms = 45000;
  lim->close_timeout_ms = 2000;
  lim->frame_cache_bytes = 64u << 20;
  lim->io_uring = true;
  lim->backend = NULL;
}

/* ---- heap ---------------------------------------------------------------- */

static void heap_set(srv_ws_hub_t *h, unsigned i, stream_t *s) {
  h->heap[i] = s;
  s->heap_pos = (int)i;
}

static void heap_up(srv_ws_hub_t *h, unsigned i) {
  stream_t *s = h->heap[i];
  while (i > 0) {
    unsigned p = (i - 1) / 2;
    if (h->heap[p]->due <= s->due) break;
    heap_set(h, i, h->heap[p]);
    i = p;
  }
  heap_set(h, i, s);
}

static void heap_down(srv_ws_hub_t *h, unsigned i) {
  stream_t *s = h->heap[i];
  for (;;) {
    unsigned l = 2 * i + 1, m = i;
    stream_t *best = s;
    if (l < h->heap_len && h->heap[l]->due < best->due) best = h->heap[m = l];
    if (l + 1 < h->heap_len && h->heap[l + 1]->due < best->due)
      best = h->heap[m = l + 1];
    if (m == i) break;
    heap_set(h, i, best);
    i = m;
  }
  heap_set(h, i, s);
}

static int heap_push(srv_ws_hub_t *h, stream_t *s) {
  if (h->heap_len == h->heap_cap) {
    unsigned cap = h->heap_cap ? 2 * h->heap_cap : 64;
    stream_t **p = realloc(h->heap, cap * sizeof *p);
    if (p == NULL) return UV_ENOMEM;
    h->heap = p;
    h->heap_cap = cap;
  }
  h->heap[h->heap_len++] = s;
  heap_up(h, h->heap_len - 1);
  return 0;
}

static void heap_remove(srv_ws_hub_t *h, stream_t *s) {
  if (s->heap_pos < 0) return;
  unsigned i = (unsigned)s->heap_pos;
  s->heap_pos = -1;
  h->heap_len--;
  if (i == h->heap_len) return;
  heap_set(h, i, h->heap[h->heap_len]);
  heap_down(h, i);
  heap_up(h, (unsigned)h->heap[i]->heap_pos);
}

static void on_tick(srv_deadline_t *timer);

static void arm(srv_ws_hub_t *h) {
  if (h->freeing) return;
  if (h->heap_len == 0)
    srv_deadline_stop(&h->tick);
  else
    srv_deadline_start(&h->tick, h->heap[0]->due, on_tick);
}

/* ---- client calls and deferred free -------------------------------------- */

static void client_release(srv_ws_client_t *c);

static void enter(srv_ws_client_t *c) { c->busy++; }

static void leave(srv_ws_client_t *c) {
  if (--c->busy == 0 && c->free_pending) client_release(c);
}

static void transport_close(srv_ws_client_t *c) {
  if (c->transport_closed) return;
  c->transport_closed = true;
  c->t.close(c->tctx);
}

/* After any session call: end the transport once the session is over. */
static void check_done(srv_ws_client_t *c) {
  if (srv_ws_session_done(&c->session)) transport_close(c);
}

/* ---- messages to the client ---------------------------------------------- */

static void client_close(srv_ws_client_t *c, uint16_t code, const char *reason);

/* Answers to control messages are never dropped, so a client that sends
 * messages without reading the answers is cut off (1008) once its unsent
 * data passes WS_UNREAD_FACTOR high-water marks. */
#define WS_UNREAD_FACTOR 16

/* Bytes the client has not read yet: in the transport, in wslay's queue
 * and in this tick's data frames. */
static size_t client_queued(srv_ws_client_t *c) {
  return c->t.queued(c->tctx) + srv_ws_session_queued(&c->session) +
         c->frames.bytes;
}

/* True (after closing it) when the client has left too much unread. */
static bool over_unread(srv_ws_client_t *c) {
  size_t queued = client_queued(c);
  if (queued <= WS_UNREAD_FACTOR * c->hub->lim.high_water) return false;
  client_close(c, 1008, "too much unread data");
  transport_close(c);
  return true;
}

/* Every answer to a message goes out here, under the unread rule. */
static void send_answer(srv_ws_client_t *c, uint8_t opcode, const void *data,
                        size_t len) {
  if (over_unread(c)) return;
  srv_ws_session_send(&c->session, opcode, data, len);
  check_done(c);
}

static void send_text(srv_ws_client_t *c, const fmt_buf_t *b) {
  if (b->failed) return;
  send_answer(c, WSLAY_TEXT_FRAME, b->data, b->len);
}

/* An error message, named from the error table (server/errors.h). */
static void send_error(srv_ws_client_t *c, const char *id, srv_error_code code,
                       const char *at, const char *message) {
  srv_ws_hub_t *h = c->hub;
  h->stats.errors++;
  fmt_buf_reset(&h->out);
  srv_error_json(&h->out, code, at, message);
  if (id != NULL && id[0] != '\0' && h->out.len > 0 && !h->out.failed) {
    h->out.len--; /* The closing brace. */
    fmt_buf_puts(&h->out, ",\"id\":");
    fmt_buf_puts(&h->out, id);
    fmt_buf_putc(&h->out, '}');
  }
  send_text(c, &h->out);
}

static void send_cmd_error(srv_ws_client_t *c, const srv_ws_error_t *e) {
  int code = srv_error_lookup(e->code);
  send_error(c, e->id, code < 0 ? SRV_ERR_INTERNAL : (srv_error_code)code,
             e->at, e->message);
}

/* {"op":op,"id":ID, ...}: the caller appends fields and the brace. */
static fmt_buf_t *ack_begin(srv_ws_client_t *c, const char *op,
                            const char *id) {
  fmt_buf_t *b = &c->hub->out;
  fmt_buf_reset(b);
  fmt_buf_puts(b, "{\"op\":");
  fmt_buf_json_string(b, op);
  if (id != NULL && id[0] != '\0') {
    fmt_buf_puts(b, ",\"id\":");
    fmt_buf_puts(b, id);
  }
  return b;
}

/* ---- streams ------------------------------------------------------------- */

static stream_t *find_stream(srv_ws_client_t *c, const char *id) {
  for (unsigned i = 0; i < c->stream_count; i++)
    if (strcmp(c->streams[i]->id, id) == 0) return c->streams[i];
  return NULL;
}

/* Releases what resolve took into s (s itself stays). */
static void stream_release(stream_t *s) {
  store_asset_release(s->skeleton);
  store_asset_release(s->clip);
  store_asset_release(s->mesh);
  if (s->meshes != NULL) store_list_free(s->meshes, s->mesh_count);
  free(s->skeleton_name);
  free(s->clip_name);
  free(s->mesh_name);
  free(s->mask);
}

static void stream_free(stream_t *s) {
  stream_release(s);
  free(s);
}

static void stream_remove(srv_ws_client_t *c, stream_t *s) {
  heap_remove(c->hub, s);
  for (unsigned i = 0; i < c->stream_count; i++) {
    if (c->streams[i] == s) {
      c->streams[i] = c->streams[--c->stream_count];
      break;
    }
  }
  c->hub->stats.streams--;
  stream_free(s);
}

static void stop_all_streams(srv_ws_client_t *c) {
  /* Frames not yet written go with their streams. */
  srv_ws_frame_queue_clear(&c->frames);
  while (c->stream_count > 0) stream_remove(c, c->streams[0]);
}

/* The binary layout of the stream's frames (header offset 4), numbered
 * and named as in formats/vocab.h. */
static fmt_layout stream_layout(const stream_t *s) {
  if (s->mesh != NULL)
    return fmt_layout_of_skin_encoded(s->normals, s->encoding);
  return fmt_layout_of_pose((fmt_space)s->space);
}

/* Whether encoding fits a stream of mesh in format; sends the error when
 * not. */
static bool encoding_fits(srv_ws_client_t *c, const char *id,
                          const store_asset_t *mesh, srv_ws_format format,
                          fmt_encoding encoding) {
  if (encoding != FMT_ENCODING_Q16) return true;
  if (mesh == NULL)
    send_error(c, id, SRV_ERR_BAD_VALUE, "encoding",
               "q16 encodes skinned vertices: it needs a mesh");
  else if (format != SRV_WS_FORMAT_BIN)
    send_error(c, id, SRV_ERR_BAD_VALUE, "encoding",
               "q16 is a binary encoding: it needs format bin");
  else
    return true;
  return false;
}

/* The clip time a frame samples: wrapped in double, then as the float the
 * core samples with (a float in the clip's range is its own wrap). */
static float sampled_time(const stream_t *s, double t) {
  float d = s->clip->clip->duration;
  return anim_wrap_time((float)srv_ws_wrap(t, d, s->wrap), d,
                        (anim_wrap)s->wrap);
}

/* The frame cache's key of the stream's frame at t; mesh: the stream's
 * (of several, the one this part of the frame is of). */
static srv_ws_eval_key_t stream_key(const stream_t *s, float t,
                                    store_asset_t *mesh) {
  srv_ws_eval_key_t key = {
      .skeleton = s->skeleton,
      .clip = s->clip,
      .mesh = mesh,
      .t = t,
      .wrap = (uint8_t)s->wrap,
      .space = (uint8_t)s->space,
      .normals = s->normals,
      .method = (uint8_t)s->method,
      .mask = s->mask,
      .mask_count = s->mask_count,
      .encoding = (uint8_t)s->encoding,
      .fields = s->fields,
  };
  return key;
}

static void put_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The 32-byte header of a binary frame (docs/api.md): stream index,
 * layout, frame number (low and high words), clip time (f64), the
 * payload's count (q16: of its 32-bit words) and elements. */
static void bin_header(uint8_t out[WS_BIN_HEADER], uint32_t index,
                       fmt_layout layout, int64_t frame, float t,
                       const srv_ws_frame_data_t *fd) {
  uint64_t f = frame < 0 ? 0 : (uint64_t)frame;
  double td = t;
  uint64_t tb;
  memcpy(&tb, &td, sizeof tb);
  put_u32le(out, index);
  put_u32le(out + 4, (uint32_t)layout);
  put_u32le(out + 8, (uint32_t)(f & 0xffffffffu));
  put_u32le(out + 12, (uint32_t)(f >> 32));
  put_u32le(out + 16, (uint32_t)(tb & 0xffffffffu));
  put_u32le(out + 20, (uint32_t)(tb >> 32));
  put_u32le(out + 24, fd->q16 != NULL ? fd->q16_words : fd->count);
  put_u32le(out + 28, fd->elements);
}

/* The message of one frame of a stream of several meshes into hub->out
 * (docs/api.md, "Several meshes"): binary, the frame header (count: the
 * 32-bit words after it; elements: the vertices of all meshes) then per
 * mesh a 16-byte block header (u32 position, u32 words, f64 t) and its
 * payload, as GET /v1/skin?skeleton= answers; JSON, {"id","frame","t",
 * "meshes":[the single-mesh answers]}. Returns 0 or a negative errno. */
static int build_meshes_frame(srv_ws_hub_t *h, const stream_t *s,
                              uint32_t index, int64_t frame, float t) {
  fmt_buf_t *b = &h->out;
  fmt_buf_reset(b);
  bool bin = s->format == SRV_WS_FORMAT_BIN;
  if (bin) {
    uint8_t head[WS_BIN_HEADER];
    srv_ws_frame_data_t none = {0};
    bin_header(head, index, stream_layout(s), frame, t, &none);
    fmt_buf_append(b, head, sizeof head);
  } else {
    fmt_buf_putc(b, '{');
    if (s->id[0] != '\0') {
      fmt_buf_puts(b, "\"id\":");
      fmt_buf_puts(b, s->id);
      fmt_buf_putc(b, ',');
    }
    fmt_buf_puts(b, "\"skeleton\":");
    fmt_buf_json_string(b, s->skeleton_name);
    if (frame >= 0) {
      fmt_buf_puts(b, ",\"frame\":");
      fmt_buf_uint(b, (uint64_t)frame);
    }
    fmt_buf_puts(b, ",\"t\":");
    fmt_buf_float(b, t);
    fmt_buf_puts(b, ",\"meshes\":[");
  }
  uint64_t words = 0, vertices = 0;
  for (uint32_t k = 0; k < s->mesh_count; k++) {
    srv_ws_eval_key_t key = stream_key(s, t, s->meshes[k]);
    srv_ws_frame_data_t fd;
    int r = srv_ws_eval_get(h->eval, &key, &fd);
    if (r != 0) return r;
    vertices += fd.elements;
    if (bin) {
      uint32_t n = fd.q16 != NULL ? fd.q16_words : fd.count;
      fmt_buf_u32le(b, k);
      fmt_buf_u32le(b, n);
      fmt_buf_f64le(b, t);
      if (fd.q16 != NULL)
        fmt_buf_append(b, fd.q16, 4 * (size_t)n);
      else
        fmt_buf_f32le(b, fd.floats, n);
      words += 4 + (uint64_t)n;
      continue;
    }
    fmt_skin_answer_t sa = {
        .mesh = s->meshes[k]->id,
        .clip = s->clip_name,
        .t = t,
        .frame = -1,
        .vertex_count = fd.elements,
        .positions = fd.floats,
        .normals = s->normals ? fd.floats + 3 * (size_t)fd.elements : NULL,
        .ids = store_answer_names(s->meshes[k], s->clip),
    };
    if (k > 0) fmt_buf_putc(b, ',');
    fmt_answer_skin_json(b, &sa);
  }
  if (bin) {
    if (words > UINT32_MAX || vertices > UINT32_MAX) return UV_E2BIG;
    if (!b->failed) {
      put_u32le((uint8_t *)b->data + 24, (uint32_t)words);
      put_u32le((uint8_t *)b->data + 28, (uint32_t)vertices);
    }
  } else {
    fmt_buf_puts(b, "]}");
  }
  return b->failed ? UV_ENOMEM : 0;
}

/* Writes the message of one frame (index WS_ONE_SHOT: a pose answer) of
 * the evaluated fd into b (tmp: scratch). Touches only its arguments and
 * immutable assets, so it runs on a worker too. 0 or a negative errno. */
static int frame_message(fmt_buf_t *b, fmt_buf_t *tmp, const stream_t *s,
                         uint32_t index, int64_t frame, float t,
                         const srv_ws_frame_data_t *pfd) {
  srv_ws_frame_data_t fd = *pfd;
  fmt_buf_reset(b);
  if (s->format == SRV_WS_FORMAT_BIN) {
    uint8_t head[WS_BIN_HEADER];
    bin_header(head, index, stream_layout(s), frame, t, &fd);
    fmt_buf_append(b, head, sizeof head);
    if (fd.q16 != NULL)
      fmt_buf_append(b, fd.q16, 4 * (size_t)fd.q16_words);
    else
      fmt_buf_f32le(b, fd.floats, fd.count);
    return b->failed ? UV_ENOMEM : 0;
  }
  fmt_buf_t *a = tmp;
  fmt_buf_reset(a);
  if (s->mesh != NULL) {
    fmt_skin_answer_t sa = {
        .mesh = s->mesh_name,
        .clip = s->clip_name,
        .t = t,
        .frame = frame,
        .vertex_count = fd.elements,
        .positions = fd.floats,
        .normals = s->normals ? fd.floats + 3 * (size_t)fd.elements : NULL,
        .ids = store_answer_names(s->mesh, s->clip),
    };
    fmt_answer_skin_json(a, &sa);
  } else {
    fmt_pose_answer_t pa = {
        .skeleton = s->skeleton_name,
        .clip = s->clip_name,
        .t = t,
        .frame = frame,
        .joint_count = fd.elements,
        .space = (fmt_space)s->space,
        .data = fd.floats,
        .ids = store_answer_names(s->skeleton, s->clip),
    };
    fmt_answer_pose_json(a, &pa);
  }
  if (a->failed || a->len < 2) return UV_ENOMEM;
  /* The HTTP answer with "id" first. */
  fmt_buf_putc(b, '{');
  if (s->id[0] != '\0') {
    fmt_buf_puts(b, "\"id\":");
    fmt_buf_puts(b, s->id);
    fmt_buf_putc(b, ',');
  }
  fmt_buf_append(b, a->data + 1, a->len - 1);
  return b->failed ? UV_ENOMEM : 0;
}

/* Builds the message of one frame into hub->out, evaluated here or found
 * in the frame cache. Returns 0 or a negative errno. */
static int build_frame(srv_ws_hub_t *h, const stream_t *s, uint32_t index,
                       int64_t frame, float t) {
  if (s->meshes != NULL) return build_meshes_frame(h, s, index, frame, t);
  srv_ws_eval_key_t key = stream_key(s, t, s->mesh);
  srv_ws_frame_data_t fd;
  int r = srv_ws_eval_get(h->eval, &key, &fd);
  if (r != 0) return r;
  return frame_message(&h->out, &h->tmp, s, index, frame, t, &fd);
}

const double srv_ws_late_bounds[SRV_WS_LATE_BUCKETS] = {
    0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032};

static void count_lateness(srv_ws_hub_t *h, uint64_t due, uint64_t now) {
  double late = now > due ? (double)(now - due) / 1e9 : 0;
  unsigned b = 0;
  while (b < SRV_WS_LATE_BUCKETS && late > srv_ws_late_bounds[b]) b++;
  h->stats.late[b]++;
  h->stats.late_sum += late;
}

/* The transport's one write of a client's data frames (a write per
 * buffer when it has no writev). */
static int client_writev(void *ctx, const uv_buf_t *bufs, unsigned nbufs) {
  srv_ws_client_t *c = ctx;
  if (c->transport_closed) return UV_EPIPE;
  if (c->t.writev != NULL) return c->t.writev(c->tctx, bufs, nbufs);
  for (unsigned i = 0; i < nbufs; i++) {
    int r = c->t.write(c->tctx, (const uint8_t *)bufs[i].base, bufs[i].len);
    if (r != 0) return r;
  }
  return 0;
}

/* The end of a client's write that went out in the tick's send batch. */
static void on_batch_written(int status, void *arg) {
  srv_ws_client_t *c = arg;
  srv_ws_frame_queue_clear(&c->frames);
  if (status < 0) srv_ws_session_direct_failed(&c->session);
}

static int client_writev_batched(void *ctx, const uv_buf_t *bufs,
                                 unsigned nbufs) {
  srv_ws_client_t *c = ctx;
  return c->t.writev_batched(c->tctx, c->hub->batch, bufs, nbufs,
                             on_batch_written, c);
}

/* Writes the client's queued data frames in one write, after whatever its
 * session holds. With may_batch (a tick) the write joins the hub's send
 * batch when it can: returns true, and the frames stay queued until the
 * batch has run (on_batch_written). */
static bool flush_frames(srv_ws_client_t *c, bool may_batch) {
  if (c->frames.count == 0) return false;
  if (c->transport_closed || srv_ws_session_direct_begin(&c->session) != 0) {
    srv_ws_frame_queue_clear(&c->frames);
    return false;
  }
  int r = may_batch && c->hub->batch != NULL && c->t.writev_batched != NULL
              ? srv_ws_frame_queue_send(&c->frames, client_writev_batched, c)
              : srv_ws_frame_queue_flush(&c->frames, client_writev, c);
  if (r == 1) return true;
  srv_ws_frame_queue_clear(&c->frames);
  if (r < 0) srv_ws_session_direct_failed(&c->session);
  return false;
}

/* Queues frame n of s (clip time t) to its client, written at the end of
 * the tick. A binary frame's payload is the frame cache's shared bytes
 * (one copy for every subscriber of the same stream state) behind a
 * header of its own; a JSON frame names its stream, so it is made for
 * it. Returns 0 or a negative errno. */
static int queue_frame(srv_ws_hub_t *h, const stream_t *s, int64_t n, float t) {
  srv_ws_client_t *c = s->client;
  /* A frame of several meshes is made whole, as a JSON one. */
  if (s->format == SRV_WS_FORMAT_BIN && s->meshes == NULL) {
    srv_ws_eval_key_t key = stream_key(s, t, s->mesh);
    srv_ws_frame_data_t fd;
    int r = srv_ws_eval_get(h->eval, &key, &fd);
    if (r != 0) return r;
    if (fd.payload != NULL) {
      uint8_t head[WS_BIN_HEADER];
      bin_header(head, s->index, stream_layout(s), n, t, &fd);
      return srv_ws_frame_queue_push(&c->frames, WSLAY_BINARY_FRAME, head,
                                     sizeof head, fd.payload, fd.payload->data,
                                     fd.payload_len);
    }
  }
  int r = build_frame(h, s, s->index, n, t);
  if (r != 0) return r;
  srv_ws_blob_t *b = srv_ws_blob_new(h->out.len);
  if (b == NULL) return UV_ENOMEM;
  memcpy(b->data, h->out.data, h->out.len);
  r = srv_ws_frame_queue_push(
      &c->frames,
      s->format == SRV_WS_FORMAT_BIN ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME,
      NULL, 0, b, b->data, h->out.len);
  srv_ws_blob_unref(b);
  return r;
}

static void send_frame(stream_t *s, int64_t n, bool in_tick) {
  srv_ws_client_t *c = s->client;
  srv_ws_hub_t *h = c->hub;
  if (srv_ws_session_closing(&c->session)) return;
  if (client_queued(c) > h->lim.high_water) {
    s->dropped++;
    c->dropped++;
    h->stats.frames_dropped++;
    return;
  }
  float t = sampled_time(s, srv_ws_clock_time(&s->clock, n));
  int r;
  if (in_tick) {
    r = queue_frame(h, s, n, t);
  } else if ((r = build_frame(h, s, s->index, n, t)) == 0) {
    flush_frames(c, false);
    srv_ws_session_send(&c->session,
                        s->format == SRV_WS_FORMAT_BIN ? WSLAY_BINARY_FRAME
                                                       : WSLAY_TEXT_FRAME,
                        h->out.data, h->out.len);
    check_done(c);
  }
  if (r != 0) {
    s->dropped++;
    h->stats.frames_dropped++;
    return;
  }
  if (in_tick) {
    uint64_t due = srv_ws_clock_due(&s->clock, n);
    if (!c->dirty) {
      /* Written once at the end of the tick, with the frames of the
       * client's other streams due in the same tick. The client stays
       * entered until then, so it cannot be freed meanwhile. */
      c->dirty = true;
      c->dirty_due = due;
      c->dirty_next = h->dirty;
      h->dirty = c;
      enter(c);
    } else if (due < c->dirty_due) {
      c->dirty_due = due;
    }
  }
  s->frames++;
  c->sent++;
  h->stats.frames_sent++;
}

/* One stream's turn in a tick that serves what is due by horizon. */
static void stream_tick(stream_t *s, uint64_t horizon) {
  srv_ws_tick_t t = srv_ws_clock_tick(&s->clock, s->next, horizon);
  if (t.frame >= 0) {
    s->skipped += (uint64_t)t.skipped;
    s->client->skipped += (uint64_t)t.skipped;
    s->client->hub->stats.frames_skipped += (uint64_t)t.skipped;
    send_frame(s, t.frame, true);
    s->next = t.frame + 1;
    /* Skinning is heavy: have the pool compute the next frame while this
     * one travels. */
    if (s->mesh != NULL) {
      float next = sampled_time(s, srv_ws_clock_time(&s->clock, s->next));
      for (uint32_t k = 0; k < (s->meshes ? s->mesh_count : 1); k++) {
        srv_ws_eval_key_t key =
            stream_key(s, next, s->meshes ? s->meshes[k] : s->mesh);
        srv_ws_eval_prefetch(s->client->hub->eval, &key);
      }
    }
  }
  s->due = srv_ws_clock_due(&s->clock, s->next);
}

/* How long one tick may keep serving streams that come due while it
 * runs before it returns to the loop (reads and control messages wait
 * meanwhile). */
#define TICK_BUDGET_NS 1000000
/* A tick also serves the streams falling due this soon after it: their
 * frames leave up to this much early, and in exchange streams due within
 * a fraction of a millisecond (a client's several streams, most of all)
 * share one wake-up and one write. Far below the shortest frame period
 * (1 / SRV_WS_FPS_MAX, 4.2 ms), so a window never holds two frames of one
 * stream. */
#define TICK_WINDOW_NS 250000

static void on_tick(srv_deadline_t *timer) {
  srv_ws_hub_t *h = timer->data;
  uint64_t start = uv_hrtime(), now = start;
  /* In batches: the streams due by now (and the window), then one write
   * per client for its frames of the batch, then the streams that came
   * due meanwhile, which saves a timer wake-up per stream when the loop
   * is busy. Each stream is popped at most once per batch: its next due
   * time is later than the batch's horizon. */
  for (;;) {
    uint64_t horizon = now + TICK_WINDOW_NS;
    while (h->heap_len > 0 && h->heap[0]->due <= horizon) {
      stream_t *s = h->heap[0];
      srv_ws_client_t *c = s->client;
      enter(c);
      stream_tick(s, horizon);
      if (s->heap_pos == 0) heap_down(h, 0);
      leave(c);
    }
    /* One write per client, most of them handed to the kernel together
     * in the send batch; a client is done with once its write is out. */
    srv_ws_client_t *written = NULL, *batched = NULL;
    while (h->dirty != NULL) {
      srv_ws_client_t *c = h->dirty;
      h->dirty = c->dirty_next;
      c->dirty = false;
      if (flush_frames(c, true)) {
        c->dirty_next = batched;
        batched = c;
      } else {
        c->dirty_next = written;
        written = c;
      }
    }
    if (batched != NULL) {
      unsigned n = srv_send_batch_pending(h->batch);
      srv_send_batch_run(h->batch);
      h->stats.batched_writes += n;
      if (srv_send_batch_uses_io_uring(h->batch)) h->stats.io_uring_writes += n;
    }
    for (int list = 0; list < 2; list++) {
      srv_ws_client_t *c = list == 0 ? written : batched;
      while (c != NULL) {
        srv_ws_client_t *next = c->dirty_next;
        count_lateness(h, c->dirty_due, uv_hrtime());
        check_done(c);
        leave(c);
        c = next;
      }
    }
    now = uv_hrtime();
    if (h->heap_len == 0 || h->heap[0]->due > now + TICK_WINDOW_NS ||
        now - start >= TICK_BUDGET_NS)
      break;
  }
  arm(h);
}

/* ---- control messages ---------------------------------------------------- */

static char *dup_str(const char *s) {
  if (s == NULL) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

/* Assets a command may fetch one after the other (a skeleton, then its
 * clip or mesh). */
#define WS_FETCHES_MAX 3

/* A command's lookup failed (err): after a miss, with a shared store,
 * fetches the asset and runs the command again once it is loaded (returns
 * 1); without one, or when a fetch has already failed, sends the error
 * (store_unavailable when the store could not be reached) and returns
 * -1. */
static int lookup_failed(srv_ws_client_t *c, const char *id,
                         const srv_error_t *err,
                         const srv_lookup_miss_t *miss) {
  srv_ws_hub_t *h = c->hub;
  if (miss->missed && h->fetch != NULL && h->message != NULL &&
      h->fetched == SRV_BACKEND_OK && h->fetches < WS_FETCHES_MAX &&
      srv_ws_fetch_start(h->fetch, c, miss->kind, miss->name,
                         miss->skeleton[0] ? miss->skeleton : NULL, h->message,
                         h->message_len, h->fetches + 1) == 0)
    return 1;
  if (miss->missed && h->fetched == SRV_BACKEND_UNAVAILABLE)
    send_error(c, id, SRV_ERR_STORE_UNAVAILABLE, err->at,
               "the shared store cannot be reached; retry later");
  else
    send_error(c, id, err->code, err->at, err->message);
  return -1;
}

/* Resolves a play or pose command's assets and joint list into s through
 * the API's one lookup (request/target.h). Returns 0, -1 after sending
 * the error, or 1 when an asset is being fetched (the command runs again
 * then). */
static int resolve(srv_ws_client_t *c, const srv_ws_cmd_t *cmd, stream_t *s) {
  const char *id = cmd->id;
  srv_target_query_t names = {.skeleton = cmd->skeleton,
                              .clip = cmd->clip,
                              .mesh = cmd->mesh,
                              .meshes = {.array = cmd->meshes},
                              .mesh_all = cmd->mesh_all,
                              .joints = {.array = cmd->joints},
                              .need_normals = cmd->normals};
  srv_target_t t;
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_target_resolve(c->hub->store, &names, &t, &err, &miss) != 0)
    return lookup_failed(c, id, &err, &miss);
  s->skeleton = t.skeleton;
  s->clip = t.clip;
  if (cmd->meshes != NULL || cmd->mesh_all) {
    s->meshes = t.meshes;
    s->mesh_count = (uint32_t)t.mesh_count;
    s->mesh = s->meshes[0];
    store_asset_retain(s->mesh);
  } else if (t.mesh_count == 1) {
    s->mesh = t.meshes[0];
    free(t.meshes);
  }
  s->mask = t.joints;
  s->mask_count = t.joint_count;
  s->skeleton_name =
      dup_str(cmd->skeleton != NULL ? cmd->skeleton : s->skeleton->id);
  s->clip_name = dup_str(cmd->clip);
  s->mesh_name = dup_str(cmd->mesh);
  if (s->skeleton_name == NULL || s->clip_name == NULL ||
      (cmd->mesh != NULL && s->mesh_name == NULL)) {
    send_error(c, id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return -1;
  }
  s->wrap = cmd->wrap;
  s->space = cmd->space;
  s->format = cmd->format;
  s->normals = cmd->normals;
  s->method = cmd->method;
  s->encoding = cmd->encoding;
  s->fields = cmd->fields;
  if (!encoding_fits(c, id, s->mesh, s->format, s->encoding)) return -1;
  return 0;
}

static void describe(fmt_buf_t *b, const stream_t *s) {
  fmt_buf_puts(b, ",\"index\":");
  fmt_buf_uint(b, s->index);
  fmt_buf_puts(b, ",\"layout\":");
  fmt_buf_json_string(b, fmt_vocab_name(FMT_VOCAB_LAYOUT, stream_layout(s)));
  fmt_buf_puts(b, s->mesh != NULL ? ",\"vertices\":" : ",\"joints\":");
  uint64_t vertices = 0;
  for (uint32_t k = 0; k < s->mesh_count; k++)
    vertices += s->meshes[k]->mesh->vertex_count;
  fmt_buf_uint(b, s->meshes != NULL ? vertices
                  : s->mesh != NULL ? s->mesh->mesh->vertex_count
                  : s->mask != NULL ? s->mask_count
                                    : s->skeleton->skeleton->joint_count);
  if (s->meshes != NULL) {
    /* The meshes in the order of each frame's blocks. */
    fmt_buf_puts(b, ",\"meshes\":[");
    for (uint32_t k = 0; k < s->mesh_count; k++) {
      fmt_buf_puts(b, k ? ",{\"id\":" : "{\"id\":");
      fmt_buf_json_string(b, s->meshes[k]->id);
      fmt_buf_puts(b, ",\"name\":");
      fmt_buf_json_string(b, s->meshes[k]->name);
      fmt_buf_puts(b, ",\"vertices\":");
      fmt_buf_uint(b, s->meshes[k]->mesh->vertex_count);
      fmt_buf_putc(b, '}');
    }
    fmt_buf_putc(b, ']');
  }
  fmt_buf_puts(b, ",\"duration\":");
  fmt_buf_float(b, s->clip->clip->duration);
  fmt_buf_puts(b, ",\"fps\":");
  fmt_buf_printf(b, "%.17g", s->clock.fps);
  fmt_buf_puts(b, ",\"speed\":");
  fmt_buf_printf(b, "%.17g", s->clock.speed);
}

static void op_play(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  srv_ws_hub_t *h = c->hub;
  if (find_stream(c, cmd->id) != NULL) {
    send_error(c, cmd->id, SRV_ERR_STREAM_EXISTS, "id",
               "a stream with this id is playing; stop it first");
    return;
  }
  if (c->stream_count >= h->lim.max_streams) {
    send_error(c, cmd->id, SRV_ERR_TOO_MANY_STREAMS, "id",
               "this connection has the most streams allowed");
    return;
  }
  stream_t *s = calloc(1, sizeof *s);
  stream_t **arr = realloc(c->streams, (c->stream_count + 1) * sizeof *arr);
  if (s == NULL || arr == NULL) {
    free(s);
    if (arr != NULL) c->streams = arr;
    send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return;
  }
  c->streams = arr;
  s->client = c;
  s->heap_pos = -1;
  snprintf(s->id, sizeof s->id, "%s", cmd->id);
  if (resolve(c, cmd, s) != 0) {
    stream_free(s);
    return;
  }
  s->index = c->next_index++;
  uint64_t now = uv_hrtime();
  srv_ws_clock_init(&s->clock, now, cmd->fps, cmd->speed, cmd->t0);
  s->next = 0;
  s->due = now;
  if (heap_push(h, s) != 0) {
    stream_free(s);
    send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return;
  }
  c->streams[c->stream_count++] = s;
  h->stats.streams++;
  fmt_buf_t *b = ack_begin(c, "play", cmd->id);
  describe(b, s);
  fmt_buf_putc(b, '}');
  send_text(c, b);
  arm(h);
}

/* Moves a stream's clock base to its next frame, due now (or at its own
 * due time when keep_due), with clip time t. */
static void rebase(stream_t *s, uint64_t due, double t) {
  srv_ws_clock_rebase(&s->clock, s->next, due, t);
}

/* ,"frames":F,"skipped":S,"dropped":D of one stream (stop, stats). */
static void put_counters(fmt_buf_t *b, const stream_t *s) {
  fmt_buf_puts(b, ",\"frames\":");
  fmt_buf_uint(b, s->frames);
  fmt_buf_puts(b, ",\"skipped\":");
  fmt_buf_uint(b, s->skipped);
  fmt_buf_puts(b, ",\"dropped\":");
  fmt_buf_uint(b, s->dropped);
}

static void ack_stream(srv_ws_client_t *c, const char *op, stream_t *s) {
  fmt_buf_t *b = ack_begin(c, op, s->id);
  fmt_buf_puts(b, ",\"frame\":");
  fmt_buf_int(b, s->next);
  fmt_buf_puts(b, ",\"t\":");
  double t = s->paused ? s->paused_t : srv_ws_clock_time(&s->clock, s->next);
  fmt_buf_printf(b, "%.17g", t);
  fmt_buf_puts(b, ",\"paused\":");
  fmt_buf_puts(b, s->paused ? "true" : "false");
  fmt_buf_putc(b, '}');
  send_text(c, b);
}

static void op_stream(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  srv_ws_hub_t *h = c->hub;
  stream_t *s = find_stream(c, cmd->id);
  if (s == NULL) {
    send_error(c, cmd->id, SRV_ERR_UNKNOWN_STREAM, "id",
               "no stream with this id");
    return;
  }
  uint64_t now = uv_hrtime();
  switch (cmd->op) {
  case SRV_WS_OP_PAUSE:
    if (!s->paused) {
      s->paused = true;
      s->paused_t = srv_ws_clock_time(&s->clock, s->next);
      heap_remove(h, s);
    }
    ack_stream(c, "pause", s);
    break;
  case SRV_WS_OP_RESUME:
    if (s->paused) {
      s->paused = false;
      rebase(s, now, s->paused_t);
      s->due = now;
      heap_push(h, s);
    }
    ack_stream(c, "resume", s);
    break;
  case SRV_WS_OP_SEEK:
    if (s->paused) {
      s->paused_t = cmd->t;
      rebase(s, now, cmd->t);
      ack_stream(c, "seek", s);
      /* A paused stream shows the frame it was moved to, once. */
      send_frame(s, s->next, false);
      s->next++;
      s->paused_t = srv_ws_clock_time(&s->clock, s->next);
    } else {
      rebase(s, now, cmd->t);
      s->due = now;
      heap_remove(h, s);
      heap_push(h, s);
      ack_stream(c, "seek", s);
    }
    break;
  case SRV_WS_OP_STOP: {
    fmt_buf_t *b = ack_begin(c, "stop", s->id);
    put_counters(b, s);
    fmt_buf_putc(b, '}');
    stream_remove(c, s);
    send_text(c, b);
    break;
  }
  case SRV_WS_OP_SET:
    /* Checked before anything changes: a refused set changes nothing. */
    if (!encoding_fits(c, cmd->id, s->mesh,
                       cmd->has & SRV_WS_HAS_FORMAT ? cmd->format : s->format,
                       cmd->has & SRV_WS_HAS_ENCODING ? cmd->encoding
                                                      : s->encoding))
      return;
    if (cmd->has & (SRV_WS_HAS_FPS | SRV_WS_HAS_SPEED)) {
      /* The next frame keeps its due time and clip time; frames after it
       * follow the new rate. */
      if (!s->paused)
        rebase(s, srv_ws_clock_due(&s->clock, s->next),
               srv_ws_clock_time(&s->clock, s->next));
      if (cmd->has & SRV_WS_HAS_FPS) s->clock.fps = cmd->fps;
      if (cmd->has & SRV_WS_HAS_SPEED) s->clock.speed = cmd->speed;
    }
    if (cmd->has & SRV_WS_HAS_SPACE) {
      if (s->mesh != NULL) {
        send_error(c, cmd->id, SRV_ERR_BAD_VALUE, "space",
                   "a mesh stream has no space");
        return;
      }
      s->space = cmd->space;
    }
    if (cmd->has & SRV_WS_HAS_FORMAT) s->format = cmd->format;
    if (cmd->has & SRV_WS_HAS_ENCODING) s->encoding = cmd->encoding;
    if (cmd->has & SRV_WS_HAS_WRAP) s->wrap = cmd->wrap;
    srv_fields_merge(&s->fields, &cmd->fields);
    {
      fmt_buf_t *b = ack_begin(c, "set", s->id);
      describe(b, s);
      fmt_buf_putc(b, '}');
      send_text(c, b);
    }
    break;
  default: break;
  }
  arm(h);
}

/* A one-shot pose with a mesh: skinned, and its answer built, on the pool
 * (the frame cache's prefetch), then sent from the loop. */
typedef struct pose_wait_s {
  stream_t s; /* First: its assets and names. */
  fmt_buf_t msg, tmp;
  int built; /* frame_message's result on the worker. */
} pose_wait_t;

static void pose_wait_free(pose_wait_t *w) {
  fmt_buf_free(&w->msg);
  fmt_buf_free(&w->tmp);
  stream_free(&w->s);
}

static uint8_t pose_opcode(const stream_t *s) {
  return s->format == SRV_WS_FORMAT_BIN ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME;
}

/* Sends the one-shot pose s, its frame evaluated here or found in the
 * frame cache. */
static void send_pose(srv_ws_client_t *c, stream_t *s) {
  if (build_frame(c->hub, s, WS_ONE_SHOT, -1, s->pose_t) == 0)
    send_answer(c, pose_opcode(s), c->hub->out.data, c->hub->out.len);
  else
    send_error(c, s->id, SRV_ERR_INTERNAL, NULL, "the pose could not be made");
}

/* Worker: the answer of a pose from its skinned frame. */
static void on_pose_frame(void *arg, const srv_ws_frame_data_t *fd) {
  pose_wait_t *w = arg;
  w->built =
      frame_message(&w->msg, &w->tmp, &w->s, WS_ONE_SHOT, -1, w->s.pose_t, fd);
}

static void handle_message(srv_ws_client_t *c, uint8_t opcode,
                           const uint8_t *data, size_t len);

/* The pool is back with c->posing: send its answer, then handle the
 * messages held meanwhile, until one waits for the pool again. */
static void on_pose_ready(void *arg, int result, bool used) {
  pose_wait_t *w = arg;
  srv_ws_client_t *c = w->s.client;
  if (c == NULL) {
    /* Its client has gone meanwhile. */
    pose_wait_free(w);
    return;
  }
  enter(c);
  c->posing = NULL;
  if (!srv_ws_session_closing(&c->session)) {
    if (result == 0 && used && w->built == 0)
      send_answer(c, pose_opcode(&w->s), w->msg.data, w->msg.len);
    else if (result == 0 && !used)
      send_pose(c, &w->s);
    else
      send_error(c, w->s.id, SRV_ERR_INTERNAL, NULL,
                 "the pose could not be made");
  }
  pose_wait_free(w);
  uint8_t opcode, *data;
  size_t len;
  while (c->posing == NULL && !srv_ws_session_closing(&c->session) &&
         srv_ws_held_pop(&c->held, &opcode, &data, &len)) {
    handle_message(c, opcode, data, len);
    free(data);
  }
  if (srv_ws_session_closing(&c->session)) srv_ws_held_clear(&c->held);
  check_done(c);
  leave(c);
}

/* Hands the pose w to the pool when it has a mesh: true when it waits
 * there now (or was answered an error), false when its frame is to be
 * made here (cached already, no mesh, or no pool). */
static bool pose_on_pool(srv_ws_client_t *c, pose_wait_t *w) {
  if (w->s.mesh == NULL || w->s.meshes != NULL) return false;
  srv_ws_eval_key_t key = stream_key(&w->s, w->s.pose_t, w->s.mesh);
  int r = srv_ws_eval_prefetch_then(c->hub->eval, &key, on_pose_frame,
                                    on_pose_ready, w);
  if (r == 1 || r == UV_ENOSYS) return false;
  if (r == 0) {
    c->posing = w;
    return true;
  }
  send_error(c, w->s.id, SRV_ERR_OVERLOADED, NULL,
             "the worker queue is full; retry shortly");
  pose_wait_free(w);
  return true;
}

static void op_pose(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  pose_wait_t *w = calloc(1, sizeof *w);
  if (w == NULL) {
    send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  stream_t *s = &w->s;
  fmt_buf_init(&w->msg);
  fmt_buf_init(&w->tmp);
  s->client = c;
  s->heap_pos = -1;
  snprintf(s->id, sizeof s->id, "%s", cmd->id);
  if (resolve(c, cmd, s) != 0) {
    pose_wait_free(w);
    return;
  }
  s->pose_t = sampled_time(s, cmd->t);
  if (pose_on_pool(c, w)) return;
  send_pose(c, s);
  pose_wait_free(w);
}

static void op_stats(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  fmt_buf_t *b = ack_begin(c, "stats", cmd->id);
  fmt_buf_puts(b, ",\"sent\":");
  fmt_buf_uint(b, c->sent);
  fmt_buf_puts(b, ",\"dropped\":");
  fmt_buf_uint(b, c->dropped);
  fmt_buf_puts(b, ",\"streams\":[");
  for (unsigned i = 0; i < c->stream_count; i++) {
    const stream_t *s = c->streams[i];
    fmt_buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
    fmt_buf_puts(b, s->id);
    put_counters(b, s);
    fmt_buf_puts(b, ",\"paused\":");
    fmt_buf_puts(b, s->paused ? "true}" : "false}");
  }
  fmt_buf_puts(b, "]}");
  send_text(c, b);
}

/* Parses and runs one command (text, len bytes). */
static void dispatch(srv_ws_client_t *c, const char *text, size_t len) {
  srv_ws_hub_t *h = c->hub;
  srv_ws_cmd_t cmd;
  srv_ws_error_t err;
  if (srv_ws_cmd_parse(text, len, &cmd, &err) != 0) {
    send_cmd_error(c, &err);
    return;
  }
  h->message = text;
  h->message_len = len;
  switch (cmd.op) {
  case SRV_WS_OP_PLAY: op_play(c, &cmd); break;
  case SRV_WS_OP_POSE: op_pose(c, &cmd); break;
  case SRV_WS_OP_STATS: op_stats(c, &cmd); break;
  default: op_stream(c, &cmd); break;
  }
  h->message = NULL;
  srv_ws_cmd_free(&cmd);
}

static void handle_message(srv_ws_client_t *c, uint8_t opcode,
                           const uint8_t *data, size_t len) {
  if (opcode != WSLAY_TEXT_FRAME) {
    send_error(c, NULL, SRV_ERR_BAD_MESSAGE, NULL,
               "control messages are JSON text messages");
    return;
  }
  dispatch(c, (const char *)data, len);
}

/* A fetch for a command is done (fetch.h): the command runs again. */
static void on_fetched(void *client, const char *message, size_t len,
                       unsigned fetches, srv_backend_status status) {
  srv_ws_client_t *c = client;
  srv_ws_hub_t *h = c->hub;
  if (c->transport_closed || c->close_ns != 0) return;
  enter(c);
  h->fetches = fetches;
  h->fetched = status;
  dispatch(c, message, len);
  h->fetches = 0;
  h->fetched = SRV_BACKEND_OK;
  check_done(c);
  leave(c);
}

static void on_message(void *user, uint8_t opcode, const uint8_t *data,
                       size_t len) {
  srv_ws_client_t *c = user;
  c->hub->stats.messages_in++;
  c->messages++;
  /* Behind a pose on the pool, messages wait their turn. */
  if (c->posing != NULL) {
    if (srv_ws_held_push(&c->held, opcode, data, len,
                         WS_UNREAD_FACTOR * c->hub->lim.high_water) != 0) {
      client_close(c, 1008, "too much unread data");
      transport_close(c);
    }
    return;
  }
  handle_message(c, opcode, data, len);
}

/* ---- session I/O --------------------------------------------------------- */

static void on_pong(void *user) {
  srv_ws_client_t *c = user;
  c->ping_out = false;
}

static int on_write(void *user, const uint8_t *data, size_t len) {
  srv_ws_client_t *c = user;
  if (c->transport_closed) return UV_EPIPE;
  return c->t.write(c->tctx, data, len);
}

static const srv_ws_session_io_t session_io = {on_message, on_pong, on_write};

srv_ws_client_t *srv_ws_client_new(srv_ws_hub_t *hub,
                                   const srv_ws_transport_t *t, void *ctx) {
  srv_ws_client_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->hub = hub;
  srv_ws_frame_queue_init(&c->frames);
  c->t = *t;
  c->tctx = ctx;
  if (srv_ws_session_init(&c->session, &session_io, c, hub->lim.max_message) !=
      0) {
    free(c);
    return NULL;
  }
  c->last_rx_ns = uv_hrtime();
  c->next = hub->clients;
  if (hub->clients != NULL) hub->clients->prev = c;
  hub->clients = c;
  hub->stats.clients++;
  return c;
}

void srv_ws_client_summary(const srv_ws_client_t *c,
                           srv_ws_client_summary_t *out) {
  out->frames_sent = c->sent;
  out->frames_skipped = c->skipped;
  out->frames_dropped = c->dropped;
  out->messages = c->messages;
  out->close_sent = srv_ws_session_close_code_sent(&c->session);
  out->close_received = srv_ws_session_close_code_received(&c->session);
}

void srv_ws_client_feed(srv_ws_client_t *c, const void *data, size_t len) {
  enter(c);
  c->last_rx_ns = uv_hrtime();
  c->ping_out = false;
  /* What the client's messages make us queue (answers, and the pongs
   * wslay queues for its pings) counts against the unread rule too:
   * checked before its bytes are read and after. */
  if (srv_ws_session_closing(&c->session) || !over_unread(c)) {
    srv_ws_session_feed(&c->session, data, len);
    if (!srv_ws_session_closing(&c->session)) over_unread(c);
  }
  if (srv_ws_session_closing(&c->session)) {
    stop_all_streams(c);
    if (c->close_ns == 0) c->close_ns = uv_hrtime();
  }
  check_done(c);
  leave(c);
}

void srv_ws_client_eof(srv_ws_client_t *c) {
  enter(c);
  stop_all_streams(c);
  transport_close(c);
  leave(c);
}

static void client_release(srv_ws_client_t *c) {
  srv_ws_hub_t *h = c->hub;
  srv_ws_fetch_forget(h->fetch, c);
  stop_all_streams(c);
  /* A pose on the pool frees itself when it comes back. */
  if (c->posing != NULL) c->posing->s.client = NULL;
  srv_ws_held_clear(&c->held);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    h->clients = c->next;
  if (c->next != NULL) c->next->prev = c->prev;
  h->stats.clients--;
  srv_ws_frame_queue_free(&c->frames);
  srv_ws_session_free(&c->session);
  free(c->streams);
  free(c);
}

void srv_ws_client_free(srv_ws_client_t *c) {
  c->transport_closed = true;
  if (c->busy > 0) {
    c->free_pending = true;
    return;
  }
  client_release(c);
}

static void client_close(srv_ws_client_t *c, uint16_t code,
                         const char *reason) {
  enter(c);
  stop_all_streams(c);
  srv_ws_session_close(&c->session, code, reason);
  if (c->close_ns == 0) c->close_ns = uv_hrtime();
  check_done(c);
  leave(c);
}

/* ---- hub ----------------------------------------------------------------- */

/* Once a second: keep-alive pings, dead peers, unanswered closes. */
static void on_sweep(uv_timer_t *timer) {
  srv_ws_hub_t *h = timer->data;
  uint64_t now = uv_hrtime();
  /* Frames no stream has asked for lately: their buffers and assets go. */
  srv_ws_eval_trim(h->eval, 2000000000ull);
  srv_ws_client_t *c = h->clients;
  while (c != NULL) {
    srv_ws_client_t *next = c->next;
    enter(c);
    uint64_t idle_ms = (now - c->last_rx_ns) / 1000000;
    if (c->close_ns != 0) {
      if ((now - c->close_ns) / 1000000 >= h->lim.close_timeout_ms)
        transport_close(c);
    } else if (idle_ms >= h->lim.ping_timeout_ms) {
      client_close(c, 1001, "ping timeout");
      transport_close(c);
    } else if (idle_ms >= h->lim.ping_interval_ms && !c->ping_out) {
      c->ping_out = true;
      srv_ws_session_ping(&c->session);
      check_done(c);
    }
    leave(c);
    c = next;
  }
}

srv_ws_hub_t *srv_ws_hub_new(uv_loop_t *loop, store_t *store, srv_pool_t *pool,
                             srv_pool_inbox_t *inbox,
                             const srv_ws_limits_t *lim) {
  srv_ws_hub_t *h = calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  h->store = store;
  if (lim != NULL)
    h->lim = *lim;
  else
    srv_ws_limits_defaults(&h->lim);
  h->eval = srv_ws_eval_new(64, h->lim.frame_cache_bytes, pool, inbox);
  if (h->eval == NULL) {
    free(h);
    return NULL;
  }
  if (h->lim.backend != NULL && pool != NULL && inbox != NULL) {
    h->fetch = srv_ws_fetch_new(h->lim.backend, pool, inbox, on_fetched);
    if (h->fetch == NULL) {
      srv_ws_eval_free(h->eval);
      free(h);
      return NULL;
    }
  }
  fmt_buf_init(&h->out);
  fmt_buf_init(&h->tmp);
  h->batch = srv_send_batch_new(h->lim.io_uring);
  if (srv_deadline_init(loop, &h->tick) != 0) {
    srv_send_batch_free(h->batch);
    srv_ws_eval_free(h->eval);
    free(h);
    return NULL;
  }
  uv_timer_init(loop, &h->sweep);
  h->tick.data = h->sweep.data = h;
  h->open_handles = 2;
  uv_timer_start(&h->sweep, on_sweep, 1000, 1000);
  /* Housekeeping timers must not keep the loop alive on their own. */
  uv_unref((uv_handle_t *)&h->sweep);
  return h;
}

void srv_ws_hub_shutdown(srv_ws_hub_t *h, uint16_t code, const char *reason) {
  srv_ws_client_t *c = h->clients;
  while (c != NULL) {
    srv_ws_client_t *next = c->next;
    enter(c);
    client_close(c, code, reason);
    transport_close(c);
    leave(c);
    c = next;
  }
}

static void hub_handle_closed(srv_ws_hub_t *h) {
  if (--h->open_handles > 0) return;
  srv_ws_eval_free(h->eval);
  fmt_buf_free(&h->out);
  fmt_buf_free(&h->tmp);
  free(h->heap);
  free(h);
}

static void on_hub_handle_closed(uv_handle_t *handle) {
  hub_handle_closed(handle->data);
}

static void on_tick_closed(srv_deadline_t *d) { hub_handle_closed(d->data); }

void srv_ws_hub_free(srv_ws_hub_t *h) {
  if (h == NULL || h->freeing) return;
  h->freeing = true;
  while (h->clients != NULL) {
    srv_ws_client_t *c = h->clients;
    transport_close(c);
    if (h->clients == c) client_release(c);
  }
  srv_ws_eval_clear(h->eval);
  srv_ws_fetch_free(h->fetch);
  h->fetch = NULL;
  srv_send_batch_free(h->batch);
  h->batch = NULL;
  srv_deadline_close(&h->tick, on_tick_closed);
  uv_close((uv_handle_t *)&h->sweep, on_hub_handle_closed);
}

void srv_ws_hub_stats_add(srv_ws_hub_stats_t *a, const srv_ws_hub_stats_t *b) {
  a->clients += b->clients;
  a->streams += b->streams;
  a->frames_sent += b->frames_sent;
  a->frames_dropped += b->frames_dropped;
  a->frames_skipped += b->frames_skipped;
  a->evaluations += b->evaluations;
  a->cache_hits += b->cache_hits;
  a->prefetched += b->prefetched;
  a->messages_in += b->messages_in;
  a->errors += b->errors;
  a->batched_writes += b->batched_writes;
  a->io_uring_writes += b->io_uring_writes;
  for (unsigned i = 0; i <= SRV_WS_LATE_BUCKETS; i++) a->late[i] += b->late[i];
  a->late_sum += b->late_sum;
}

void srv_ws_hub_stats(const srv_ws_hub_t *h, srv_ws_hub_stats_t *out) {
  *out = h->stats;
  srv_ws_eval_stats_t es;
  srv_ws_eval_stats(h->eval, &es);
  out->evaluations = es.evaluations;
  out->cache_hits = es.hits;
  out->prefetched = es.prefetched;
}
