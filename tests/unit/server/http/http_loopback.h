/* A loopback conversation with a real server for the HTTP unit tests: a
 * fresh server object listens on 127.0.0.1 port 0 in this process, a
 * blocking client on a second thread sends one request text and reads
 * until the server closes (5 s read timeout), then the server drains and
 * the loop must close clean. */
#ifndef ANIMD_TESTS_HTTP_LOOPBACK_H
#define ANIMD_TESTS_HTTP_LOOPBACK_H

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server.h"

#define HTTP_LOOPBACK_CAP (1 << 16)

typedef struct http_loopback_s {
  int port;
  const char *send;
  char *got; /* NUL-terminated, at most HTTP_LOOPBACK_CAP - 1 bytes. */
  size_t got_len;
  uv_async_t done;
  srv_server_t *server;
  int drained;
} http_loopback_t;

static void *http_loopback_client(void *arg) {
  http_loopback_t *cl = arg;
  cl->got = malloc(HTTP_LOOPBACK_CAP);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)cl->port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (cl->got != NULL && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
    size_t n = strlen(cl->send);
    if (write(fd, cl->send, n) == (ssize_t)n) {
      ssize_t r;
      while (cl->got_len < HTTP_LOOPBACK_CAP - 1 &&
             (r = read(fd, cl->got + cl->got_len,
                       HTTP_LOOPBACK_CAP - 1 - cl->got_len)) > 0)
        cl->got_len += (size_t)r;
    }
  }
  if (cl->got != NULL) cl->got[cl->got_len] = '\0';
  close(fd);
  uv_async_send(&cl->done);
  return NULL;
}

/* The conversation under way (one at a time per test process). */
static http_loopback_t *http_loopback_current;

static void http_loopback_drained(srv_server_t *s) {
  (void)s;
  http_loopback_current->drained++;
}

static void http_loopback_client_done(uv_async_t *h) {
  http_loopback_t *cl = h->data;
  uv_close((uv_handle_t *)h, NULL);
  srv_server_drain(cl->server, http_loopback_drained);
}

/* Runs one conversation; returns what the client read (caller frees). */
static inline char *http_loopback_converse(const char *send) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.listen, sizeof cfg.listen, "127.0.0.1:0");
  cfg.access_log[0] = '\0';
  cfg.workers = 1;
  /* The tests address this server as "x" (Host: x). */
  snprintf(cfg.allowed_hosts, sizeof cfg.allowed_hosts, "x");
  char err[256];
  http_loopback_t cl = {.send = send};
  ck_assert_int_eq(srv_server_new(&loop, &cfg, &cl.server, err, sizeof err), 0);
  http_loopback_current = &cl;
  ck_assert_int_eq(srv_server_listen(cl.server), 0);
  cl.port = atoi(strrchr(srv_server_address(cl.server), ':') + 1);
  uv_async_init(&loop, &cl.done, http_loopback_client_done);
  cl.done.data = &cl;
  pthread_t th;
  pthread_create(&th, NULL, http_loopback_client, &cl);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(cl.drained, 1);
  srv_server_free(cl.server);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  ck_assert_ptr_nonnull(cl.got);
  return cl.got;
}

#endif
