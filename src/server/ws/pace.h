/* server: pacing arithmetic of a stream (frame numbers, due times and clip
 * times), kept apart from timers so it is tested exactly.
 *
 * A stream's clock maps frame numbers to due times on the monotonic clock
 * (uv_hrtime, ns) and to clip times: from a base (frame b due at base_ns
 * with clip time base_t), frame n is due at base_ns + (n - b) * 1e9 / fps
 * and carries clip time base_t + (n - b) * speed / fps. A play starts with
 * b = 0 and base_t = t0, so frame n carries t0 + n * speed / fps; changing
 * fps or speed, seeking or resuming moves the base, never the past. */
#ifndef ANIMD_SERVER_WS_PACE_H
#define ANIMD_SERVER_WS_PACE_H

#include <stdint.h>

typedef struct srv_ws_clock_s {
  uint64_t base_ns; /* Due time of base_frame. */
  int64_t base_frame;
  double base_t; /* Clip time (before wrapping) of base_frame. */
  double fps;    /* > 0. */
  double speed;
} srv_ws_clock_t;

void srv_ws_clock_init(srv_ws_clock_t *c, uint64_t now_ns, double fps,
                       double speed, double t0);

/* Due time of frame n (n >= base_frame). */
uint64_t srv_ws_clock_due(const srv_ws_clock_t *c, int64_t n);
/* Clip time of frame n, before wrapping. */
double srv_ws_clock_time(const srv_ws_clock_t *c, int64_t n);
/* The latest frame due at or before now (base_frame - 1 when none is). */
int64_t srv_ws_clock_frame_at(const srv_ws_clock_t *c, uint64_t now_ns);

/* Makes frame n the base, due at due_ns with clip time t (seek, resume,
 * and fps or speed changes). */
void srv_ws_clock_rebase(srv_ws_clock_t *c, int64_t n, uint64_t due_ns,
                         double t);

/* What a timer tick does for a stream whose next unsent frame is next:
 * the frame to send now (the latest due; the ones before it are skipped,
 * never sent in a burst), or -1 when none is due yet. */
typedef struct srv_ws_tick_s {
  int64_t frame;   /* -1: nothing due. */
  int64_t skipped; /* Frames passed over. */
  int64_t late_ns; /* now - due(frame). */
} srv_ws_tick_t;

srv_ws_tick_t srv_ws_clock_tick(const srv_ws_clock_t *c, int64_t next,
                                uint64_t now_ns);

/* Wraps clip time t into the clip (duration d): wrap 0 clamps to [0, d],
 * 1 loops (t - d floor(t / d)), 2 ping-pongs with period 2d. Done in
 * double so long-running streams keep their precision before the clip
 * time becomes a float. */
double srv_ws_wrap(double t, double d, int wrap);

#endif
