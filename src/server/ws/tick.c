/* server/ws: WebSocket pose streaming, tick and pacing: the streams' min-heap
 * of due times, the one timer that wakes for the earliest, and a tick serving
 * every stream due in its window (stream_internal.h).
 *
 * Key design choice: one timer per loop, not one per stream. Streams sit
 * in a min-heap keyed by the due time of their next frame; the timer is a
 * deadline (deadline.h) armed to the nanosecond for the earliest, so a
 * wake is never early and, on Linux, late only by the kernel's slack. A
 * tick pops every stream due within a short window, sends its latest due
 * frame (frames it is too late for are skipped and counted, never sent
 * as a burst) and pushes it back with its next due time. Due times come
 * from the stream's clock (pace.h), never from the previous tick, so
 * they do not drift. */
#include <stdlib.h>

#include "server/ws/stream_internal.h"

/* ---- heap ---------------------------------------------------------------- */

static void heap_set(srv_ws_hub_t *h, unsigned i, stream_t *s) {
  h->heap[i] = s;
  s->heap_pos = (int)i;
}

static void heap_up(srv_ws_hub_t *h, unsigned i) {
  stream_t *s = h->heap[i];
  while (i > 0) {
    unsigned p = (i - 1) / 2;
    if (h->heap[p]->due <= s->due) break;
    heap_set(h, i, h->heap[p]);
    i = p;
  }
  heap_set(h, i, s);
}

static void heap_down(srv_ws_hub_t *h, unsigned i) {
  stream_t *s = h->heap[i];
  for (;;) {
    unsigned l = 2 * i + 1, m = i;
    stream_t *best = s;
    if (l < h->heap_len && h->heap[l]->due < best->due) best = h->heap[m = l];
    if (l + 1 < h->heap_len && h->heap[l + 1]->due < best->due)
      best = h->heap[m = l + 1];
    if (m == i) break;
    heap_set(h, i, best);
    i = m;
  }
  heap_set(h, i, s);
}

int ws__heap_push(srv_ws_hub_t *h, stream_t *s) {
  if (h->heap_len == h->heap_cap) {
    unsigned cap = h->heap_cap ? 2 * h->heap_cap : 64;
    stream_t **p = realloc(h->heap, cap * sizeof *p);
    if (p == NULL) return UV_ENOMEM;
    h->heap = p;
    h->heap_cap = cap;
  }
  h->heap[h->heap_len++] = s;
  heap_up(h, h->heap_len - 1);
  return 0;
}

void ws__heap_remove(srv_ws_hub_t *h, stream_t *s) {
  if (s->heap_pos < 0) return;
  unsigned i = (unsigned)s->heap_pos;
  s->heap_pos = -1;
  h->heap_len--;
  if (i == h->heap_len) return;
  heap_set(h, i, h->heap[h->heap_len]);
  heap_down(h, i);
  heap_up(h, (unsigned)h->heap[i]->heap_pos);
}

static void on_tick(srv_deadline_t *timer);

void ws__arm(srv_ws_hub_t *h) {
  if (h->freeing) return;
  if (h->heap_len == 0)
    srv_deadline_stop(&h->tick);
  else
    srv_deadline_start(&h->tick, h->heap[0]->due, on_tick);
}

static void count_lateness(srv_ws_hub_t *h, uint64_t due, uint64_t now) {
  double late = now > due ? (double)(now - due) / 1e9 : 0;
  unsigned b = 0;
  while (b < SRV_WS_LATE_BUCKETS && late > srv_ws_late_bounds[b]) b++;
  h->stats.late[b]++;
  h->stats.late_sum += late;
}

/* The transport's one write of a client's data frames (a write per
 * buffer when it has no writev). */

void ws__send_frame(stream_t *s, int64_t n, bool in_tick) {
  srv_ws_client_t *c = s->client;
  srv_ws_hub_t *h = c->hub;
  if (srv_ws_session_closing(&c->session)) return;
  ws__send_events(s, n); /* Before the frame, even one dropped here. */
  if (ws__client_queued(c) > h->lim.high_water) {
    s->dropped++;
    c->dropped++;
    h->stats.frames_dropped++;
    return;
  }
  float t = ws__sampled_time(s, srv_ws_clock_time(&s->clock, n));
  int r;
  if (in_tick) {
    r = ws__queue_frame(h, s, n, t);
  } else if ((r = ws__build_frame(h, s, s->index, n, t)) == 0) {
    ws__flush_frames(c, false);
    srv_ws_session_send(&c->session,
                        s->format == SRV_WS_FORMAT_BIN ? WSLAY_BINARY_FRAME
                                                       : WSLAY_TEXT_FRAME,
                        h->out.data, h->out.len);
    ws__check_done(c);
  }
  if (r != 0) {
    s->dropped++;
    h->stats.frames_dropped++;
    return;
  }
  if (in_tick) {
    uint64_t due = srv_ws_clock_due(&s->clock, n);
    if (!c->dirty) {
      /* Written once at the end of the tick, with the frames of the
       * client's other streams due in the same tick. The client stays
       * entered until then, so it cannot be freed meanwhile. */
      c->dirty = true;
      c->dirty_due = due;
      c->dirty_next = h->dirty;
      h->dirty = c;
      ws__enter(c);
    } else if (due < c->dirty_due) {
      c->dirty_due = due;
    }
  }
  s->frames++;
  c->sent++;
  h->stats.frames_sent++;
}

