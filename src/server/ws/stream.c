/* server/ws: WebSocket pose streaming, its session state: the hub and
 * its clients (created, fed, closed at a safe point, freed), and the
 * streams they own. stream_internal.h lists the files that serve them. */
#include "server/ws/stream.h"

#include <stdlib.h>
#include <string.h>

#include "server/ws/stream_internal.h"

#include "formats/release_memory.h"

void srv_ws_limits_defaults(srv_ws_limits_t *lim) {
  lim->high_water = 256 * 1024;
  lim->max_message = 64 * 1024;
  lim->max_streams = 64;
  lim->ping_interval_ms = 15000;
  lim->inline_cost = 2000;
  lim->max_answer_bytes = (size_t)64 << 20;
  lim->ping_timeout_ms = 45000;
  lim->close_timeout_ms = 2000;
  lim->frame_cache_bytes = 64u << 20;
  lim->io_uring = true;
  lim->backend = NULL;
}

/* ---- client calls and deferred free -------------------------------------- */

static void client_release(srv_ws_client_t *c);

void ws__enter(srv_ws_client_t *c) { c->busy++; }

void ws__leave(srv_ws_client_t *c) {
  if (--c->busy == 0 && c->free_pending) client_release(c);
}

void ws__transport_close(srv_ws_client_t *c) {
  if (c->transport_closed) return;
  c->transport_closed = true;
  c->t.close(c->tctx);
}

/* After any session call: end the transport once the session is over. */
void ws__check_done(srv_ws_client_t *c) {
  if (srv_ws_session_done(&c->session)) ws__transport_close(c);
}

/* ---- streams ------------------------------------------------------------- */

stream_t *ws__find_stream(srv_ws_client_t *c, const char *id) {
  for (unsigned i = 0; i < c->stream_count; i++)
    if (strcmp(c->streams[i]->id, id) == 0) return c->streams[i];
  return NULL;
}

/* Releases what ws__resolve took into s (s itself stays). */
static void stream_release(stream_t *s) {
  store_asset_release(s->skeleton);
  store_asset_release(s->clip);
  for (uint32_t i = 0; i < s->blend_count; i++)
    store_asset_release(s->blend[i]);
  store_asset_release(s->mesh);
  if (s->meshes != NULL) store_list_free(s->meshes, s->mesh_count);
  free(s->skeleton_name);
  free(s->clip_name);
  free(s->mesh_name);
  free(s->mask);
  srv_fields_free(&s->fields);
  ws__delta_free(s);
}

void ws__stream_free(stream_t *s) {
  stream_release(s);
  free(s);
}

void ws__stream_remove(srv_ws_client_t *c, stream_t *s) {
  ws__heap_remove(c->hub, s);
  for (unsigned i = 0; i < c->stream_count; i++) {
    if (c->streams[i] == s) {
      c->streams[i] = c->streams[--c->stream_count];
      break;
    }
  }
  c->hub->stats.streams--;
  ws__stream_free(s);
}

static void stop_all_streams(srv_ws_client_t *c) {
  /* Frames not yet written go with their streams. */
  srv_ws_frame_queue_clear(&c->frames);
  while (c->stream_count > 0) ws__stream_remove(c, c->streams[0]);
}

/* The binary layout of the stream's frames (header offset 4), numbered
 * and named as in formats/vocab.h. */

/* ---- session I/O --------------------------------------------------------- */

static void on_pong(void *user) {
  srv_ws_client_t *c = user;
  c->ping_out = false;
}

static int on_write(void *user, const uint8_t *data, size_t len) {
  srv_ws_client_t *c = user;
  if (c->transport_closed) return UV_EPIPE;
  return c->t.write(c->tctx, data, len);
}

static const srv_ws_session_io_t session_io = {ws__on_message, on_pong,
                                               on_write};

srv_ws_client_t *srv_ws_client_new(srv_ws_hub_t *hub,
                                   const srv_ws_transport_t *t, void *ctx) {
  srv_ws_client_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->hub = hub;
  srv_ws_frame_queue_init(&c->frames);
  c->t = *t;
  c->tctx = ctx;
  if (srv_ws_session_init(&c->session, &session_io, c, hub->lim.max_message) !=
      0) {
    free(c);
    return NULL;
  }
  c->last_rx_ns = uv_hrtime();
  c->next = hub->clients;
  if (hub->clients != NULL) hub->clients->prev = c;
  hub->clients = c;
  hub->stats.clients++;
  return c;
}

void srv_ws_client_summary(const srv_ws_client_t *c,
                           srv_ws_client_summary_t *out) {
  out->frames_sent = c->sent;
  out->frames_skipped = c->skipped;
  out->frames_dropped = c->dropped;
  out->messages = c->messages;
  out->close_sent = srv_ws_session_close_code_sent(&c->session);
  out->close_received = srv_ws_session_close_code_received(&c->session);
}

