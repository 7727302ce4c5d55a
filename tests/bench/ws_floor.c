/* ws_floor: the floor of `make bench-ws`, what streaming pose frames over
 * WebSocket costs when nothing but the sending is done: no evaluation, no
 * protocol beyond the WebSocket frame header, one precomputed 67-joint
 * model-space payload (4,288 bytes) behind animd's 32-byte binary frame
 * header, sent with animd's batching (one timer for all streams, the
 * frames of a tick handed to the kernel in one io_uring submission, a
 * frame dropped for a client whose previous one is still being sent) on
 * the same kind of sockets. bench-ws divides animd's CPU time per frame by
 * this program's.
 *
 * It serves what the load client (ws_load.c) asks: the upgrade of any GET
 * with a Sec-WebSocket-Key, {"op":"play",...,"fps":F} (a stream at F fps,
 * default 60) and {"op":"stats"} (answered with skipped and dropped), and
 * GET /metrics (animd_ws_frames_sent_total, animd's counter name).
 *
 * Usage: ws_floor READY_FILE   (listens on 127.0.0.1, a free port, and
 * writes "127.0.0.1:PORT" to READY_FILE once listening). Loopback only;
 * stopped by its PID (SIGTERM). Built by scripts/bench-ws:
 *   cc -O2 ws_floor.c -luv -luring -lcrypto -lm */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <liburing.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <uv.h>

#define JOINTS 67
#define HEADER 32
#define PAYLOAD (JOINTS * 16 * 4)
#define WS_HEAD 4 /* 0x82, 126, 16-bit length: PAYLOAD + HEADER < 65536 */
#define FRAME (WS_HEAD + HEADER + PAYLOAD)
#define WINDOW_NS 250000ull /* Streams due this soon share a wake-up. */
#define RING_ENTRIES 4096
#define MAX_STREAMS 8

typedef struct conn_s conn_t;

typedef struct stream_s {
  conn_t *conn;
  uint32_t index;
  double fps;
  uint64_t start, due, next, skipped, dropped;
} stream_t;

struct conn_s {
  uv_tcp_t tcp;
  int fd;
  bool upgraded, closed, busy, metrics;
  char hs[4096];
  size_t hs_len;
  unsigned char rx[8192];
  size_t rx_len;
  stream_t streams[MAX_STREAMS];
  uint32_t stream_count;
  /* The message being sent (frame or text) and how much of it went. */
  unsigned char out[FRAME];
  size_t out_len, out_off;
  char text[256];
  size_t text_len; /* A stats answer waiting for the socket. */
};

static uv_loop_t *loop;
static struct io_uring ring;
static uv_timer_t timer;
static uv_poll_t ring_poll;
static unsigned char payload[PAYLOAD];
static uint64_t frames_sent;
static unsigned pending_sqes;

/* Streams by due time: a binary min-heap. */
static stream_t **heap;
static size_t heap_len, heap_cap;

static void heap_swap(size_t a, size_t b) {
  stream_t *t = heap[a];
  heap[a] = heap[b];
  heap[b] = t;
}

static void heap_push(stream_t *s) {
  if (heap_len == heap_cap) {
    heap_cap = heap_cap ? 2 * heap_cap : 1024;
    heap = realloc(heap, heap_cap * sizeof *heap);
    if (heap == NULL) abort();
  }
  size_t i = heap_len++;
  heap[i] = s;
  while (i > 0 && heap[(i - 1) / 2]->due > heap[i]->due) {
    heap_swap(i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

static stream_t *heap_pop(void) {
  stream_t *top = heap[0];
  heap[0] = heap[--heap_len];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < heap_len && heap[l]->due < heap[m]->due) m = l;
    if (r < heap_len && heap[r]->due < heap[m]->due) m = r;
    if (m == i) break;
    heap_swap(i, m);
    i = m;
  }
  return top;
}

/* ---- sending: everything through the ring ------------------------------ */

static void queue_send(conn_t *c) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
  if (sqe == NULL) {
    io_uring_submit(&ring);
    pending_sqes = 0;
    sqe = io_uring_get_sqe(&ring);
    if (sqe == NULL) abort();
  }
  io_uring_prep_send(sqe, c->fd, c->out + c->out_off, c->out_len - c->out_off,
                     MSG_NOSIGNAL);
  io_uring_sqe_set_data(sqe, c);
  c->busy = true;
  pending_sqes++;
}

static void start_text(conn_t *c) {
  memcpy(c->out, c->text, c->text_len);
  c->out_len = c->text_len;
  c->out_off = 0;
  c->text_len = 0;
  queue_send(c);
}

static void reap(void) {
  struct io_uring_cqe *cqe;
  unsigned head, seen = 0;
  io_uring_for_each_cqe(&ring, head, cqe) {
    conn_t *c = io_uring_cqe_get_data(cqe);
    seen++;
    if (cqe->res <= 0) {
      c->busy = false;
      c->closed = true;
      continue;
    }
    c->out_off += (size_t)cqe->res;
    if (c->out_off < c->out_len && !c->closed) {
      queue_send(c); /* The rest of a short send. */
      continue;
    }
    c->busy = false;
    if (c->text_len > 0 && !c->closed) start_text(c);
  }
  io_uring_cq_advance(&ring, seen);
}

