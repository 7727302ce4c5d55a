/* Regression tests for HTTP answers found wrong by fuzzing the daemon's
 * request path: each case is an input that once produced a bad answer. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/http.h"
#include "server/server.h"

/* A blocking client on a second thread sends one request text to a server
 * running on this thread's loop and reads until the server closes. */
typedef struct client_s {
  int port;
  const char *send;
  char got[65536];
  size_t got_len;
  uv_async_t *done;
} client_t;

static srv_server_t *server;

static void *client_main(void *arg) {
  client_t *cl = arg;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)cl->port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
    size_t n = strlen(cl->send);
    if (write(fd, cl->send, n) == (ssize_t)n) {
      ssize_t r;
      while (cl->got_len < sizeof cl->got - 1 &&
             (r = read(fd, cl->got + cl->got_len,
                       sizeof cl->got - 1 - cl->got_len)) > 0)
        cl->got_len += (size_t)r;
    }
  }
  cl->got[cl->got_len] = '\0';
  close(fd);
  uv_async_send(cl->done);
  return NULL;
}

static void on_drained(srv_server_t *s) { (void)s; }

static void on_client_done(uv_async_t *h) {
  uv_close((uv_handle_t *)h, NULL);
  srv_server_drain(server, on_drained);
}

static void converse(client_t *cl) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.listen, sizeof cfg.listen, "127.0.0.1:0");
  cfg.access_log[0] = '\0';
  cfg.workers = 1;
  char err[256];
  ck_assert_int_eq(srv_server_new(&loop, &cfg, &server, err, sizeof err), 0);
  ck_assert_int_eq(srv_server_listen(server), 0);
  cl->port = atoi(strrchr(srv_server_address(server), ':') + 1);
  uv_async_t done;
  uv_async_init(&loop, &done, on_client_done);
  cl->done = &done;
  pthread_t th;
  pthread_create(&th, NULL, client_main, cl);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  pthread_join(th, NULL);
  srv_server_free(server);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}

/* A short path with 32 valueless query parameters: each "b&" (2 bytes)
 * decodes to "b", NUL and an empty value's NUL (3 bytes), which overflowed
 * the buffer sized for twice the target (ASan: heap-buffer-overflow in
 * pct_decode). The request is now answered like any other. */
START_TEST(test_many_valueless_parameters) {
  static client_t cl;
  char req[256] = "GET /a?";
  for (int i = 0; i < 31; i++) strcat(req, "b&");
  strcat(req, "b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  memset(&cl, 0, sizeof cl);
  cl.send = req;
  converse(&cl);
  ck_assert_msg(strncmp(cl.got, "HTTP/1.1 404 ", 13) == 0, "%s", cl.got);
  ck_assert_ptr_nonnull(strstr(cl.got, "no such endpoint: /a\""));
}
END_TEST

/* A WebSocket handshake with an unsupported Sec-WebSocket-Version is
 * refused with 426, whose status line read "426 Unknown" (RFC 9110
 * section 15.5.22: "Upgrade Required"). */
START_TEST(test_status_text_426) {
  ck_assert_str_eq(srv_status_text(426), "Upgrade Required");
  /* Every status the server sends has its RFC 9110 reason phrase. */
  static const struct {
    int status;
    const char *text;
  } known[] = {{101, "Switching Protocols"}, {200, "OK"},
               {400, "Bad Request"},         {404, "Not Found"},
               {405, "Method Not Allowed"},  {409, "Conflict"},
               {413, "Content Too Large"},   {415, "Unsupported Media Type"},
               {500, "Internal Server Error"}, {501, "Not Implemented"},
               {503, "Service Unavailable"}, {507, "Insufficient Storage"}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    ck_assert_str_eq(srv_status_text(known[i].status), known[i].text);
}
END_TEST

Suite *http_regressions_suite(void) {
  Suite *s = suite_create("http_regressions");
  TCase *tc = tcase_create("status");
  tcase_add_test(tc, test_status_text_426);
  tcase_add_test(tc, test_many_valueless_parameters);
  suite_add_tcase(s, tc);
  return s;
}