void srv_ws_client_feed(srv_ws_client_t *c, const void *data, size_t len) {
  ws__enter(c);
  c->last_rx_ns = uv_hrtime();
  c->ping_out = false;
  /* What the client's messages make us queue (answers, and the pongs
   * wslay queues for its pings) counts against the unread rule too:
   * checked before its bytes are read and after. */
  if (srv_ws_session_closing(&c->session) || !ws__over_unread(c)) {
    srv_ws_session_feed(&c->session, data, len);
    if (!srv_ws_session_closing(&c->session)) ws__over_unread(c);
  }
  if (srv_ws_session_closing(&c->session)) {
    stop_all_streams(c);
    if (c->close_ns == 0) c->close_ns = uv_hrtime();
  }
  ws__check_done(c);
  ws__leave(c);
}

void srv_ws_client_eof(srv_ws_client_t *c) {
  ws__enter(c);
  stop_all_streams(c);
  ws__transport_close(c);
  ws__leave(c);
}

static void client_release(srv_ws_client_t *c) {
  srv_ws_hub_t *h = c->hub;
  srv_ws_fetch_forget(h->fetch, c);
  stop_all_streams(c);
  /* A pose on the pool frees itself when it comes back. */
  if (c->posing != NULL) c->posing->s.client = NULL;
  srv_ws_held_clear(&c->held);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    h->clients = c->next;
  if (c->next != NULL) c->next->prev = c->prev;
  h->stats.clients--;
  srv_ws_frame_queue_free(&c->frames);
  srv_ws_session_free(&c->session);
  free(c->streams);
  free(c);
}

void srv_ws_client_free(srv_ws_client_t *c) {
  c->transport_closed = true;
  if (c->busy > 0) {
    c->free_pending = true;
    return;
  }
  client_release(c);
}

void ws__client_close(srv_ws_client_t *c, uint16_t code, const char *reason) {
  ws__enter(c);
  stop_all_streams(c);
  srv_ws_session_close(&c->session, code, reason);
  if (c->close_ns == 0) c->close_ns = uv_hrtime();
  ws__check_done(c);
  ws__leave(c);
}

/* ---- hub ----------------------------------------------------------------- */

/* The message buffer is kept between messages up to this capacity. */
#define OUT_KEEP ((size_t)1 << 20)

static void release_work(srv_job_t *job) {
  (void)job;
  fmt_release_memory(FMT_RELEASE_THRESHOLD);
}

static void release_done(srv_job_t *job, int status) {
  (void)status;
  free(job);
}

/* glibc keeps what the loop freed in the loop thread's arena: after
 * large frees, give it back to the system, on a worker (trimming walks
 * every arena). The job is its own: it may come back after the hub. */
static void release_memory(srv_ws_hub_t *h, size_t freed) {
  if (freed < FMT_RELEASE_THRESHOLD) return;
  if (h->pool == NULL || h->inbox == NULL) {
    fmt_release_memory(freed);
    return;
  }
  srv_job_t *job = calloc(1, sizeof *job);
  if (job == NULL) return;
  job->work = release_work;
  job->done = release_done;
  if (srv_pool_submit_to(h->pool, job, h->inbox) != 0) free(job);
}

/* Once a second: keep-alive pings, dead peers, unanswered closes. */
static void on_sweep(uv_timer_t *timer) {
  srv_ws_hub_t *h = timer->data;
  uint64_t now = uv_hrtime();
  /* Frames no stream has asked for lately: their buffers and assets go,
   * and so does a large message buffer (a big mesh's answer). */
  size_t freed = srv_ws_eval_trim(h->eval, 2000000000ull);
  if (h->out.cap > OUT_KEEP) {
    freed += h->out.cap;
    fmt_buf_free(&h->out);
  }
  release_memory(h, freed);
  srv_ws_client_t *c = h->clients;
  while (c != NULL) {
    srv_ws_client_t *next = c->next;
    ws__enter(c);
    uint64_t idle_ms = (now - c->last_rx_ns) / 1000000;
    if (c->close_ns != 0) {
      if ((now - c->close_ns) / 1000000 >= h->lim.close_timeout_ms)
        ws__transport_close(c);
    } else if (idle_ms >= h->lim.ping_timeout_ms) {
      ws__client_close(c, 1001, "ping timeout");
      ws__transport_close(c);
    } else if (idle_ms >= h->lim.ping_interval_ms && !c->ping_out) {
      c->ping_out = true;
      srv_ws_session_ping(&c->session);
      ws__check_done(c);
    }
    ws__leave(c);
    c = next;
  }
}

