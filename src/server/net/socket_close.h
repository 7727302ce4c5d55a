/* server/net: closing a libuv socket handle (a connection or a listener)
 * so that ThreadSanitizer builds see the close.
 *
 * libuv closes a socket with a raw close system call that
 * ThreadSanitizer does not intercept; without help, the next owner of the
 * number (a file the store writes on a worker) closing it looks like a
 * race with the loop's last use of the socket, and the report stops the
 * daemon. Outside that build this is uv_close. Loop thread only. */
#ifndef ANIMD_SERVER_SOCKET_CLOSE_H
#define ANIMD_SERVER_SOCKET_CLOSE_H

#include <uv.h>

/* uv_close(h, cb) for a TCP or pipe handle whose socket is open. */
void srv_socket_close(uv_handle_t *h, uv_close_cb cb);

#endif
