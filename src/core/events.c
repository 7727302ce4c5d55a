/* animd core: the events a frame of a playback crosses (animd/events.h).
 *
 * Key design choice: the happenings of an event are enumerated in cycles
 * of the wrap (a loop, or a forward and a backward leg), and in each cycle
 * in increasing u, so a span walks forward or backward through the cycles
 * it touches and stops at cap; in each, a binary search finds the first
 * happening inside, so a frame costs O(log events) plus what it crosses.
 * Every cycle holds at least one happening, so the walk is bounded by cap
 * plus three cycles. */
#include <math.h>

#include "animd/events.h"

/* u of the j-th happening (increasing in j) of cycle c; *index gets its
 * event. false when it is none: an event at a pingpong turn is counted on
 * the forward leg only (its u is still given, so u stays monotonic). */
static bool happening(const anim_clip_t *clip, anim_wrap wrap, double c,
                      uint32_t j, double *u, uint32_t *index) {
  const uint32_t n = clip->event_count;
  const double d = clip->duration;
  if (wrap == ANIM_WRAP_PINGPONG && j >= n) {
    uint32_t i = 2 * n - 1 - j;
    float e = clip->events[i].t;
    *u = c * 2.0 * d + 2.0 * d - (double)e;
    *index = i;
    return e > 0.f && e < clip->duration;
  }
  double period = wrap == ANIM_WRAP_PINGPONG ? 2.0 * d : d;
  *u = (wrap == ANIM_WRAP_CLAMP ? 0.0 : c * period) + (double)clip->events[j].t;
  *index = j;
  return true;
}

/* The first j of cycle c (of m) whose u is above x (at or above x when
 * !strict): m when none. Binary search, u being monotonic in j. */
static uint32_t first_above(const anim_clip_t *clip, anim_wrap wrap, double c,
                            uint32_t m, double x, bool strict) {
  uint32_t lo = 0, hi = m, index;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    double u;
    happening(clip, wrap, c, mid, &u, &index);
    if (strict ? u > x : u >= x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

uint32_t anim_events_crossed(const anim_clip_t *clip,
                             const anim_event_span_t *span, uint32_t *out,
                             uint32_t cap) {
  if (clip == NULL || span == NULL || out == NULL || cap == 0 ||
      clip->event_count == 0 || !isfinite(span->to))
    return 0;
  const uint32_t n = clip->event_count;
  uint32_t count = 0;
  if (span->start) {
    float t = anim_wrap_time(span->to, clip->duration, span->wrap);
    for (uint32_t i = 0; i < n && count < cap; i++)
      if (clip->events[i].t == t) out[count++] = i;
    return count;
  }
  const double from = span->from, to = span->to, d = clip->duration;
  if (!isfinite(from) || from == to || !(d > 0.0)) return 0;
  anim_wrap wrap = span->wrap;
  if (wrap != ANIM_WRAP_LOOP && wrap != ANIM_WRAP_PINGPONG)
    wrap = ANIM_WRAP_CLAMP;
  const bool forward = to > from;
  const double lo = forward ? from : to, hi = forward ? to : from;
  const double period = wrap == ANIM_WRAP_PINGPONG ? 2.0 * d : d;
  const uint32_t m = wrap == ANIM_WRAP_PINGPONG ? 2 * n : n;
  double first = 0, last = 0; /* Cycles whose happenings may lie inside. */
  if (wrap != ANIM_WRAP_CLAMP) {
    first = floor(lo / period) - 1.0;
    last = floor(hi / period);
  }
  for (double k = 0; k <= last - first && count < cap; k += 1.0) {
    double c = forward ? first + k : last - k;
    /* Forward: j from the first u > from while u <= to; backward: j down
     * from the last u < from while u >= to. */
    uint32_t j0 = first_above(clip, wrap, c, m, from, forward);
    for (uint32_t step = 0; count < cap; step++) {
      if (forward ? j0 + step >= m : step >= j0) break;
      uint32_t j = forward ? j0 + step : j0 - 1 - step, index;
      double u;
      bool real = happening(clip, wrap, c, j, &u, &index);
      if (forward ? u > to : u < to) break;
      if (real) out[count++] = index;
    }
  }
  return count;
}