/* One stream's turn in a tick that serves what is due by horizon. */
static void stream_tick(stream_t *s, uint64_t horizon) {
  srv_ws_tick_t t = srv_ws_clock_tick(&s->clock, s->next, horizon);
  if (t.frame >= 0) {
    s->skipped += (uint64_t)t.skipped;
    s->client->skipped += (uint64_t)t.skipped;
    s->client->hub->stats.frames_skipped += (uint64_t)t.skipped;
    ws__send_frame(s, t.frame, true);
    s->next = t.frame + 1;
    /* A frame too heavy for the loop (skinning, most of all) is computed
     * on the pool while this one travels. */
    if (s->heavy) {
      float next = ws__sampled_time(s, srv_ws_clock_time(&s->clock, s->next));
      for (uint32_t k = 0; k < (s->meshes ? s->mesh_count : 1); k++) {
        srv_ws_eval_key_t key =
            ws__stream_key(s, next, s->meshes ? s->meshes[k] : s->mesh);
        srv_ws_eval_prefetch(s->client->hub->eval, &key);
      }
    }
  }
  s->due = srv_ws_clock_due(&s->clock, s->next);
}

/* How long one tick may keep serving streams that come due while it
 * runs before it returns to the loop (reads and control messages wait
 * meanwhile). */
#define TICK_BUDGET_NS 1000000
/* A tick also serves the streams falling due this soon after it: their
 * frames ws__leave up to this much early, and in exchange streams due within
 * a fraction of a millisecond (a client's several streams, most of all)
 * share one wake-up and one write. Far below the shortest frame period
 * (1 / SRV_WS_FPS_MAX, 4.2 ms), so a window never holds two frames of one
 * stream. */
#define TICK_WINDOW_NS 250000

static void on_tick(srv_deadline_t *timer) {
  srv_ws_hub_t *h = timer->data;
  uint64_t start = uv_hrtime(), now = start;
  /* In batches: the streams due by now (and the window), then one write
   * per client for its frames of the batch, then the streams that came
   * due meanwhile, which saves a timer wake-up per stream when the loop
   * is busy. Each stream is popped at most once per batch: its next due
   * time is later than the batch's horizon. */
  for (;;) {
    uint64_t horizon = now + TICK_WINDOW_NS;
    while (h->heap_len > 0 && h->heap[0]->due <= horizon) {
      stream_t *s = h->heap[0];
      srv_ws_client_t *c = s->client;
      ws__enter(c);
      stream_tick(s, horizon);
      if (s->heap_pos == 0) heap_down(h, 0);
      ws__leave(c);
    }
    /* One write per client, most of them handed to the kernel together
     * in the send batch; a client is done with once its write is out. */
    srv_ws_client_t *written = NULL, *batched = NULL;
    while (h->dirty != NULL) {
      srv_ws_client_t *c = h->dirty;
      h->dirty = c->dirty_next;
      c->dirty = false;
      if (ws__flush_frames(c, true)) {
        c->dirty_next = batched;
        batched = c;
      } else {
        c->dirty_next = written;
        written = c;
      }
    }
    if (batched != NULL) {
      unsigned n = srv_send_batch_pending(h->batch);
      srv_send_batch_run(h->batch);
      h->stats.batched_writes += n;
      if (srv_send_batch_uses_io_uring(h->batch)) h->stats.io_uring_writes += n;
    }
    for (int list = 0; list < 2; list++) {
      srv_ws_client_t *c = list == 0 ? written : batched;
      while (c != NULL) {
        srv_ws_client_t *next = c->dirty_next;
        count_lateness(h, c->dirty_due, uv_hrtime());
        ws__check_done(c);
        ws__leave(c);
        c = next;
      }
    }
    now = uv_hrtime();
    if (h->heap_len == 0 || h->heap[0]->due > now + TICK_WINDOW_NS ||
        now - start >= TICK_BUDGET_NS)
      break;
  }
  ws__arm(h);
}
