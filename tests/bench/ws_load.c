/* ws_load: the WebSocket load client of `make bench-ws`.
 *
 * Opens N connections to animd's /v1/stream on one libuv loop, has each
 * play the same clip (binary frames), and measures for a fixed window:
 * frames received per second, frames the server skipped (gaps in frame
 * numbers; those of the warm-up second, when every stream starts at once,
 * are counted apart) or dropped (its stats message), and the lateness of
 * each frame against its due time. The due time of frame n of a connection is
 * origin + n / fps, where origin is the earliest arrival minus n / fps
 * over the window (the stream's own schedule as the client can best know
 * it), so lateness is measured from the least late frame of the stream.
 *
 * Framing uses wslay's client context without message buffering: only
 * the first 32 bytes of a binary message (the header) and the text of
 * small answers are kept, so the client costs little next to the server
 * it measures. The handshake is a fixed request. For the same reason,
 * once upgraded a connection receives through io_uring: one multishot
 * recv per socket into a shared ring of provided buffers, so a frame
 * costs no system call of its own, and the loop takes completions in
 * batches (up to RECV_BATCH, or after RECV_WAIT_NS). The arrival time
 * of a frame is when its batch is taken, so lateness can read up to
 * RECV_WAIT_NS high. Where the kernel refuses io_uring, libuv reads as
 * before (one read per frame).
 *
 * Usage: ws_load HOST PORT N SECONDS SKELETON CLIP [FPS [EXTRA [distinct]]]
 * EXTRA is appended to the play message's fields (e.g.
 * ,"mesh":"ID","encoding":"q16"); with "distinct", connection i starts at
 * clip time i * 0.7 ms, so no two viewers share a frame's evaluation.
 * Prints one line of key=value results, with the mean bytes of a frame
 * message. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>
#include <uv.h>
#include <wslay/wslay.h>

typedef struct client_s {
  uv_tcp_t tcp;
  uv_connect_t connect;
  wslay_event_context_ptr ctx;
  char hs[4096];
  size_t hs_len;
  bool upgraded;
  bool closed;
  int fd; /* Receiving through the ring once upgraded (ring_on). */
  const char *in;
  size_t in_len;
  int64_t last_frame;
  uint64_t frames, gaps, warm_gaps, dropped_reported;
  uint64_t frame_bytes; /* Of the frames counted in the window. */
  uint64_t msg_bytes;   /* Of the message being received. */
  bool stats_seen;
  /* The message being received: its opcode, first bytes, length so far. */
  uint8_t opcode;
  uint8_t head[512];
  size_t got;
  /* Arrivals in the window: frame number and time. */
  int64_t *n;
  uint64_t *at;
  size_t count, cap;
} client_t;

static uv_loop_t *loop;
static client_t *clients;
static int nclients;
static double fps = 60;
static const char *skeleton, *clip;
static uint64_t window_start, window_end;
static int phase; /* 0 ramp, 1 measuring, 2 asking stats, 3 done */
static int connected, failed;
static char play_msg[1024];
static bool distinct;

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                       int flags, void *user) {
  client_t *c = user;
  (void)flags;
  if (c->in_len == 0) {
    wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    return -1;
  }
  size_t n = len < c->in_len ? len : c->in_len;
  memcpy(buf, c->in, n);
  c->in += n;
  c->in_len -= n;
  return (ssize_t)n;
}

typedef struct wreq_s {
  uv_write_t req;
  char data[];
} wreq_t;

static void on_written(uv_write_t *req, int status) {
  (void)status;
  free(req);
}

static void send_bytes(client_t *c, const void *data, size_t len) {
  if (c->closed) return;
  wreq_t *w = malloc(sizeof *w + len);
  memcpy(w->data, data, len);
  uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0)
    free(w);
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data,
                       size_t len, int flags, void *user) {
  (void)ctx, (void)flags;
  send_bytes(user, data, len);
  return (ssize_t)len;
}

static int on_genmask(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                      void *user) {
  (void)ctx, (void)user;
  for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rand();
  return 0;
}

