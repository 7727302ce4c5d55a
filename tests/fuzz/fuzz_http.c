/* fuzz: the daemon's HTTP path (llhttp glue, router, handlers) and, after
 * an upgrade, its WebSocket streams, with raw bytes from a client.
 *
 * One server runs in this process on its own loop, listening on
 * 127.0.0.1 with a free port, with the demo assets and an in-memory store.
 * Each input is one connection: the bytes are sent, the client half-closes,
 * and the loop runs until the server has answered and closed the
 * connection. A connection the server never closes within a few seconds
 * is a hang and aborts; between inputs the server must still answer
 * GET /healthz, so a bad request cannot break later clients. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include "server/config.h"
#include "server/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uv_loop_t loop;
static srv_server_t *server;
static int port;

static void start(void) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.listen, sizeof cfg.listen, "127.0.0.1:0");
  cfg.access_log[0] = '\0';
  cfg.data_dir[0] = '\0';
  cfg.ready_file[0] = '\0';
  cfg.workers = 1;
  cfg.demo = true;
  cfg.header_timeout_ms = 1000;
  cfg.idle_timeout_ms = 1000;
  cfg.memory_limit = 64u << 20;
  cfg.max_body_size = 1u << 20;
  cfg.max_frames = 1000;
  char err[256];
  if (uv_loop_init(&loop) != 0 ||
      srv_server_new(&loop, &cfg, &server, err, sizeof err) != 0 ||
      srv_server_listen(server) != 0) {
    fprintf(stderr, "fuzz_http: cannot start the server: %s\n", err);
    abort();
  }
  const char *colon = strrchr(srv_server_address(server), ':');
  port = colon ? atoi(colon + 1) : 0;
  if (port <= 0) abort();
}

static uint64_t now_ms(void) { return uv_hrtime() / 1000000; }

/* Sends len bytes on a fresh connection, half-closes, and runs the loop
 * until the server closes. Returns the bytes answered (at most cap kept
 * in out). */
static size_t exchange(const void *data, size_t len, char *out, size_t cap) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) abort();
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 &&
      errno != EINPROGRESS)
    abort();
  size_t sent = 0, got = 0;
  bool shut = false;
  uint64_t deadline = now_ms() + 5000;
  for (;;) {
    uv_run(&loop, UV_RUN_NOWAIT);
    if (sent < len) {
      ssize_t n = send(fd, (const char *)data + sent, len - sent,
                       MSG_NOSIGNAL);
      if (n > 0) sent += (size_t)n;
      else if (n < 0 && errno != EAGAIN && errno != EINPROGRESS &&
               errno != ENOTCONN)
        sent = len; /* Reset by the server: it stopped listening. */
    }
    if (sent == len && !shut) {
      shutdown(fd, SHUT_WR);
      shut = true;
    }
    char buf[16384];
    ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0) {
      if (got < cap) {
        size_t k = (size_t)r < cap - got ? (size_t)r : cap - got;
        memcpy(out + got, buf, k);
      }
      got += (size_t)r;
      continue;
    }
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != ENOTCONN)) break;
    if (now_ms() > deadline) {
      fprintf(stderr, "fuzz_http: the server did not close the "
                      "connection within 5 s\n");
      abort();
    }
    struct pollfd p[2] = {{fd, POLLIN, 0}, {uv_backend_fd(&loop), POLLIN, 0}};
    int t = uv_backend_timeout(&loop);
    poll(p, 2, t < 0 || t > 10 ? 10 : t);
  }
  close(fd);
  /* Let the server finish its side of the close. */
  for (int i = 0; i < 20; i++) uv_run(&loop, UV_RUN_NOWAIT);
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
    static const char health[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
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
