/* server/ws: WebSocket pose streaming, what goes to a client: answers and
 * errors to its messages, and the tick's data frames, written together and
 * dropped under backpressure (stream_internal.h). */
#include <string.h>

#include "server/ws/stream_internal.h"

/* ---- messages to the client ---------------------------------------------- */

/* Bytes the client has not read yet: in the transport, in wslay's queue
 * and in this tick's data frames. */
size_t ws__client_queued(srv_ws_client_t *c) {
  return c->t.queued(c->tctx) + srv_ws_session_queued(&c->session) +
         c->frames.bytes;
}

/* True (after closing it) when the client has left too much unread. */
bool ws__over_unread(srv_ws_client_t *c) {
  size_t queued = ws__client_queued(c);
  if (queued <= WS_UNREAD_FACTOR * c->hub->lim.high_water) return false;
  ws__client_close(c, 1008, "too much unread data");
  ws__transport_close(c);
  return true;
}

/* Every answer to a message goes out here, under the unread rule. */
void ws__send_answer(srv_ws_client_t *c, uint8_t opcode, const void *data,
                     size_t len) {
  if (ws__over_unread(c)) return;
  srv_ws_session_send(&c->session, opcode, data, len);
  ws__check_done(c);
}

void ws__send_text(srv_ws_client_t *c, const fmt_buf_t *b) {
  if (b->failed) return;
  ws__send_answer(c, WSLAY_TEXT_FRAME, b->data, b->len);
}

/* An error message, named from the error table (server/errors.h). */
/* An error message with a hint (NULL: none). */
static void send_error_hint(srv_ws_client_t *c, const char *id,
                            srv_error_code code, const char *at,
                            const char *message, const char *hint) {
  srv_ws_hub_t *h = c->hub;
  h->stats.errors++;
  fmt_buf_reset(&h->out);
  srv_error_json(&h->out, code, at, message, hint);
  if (id != NULL && id[0] != '\0' && h->out.len > 0 && !h->out.failed) {
    h->out.len--; /* The closing brace. */
    fmt_buf_puts(&h->out, ",\"id\":");
    fmt_buf_puts(&h->out, id);
    fmt_buf_putc(&h->out, '}');
  }
  ws__send_text(c, &h->out);
}

void ws__send_error(srv_ws_client_t *c, const char *id, srv_error_code code,
                    const char *at, const char *message) {
  send_error_hint(c, id, code, at, message, NULL);
}

void ws__send_err(srv_ws_client_t *c, const char *id, const srv_error_t *e) {
  send_error_hint(c, id, e->code, e->at, e->message, e->hint);
}

void ws__send_cmd_error(srv_ws_client_t *c, const srv_ws_error_t *e) {
  int code = srv_error_lookup(e->code);
  send_error_hint(c, e->id, code < 0 ? SRV_ERR_INTERNAL : (srv_error_code)code,
                  e->at, e->message, e->hint);
}

/* {"op":op,"id":ID, ...}: the caller appends fields and the brace. */
fmt_buf_t *ws__ack_begin(srv_ws_client_t *c, const char *op, const char *id) {
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
bool ws__flush_frames(srv_ws_client_t *c, bool may_batch) {
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
int ws__queue_frame(srv_ws_hub_t *h, const stream_t *s, int64_t n, float t) {
  srv_ws_client_t *c = s->client;
  if (s->format == SRV_WS_FORMAT_BIN && s->meshes == NULL &&
      s->encoding == FMT_ENCODING_DELTA) {
    int r = ws__delta_queue(h, s, n, t);
    /* A delta frame not queued breaks the chain: the next is a key. */
    if (r != 0) ws__delta_key(s);
    return r;
  }
  /* A frame of several meshes is made whole, as a JSON one. */
  if (s->format == SRV_WS_FORMAT_BIN && s->meshes == NULL &&
      s->encoding != FMT_ENCODING_DELTA) {
    srv_ws_eval_key_t key = ws__stream_key(s, t, s->mesh);
    srv_ws_frame_data_t fd;
    int r = srv_ws_eval_get(h->eval, &key, &fd);
    if (r != 0) return r;
    if (fd.payload != NULL) {
      uint8_t head[WS_BIN_HEADER];
      ws__bin_header(head, s->index, ws__stream_layout(s), n, t, &fd);
      return srv_ws_frame_queue_push(&c->frames, WSLAY_BINARY_FRAME, head,
                                     sizeof head, fd.payload, fd.payload->data,
                                     fd.payload_len);
    }
  }
  int r = ws__build_frame(h, s, s->index, n, t);
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
