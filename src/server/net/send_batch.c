/* server/net: writes to many sockets handed to the kernel together (see
 * send_batch.h).
 *
 * Key design choice: every write is a sendmsg with MSG_DONTWAIT, which
 * io_uring runs during the io_uring_enter that submits it and completes
 * at once with what the socket took (a short count, or EAGAIN when it had
 * no room) instead of waiting for room. So a run is synchronous, as one
 * writev per socket is, and needs no buffer kept past it. Should the
 * kernel ever take fewer writes than given, or fail to report one, the
 * ring is closed for good (unsubmitted writes never run) and the batch
 * goes on writing one sendmsg at a time. */
#include "server/net/send_batch.h"

#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* libuv's buffers are laid out as struct iovec on Unix. */
_Static_assert(sizeof(uv_buf_t) == sizeof(struct iovec), "uv_buf_t is iovec");
_Static_assert(offsetof(uv_buf_t, base) == offsetof(struct iovec, iov_base),
               "uv_buf_t.base");
_Static_assert(offsetof(uv_buf_t, len) == offsetof(struct iovec, iov_len),
               "uv_buf_t.len");

#define SEND_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL)
/* Interrupted system calls retried before the ring is given up. */
#define EINTR_RETRIES 64

typedef enum { RING_UNTRIED, RING_OPEN, RING_OFF } ring_state_t;

typedef struct entry_s {
  int fd;
  unsigned nbufs;
  size_t buf_at; /* Index of the first buffer in the batch's bufs. */
  srv_send_done_cb done;
  void *arg;
  bool reported;
  struct msghdr msg;
} entry_t;

struct srv_send_batch_s {
  entry_t *entries;
  unsigned count, cap;
  uv_buf_t *bufs;
  size_t buf_count, buf_cap;
  ring_state_t ring_state;
  bool ring_used; /* The last run went through the ring. */
  bool running;
  struct io_uring ring;
};

srv_send_batch_t *srv_send_batch_new(bool use_io_uring) {
  srv_send_batch_t *b = calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  b->ring_state = use_io_uring ? RING_UNTRIED : RING_OFF;
  return b;
}

void srv_send_batch_free(srv_send_batch_t *b) {
  if (b == NULL) return;
  if (b->ring_state == RING_OPEN) io_uring_queue_exit(&b->ring);
  free(b->entries);
  free(b->bufs);
  free(b);
}

unsigned srv_send_batch_pending(const srv_send_batch_t *b) { return b->count; }

bool srv_send_batch_uses_io_uring(const srv_send_batch_t *b) {
  return b->ring_used;
}

int srv_send_batch_add(srv_send_batch_t *b, int fd, const uv_buf_t *bufs,
                       unsigned nbufs, srv_send_done_cb done, void *arg) {
  if (b->running || nbufs == 0) return UV_EINVAL;
  if (b->count == b->cap) {
    unsigned cap = b->cap ? 2 * b->cap : 64;
    entry_t *e = realloc(b->entries, cap * sizeof *e);
    if (e == NULL) return UV_ENOMEM;
    b->entries = e;
    b->cap = cap;
  }
  if (b->buf_cap - b->buf_count < nbufs) {
    size_t cap = b->buf_cap ? 2 * b->buf_cap : 128;
    while (cap - b->buf_count < nbufs) cap *= 2;
    uv_buf_t *v = realloc(b->bufs, cap * sizeof *v);
    if (v == NULL) return UV_ENOMEM;
    b->bufs = v;
    b->buf_cap = cap;
  }
  memcpy(b->bufs + b->buf_count, bufs, nbufs * sizeof *bufs);
  b->entries[b->count++] = (entry_t){.fd = fd,
                                     .nbufs = nbufs,
                                     .buf_at = b->buf_count,
                                     .done = done,
                                     .arg = arg};
  b->buf_count += nbufs;
  return 0;
}

/* The kernel's answer for one write as the callers see it. */
static ssize_t outcome(ssize_t res) {
  return res == -EAGAIN || res == -EWOULDBLOCK ? 0 : res;
}

static void finish(srv_send_batch_t *b, entry_t *e, ssize_t res) {
  e->reported = true;
  e->done(e->arg, b->bufs + e->buf_at, e->nbufs, outcome(res));
}