static void
on_frame_start(wslay_event_context_ptr ctx,
               const struct wslay_event_on_frame_recv_start_arg *arg,
               void *user) {
  (void)ctx;
  client_t *c = user;
  /* Continuation frames keep the message's opcode. */
  if (arg->opcode != WSLAY_CONTINUATION_FRAME) {
    c->opcode = arg->opcode;
    c->got = 0;
    c->msg_bytes = 0;
  }
}

static void on_chunk(wslay_event_context_ptr ctx,
                     const struct wslay_event_on_frame_recv_chunk_arg *arg,
                     void *user) {
  (void)ctx;
  client_t *c = user;
  c->msg_bytes += arg->data_length;
  size_t room = sizeof c->head - 1 - c->got;
  size_t n = arg->data_length < room ? arg->data_length : room;
  memcpy(c->head + c->got, arg->data, n);
  c->got += n;
}

static void on_msg(wslay_event_context_ptr ctx,
                   const struct wslay_event_on_msg_recv_arg *arg, void *user) {
  (void)ctx;
  client_t *c = user;
  if (arg->opcode == WSLAY_BINARY_FRAME && c->got >= 32) {
    uint64_t now = uv_hrtime();
    uint32_t lo, hi;
    memcpy(&lo, c->head + 8, 4);
    memcpy(&hi, c->head + 12, 4);
    int64_t n = (int64_t)lo | (int64_t)hi << 32;
    if (c->last_frame >= 0 && n > c->last_frame + 1 && phase == 1) {
      if (now < window_start)
        c->warm_gaps += (uint64_t)(n - c->last_frame - 1);
      else if (now < window_end)
        c->gaps += (uint64_t)(n - c->last_frame - 1);
    }
    c->last_frame = n;
    if (phase == 1 && now >= window_start && now < window_end) {
      c->frames++;
      c->frame_bytes += c->msg_bytes;
      if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->n = realloc(c->n, c->cap * sizeof *c->n);
        c->at = realloc(c->at, c->cap * sizeof *c->at);
      }
      c->n[c->count] = n;
      c->at[c->count] = now;
      c->count++;
    }
  } else if (arg->opcode == WSLAY_TEXT_FRAME) {
    c->head[c->got] = 0;
    const char *m = (const char *)c->head;
    if (strstr(m, "\"error\"") != NULL) {
      fprintf(stderr, "ws_load: error message: %s\n", m);
    } else if (strncmp(m, "{\"op\":\"stats\"", 13) == 0) {
      const char *d = strstr(m, "\"dropped\":");
      if (d != NULL) c->dropped_reported = strtoull(d + 10, NULL, 10);
      c->stats_seen = true;
    }
  }
  c->got = 0;
}

static const struct wslay_event_callbacks cbs = {
    on_recv, on_send, on_genmask, on_frame_start, on_chunk, NULL, on_msg};

/* ---- receiving through io_uring ---- */

#define RECV_BUFS 4096 /* Provided buffers (a power of two). */
#define RECV_BUF_SIZE 8192
#define RECV_GROUP 1
#define RECV_BATCH 32
#define RECV_WAIT_NS 200000

static struct io_uring ring;
static bool ring_on;
static struct io_uring_buf_ring *recv_ring;
static uint8_t *recv_mem;

static bool ring_setup(void) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
            IORING_SETUP_DEFER_TASKRUN;
  p.cq_entries = 65536;
  if (io_uring_queue_init_params(4096, &ring, &p) != 0) {
    memset(&p, 0, sizeof p);
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = 65536;
    if (io_uring_queue_init_params(4096, &ring, &p) != 0) return false;
  }
  size_t size = RECV_BUFS * sizeof(struct io_uring_buf);
  recv_ring = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  recv_mem = malloc((size_t)RECV_BUFS * RECV_BUF_SIZE);
  struct io_uring_buf_reg reg;
  memset(&reg, 0, sizeof reg);
  reg.ring_addr = (unsigned long)recv_ring;
  reg.ring_entries = RECV_BUFS;
  reg.bgid = RECV_GROUP;
  if (recv_ring == MAP_FAILED || recv_mem == NULL ||
      io_uring_register_buf_ring(&ring, &reg, 0) != 0) {
    io_uring_queue_exit(&ring);
    return false;
  }
  io_uring_buf_ring_init(recv_ring);
  for (int i = 0; i < RECV_BUFS; i++)
    io_uring_buf_ring_add(recv_ring, recv_mem + (size_t)i * RECV_BUF_SIZE,
                          RECV_BUF_SIZE, (unsigned short)i,
                          io_uring_buf_ring_mask(RECV_BUFS), i);
  io_uring_buf_ring_advance(recv_ring, RECV_BUFS);
  return true;
}

