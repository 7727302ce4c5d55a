/* server/net: listening sockets that several event loops share.
 *
 * Each loop listens on a socket of its own bound to the same address with
 * SO_REUSEPORT, so the kernel spreads new connections over the loops and
 * no loop accepts for another. The sockets are made and bound here, before
 * any loop opens one (uv_tcp_open): libuv has no reuseport flag. */
#ifndef ANIMD_SERVER_NET_LISTEN_GROUP_H
#define ANIMD_SERVER_NET_LISTEN_GROUP_H

#include <stdbool.h>

#include <uv.h>

/* Makes count sockets (1 or more) bound to addr and listening with
 * backlog; v6only sets IPV6_V6ONLY. One socket is a plain one; several
 * share the port with SO_REUSEPORT, after a plain bind has made sure no
 * other process listens there (port 0: the port the kernel picked is
 * everyone's). Returns 0 with the sockets in out (close-on-exec,
 * non-blocking; the caller owns them), or a negative errno with none
 * left open. */
int srv_listen_group(const struct sockaddr *addr, bool v6only, unsigned count,
                     int backlog, uv_os_sock_t *out);

#endif
