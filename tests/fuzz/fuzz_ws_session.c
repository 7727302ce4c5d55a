/* fuzz: WebSocket framing and the control protocol, raw bytes in.
 *
 * The input is what a client sends after the upgrade: it is fed to a
 * session in chunks (the first byte picks the chunk size, so frames are
 * split at every boundary), every text message is parsed as a control
 * command and answered, and the session is closed at the end. Masking
 * keys of zero let the fuzzer edit message text in place. Nothing may
 * crash, leak or trip UBSan, and a session that failed must say it is
 * done. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/ws/proto.h"
#include "server/ws/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct sink_s {
  srv_ws_session_t *s;
  size_t out;
  unsigned messages;
} sink_t;

static void on_message(void *user, uint8_t opcode, const uint8_t *data,
                       size_t len) {
  sink_t *k = user;
  k->messages++;
  if (opcode != WSLAY_TEXT_FRAME) return;
  srv_ws_cmd_t cmd;
  srv_ws_error_t err;
  if (srv_ws_cmd_parse((const char *)data, len, &cmd, &err) == 0) {
    (void)srv_ws_op_name(cmd.op);
    srv_ws_cmd_free(&cmd);
    srv_ws_session_send(k->s, WSLAY_TEXT_FRAME, "{\"ok\":true}", 11);
    return;
  }
  if (memchr(err.code, '\0', sizeof err.code) == NULL || err.code[0] == 0 ||
      memchr(err.message, '\0', sizeof err.message) == NULL ||
      memchr(err.at, '\0', sizeof err.at) == NULL ||
      memchr(err.id, '\0', sizeof err.id) == NULL)
    abort();
  srv_ws_session_send(k->s, WSLAY_TEXT_FRAME, err.message, strlen(err.message));
}

static void on_pong(void *user) { (void)user; }

static int on_write(void *user, const uint8_t *data, size_t len) {
  sink_t *k = user;
  (void)data;
  k->out += len;
  return 0;
}

static const srv_ws_session_io_t io = {on_message, on_pong, on_write};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = data[0] ? data[0] : size;
  data++;
  size--;
  srv_ws_session_t s;
  sink_t k = {&s, 0, 0};
  if (srv_ws_session_init(&s, &io, &k, 4096) != 0) return 0;
  int rc = 0;
  for (size_t off = 0; off < size && rc == 0; off += chunk) {
    size_t n = size - off < chunk ? size - off : chunk;
    rc = srv_ws_session_feed(&s, data + off, n);
  }
  if (rc != 0 && !srv_ws_session_done(&s)) abort();
  if (!srv_ws_session_closing(&s))
    srv_ws_session_send(&s, WSLAY_BINARY_FRAME, "end", 3);
  srv_ws_session_ping(&s);
  srv_ws_session_close(&s, 1000, "bye");
  (void)srv_ws_session_close_code_sent(&s);
  (void)srv_ws_session_close_code_received(&s);
  (void)srv_ws_session_queued(&s);
  srv_ws_session_free(&s);
  return 0;
}
