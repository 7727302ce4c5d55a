/* server: one WebSocket session's framing over bytes in and bytes out.
 *
 * Key design choice: wslay's event API does all the framing; its recv
 * callback reads from the buffer being fed and its send callback appends
 * to an output buffer that is handed to io.write once per operation.
 * Stream data frames may be written beside wslay (frame_queue.h): the
 * session is flushed first, so they follow whatever wslay made before. wslay
 * answers a framing error it detects below the event layer (a fragmented or
 * oversized control frame, a bad length encoding) with an empty close frame;
 * RFC 6455 asks for 1002 there, so that one close is produced here with wslay's
 * frame API instead. */
#include "server/ws/session.h"

#include <stdlib.h>
#include <string.h>

#include <uv.h>

/* ---- wslay callbacks ----------------------------------------------------- */

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                       int flags, void *user) {
  (void)flags;
  srv_ws_session_t *s = user;
  if (s->_in_len == 0) {
    wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    return -1;
  }
  size_t n = len < s->_in_len ? len : s->_in_len;
  memcpy(buf, s->_in, n);
  s->_in += n;
  s->_in_len -= n;
  return (ssize_t)n;
}

static int out_append(srv_ws_session_t *s, const uint8_t *data, size_t len) {
  if (s->_out_len + len > s->_out_cap) {
    size_t cap = s->_out_cap ? s->_out_cap : 4096;
    while (cap < s->_out_len + len) cap *= 2;
    uint8_t *p = realloc(s->_out, cap);
    if (p == NULL) return UV_ENOMEM;
    s->_out = p;
    s->_out_cap = cap;
  }
  memcpy(s->_out + s->_out_len, data, len);
  s->_out_len += len;
  return 0;
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data,
                       size_t len, int flags, void *user) {
  (void)flags;
  srv_ws_session_t *s = user;
  if (s->_write_failed || out_append(s, data, len) != 0) {
    wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    return -1;
  }
  return (ssize_t)len;
}

/* A close frame with a 1-byte payload is a protocol error (RFC 6455
 * 5.5.1: the payload is empty or starts with a 2-byte code); wslay would
 * echo an empty close. Queued at the frame's header, before wslay reads
 * the payload, this 1002 goes out in its place. (wslay itself answers
 * codes no peer may send with 1002.) */
static void on_frame_start(wslay_event_context_ptr ctx,
                           const struct wslay_event_on_frame_recv_start_arg *a,
                           void *user) {
  (void)user;
  if (a->opcode == WSLAY_CONNECTION_CLOSE && a->payload_length == 1)
    wslay_event_queue_close(ctx, 1002, NULL, 0);
}

static void on_msg(wslay_event_context_ptr ctx,
                   const struct wslay_event_on_msg_recv_arg *arg, void *user) {
  (void)ctx;
  srv_ws_session_t *s = user;
  if (arg->opcode == WSLAY_TEXT_FRAME || arg->opcode == WSLAY_BINARY_FRAME) {
    if (!srv_ws_session_closing(s))
      s->io.on_message(s->user, arg->opcode, arg->msg, arg->msg_length);
  } else if (arg->opcode == WSLAY_PONG && s->io.on_pong != NULL) {
    s->io.on_pong(s->user);
  }
}

/* ---- raw close for framing errors ---------------------------------------- */

static ssize_t raw_send(const uint8_t *data, size_t len, int flags,
                        void *user) {
  (void)flags;
  return out_append(user, data, len) == 0 ? (ssize_t)len : -1;
}

static ssize_t raw_recv(uint8_t *buf, size_t len, int flags, void *user) {
  (void)buf, (void)len, (void)flags, (void)user;
  return -1;
}

static int raw_genmask(uint8_t *buf, size_t len, void *user) {
  (void)buf, (void)len, (void)user;
  return -1;
}

static void send_raw_close(srv_ws_session_t *s, uint16_t code) {
  wslay_frame_context_ptr fctx;
  const struct wslay_frame_callbacks cbs = {raw_send, raw_recv, raw_genmask};
  if (wslay_frame_context_init(&fctx, &cbs, s) != 0) return;
  uint8_t payload[2] = {(uint8_t)(code >> 8), (uint8_t)(code & 0xff)};
  struct wslay_frame_iocb iocb;
  memset(&iocb, 0, sizeof iocb);
  iocb.fin = 1;
  iocb.opcode = WSLAY_CONNECTION_CLOSE;
  iocb.payload_length = sizeof payload;
  iocb.data = payload;
  iocb.data_length = sizeof payload;
  if (wslay_frame_send(fctx, &iocb) == (ssize_t)sizeof payload)
    s->_raw_close = code;
  wslay_frame_context_free(fctx);
}

/* ---- public -------------------------------------------------------------- */

int srv_ws_session_init(srv_ws_session_t *s, const srv_ws_session_io_t *io,
                        void *user, size_t max_message) {
  memset(s, 0, sizeof *s);
  s->io = *io;
  s->user = user;
  const struct wslay_event_callbacks cbs = {
      .recv_callback = on_recv,
      .send_callback = on_send,
      .on_msg_recv_callback = on_msg,
      .on_frame_recv_start_callback = on_frame_start,
  };
  if (wslay_event_context_server_init(&s->ctx, &cbs, s) != 0) return UV_ENOMEM;
  wslay_event_config_set_max_recv_msg_length(s->ctx, max_message);
  return 0;
}

