/* server/ws: WebSocket pose streaming, clip events: before each frame of a
 * stream (sent, or dropped under backpressure), one message
 * {"type":"event","id":ID,"name":N,"t":T,"frame":F} per event the frame
 * crosses, in the order crossed (stream_internal.h).
 *
 * Key design choice: the crossing rule is the core's (animd/events.h),
 * the one the range answers use; a stream only keeps the time before
 * wrapping of the last frame that went through it. Frames skipped because
 * the loop was late, or dropped because the client reads slowly, still
 * move that time, so an event is sent exactly once, with the next frame
 * that goes out or would have; event messages are answers, never dropped
 * (the unread rule of send.c applies). A play's first frame sends the
 * events at its own time, a seek's frame none (a seek crosses nothing),
 * and a pause crosses nothing until the stream resumes from where it
 * stopped. */
#include "server/ws/stream_internal.h"

void ws__send_events(stream_t *s, int64_t n) {
  double u = srv_ws_clock_time(&s->clock, n);
  anim_event_span_t span = {.from = s->events_u,
                            .to = u,
                            .wrap = (anim_wrap)s->wrap,
                            .start = s->events_next == WS_EVENTS_START};
  bool seek = s->events_next == WS_EVENTS_SEEK;
  s->events_u = u;
  s->events_next = WS_EVENTS_RUN;
  const anim_clip_t *clip = s->clip != NULL ? s->clip->clip : NULL;
  if (seek || clip == NULL || clip->event_count == 0) return;
  uint32_t index[ANIM_EVENT_MAX];
  uint32_t count = anim_events_crossed(clip, &span, index, ANIM_EVENT_MAX);
  srv_ws_client_t *c = s->client;
  fmt_buf_t *b = &c->hub->out;
  for (uint32_t i = 0; i < count; i++) {
    const anim_event_t *e = &clip->events[index[i]];
    fmt_buf_reset(b);
    fmt_buf_puts(b, "{\"type\":\"event\"");
    if (s->id[0] != '\0') {
      fmt_buf_puts(b, ",\"id\":");
      fmt_buf_puts(b, s->id);
    }
    fmt_buf_puts(b, ",\"name\":");
    fmt_buf_json_string(b, e->name);
    fmt_buf_puts(b, ",\"t\":");
    fmt_buf_float(b, e->t);
    fmt_buf_puts(b, ",\"frame\":");
    fmt_buf_int(b, n);
    fmt_buf_putc(b, '}');
    ws__send_text(c, b);
  }
}
