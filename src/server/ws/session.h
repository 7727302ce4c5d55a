/* server: one WebSocket session's framing, over bytes in and bytes out.
 *
 * A session wraps a wslay event context: the owner feeds it the bytes read
 * from the peer and receives, through io.write, the bytes to send. Nothing
 * here knows sockets or the loop, so framing is tested in memory: masked
 * and fragmented client frames, ping/pong, the close handshake, and the
 * close codes RFC 6455 prescribes (1002 protocol error, 1007 invalid UTF-8
 * in text, 1009 message too big), most of which wslay itself enforces.
 *
 * Callbacks run inside srv_ws_session_feed / _send / _close; the owner must
 * not free the session from inside them. Loop thread only. */
#ifndef ANIMD_SERVER_WS_SESSION_H
#define ANIMD_SERVER_WS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wslay/wslay.h>

typedef struct srv_ws_session_io_s {
  /* A whole text (opcode 1) or binary (opcode 2) message arrived; data is
   * valid during the call only. Text is valid UTF-8 (checked by wslay). */
  void (*on_message)(void *user, uint8_t opcode, const uint8_t *data,
                     size_t len);
  /* A pong arrived (keep-alive). May be NULL. */
  void (*on_pong)(void *user);
  /* Bytes for the peer (copied by the callee). Returns 0, or a negative
   * errno after which the session sends nothing more. */
  int (*write)(void *user, const uint8_t *data, size_t len);
} srv_ws_session_io_t;

typedef struct srv_ws_session_s {
  wslay_event_context_ptr ctx;
  srv_ws_session_io_t io;
  void *user;
  /* private */
  const uint8_t *_in; /* Bytes being fed, and how many are left. */
  size_t _in_len;
  uint8_t *_out; /* Frames produced by wslay, flushed to io.write. */
  size_t _out_len;
  size_t _out_cap;
  bool _write_failed;
  bool _close_queued;
  uint16_t _raw_close; /* Close code sent outside wslay (framing error). */
} srv_ws_session_t;

/* Prepares s (caller memory). max_message bounds a received message in
 * bytes (larger ones get close 1009). Returns 0 or UV_ENOMEM. */
int srv_ws_session_init(srv_ws_session_t *s, const srv_ws_session_io_t *io,
                        void *user, size_t max_message);
void srv_ws_session_free(srv_ws_session_t *s);

/* Feeds bytes read from the peer: messages are delivered, pings answered,
 * a close answered, violations answered with their close code; then
 * everything queued is flushed. Returns 0, or a negative errno when the
 * session failed (it then only waits to be closed). */
int srv_ws_session_feed(srv_ws_session_t *s, const void *data, size_t len);

/* Queues one message (opcode WSLAY_TEXT_FRAME or WSLAY_BINARY_FRAME; the
 * data is copied) and flushes. Returns 0, or UV_EPIPE once a close was
 * queued, or UV_ENOMEM. */
int srv_ws_session_send(srv_ws_session_t *s, uint8_t opcode, const void *data,
                        size_t len);

/* Queues one message like srv_ws_session_send without writing it yet, so
 * several messages go out in one write at the next flush. */
int srv_ws_session_queue(srv_ws_session_t *s, uint8_t opcode, const void *data,
                         size_t len);
/* Writes everything queued. Returns 0 or a negative errno. */
int srv_ws_session_flush(srv_ws_session_t *s);

/* Data frames written by the owner beside wslay (frame_queue.h): call
 * before writing them. Writes out whatever wslay holds, so they follow
 * it. Returns 0, or UV_EPIPE when the peer may get no more data frames
 * (write nothing then). */
int srv_ws_session_direct_begin(srv_ws_session_t *s);
/* Writing such frames failed: the session sends nothing more (and is
 * done, srv_ws_session_done). */
void srv_ws_session_direct_failed(srv_ws_session_t *s);

/* Queues a ping with a short payload and flushes. */
int srv_ws_session_ping(srv_ws_session_t *s);

/* Starts the closing handshake with code (and an optional short reason).
 * Idempotent: once a close is queued later calls do nothing. */
int srv_ws_session_close(srv_ws_session_t *s, uint16_t code,
                         const char *reason);

/* True when the peer may get no more data frames: a close was sent or
 * queued, or writing failed. */
bool srv_ws_session_closing(const srv_ws_session_t *s);

/* True when the session is over and the transport should be closed once
 * its queued writes are out: a close was sent and one was received, or
 * the session failed (protocol error, write error). */
bool srv_ws_session_done(const srv_ws_session_t *s);

/* The code of the close frame sent, or 0 when none was sent. */
uint16_t srv_ws_session_close_code_sent(const srv_ws_session_t *s);
/* The code of the close frame received (1005 when it had none), or 0. */
uint16_t srv_ws_session_close_code_received(const srv_ws_session_t *s);

/* Bytes of messages queued in wslay and not yet produced as frames. */
size_t srv_ws_session_queued(const srv_ws_session_t *s);

#endif