static void submit(void) {
  if (pending_sqes > 0) io_uring_submit(&ring);
  pending_sqes = 0;
}

static void on_ring(uv_poll_t *p, int status, int events) {
  (void)p, (void)status, (void)events;
  reap();
  submit();
}

/* ---- streams ------------------------------------------------------------ */

static void send_frame(stream_t *s, uint64_t n) {
  conn_t *c = s->conn;
  if (c->busy) {
    s->dropped++;
    return;
  }
  unsigned char *f = c->out;
  f[0] = 0x82;
  f[1] = 126;
  f[2] = (unsigned char)((HEADER + PAYLOAD) >> 8);
  f[3] = (unsigned char)((HEADER + PAYLOAD) & 0xff);
  unsigned char *h = f + WS_HEAD;
  uint32_t layout = 1, words = JOINTS * 16, joints = JOINTS;
  double t = (double)(float)fmod((double)n / s->fps, 2.0);
  memcpy(h, &s->index, 4);
  memcpy(h + 4, &layout, 4);
  memcpy(h + 8, &n, 8);
  memcpy(h + 16, &t, 8);
  memcpy(h + 24, &words, 4);
  memcpy(h + 28, &joints, 4);
  memcpy(h + HEADER, payload, PAYLOAD);
  c->out_len = FRAME;
  c->out_off = 0;
  queue_send(c);
  frames_sent++;
}

static void arm(void);

static void on_tick(uv_timer_t *t) {
  (void)t;
  reap();
  uint64_t now = uv_hrtime();
  while (heap_len > 0 && heap[0]->due <= now + WINDOW_NS) {
    stream_t *s = heap_pop();
    if (s->conn->closed) continue;
    uint64_t n =
        (uint64_t)((double)(now + WINDOW_NS - s->start) * s->fps / 1e9);
    if (n < s->next) n = s->next;
    s->skipped += n - s->next;
    send_frame(s, n);
    s->next = n + 1;
    s->due = s->start + (uint64_t)((double)s->next * 1e9 / s->fps);
    heap_push(s);
  }
  submit();
  arm();
}

static void arm(void) {
  if (heap_len == 0) return;
  uint64_t now = uv_hrtime(), due = heap[0]->due;
  uint64_t ms = due > now ? (due - now) / 1000000 : 0;
  uv_timer_start(&timer, on_tick, ms, 0);
}

/* ---- the connection: upgrade, then client messages ---------------------- */

static void on_closed(uv_handle_t *h) { (void)h; }

static void close_conn(conn_t *c) {
  if (!uv_is_closing((uv_handle_t *)&c->tcp))
    uv_close((uv_handle_t *)&c->tcp, on_closed);
  c->closed = true; /* Kept: a send in flight still names it. */
}

static void on_message(conn_t *c, const char *m, size_t n) {
  char text[512];
  if (n >= sizeof text) return;
  memcpy(text, m, n);
  text[n] = '\0';
  if (strstr(text, "\"op\":\"play\"") != NULL &&
      c->stream_count < MAX_STREAMS) {
    stream_t *s = &c->streams[c->stream_count];
    memset(s, 0, sizeof *s);
    s->conn = c;
    s->index = c->stream_count++;
    const char *f = strstr(text, "\"fps\":");
    s->fps = f != NULL ? strtod(f + 6, NULL) : 60;
    if (!(s->fps > 0)) s->fps = 60;
    s->start = s->due = uv_hrtime();
    heap_push(s);
    uv_timer_stop(&timer);
    arm();
  } else if (strstr(text, "\"op\":\"stats\"") != NULL) {
    uint64_t skipped = 0, dropped = 0;
    for (uint32_t i = 0; i < c->stream_count; i++) {
      skipped += c->streams[i].skipped;
      dropped += c->streams[i].dropped;
    }
    char body[200];
    int len =
        snprintf(body, sizeof body,
                 "{\"op\":\"stats\",\"skipped\":%llu,\"dropped\":%llu}",
                 (unsigned long long)skipped, (unsigned long long)dropped);
    c->text[0] = (char)0x81;
    c->text[1] = (char)len;
    memcpy(c->text + 2, body, (size_t)len);
    c->text_len = 2 + (size_t)len;
    if (!c->busy) {
      start_text(c);
      submit();
    }
  }
}

