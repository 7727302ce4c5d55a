/* Tests for listening groups (server/net/listen_group.h) on loopback: one
 * plain socket or several sharing a port (port 0 picks one port for all),
 * each listening, non-blocking and close-on-exec, SO_REUSEPORT only when
 * shared and IPV6_V6ONLY when asked; a port another socket holds, even
 * one with SO_REUSEPORT of this same user, is refused with EADDRINUSE, and
 * a failure leaves no descriptor open. */
#include <check.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/net/listen_group.h"

static struct sockaddr_in v4(const char *ip, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  ck_assert_int_eq(inet_pton(AF_INET, ip, &a.sin_addr), 1);
  return a;
}

static int port_of(int fd) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
  if (ss.ss_family == AF_INET6)
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
  return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int opt(int fd, int level, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  ck_assert_int_eq(getsockopt(fd, level, name, &v, &len), 0);
  return v;
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  while (readdir(d) != NULL) n++;
  closedir(d);
  return n;
}

/* A client connects to port on 127.0.0.1 (the backlog takes it). */
static void connects(int port) {
  int c = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = v4("127.0.0.1", port);
  ck_assert_int_eq(connect(c, (struct sockaddr *)&a, sizeof a), 0);
  close(c);
}

static void check_listener(int fd, bool shared) {
  ck_assert_int_eq(opt(fd, SOL_SOCKET, SO_ACCEPTCONN), 1);
  ck_assert_int_eq(opt(fd, SOL_SOCKET, SO_REUSEADDR) != 0, 1);
  ck_assert_int_eq(opt(fd, SOL_SOCKET, SO_REUSEPORT) != 0, shared);
  ck_assert(fcntl(fd, F_GETFL) & O_NONBLOCK);
  ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
}

START_TEST(test_one_plain_socket) {
  struct sockaddr_in a = v4("127.0.0.1", 0);
  uv_os_sock_t fd[1];
  ck_assert_int_eq(srv_listen_group((struct sockaddr *)&a, false, 1, 16, fd),
                   0);
  check_listener(fd[0], false);
  int port = port_of(fd[0]);
  ck_assert_int_gt(port, 0);
  connects(port);
  close(fd[0]);
}
END_TEST

START_TEST(test_shared_port) {
  struct sockaddr_in a = v4("127.0.0.1", 0);
  uv_os_sock_t fd[4];
  ck_assert_int_eq(srv_listen_group((struct sockaddr *)&a, false, 4, 16, fd),
                   0);
  int port = port_of(fd[0]);
  ck_assert_int_gt(port, 0);
  for (int i = 0; i < 4; i++) {
    check_listener(fd[i], true);
    ck_assert_int_eq(port_of(fd[i]), port);
    for (int j = 0; j < i; j++) ck_assert_int_ne(fd[i], fd[j]);
  }
  /* Connections reach the group: each is waiting on one of them. */
  for (int i = 0; i < 8; i++) connects(port);
  int accepted = 0;
  for (int i = 0; i < 4; i++) {
    int c;
    while ((c = accept(fd[i], NULL, NULL)) >= 0) {
      accepted++;
      close(c);
    }
    ck_assert_int_eq(errno, EAGAIN);
  }
  ck_assert_int_eq(accepted, 8);
  /* A second group on the same port is refused. */
  struct sockaddr_in same = v4("127.0.0.1", port);
  uv_os_sock_t other[2];
  ck_assert_int_eq(
      srv_listen_group((struct sockaddr *)&same, false, 2, 16, other),
      -EADDRINUSE);
  for (int i = 0; i < 4; i++) close(fd[i]);
}
END_TEST

START_TEST(test_taken_port) {
  /* Held by a socket that shares with SO_REUSEPORT, of this user: a
   * group must still not join it. */
  int holder = socket(AF_INET, SOCK_STREAM, 0);
  int on = 1;
  setsockopt(holder, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
  struct sockaddr_in a = v4("127.0.0.1", 0);
  ck_assert_int_eq(bind(holder, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(holder, 4), 0);
  struct sockaddr_in taken = v4("127.0.0.1", port_of(holder));
  int before = open_fds();
  uv_os_sock_t fd[3];
  for (unsigned count = 1; count <= 3; count++)
    ck_assert_int_eq(
        srv_listen_group((struct sockaddr *)&taken, false, count, 16, fd),
        -EADDRINUSE);
  ck_assert_int_eq(open_fds(), before);
  close(holder);
}
END_TEST

START_TEST(test_address_not_here) {
  int before = open_fds();
  struct sockaddr_in a = v4("192.0.2.1", 0);
  uv_os_sock_t fd[2];
  ck_assert_int_eq(srv_listen_group((struct sockaddr *)&a, false, 1, 16, fd),
                   -EADDRNOTAVAIL);
  ck_assert_int_eq(srv_listen_group((struct sockaddr *)&a, false, 2, 16, fd),
                   -EADDRNOTAVAIL);
  ck_assert_int_eq(open_fds(), before);
}
END_TEST

START_TEST(test_ipv6_only) {
  struct sockaddr_in6 a;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  uv_os_sock_t fd[2];
  int rc = srv_listen_group((struct sockaddr *)&a, true, 2, 16, fd);
  if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) return; /* No IPv6 here. */
  ck_assert_int_eq(rc, 0);
  for (int i = 0; i < 2; i++) {
    check_listener(fd[i], true);
    ck_assert_int_eq(opt(fd[i], IPPROTO_IPV6, IPV6_V6ONLY), 1);
  }
  ck_assert_int_eq(port_of(fd[0]), port_of(fd[1]));
  close(fd[0]);
  close(fd[1]);
}
END_TEST

Suite *server_net_listen_group_suite(void) {
  Suite *s = suite_create("server_net_listen_group");
  TCase *tc = tcase_create("listen_group");
  tcase_add_test(tc, test_one_plain_socket);
  tcase_add_test(tc, test_shared_port);
  tcase_add_test(tc, test_taken_port);
  tcase_add_test(tc, test_address_not_here);
  tcase_add_test(tc, test_ipv6_only);
  suite_add_tcase(s, tc);
  return s;
}
