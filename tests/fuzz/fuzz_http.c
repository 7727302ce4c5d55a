/* fuzz: the daemon's HTTP path (llhttp glue, router, handlers, ranges,
 * scheduling) with raw bytes from a client, through the in-memory
 * transport: no socket, and every input is one connection.
 *
 * One server runs in this process on its own loop (demo assets, an
 * in-memory store, one worker). The bytes are sent, the client
 * half-closes, and the loop runs while the client reads until the server
 * has closed the connection; a connection still open after 5 s is a hang
 * and aborts. Every 64 inputs the server must still answer GET /healthz,
 * so a bad request cannot break later clients. The WebSocket side is
 * fuzzed apart (fuzz_ws_session.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "server/config.h"
#include "server/http/memory.h"
#include "server/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uv_loop_t loop;
static srv_server_t *server;

static void start(void) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.access_log[0] = '\0';
  cfg.data_dir[0] = '\0';
  cfg.ready_file[0] = '\0';
  cfg.workers = 1;
  cfg.stream_threads = 1;
  cfg.demo = true;
  cfg.header_timeout_ms = 1000;
  cfg.idle_timeout_ms = 1000;
  cfg.memory_limit = 64u << 20;
  cfg.max_body_size = 1u << 20;
  cfg.max_frames = 1000;
  char err[256] = "";
  if (uv_loop_init(&loop) != 0 ||
      srv_server_new(&loop, &cfg, &server, err, sizeof err) != 0) {
    fprintf(stderr, "fuzz_http: cannot start the server: %s\n", err);
    abort();
  }
}

/* One connection: sends len bytes, half-closes, reads until the server
 * closes. Returns the bytes answered (at most cap kept in out). */
static size_t exchange(const void *data, size_t len, char *out, size_t cap) {
  srv_http_memory_t *m = srv_http_memory_new(srv_server_http_host(server));
  if (m == NULL) abort();
  srv_http_memory_send(m, data, len);
  srv_http_memory_eof(m);
  uint64_t deadline = uv_hrtime() + 5000000000ull;
  while (!srv_http_memory_closed(m)) {
    uv_run(&loop, UV_RUN_NOWAIT);
    srv_http_memory_flush(m, SIZE_MAX);
    if (uv_hrtime() > deadline) {
      fprintf(stderr, "fuzz_http: the server did not close the "
                      "connection within 5 s\n");
      abort();
    }
  }
  size_t got;
  const char *text = srv_http_memory_output(m, &got);
  memcpy(out, text, got < cap ? got : cap);
  srv_http_memory_free(m);
  return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (server == NULL) start();
  static int verbose = -1;
  if (verbose < 0) verbose = getenv("FUZZ_VERBOSE") != NULL;
  static char answer[4096];
  size_t got = exchange(data, size, answer, sizeof answer - 1);
  if (verbose) {
    answer[got < sizeof answer - 1 ? got : sizeof answer - 1] = '\0';
    fprintf(stderr, "answer (%zu bytes): %s\n", got, answer);
  }
  static unsigned count;
  if (++count % 64 == 0) {
    static const char health[] =
        "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    char out[64];
    size_t n = exchange(health, sizeof health - 1, out, sizeof out - 1);
    out[n < sizeof out - 1 ? n : sizeof out - 1] = '\0';
    if (strncmp(out, "HTTP/1.1 200", 12) != 0) {
      fprintf(stderr, "fuzz_http: /healthz answered \"%s\"\n", out);
      abort();
    }
  }
  return 0;
}