static void arm_recv(client_t *c) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
  if (sqe == NULL) {
    io_uring_submit(&ring);
    sqe = io_uring_get_sqe(&ring);
  }
  io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = RECV_GROUP;
  io_uring_sqe_set_data(sqe, c);
}

static void peer_gone(client_t *c);
static void take_bytes(client_t *c, const char *data, size_t len);

/* Every completion waiting: bytes to their connection's framing, the
 * buffers back to the ring, recvs that ended armed again. */
static void reap(void) {
  struct io_uring_cqe *cqe;
  unsigned head, seen = 0, returned = 0;
  io_uring_for_each_cqe(&ring, head, cqe) {
    client_t *c = io_uring_cqe_get_data(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    seen++;
    if (res > 0 && (flags & IORING_CQE_F_BUFFER)) {
      unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
      uint8_t *b = recv_mem + (size_t)bid * RECV_BUF_SIZE;
      if (!c->closed) take_bytes(c, (const char *)b, (size_t)res);
      io_uring_buf_ring_add(recv_ring, b, RECV_BUF_SIZE, (unsigned short)bid,
                            io_uring_buf_ring_mask(RECV_BUFS), (int)returned);
      returned++;
    }
    if (!(flags & IORING_CQE_F_MORE) && !c->closed) {
      if (res > 0 || res == -ENOBUFS)
        arm_recv(c);
      else
        peer_gone(c);
    }
  }
  io_uring_buf_ring_advance(recv_ring, (int)returned);
  io_uring_cq_advance(&ring, seen);
}

static void alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf) {
  (void)h;
  static char slab[1 << 16];
  (void)size;
  *buf = uv_buf_init(slab, sizeof slab);
}

static void peer_gone(client_t *c) {
  if (c->closed) return;
  c->closed = true;
  if (phase < 2) failed++;
  uv_close((uv_handle_t *)&c->tcp, NULL);
}

static void take_bytes(client_t *c, const char *data, size_t len) {
  c->in = data;
  c->in_len = len;
  wslay_event_recv(c->ctx);
  if (wslay_event_want_write(c->ctx)) wslay_event_send(c->ctx);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  client_t *c = s->data;
  if (nread < 0) {
    peer_gone(c);
    return;
  }
  const char *data = buf->base;
  size_t len = (size_t)nread;
  if (!c->upgraded) {
    size_t take =
        len < sizeof c->hs - 1 - c->hs_len ? len : sizeof c->hs - 1 - c->hs_len;
    memcpy(c->hs + c->hs_len, data, take);
    c->hs_len += take;
    c->hs[c->hs_len] = '\0';
    char *end = strstr(c->hs, "\r\n\r\n");
    if (end == NULL) return;
    if (strncmp(c->hs, "HTTP/1.1 101", 12) != 0) {
      fprintf(stderr, "ws_load: handshake refused: %.60s\n", c->hs);
      failed++;
      c->closed = true;
      uv_close((uv_handle_t *)&c->tcp, NULL);
      return;
    }
    size_t head = (size_t)(end + 4 - c->hs);
    size_t before = c->hs_len - take;
    c->upgraded = true;
    connected++;
    data += head - before;
    len -= head - before;
    wslay_event_context_client_init(&c->ctx, &cbs, c);
    wslay_event_config_set_no_buffering(c->ctx, 1);
    uv_os_fd_t fd;
    if (ring_on && uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0) {
      /* From here on the ring receives. */
      uv_read_stop(s);
      c->fd = fd;
      arm_recv(c);
    }
  }
  take_bytes(c, data, len);
}