/* Client frames are small and masked: takes the whole ones in rx. */
static void take_frames(conn_t *c) {
  size_t at = 0;
  for (;;) {
    unsigned char *p = c->rx + at;
    size_t have = c->rx_len - at;
    if (have < 2) break;
    unsigned op = p[0] & 0x0f;
    size_t len = p[1] & 0x7f, head = 2;
    if (len == 126) {
      if (have < 4) break;
      len = (size_t)p[2] << 8 | p[3];
      head = 4;
    } else if (len == 127) {
      close_conn(c);
      return;
    }
    bool masked = p[1] & 0x80;
    if (masked) head += 4;
    if (have < head + len) break;
    unsigned char *data = p + head;
    if (masked)
      for (size_t i = 0; i < len; i++) data[i] ^= p[head - 4 + (i & 3)];
    if (op == 0x8) {
      close_conn(c);
      return;
    }
    if (op == 0x1) on_message(c, (const char *)data, len);
    at += head + len;
  }
  memmove(c->rx, c->rx + at, c->rx_len - at);
  c->rx_len -= at;
}

static void answer_metrics(conn_t *c) {
  char body[100], out[300];
  int n = snprintf(body, sizeof body, "animd_ws_frames_sent_total %llu\n",
                   (unsigned long long)frames_sent);
  int m = snprintf(out, sizeof out,
                   "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                   "Connection: close\r\n\r\n%s",
                   n, body);
  uv_buf_t b = uv_buf_init(out, (unsigned)m);
  uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
  close_conn(c);
}

static bool upgrade(conn_t *c) {
  const char *k = strcasestr(c->hs, "\r\nSec-WebSocket-Key:");
  if (k == NULL) return false;
  k += 20;
  while (*k == ' ') k++;
  size_t n = strcspn(k, "\r\n");
  char key[128];
  if (n > 64) return false;
  snprintf(key, sizeof key, "%.*s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", (int)n,
           k);
  unsigned char sha[EVP_MAX_MD_SIZE];
  unsigned sha_len = 0;
  EVP_Digest(key, strlen(key), sha, &sha_len, EVP_sha1(), NULL);
  unsigned char accept[64];
  EVP_EncodeBlock(accept, sha, (int)sha_len);
  char out[256];
  int m = snprintf(out, sizeof out,
                   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                   accept);
  uv_buf_t b = uv_buf_init(out, (unsigned)m);
  return uv_try_write((uv_stream_t *)&c->tcp, &b, 1) == m;
}

static void on_alloc(uv_handle_t *h, size_t size, uv_buf_t *buf) {
  (void)size;
  conn_t *c = h->data;
  if (!c->upgraded)
    *buf = uv_buf_init(c->hs + c->hs_len,
                       (unsigned)(sizeof c->hs - 1 - c->hs_len));
  else
    *buf = uv_buf_init((char *)c->rx + c->rx_len,
                       (unsigned)(sizeof c->rx - c->rx_len));
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  conn_t *c = s->data;
  if (nread <= 0) {
    if (nread < 0) close_conn(c);
    return;
  }
  if (c->upgraded) {
    c->rx_len += (size_t)nread;
    take_frames(c);
    if (c->rx_len == sizeof c->rx) close_conn(c);
    return;
  }
  c->hs_len += (size_t)nread;
  c->hs[c->hs_len] = '\0';
  char *end = strstr(c->hs, "\r\n\r\n");
  if (end == NULL) {
    if (c->hs_len == sizeof c->hs - 1) close_conn(c);
    return;
  }
  if (strncmp(c->hs, "GET /metrics", 12) == 0) {
    answer_metrics(c);
    return;
  }
  if (!upgrade(c)) {
    close_conn(c);
    return;
  }
  c->upgraded = true;
  size_t rest = c->hs_len - (size_t)(end + 4 - c->hs);
  memcpy(c->rx, end + 4, rest);
  c->rx_len = rest;
  take_frames(c);
}

static void on_connection(uv_stream_t *server, int status) {
  if (status != 0) return;
  conn_t *c = calloc(1, sizeof *c);
  if (c == NULL) return;
  uv_tcp_init(loop, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
    close_conn(c);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  uv_os_fd_t fd;
  uv_fileno((uv_handle_t *)&c->tcp, &fd);
  c->fd = fd;
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ws_floor READY_FILE\n");
    return 2;
  }
  for (int j = 0; j < JOINTS; j++) {
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1f * (float)j,
                   0, 1};
    memcpy(payload + 64 * j, m, sizeof m);
  }
  loop = uv_default_loop();
  if (io_uring_queue_init(RING_ENTRIES, &ring, 0) != 0) {
    fprintf(stderr, "ws_floor: io_uring is not available\n");
    return 1;
  }
  uv_timer_init(loop, &timer);
  uv_poll_init(loop, &ring_poll, ring.ring_fd);
  uv_poll_start(&ring_poll, UV_READABLE, on_ring);
  uv_tcp_t server;
  uv_tcp_init(loop, &server);
  struct sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", 0, &addr);
  if (uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0) != 0 ||
      uv_listen((uv_stream_t *)&server, 4096, on_connection) != 0) {
    fprintf(stderr, "ws_floor: cannot listen\n");
    return 1;
  }
  struct sockaddr_in bound;
  int len = sizeof bound;
  uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
  FILE *f = fopen(argv[1], "w");
  if (f == NULL) return 1;
  fprintf(f, "127.0.0.1:%d", ntohs(bound.sin_port));
  fclose(f);
  return uv_run(loop, UV_RUN_DEFAULT);
}
