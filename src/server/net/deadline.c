/* server: one-shot wake-ups at absolute monotonic times (see deadline.h).
 *
 * Key design choice: on Linux the kernel keeps the deadline (timerfd with
 * TFD_TIMER_ABSTIME), so nothing is rounded and arming never reads the
 * clock; the poll watcher is started only while a deadline is armed, so an
 * idle deadline costs the loop nothing. */
#include "server/net/deadline.h"

#include <errno.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/timerfd.h>
#endif

#ifdef __linux__
static void on_readable(uv_poll_t *p, int status, int events) {
  srv_deadline_t *d = p->data;
  (void)status, (void)events;
  uint64_t expirations;
  /* Clears the readiness; EAGAIN means a re-arm raced the wake-up. */
  if (read(d->_fd, &expirations, sizeof expirations) < 0 && errno == EAGAIN)
    return;
  d->_armed = false;
  d->_cb(d);
  /* The watcher stays on when the callback arms the next deadline. */
  if (!d->_armed && d->_polling && !uv_is_closing((uv_handle_t *)p)) {
    uv_poll_stop(p);
    d->_polling = false;
  }
}
#endif

static void arm_fallback(srv_deadline_t *d);

static void on_timer(uv_timer_t *t) {
  srv_deadline_t *d = t->data;
  if (uv_hrtime() < d->_due) {
    arm_fallback(d);
    return;
  }
  d->_armed = false;
  d->_cb(d);
}

/* The loop's millisecond clock: the timer runs once that clock reaches
 * the due millisecond rounded up, which is never before due. */
static void arm_fallback(srv_deadline_t *d) {
  uv_update_time(d->_loop);
  uint64_t due_ms = (d->_due + 999999) / 1000000;
  uint64_t now_ms = uv_now(d->_loop);
  uv_timer_start(&d->_h.timer, on_timer, due_ms > now_ms ? due_ms - now_ms : 0,
                 0);
}

int srv_deadline_init(uv_loop_t *loop, srv_deadline_t *d) {
  d->_loop = loop;
  d->_fd = -1;
  d->_armed = d->_polling = false;
  d->_cb = d->_close_cb = NULL;
#ifdef __linux__
  d->_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (d->_fd >= 0) {
    int rc = uv_poll_init(loop, &d->_h.poll, d->_fd);
    if (rc != 0) {
      close(d->_fd);
      return rc;
    }
    d->_h.poll.data = d;
    return 0;
  }
#endif
  return srv_deadline_init_ms(loop, d);
}

int srv_deadline_init_ms(uv_loop_t *loop, srv_deadline_t *d) {
  d->_loop = loop;
  d->_fd = -1;
  d->_armed = d->_polling = false;
  d->_cb = d->_close_cb = NULL;
  int rc = uv_timer_init(loop, &d->_h.timer);
  d->_h.timer.data = d;
  return rc;
}

void srv_deadline_start(srv_deadline_t *d, uint64_t due_ns,
                        srv_deadline_cb cb) {
  d->_cb = cb;
#ifdef __linux__
  if (d->_fd >= 0) {
    /* A zero it_value would disarm: the earliest instant is 1 ns. */
    if (due_ns == 0) due_ns = 1;
    struct itimerspec its = {
        .it_value = {(time_t)(due_ns / 1000000000u),
                     (long)(due_ns % 1000000000u)},
    };
    timerfd_settime(d->_fd, TFD_TIMER_ABSTIME, &its, NULL);
    if (!d->_polling)
      d->_polling = uv_poll_start(&d->_h.poll, UV_READABLE, on_readable) == 0;
    d->_armed = true;
    return;
  }
#endif
  d->_due = due_ns;
  d->_armed = true;
  arm_fallback(d);
}

void srv_deadline_stop(srv_deadline_t *d) {
  if (!d->_armed) return;
  d->_armed = false;
#ifdef __linux__
  if (d->_fd >= 0) {
    struct itimerspec off = {{0, 0}, {0, 0}};
    timerfd_settime(d->_fd, 0, &off, NULL);
    uv_poll_stop(&d->_h.poll);
    d->_polling = false;
    return;
  }
#endif
  uv_timer_stop(&d->_h.timer);
}

void srv_deadline_unref(srv_deadline_t *d) { uv_unref((uv_handle_t *)&d->_h); }

static void on_closed(uv_handle_t *h) {
  srv_deadline_t *d = h->data;
  if (d->_fd >= 0) close(d->_fd);
  d->_fd = -1;
  if (d->_close_cb != NULL) d->_close_cb(d);
}

void srv_deadline_close(srv_deadline_t *d, srv_deadline_cb close_cb) {
  d->_armed = false;
  d->_close_cb = close_cb;
  uv_close((uv_handle_t *)&d->_h, on_closed);
}
