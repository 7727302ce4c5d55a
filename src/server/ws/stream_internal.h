/* server/ws: what the files of WebSocket streaming share, private to
 * ws/: a stream, a client and the hub, and the calls between the files
 * that serve them:
 *   stream.c    the session state: the hub and its clients (created, fed,
 *               closed, freed), a client's streams, limits and statistics;
 *   commands.c  the control messages (play, pause, resume, seek, stop,
 *               set, pose, stats), their assets resolved through the
 *               API's one lookup and fetched from a shared store on a miss;
 *   tick.c      tick and pacing: the streams' min-heap of due times and
 *               the one timer that serves every stream due in its window;
 *   frames.c    frame production: a stream's frame as the frame cache's
 *               key, its binary header, its JSON message;
 *   send.c      what goes to a client: answers, errors and the tick's
 *               data frames, written together, dropped under backpressure;
 *   events.c    the clip events a frame crosses, sent before it;
 *   delta.c     delta frames: a stream's chain of the frames it sent,
 *               their bytes shared between streams of equal chains.
 * Loop thread only, but for the frames frames.c builds on the pool. */
#ifndef ANIMD_SERVER_WS_STREAM_INTERNAL_H
#define ANIMD_SERVER_WS_STREAM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/vocab.h"
#include "server/net/deadline.h"
#include "server/request/fields.h"
#include "server/schedule.h"
#include "server/ws/fetch.h"
#include "server/ws/frame_cache.h"
#include "server/ws/frame_queue.h"
#include "server/ws/oneshot.h"
#include "server/ws/pace.h"
#include "server/ws/proto.h"
#include "server/ws/session.h"
#include "server/ws/stream.h"

#define WS_BIN_HEADER 32 /* Bytes before the floats of a binary frame. */
/* Set in a binary frame header's layout word when the request fields'
 * answer (request/fields.h) follows the payload as float32s. */
#define WS_BIN_ANSWER 0x80000000u
#define WS_ONE_SHOT UINT32_MAX

typedef struct ws_delta_s ws_delta_t;
typedef struct ws_delta_parents_s ws_delta_parents_t;

typedef struct stream_s {
  srv_ws_client_t *client;
  char id[SRV_WS_ID_MAX + 1];
  uint32_t index;      /* Stream index in binary headers. */
  char *skeleton_name; /* As the client named them (JSON answers). */
  char *clip_name;
  char *mesh_name;
  store_asset_t *skeleton, *clip, *mesh; /* Retained. */
  /* A stream of a blend space (its fields give one; clip is then NULL):
   * the clips it names, in its order, retained. */
  store_asset_t *blend[ANIM_BLEND_SPACE_MAX];
  uint32_t blend_count;
  /* A stream of several meshes (play's "mesh" array or "mesh_all"):
   * mesh_count of them, retained, each frame carrying them all; mesh is
   * then the first (retained once more). NULL and 0 otherwise. */
  store_asset_t **meshes;
  uint32_t mesh_count;
  uint32_t *mask; /* Caller-order joints to send, or NULL. */
  uint32_t mask_count;
  srv_ws_clock_t clock;
  int64_t next; /* Next frame number to send. */
  uint64_t due; /* Due time of next (heap key). */
  int heap_pos; /* -1 when not scheduled (paused). */
  bool paused;
  double paused_t; /* Clip time to resume from. */
  int wrap, space, method;
  bool normals;
  srv_ws_format format;
  fmt_encoding encoding; /* q16, delta: binary mesh frames only. */
  /* encoding delta (delta.c): the frames sent, NULL until the first;
   * key frames on a grid of key_every frames. */
  ws_delta_t *delta;
  uint32_t key_every;
  srv_fields_t fields; /* The table's fields (request/fields.h). */
  uint64_t frames, skipped, dropped;
  float pose_t; /* A one-shot pose's sampled time. */
  /* Its frames are too heavy for the loop (schedule.h's rule): each is
   * computed on the pool ahead of its due time. Set with its assets. */
  bool heavy;
  /* Clip events (events.c): the time before wrapping of the last frame
   * that went through them, and what the next frame does. */
  double events_u;
  enum {
    WS_EVENTS_START = 0, /* A play's first frame: events at its time. */
    WS_EVENTS_SEEK,      /* A seek's frame: crosses nothing. */
    WS_EVENTS_RUN,       /* Crosses what lies since events_u. */
  } events_next;
} stream_t;

struct srv_ws_client_s {
  srv_ws_hub_t *hub;
  srv_ws_client_t *prev, *next;
  srv_ws_transport_t t;
  void *tctx;
  srv_ws_session_t session;
  srv_ws_frame_queue_t frames; /* Data frames of this tick, unwritten. */
  stream_t **streams;
  unsigned stream_count;
  uint32_t next_index;
  uint64_t last_rx_ns;
  uint64_t close_ns; /* When the close handshake started, or 0. */
  bool ping_out;
  bool transport_closed;       /* transport.close was called. */
  int busy;                    /* Calls of this client on the stack. */
  srv_ws_client_t *dirty_next; /* In the tick's list of unflushed clients. */
  bool dirty;
  uint64_t dirty_due; /* Earliest due time of the frames queued. */
  bool free_pending;
  struct pose_wait_s *posing; /* A pose skinned on the pool, or NULL. */
  srv_ws_held_t held;         /* Messages that came meanwhile (oneshot.h). */
  uint64_t sent, dropped;
  uint64_t skipped, messages;     /* Over the session, all streams. */
  srv_ws_credential_t credential; /* What it was admitted with. */
};

