/* server/net: sockets sharing one listening address (listen_group.h).
 *
 * Key choice: SO_REUSEPORT would let a second daemon of the same user bind
 * the port and silently take part of its connections, so a group first
 * binds one plain socket: it fails with EADDRINUSE as a single listener
 * would, and only then joins the others to it. */
#include "server/net/listen_group.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int make_socket(const struct sockaddr *addr, bool v6only, bool shared,
                       uv_os_sock_t *out) {
  int fd =
      socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      (shared &&
       setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) ||
      (v6only && addr->sa_family == AF_INET6 &&
       setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0)) {
    int e = -errno;
    close(fd);
    return e;
  }
  *out = fd;
  return 0;
}

static int bind_socket(int fd, const struct sockaddr *addr) {
  socklen_t len = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                              : sizeof(struct sockaddr_in);
  return bind(fd, addr, len) == 0 ? 0 : -errno;
}

static void close_all(uv_os_sock_t *fds, unsigned n) {
  for (unsigned i = 0; i < n; i++) close(fds[i]);
}

int srv_listen_group(const struct sockaddr *addr, bool v6only, unsigned count,
                     int backlog, uv_os_sock_t *out) {
  struct sockaddr_storage at;
  memcpy(&at, addr,
         addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                     : sizeof(struct sockaddr_in));
  bool shared = count > 1;
  int rc;
  if (shared) {
    /* The plain probe: taken port fails here; port 0 learns its port. */
    uv_os_sock_t probe;
    rc = make_socket(addr, v6only, false, &probe);
    if (rc != 0) return rc;
    rc = bind_socket(probe, addr);
    socklen_t len = sizeof at;
    if (rc == 0 && getsockname(probe, (struct sockaddr *)&at, &len) != 0)
      rc = -errno;
    close(probe);
    if (rc != 0) return rc;
  }
  for (unsigned i = 0; i < count; i++) {
    rc = make_socket((struct sockaddr *)&at, v6only, shared, &out[i]);
    if (rc == 0) {
      rc = bind_socket(out[i], (struct sockaddr *)&at);
      if (rc == 0 && listen(out[i], backlog) != 0) rc = -errno;
      if (rc != 0) close(out[i]);
    }
    if (rc != 0) {
      close_all(out, i);
      return rc;
    }
  }
  return 0;
}