srv_ws_hub_t *srv_ws_hub_new(uv_loop_t *loop, store_t *store, srv_pool_t *pool,
                             srv_pool_inbox_t *inbox,
                             const srv_ws_limits_t *lim) {
  srv_ws_hub_t *h = calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  h->store = store;
  if (lim != NULL)
    h->lim = *lim;
  else
    srv_ws_limits_defaults(&h->lim);
  h->pool = pool;
  h->inbox = inbox;
  h->eval = srv_ws_eval_new(64, h->lim.frame_cache_bytes, pool, inbox);
  if (h->eval == NULL) {
    free(h);
    return NULL;
  }
  if (h->lim.backend != NULL && pool != NULL && inbox != NULL) {
    h->fetch = srv_ws_fetch_new(h->lim.backend, pool, inbox, ws__on_fetched);
    if (h->fetch == NULL) {
      srv_ws_eval_free(h->eval);
      free(h);
      return NULL;
    }
  }
  fmt_buf_init(&h->out);
  h->batch = srv_send_batch_new(h->lim.io_uring);
  if (srv_deadline_init(loop, &h->tick) != 0) {
    srv_send_batch_free(h->batch);
    srv_ws_eval_free(h->eval);
    free(h);
    return NULL;
  }
  uv_timer_init(loop, &h->sweep);
  h->tick.data = h->sweep.data = h;
  h->open_handles = 2;
  uv_timer_start(&h->sweep, on_sweep, 1000, 1000);
  /* Housekeeping timers must not keep the loop alive on their own. */
  uv_unref((uv_handle_t *)&h->sweep);
  return h;
}

void srv_ws_client_set_credential(srv_ws_client_t *c,
                                  const srv_ws_credential_t *cred) {
  if (cred != NULL) c->credential = *cred;
}

unsigned srv_ws_hub_revoke(srv_ws_hub_t *h, srv_ws_credential_valid_cb valid,
                           void *arg) {
  unsigned n = 0;
  srv_ws_client_t *c = h->clients;
  while (c != NULL) {
    srv_ws_client_t *next = c->next;
    if (c->credential.set && !c->transport_closed &&
        !valid(arg, c->credential.hash)) {
      ws__enter(c);
      ws__client_close(c, 1008, "the token was revoked");
      ws__transport_close(c);
      ws__leave(c);
      n++;
    }
    c = next;
  }
  return n;
}

void srv_ws_hub_shutdown(srv_ws_hub_t *h, uint16_t code, const char *reason) {
  srv_ws_client_t *c = h->clients;
  while (c != NULL) {
    srv_ws_client_t *next = c->next;
    ws__enter(c);
    ws__client_close(c, code, reason);
    ws__transport_close(c);
    ws__leave(c);
    c = next;
  }
}

static void hub_handle_closed(srv_ws_hub_t *h) {
  if (--h->open_handles > 0) return;
  srv_ws_eval_free(h->eval);
  fmt_buf_free(&h->out);
  free(h->heap);
  free(h);
}

static void on_hub_handle_closed(uv_handle_t *handle) {
  hub_handle_closed(handle->data);
}

static void on_tick_closed(srv_deadline_t *d) { hub_handle_closed(d->data); }

void srv_ws_hub_free(srv_ws_hub_t *h) {
  if (h == NULL || h->freeing) return;
  h->freeing = true;
  while (h->clients != NULL) {
    srv_ws_client_t *c = h->clients;
    ws__transport_close(c);
    if (h->clients == c) client_release(c);
  }
  srv_ws_eval_clear(h->eval);
  srv_ws_fetch_free(h->fetch);
  h->fetch = NULL;
  srv_send_batch_free(h->batch);
  h->batch = NULL;
  srv_deadline_close(&h->tick, on_tick_closed);
  uv_close((uv_handle_t *)&h->sweep, on_hub_handle_closed);
}

void srv_ws_hub_stats_add(srv_ws_hub_stats_t *a, const srv_ws_hub_stats_t *b) {
  a->clients += b->clients;
  a->streams += b->streams;
  a->frames_sent += b->frames_sent;
  a->frames_dropped += b->frames_dropped;
  a->frames_skipped += b->frames_skipped;
  a->evaluations += b->evaluations;
  a->cache_hits += b->cache_hits;
  a->prefetched += b->prefetched;
  a->messages_in += b->messages_in;
  a->errors += b->errors;
  a->batched_writes += b->batched_writes;
  a->io_uring_writes += b->io_uring_writes;
  for (unsigned i = 0; i <= SRV_WS_LATE_BUCKETS; i++) a->late[i] += b->late[i];
  a->late_sum += b->late_sum;
}

void srv_ws_hub_stats(const srv_ws_hub_t *h, srv_ws_hub_stats_t *out) {
  *out = h->stats;
  srv_ws_eval_stats_t es;
  srv_ws_eval_stats(h->eval, &es);
  out->evaluations = es.evaluations;
  out->cache_hits = es.hits;
  out->prefetched = es.prefetched;
}