static void on_connect(uv_connect_t *req, int status) {
  client_t *c = req->data;
  if (status != 0) {
    fprintf(stderr, "ws_load: connect: %s\n", uv_strerror(status));
    failed++;
    c->closed = true;
    uv_close((uv_handle_t *)&c->tcp, NULL);
    return;
  }
  static const char req_text[] =
      "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      "Sec-WebSocket-Version: 13\r\n\r\n";
  send_bytes(c, req_text, sizeof req_text - 1);
  uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

/* Starts the streams spread over one frame period, as viewers who join
 * at random times would be: a slice of the connections every millisecond. */
static int next_play;

static void on_play_slice(uv_timer_t *t) {
  int slices = (int)(1000.0 / fps);
  if (slices < 1) slices = 1;
  int per = (nclients + slices - 1) / slices;
  for (int k = 0; k < per && next_play < nclients; k++, next_play++) {
    client_t *c = &clients[next_play];
    if (!c->upgraded || c->closed) continue;
    char own[1100];
    const char *msg = play_msg;
    if (distinct) {
      /* The same message with its own start time. */
      snprintf(own, sizeof own, "%.*s,\"t0\":%.4f}", (int)strlen(play_msg) - 1,
               play_msg, next_play * 0.0007);
      msg = own;
    }
    struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)msg,
                                strlen(msg)};
    wslay_event_queue_msg(c->ctx, &m);
    wslay_event_send(c->ctx);
  }
  if (next_play >= nclients) uv_timer_stop(t);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The client's own CPU time (user + system) over the measured window. */
static double window_cpu_s[2];

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void on_window_start(uv_timer_t *t) {
  (void)t;
  window_cpu_s[0] = cpu_seconds();
}