struct srv_ws_hub_s {
  store_t *store;
  srv_ws_limits_t lim;
  srv_deadline_t tick;
  uv_timer_t sweep;
  int open_handles;
  bool freeing;
  stream_t **heap;
  unsigned heap_len, heap_cap;
  srv_ws_client_t *clients;
  srv_ws_client_t *dirty;  /* Clients with frames queued in this tick. */
  srv_send_batch_t *batch; /* Their writes, sent together (NULL: no memory,
                            * each client writes on its own). */
  srv_ws_eval_t *eval;
  srv_ws_fetch_t *fetch;   /* NULL without a shared store. */
  srv_pool_t *pool;        /* Gives freed memory back (may be NULL). */
  srv_pool_inbox_t *inbox; /* The loop's, for the pool's jobs. */
  /* The command being run (its text), how many fetches led to this run,
   * and how the last one went. */
  const char *message;
  size_t message_len;
  unsigned fetches;
  srv_backend_status fetched;
  fmt_buf_t out; /* The message being built. */
  srv_ws_hub_stats_t stats;
  /* Delta frames (delta.c): the parents of each mesh streamed, shared by
   * its chains, and the last serial given to parents. */
  ws_delta_parents_t *delta_parents;
  uint64_t delta_serials;
};

/* A one-shot pose with a mesh: skinned, and its answer built, on the pool
 * (the frame cache's prefetch), then sent from the loop. */
typedef struct pose_wait_s {
  stream_t s; /* First: its assets and names. */
  fmt_buf_t msg;
  int built; /* frame_message's result on the worker. */
} pose_wait_t;

/* Answers to control messages are never dropped, so a client that sends
 * messages without reading the answers is cut off (1008) once its unsent
 * data passes WS_UNREAD_FACTOR high-water marks. */
#define WS_UNREAD_FACTOR 16

/* ---- stream.c: session state */

void ws__enter(srv_ws_client_t *c);
void ws__leave(srv_ws_client_t *c);
void ws__transport_close(srv_ws_client_t *c);
void ws__check_done(srv_ws_client_t *c);
stream_t *ws__find_stream(srv_ws_client_t *c, const char *id);
void ws__stream_free(stream_t *s);
void ws__stream_remove(srv_ws_client_t *c, stream_t *s);
void ws__client_close(srv_ws_client_t *c, uint16_t code, const char *reason);

/* ---- commands.c: control messages */

int ws__resolve(srv_ws_client_t *c, const srv_ws_cmd_t *cmd, stream_t *s);
void ws__on_fetched(void *client, const char *message, size_t len,
                    unsigned fetches, srv_backend_status status);
void ws__on_message(void *user, uint8_t opcode, const uint8_t *data,
                    size_t len);

/* ---- tick.c: tick and pacing */

int ws__heap_push(srv_ws_hub_t *h, stream_t *s);
void ws__heap_remove(srv_ws_hub_t *h, stream_t *s);
void ws__arm(srv_ws_hub_t *h);
void ws__send_frame(stream_t *s, int64_t n, bool in_tick);

/* ---- frames.c: frame production */

fmt_layout ws__stream_layout(const stream_t *s);
bool ws__encoding_fits(srv_ws_client_t *c, const char *id,
                       const store_asset_t *mesh, bool several, bool one_shot,
                       srv_ws_format format, fmt_encoding encoding);
double ws__stream_duration(const stream_t *s);
float ws__sampled_time(const stream_t *s, double t);
srv_ws_eval_key_t ws__stream_key(const stream_t *s, float t,
                                 store_asset_t *mesh);
void ws__bin_header(uint8_t out[WS_BIN_HEADER], uint32_t index,
                    fmt_layout layout, int64_t frame, float t,
                    const srv_ws_frame_data_t *fd);
int ws__frame_message(fmt_buf_t *b, const stream_t *s, uint32_t index,
                      int64_t frame, float t, const srv_ws_frame_data_t *pfd);
int ws__build_frame(srv_ws_hub_t *h, const stream_t *s, uint32_t index,
                    int64_t frame, float t);

/* ---- delta.c: delta frames */

/* Builds the delta frame n of s (clip time t) into hub->out and moves the
 * stream's chain on (the frame counts as sent). 0 or a negative errno. */
int ws__delta_frame(srv_ws_hub_t *h, const stream_t *s, int64_t n, float t);
/* As ws__delta_frame, queued to the stream's client (its payload shared
 * with the streams of the same chain). */
int ws__delta_queue(srv_ws_hub_t *h, const stream_t *s, int64_t n, float t);
/* The next frame is a key frame. */
void ws__delta_key(const stream_t *s);
void ws__delta_free(stream_t *s);

/* ---- events.c: clip events */

void ws__send_events(stream_t *s, int64_t n);

/* ---- send.c: answers, frames and backpressure */

size_t ws__client_queued(srv_ws_client_t *c);
bool ws__over_unread(srv_ws_client_t *c);
void ws__send_answer(srv_ws_client_t *c, uint8_t opcode, const void *data,
                     size_t len);
void ws__send_text(srv_ws_client_t *c, const fmt_buf_t *b);
void ws__send_error(srv_ws_client_t *c, const char *id, srv_error_code code,
                    const char *at, const char *message);
/* A typed error (server/errors.h), its hint included. */
void ws__send_err(srv_ws_client_t *c, const char *id, const srv_error_t *e);
void ws__send_cmd_error(srv_ws_client_t *c, const srv_ws_error_t *e);
fmt_buf_t *ws__ack_begin(srv_ws_client_t *c, const char *op, const char *id);
bool ws__flush_frames(srv_ws_client_t *c, bool may_batch);
int ws__queue_frame(srv_ws_hub_t *h, const stream_t *s, int64_t n, float t);

#endif
