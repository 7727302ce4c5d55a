/* server: writing to a libuv stream, copying only what the kernel does not
 * take at once (see socket_write.h). */
#include "server/net/socket_write.h"

#include <stdlib.h>
#include <string.h>

int srv_socket_write(uv_stream_t *stream, const uv_buf_t *bufs, unsigned nbufs,
                     bool try_first, size_t head_size, uv_write_cb cb,
                     uv_write_t **req, size_t *len) {
  *req = NULL;
  *len = 0;
  size_t skip = 0;
  if (try_first) {
    size_t total = 0;
    for (unsigned i = 0; i < nbufs; i++) total += bufs[i].len;
    if (total == 0) return 0;
    int n = uv_try_write(stream, bufs, nbufs);
    if (n > 0) {
      if ((size_t)n == total) return 0;
      skip = (size_t)n;
    } else if (n != UV_EAGAIN) {
      return n;
    }
  }
  return srv_socket_write_rest(stream, bufs, nbufs, skip, head_size, cb, req,
                               len);
}

int srv_socket_write_rest(uv_stream_t *stream, const uv_buf_t *bufs,
                          unsigned nbufs, size_t skip, size_t head_size,
                          uv_write_cb cb, uv_write_t **req, size_t *len) {
  *req = NULL;
  *len = 0;
  size_t total = 0;
  for (unsigned i = 0; i < nbufs; i++) total += bufs[i].len;
  size_t left = total - skip;
  char *r = malloc(head_size + left);
  if (r == NULL) return UV_ENOMEM;
  char *copy = r + head_size;
  size_t off = 0;
  for (unsigned i = 0; i < nbufs; i++) {
    size_t bl = bufs[i].len;
    const char *base = bufs[i].base;
    if (skip >= bl) {
      skip -= bl;
      continue;
    }
    base += skip;
    bl -= skip;
    skip = 0;
    memcpy(copy + off, base, bl);
    off += bl;
  }
  uv_buf_t b = uv_buf_init(copy, (unsigned)left);
  int rc = uv_write((uv_write_t *)r, stream, &b, 1, cb);
  if (rc != 0) {
    free(r);
    return rc;
  }
  *req = (uv_write_t *)r;
  *len = left;
  return 0;
}
