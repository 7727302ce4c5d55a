/* animd core: which of a clip's events a playback crosses between two of
 * its frames; the one rule of range answers and WebSocket streams.
 *
 * A playback runs on a time u before wrapping (a stream's clock, a range's
 * from + i / fps); the clip time is u wrapped (anim_wrap_time). An event
 * at clip time e happens at every u where the playback passes e:
 *   clamp:    u = e (once);
 *   loop:     u = k d + e for every integer k (period d): an event at 0
 *             and one at d are two events, each once per loop, and at a
 *             loop point the one at d (ending loop k) comes before the one
 *             at 0 (starting loop k + 1);
 *   pingpong: u = 2 k d + e going forward and u = 2 k d + 2 d - e going
 *             back (period 2 d), so an event fires in both directions,
 *             but an event at a turning point (0 or d) once per turn.
 * A frame at u after a frame at u_prev crosses the happenings in
 * (u_prev, u] when u > u_prev, in increasing u, and those in [u, u_prev)
 * when u < u_prev (reverse play), in decreasing u; u = u_prev (a pause)
 * crosses nothing. The first frame of a playback crosses the events whose
 * time equals its wrapped clip time exactly. A clip of duration 0 has
 * every event at 0: its first frame crosses them all, later frames none.
 * Pure: no allocation, no state; the caller keeps u_prev (and, for a seek,
 * simply starts the span at the new time, so a seek crosses nothing).
 * Written after ozz-animation's TrackTriggeringJob, whose edges follow the
 * same unwrapped-time idea. */
#ifndef ANIMD_EVENTS_H
#define ANIMD_EVENTS_H

#include <stdbool.h>

#include "animd/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_event_span_s {
  double from; /* u of the previous frame (ignored when start). */
  double to;   /* u of this frame. */
  anim_wrap wrap;
  bool start; /* The first frame of a playback. */
} anim_event_span_t;

/* Writes the indices (into clip->events) of the events the frame crosses
 * to out, in the order crossed, and returns how many: at most cap (a span
 * crossing more keeps the first cap). 0 for a NULL clip or span, a
 * non-finite from or to, or cap 0. */
uint32_t anim_events_crossed(const anim_clip_t *clip,
                             const anim_event_span_t *span, uint32_t *out,
                             uint32_t cap);

#ifdef __cplusplus
}
#endif
#endif
