/* server: pacing arithmetic of a stream.
 *
 * Key design choice: due times are computed from a base frame, never
 * accumulated tick by tick, so rounding never drifts: frame n's due time
 * is base_ns + round((n - b) * 1e9 / fps). */
#include "server/ws/pace.h"

#include <math.h>

void srv_ws_clock_init(srv_ws_clock_t *c, uint64_t now_ns, double fps,
                       double speed, double t0) {
  c->base_ns = now_ns;
  c->base_frame = 0;
  c->base_t = t0;
  c->fps = fps;
  c->speed = speed;
}

uint64_t srv_ws_clock_due(const srv_ws_clock_t *c, int64_t n) {
  double d = (double)(n - c->base_frame) * 1e9 / c->fps;
  return c->base_ns + (uint64_t)llround(d);
}

double srv_ws_clock_time(const srv_ws_clock_t *c, int64_t n) {
  return c->base_t + (double)(n - c->base_frame) * c->speed / c->fps;
}

int64_t srv_ws_clock_frame_at(const srv_ws_clock_t *c, uint64_t now_ns) {
  if (now_ns < c->base_ns) return c->base_frame - 1;
  int64_t n = c->base_frame +
              (int64_t)floor((double)(now_ns - c->base_ns) * c->fps / 1e9);
  /* The float estimate may be one off near a boundary: settle it on the
   * exact due times. */
  while (n > c->base_frame && srv_ws_clock_due(c, n) > now_ns) n--;
  while (srv_ws_clock_due(c, n + 1) <= now_ns) n++;
  return n;
}

void srv_ws_clock_rebase(srv_ws_clock_t *c, int64_t n, uint64_t due_ns,
                         double t) {
  c->base_frame = n;
  c->base_ns = due_ns;
  c->base_t = t;
}

srv_ws_tick_t srv_ws_clock_tick(const srv_ws_clock_t *c, int64_t next,
                                uint64_t now_ns) {
  srv_ws_tick_t t = {-1, 0, 0};
  int64_t n = srv_ws_clock_frame_at(c, now_ns);
  if (n < next) return t;
  t.frame = n;
  t.skipped = n - next;
  t.late_ns = (int64_t)(now_ns - srv_ws_clock_due(c, n));
  return t;
}

double srv_ws_wrap(double t, double d, int wrap) {
  if (!isfinite(t) || !(d > 0)) return 0;
  switch (wrap) {
  case 1: {
    double u = t - d * floor(t / d);
    return u >= d ? 0 : u;
  }
  case 2: {
    double p = 2 * d;
    double u = t - p * floor(t / p);
    if (u >= p) u = 0;
    return u <= d ? u : p - u;
  }
  default: return t < 0 ? 0 : (t > d ? d : t);
  }
}