static void on_phase(uv_timer_t *t) {
  if (phase == 1) {
    window_cpu_s[1] = cpu_seconds();
    phase = 2;
    static const char stats[] = "{\"op\":\"stats\"}";
    for (int i = 0; i < nclients; i++) {
      client_t *c = &clients[i];
      if (!c->upgraded || c->closed) continue;
      struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)stats,
                                  sizeof stats - 1};
      wslay_event_queue_msg(c->ctx, &m);
      wslay_event_send(c->ctx);
    }
    uv_timer_start(t, on_phase, 1000, 0);
    return;
  }
  phase = 3;
  uv_stop(loop);
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: ws_load HOST PORT N SECONDS SKELETON CLIP "
                    "[FPS]\n");
    return 2;
  }
  const char *host = argv[1];
  int port = atoi(argv[2]);
  nclients = atoi(argv[3]);
  double seconds = atof(argv[4]);
  skeleton = argv[5];
  clip = argv[6];
  if (argc > 7) fps = atof(argv[7]);
  const char *extra = argc > 8 ? argv[8] : "";
  distinct = argc > 9 && strcmp(argv[9], "distinct") == 0;
  snprintf(play_msg, sizeof play_msg,
           "{\"op\":\"play\",\"id\":1,\"skeleton\":\"%s\",\"clip\":\"%s\","
           "\"fps\":%g,\"format\":\"bin\",\"space\":\"model\","
           "\"wrap\":\"loop\"%s}",
           skeleton, clip, fps, extra);
  loop = uv_default_loop();
  ring_on = getenv("WS_LOAD_LIBUV_READS") == NULL && ring_setup();
  clients = calloc((size_t)nclients, sizeof *clients);
  /* Room for every arrival of the window up front: growing the arrays of
   * all connections at once (they all reach the same count together)
   * would stall this client for milliseconds and show as lateness. */
  size_t room = (size_t)(fps * (seconds + 2)) + 64;
  for (int i = 0; i < nclients; i++) {
    clients[i].cap = room;
    clients[i].n = malloc(room * sizeof *clients[i].n);
    clients[i].at = malloc(room * sizeof *clients[i].at);
    if (clients[i].n == NULL || clients[i].at == NULL) {
      fprintf(stderr, "ws_load: out of memory\n");
      return 1;
    }
    memset(clients[i].n, 0, room * sizeof *clients[i].n);
    memset(clients[i].at, 0, room * sizeof *clients[i].at);
  }
  struct sockaddr_in sa;
  uv_ip4_addr(host, port, &sa);
  uint64_t t0 = uv_hrtime();
  for (int i = 0; i < nclients; i++) {
    client_t *c = &clients[i];
    c->last_frame = -1;
    uv_tcp_init(loop, &c->tcp);
    uv_tcp_nodelay(&c->tcp, 1);
    c->tcp.data = c;
    c->connect.data = c;
    uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&sa,
                   on_connect);
    /* Connect in batches so the listen backlog keeps up. */
    if (i % 100 == 99) uv_run(loop, UV_RUN_NOWAIT);
  }
  /* Ramp: wait for every handshake (at most 10 s), start the streams over
   * one frame period, then one second of warm-up, then the measured
   * window. */
  while (connected + failed < nclients && uv_hrtime() - t0 < 10000000000ull)
    uv_run(loop, UV_RUN_ONCE);
  uint64_t ramp_s = (uv_hrtime() - t0) / 1000000;
  uv_timer_t play_timer;
  uv_timer_init(loop, &play_timer);
  uv_timer_start(&play_timer, on_play_slice, 0, 1);
  window_start = uv_hrtime() + 1000000000ull;
  window_end = window_start + (uint64_t)(seconds * 1e9);
  phase = 1;
  uv_timer_t timer;
  uv_timer_init(loop, &timer);
  uv_timer_start(&timer, on_phase, (uint64_t)(1000 + seconds * 1000), 0);
  uv_timer_t window_timer;
  uv_timer_init(loop, &window_timer);
  uv_timer_start(&window_timer, on_window_start, 1000, 0);
  if (ring_on) {
    /* libuv's timers and writes between batches of completions; bounded
     * by the phases' own end plus 10 s. */
    uint64_t hard_end = window_end + 12000000000ull;
    while (phase < 3 && uv_hrtime() < hard_end) {
      uv_run(loop, UV_RUN_NOWAIT);
      struct __kernel_timespec ts = {0, RECV_WAIT_NS};
      struct io_uring_cqe *cqe;
      io_uring_submit_and_wait_timeout(&ring, &cqe, RECV_BATCH, &ts, NULL);
      reap();
    }
  } else {
    uv_run(loop, UV_RUN_DEFAULT);
  }

  uint64_t frames = 0, gaps = 0, warm_gaps = 0, dropped = 0, stats = 0;
  uint64_t frame_bytes = 0;
  uint64_t total = 0;
  for (int i = 0; i < nclients; i++) total += clients[i].count;
  uint64_t *late = malloc((total ? total : 1) * sizeof *late);
  size_t k = 0;
  for (int i = 0; i < nclients; i++) {
    client_t *c = &clients[i];
    frames += c->frames;
    frame_bytes += c->frame_bytes;
    gaps += c->gaps;
    warm_gaps += c->warm_gaps;
    dropped += c->dropped_reported;
    stats += c->stats_seen;
    if (c->count == 0) continue;
    double step = 1e9 / fps;
    double origin = 1e300;
    for (size_t j = 0; j < c->count; j++) {
      double o = (double)c->at[j] - (double)c->n[j] * step;
      if (o < origin) origin = o;
    }
    for (size_t j = 0; j < c->count; j++)
      late[k++] =
          (uint64_t)((double)c->at[j] - (double)c->n[j] * step - origin);
  }
  qsort(late, k, sizeof *late, cmp_u64);
  double p50 = k ? late[k / 2] / 1e6 : 0;
  double p99 = k ? late[(size_t)(k * 0.99)] / 1e6 : 0;
  double mx = k ? late[k - 1] / 1e6 : 0;
  printf(
      "connections=%d connected=%d failed=%d ramp_ms=%llu "
      "frames_per_s=%.0f expected_per_s=%.0f skipped=%llu "
      "warmup_skipped=%llu dropped=%llu stats_answers=%llu "
      "lateness_p50_ms=%.2f lateness_p99_ms=%.2f lateness_max_ms=%.2f "
      "bytes_per_frame=%.0f client_cpu_us_per_frame=%.2f "
      "client_reads=%s\n",
      nclients, connected, failed, (unsigned long long)ramp_s, frames / seconds,
      nclients * fps, (unsigned long long)gaps, (unsigned long long)warm_gaps,
      (unsigned long long)dropped, (unsigned long long)stats, p50, p99, mx,
      frames ? (double)frame_bytes / (double)frames : 0.0,
      frames ? (window_cpu_s[1] - window_cpu_s[0]) * 1e6 / (double)frames : 0.0,
      ring_on ? "io_uring" : "libuv");
  return 0;
}