void srv_ws_session_free(srv_ws_session_t *s) {
  if (s->ctx != NULL) wslay_event_context_free(s->ctx);
  free(s->_out);
  memset(s, 0, sizeof *s);
}

static int flush(srv_ws_session_t *s) {
  int r = 0;
  if (!s->_write_failed && wslay_event_want_write(s->ctx) &&
      wslay_event_send(s->ctx) != 0)
    r = UV_EIO;
  if (s->_out_len > 0 && !s->_write_failed) {
    int w = s->io.write(s->user, s->_out, s->_out_len);
    if (w != 0) {
      s->_write_failed = true;
      wslay_event_shutdown_write(s->ctx);
      r = w;
    }
  }
  s->_out_len = 0;
  return r;
}

int srv_ws_session_feed(srv_ws_session_t *s, const void *data, size_t len) {
  if (!wslay_event_want_read(s->ctx)) return 0; /* Bytes after a close. */
  s->_in = data;
  s->_in_len = len;
  int r = wslay_event_recv(s->ctx);
  s->_in = NULL;
  s->_in_len = 0;
  if (r != 0) {
    /* A framing error wslay met below its event layer: it queued an empty
     * close; send 1002 in its place and stop writing through wslay. */
    wslay_event_shutdown_read(s->ctx);
    if (!s->_write_failed && !wslay_event_get_close_sent(s->ctx)) {
      wslay_event_shutdown_write(s->ctx);
      send_raw_close(s, 1002);
    }
    flush(s);
    return UV_EPROTO;
  }
  return flush(s);
}

int srv_ws_session_queue(srv_ws_session_t *s, uint8_t opcode, const void *data,
                         size_t len) {
  if (srv_ws_session_closing(s)) return UV_EPIPE;
  struct wslay_event_msg msg = {opcode, data, len};
  int r = wslay_event_queue_msg(s->ctx, &msg);
  if (r == WSLAY_ERR_NOMEM) return UV_ENOMEM;
  if (r != 0) return UV_EPIPE;
  return 0;
}

int srv_ws_session_send(srv_ws_session_t *s, uint8_t opcode, const void *data,
                        size_t len) {
  int r = srv_ws_session_queue(s, opcode, data, len);
  return r != 0 ? r : flush(s);
}

int srv_ws_session_flush(srv_ws_session_t *s) { return flush(s); }

int srv_ws_session_direct_begin(srv_ws_session_t *s) {
  if (srv_ws_session_closing(s)) return UV_EPIPE;
  if (wslay_event_want_write(s->ctx) || s->_out_len > 0) flush(s);
  return srv_ws_session_closing(s) ? UV_EPIPE : 0;
}

void srv_ws_session_direct_failed(srv_ws_session_t *s) {
  if (s->_write_failed) return;
  s->_write_failed = true;
  wslay_event_shutdown_write(s->ctx);
}

int srv_ws_session_ping(srv_ws_session_t *s) {
  if (srv_ws_session_closing(s)) return UV_EPIPE;
  static const uint8_t payload[] = "animd";
  struct wslay_event_msg msg = {WSLAY_PING, payload, sizeof payload - 1};
  if (wslay_event_queue_msg(s->ctx, &msg) != 0) return UV_EPIPE;
  return flush(s);
}

int srv_ws_session_close(srv_ws_session_t *s, uint16_t code,
                         const char *reason) {
  if (srv_ws_session_closing(s)) return 0;
  size_t rlen = reason != NULL ? strlen(reason) : 0;
  if (rlen > 123) rlen = 123;
  int r = wslay_event_queue_close(s->ctx, code, (const uint8_t *)reason, rlen);
  if (r != 0 && r != WSLAY_ERR_NO_MORE_MSG) return UV_ENOMEM;
  s->_close_queued = true;
  return flush(s);
}

bool srv_ws_session_closing(const srv_ws_session_t *s) {
  /* wslay queues a close itself (answering one, or failing the session)
   * and then stops reading; treat that as closing too. */
  return s->_write_failed || s->_raw_close != 0 || s->_close_queued ||
         !wslay_event_get_read_enabled(s->ctx) ||
         !wslay_event_get_write_enabled(s->ctx) ||
         wslay_event_get_close_sent(s->ctx);
}

bool srv_ws_session_done(const srv_ws_session_t *s) {
  if (s->_write_failed || s->_raw_close != 0) return true;
  bool sent = wslay_event_get_close_sent(s->ctx);
  return sent && (wslay_event_get_close_received(s->ctx) ||
                  !wslay_event_get_read_enabled(s->ctx));
}

uint16_t srv_ws_session_close_code_sent(const srv_ws_session_t *s) {
  if (s->_raw_close != 0) return s->_raw_close;
  if (!wslay_event_get_close_sent(s->ctx)) return 0;
  return wslay_event_get_status_code_sent(s->ctx);
}

uint16_t srv_ws_session_close_code_received(const srv_ws_session_t *s) {
  if (!wslay_event_get_close_received(s->ctx)) return 0;
  return wslay_event_get_status_code_received(s->ctx);
}

size_t srv_ws_session_queued(const srv_ws_session_t *s) {
  return wslay_event_get_queued_msg_length(s->ctx);
}
