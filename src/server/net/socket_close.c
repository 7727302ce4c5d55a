/* server/net: closing a socket handle where ThreadSanitizer sees it (see
 * socket_close.h).
 *
 * The close is told to the sanitizer just before libuv makes it, while no
 * other thread can hold the number; libuv's own last use of the number
 * (removing it from epoll, inside uv_close) is then left unrecorded, or it
 * would become the number's last use. libuv is not instrumented, so
 * nothing else is lost. */
#include "server/net/socket_close.h"

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer's hooks: a close(2) it cannot intercept, and a stretch
 * of this thread's accesses it is not to record. */
void __sanitizer_syscall_pre_impl_close(long fd);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

void srv_socket_close(uv_handle_t *h, uv_close_cb cb) {
  uv_os_fd_t fd;
  if (uv_fileno(h, &fd) == 0 && fd >= 0) __sanitizer_syscall_pre_impl_close(fd);
  __tsan_ignore_thread_begin();
  uv_close(h, cb);
  __tsan_ignore_thread_end();
}
#else
void srv_socket_close(uv_handle_t *h, uv_close_cb cb) { uv_close(h, cb); }
#endif