static void prepare_msg(srv_send_batch_t *b, entry_t *e) {
  memset(&e->msg, 0, sizeof e->msg);
  e->msg.msg_iov = (struct iovec *)(b->bufs + e->buf_at);
  e->msg.msg_iovlen = e->nbufs;
}

/* Entries [first, first + n) one sendmsg each. */
static void run_one_by_one(srv_send_batch_t *b, unsigned first, unsigned n) {
  for (unsigned i = first; i < first + n; i++) {
    entry_t *e = &b->entries[i];
    prepare_msg(b, e);
    ssize_t r;
    int tries = 0;
    do {
      r = sendmsg(e->fd, &e->msg, SEND_FLAGS);
    } while (r < 0 && errno == EINTR && ++tries < EINTR_RETRIES);
    finish(b, e, r < 0 ? -errno : r);
  }
}

static void ring_close(srv_send_batch_t *b) {
  io_uring_queue_exit(&b->ring);
  b->ring_state = RING_OFF;
}

static void ring_open(srv_send_batch_t *b) {
  int r = io_uring_queue_init(SRV_SEND_BATCH_DEPTH, &b->ring,
                              IORING_SETUP_SUBMIT_ALL);
  if (r == -EINVAL) r = io_uring_queue_init(SRV_SEND_BATCH_DEPTH, &b->ring, 0);
  b->ring_state = r == 0 ? RING_OPEN : RING_OFF;
}

/* Entries [first, first + n), n <= SRV_SEND_BATCH_DEPTH, through the ring.
 * Returns how many the kernel took, all reported (a write it took but
 * never reported is reported as UV_EIO, not written twice); the rest
 * never reached the kernel and are left to the caller. Any shortfall
 * closes the ring. */
static unsigned run_ring(srv_send_batch_t *b, unsigned first, unsigned n) {
  for (unsigned i = first; i < first + n; i++) {
    entry_t *e = &b->entries[i];
    prepare_msg(b, e);
    /* The ring is empty between runs and holds DEPTH entries. */
    struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);
    io_uring_prep_sendmsg(sqe, e->fd, &e->msg, SEND_FLAGS);
    io_uring_sqe_set_data64(sqe, i);
  }
  unsigned submitted = 0;
  for (int tries = 0; submitted < n && tries < EINTR_RETRIES; tries++) {
    int r = io_uring_submit(&b->ring);
    if (r > 0)
      submitted += (unsigned)r;
    else if (r != -EINTR && r != -EAGAIN)
      break;
  }
  /* Each write submitted reports once, most during the submit itself. */
  unsigned reported = 0;
  int tries = 0;
  while (reported < submitted) {
    struct io_uring_cqe *cqe;
    int r = io_uring_wait_cqe(&b->ring, &cqe);
    if (r == -EINTR && ++tries < EINTR_RETRIES) continue;
    if (r < 0) break;
    uint64_t i = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    io_uring_cqe_seen(&b->ring, cqe);
    if (i >= first && i < first + submitted && !b->entries[i].reported) {
      finish(b, &b->entries[i], res);
      reported++;
    }
  }
  for (unsigned i = first; i < first + submitted; i++)
    if (!b->entries[i].reported) finish(b, &b->entries[i], UV_EIO);
  if (submitted < n || reported < submitted) ring_close(b);
  return submitted;
}

void srv_send_batch_run(srv_send_batch_t *b) {
  if (b->count == 0 || b->running) return;
  b->running = true;
  if (b->ring_state == RING_UNTRIED) ring_open(b);
  b->ring_used = b->ring_state == RING_OPEN;
  for (unsigned first = 0; first < b->count;) {
    unsigned n = b->count - first;
    if (n > SRV_SEND_BATCH_DEPTH) n = SRV_SEND_BATCH_DEPTH;
    if (b->ring_state == RING_OPEN) {
      unsigned taken = run_ring(b, first, n);
      first += taken;
      n -= taken;
    }
    if (n > 0) {
      b->ring_used = false;
      run_one_by_one(b, first, n);
      first += n;
    }
  }
  b->count = 0;
  b->buf_count = 0;
  b->running = false;
}
