/* server: a one-shot wake-up at an absolute time on the monotonic clock,
 * to the nanosecond.
 *
 * libuv's timers count whole milliseconds from the loop's cached clock,
 * so a wake-up lands anywhere up to two milliseconds after the instant
 * asked for; paced streams need better. On Linux a deadline is a timerfd
 * (CLOCK_MONOTONIC, the clock of uv_hrtime) armed with an absolute time
 * and watched by a uv_poll_t, so it fires within the kernel's timer slack
 * of the instant. Where timerfd is missing it falls back to a uv_timer
 * rounded up to the next millisecond. Either way it never fires early.
 * Loop thread only. */
#ifndef ANIMD_SERVER_DEADLINE_H
#define ANIMD_SERVER_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

typedef struct srv_deadline_s srv_deadline_t;
typedef void (*srv_deadline_cb)(srv_deadline_t *d);

struct srv_deadline_s {
  void *data; /* The owner's. */
  /* private */
  union {
    uv_poll_t poll;
    uv_timer_t timer;
  } _h;
  uv_loop_t *_loop;
  int _fd; /* timerfd, or -1 with the uv_timer fallback. */
  bool _armed;
  bool _polling; /* The poll watcher is started. */
  uint64_t _due; /* The fallback's deadline. */
  srv_deadline_cb _cb;
  srv_deadline_cb _close_cb;
};

/* Prepares d on loop. Returns 0 or a negative errno. */
int srv_deadline_init(uv_loop_t *loop, srv_deadline_t *d);
/* The same with the millisecond uv_timer fallback, wherever it runs (so
 * the fallback is tested on Linux too). */
int srv_deadline_init_ms(uv_loop_t *loop, srv_deadline_t *d);

/* Calls cb once uv_hrtime() >= due_ns (at once, from the loop, when due_ns
 * is already past). Replaces any earlier arming. */
void srv_deadline_start(srv_deadline_t *d, uint64_t due_ns, srv_deadline_cb cb);
void srv_deadline_stop(srv_deadline_t *d);

/* Whether the deadline keeps the loop alive while armed (like uv_ref). */
void srv_deadline_unref(srv_deadline_t *d);

/* Stops and releases d; close_cb (may be NULL) runs from the loop once d's
 * memory may be freed. */
void srv_deadline_close(srv_deadline_t *d, srv_deadline_cb close_cb);

#endif
