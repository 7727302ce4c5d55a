/* server: WebSocket pose streaming: clients, their streams, and the one
 * scheduler that paces every stream of the loop.
 *
 * A hub (one per loop) owns a min-heap of streams ordered by the due time
 * of their next frame and one timer armed for the earliest; a tick sends
 * each due stream's latest due frame (skipping, and counting, the ones it
 * is too late for), evaluated through the shared frame cache
 * (ws/frame_cache.h). A client is one WebSocket connection: its session
 * (ws/session.h), its streams (client-chosen ids) and a transport that moves
 * bytes; the transport is abstract so the HTTP connection (conn.h) and tests
 * can both carry it. Frames are dropped, and counted, while the transport holds
 * more than high_water bytes: never unbounded buffering.
 *
 * Ownership: the transport's owner creates a client after the handshake
 * and calls srv_ws_client_free exactly once when the transport is gone;
 * the client asks for that through transport.close. Loop thread only. */
#ifndef ANIMD_SERVER_WS_STREAM_H
#define ANIMD_SERVER_WS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/backend.h"
#include "server/net/send_batch.h"
#include "server/pool.h"
#include "store/store.h"

typedef struct srv_ws_hub_s srv_ws_hub_t;
typedef struct srv_ws_client_s srv_ws_client_t;

typedef struct srv_ws_transport_s {
  /* Sends bytes (copied). Returns 0 or a negative errno. */
  int (*write)(void *ctx, const uint8_t *data, size_t len);
  /* Bytes accepted and not yet written out. */
  size_t (*queued)(void *ctx);
  /* Ends the transport once its queued bytes are out; its owner then
   * calls srv_ws_client_free (possibly from inside this call). */
  void (*close)(void *ctx);
  /* Sends nbufs buffers, in order, as one write (copied as needed).
   * Returns 0 or a negative errno. May be NULL: write is then called for
   * each buffer. */
  int (*writev)(void *ctx, const uv_buf_t *bufs, unsigned nbufs);
  /* writev through send batch b when the buffers can go straight to the
   * kernel: returns 1, the buffers stay valid and nothing else is
   * written until the batch runs, which calls done(status, arg) with
   * writev's return. Otherwise it is writev (0 or a negative errno; done
   * is not called). May be NULL: writev is used. */
  int (*writev_batched)(void *ctx, srv_send_batch_t *b, const uv_buf_t *bufs,
                        unsigned nbufs, void (*done)(int status, void *arg),
                        void *arg);
} srv_ws_transport_t;

typedef struct srv_ws_limits_s {
  size_t high_water;         /* Bytes queued before frames drop (256 KiB). */
  size_t max_message;        /* Largest client message (64 KiB). */
  unsigned max_streams;      /* Per connection (64). */
  uint64_t ping_interval_ms; /* Silence before a ping (15 s). */
  uint64_t ping_timeout_ms;  /* Silence before giving up (45 s). */
  uint64_t close_timeout_ms; /* Wait for the peer's close (2 s). */
  size_t frame_cache_bytes;  /* Shared frames kept per loop (64 MiB). */
  /* A tick's writes go to the kernel together through io_uring where it
   * allows (true); false: one system call per client. */
  bool io_uring;
  /* The shared store that assets not cached are fetched from (fetch.h;
   * NULL: none, they are not_found). Not owned. */
  const srv_backend_t *backend;
  /* Frames of this evaluation cost and above are computed on the pool
   * (server/schedule.h's srv_cost_inline; the daemon's inline_cost,
   * 2,000; 0: all of them). */
  unsigned inline_cost;
  /* Bytes a pose answer or one frame of a stream may take, judged when a
   * play or pose is resolved (request/answer_bound.h; 64 MiB; 0: no
   * limit). */
  size_t max_answer_bytes;
} srv_ws_limits_t;

/* Fills the defaults above. */
void srv_ws_limits_defaults(srv_ws_limits_t *lim);

/* Creates the hub of loop over store (not owned); pool (may be NULL)
 * computes skinned-mesh frames ahead of time, and inbox brings them back
 * when loop is not the pool's (NULL: it is). Returns NULL on ENOMEM. */
srv_ws_hub_t *srv_ws_hub_new(uv_loop_t *loop, store_t *store, srv_pool_t *pool,
                             srv_pool_inbox_t *inbox,
                             const srv_ws_limits_t *lim);
/* Closes every client with code (1001 on shutdown) and a reason: their
 * transports close once the close frame is written. */
void srv_ws_hub_shutdown(srv_ws_hub_t *hub, uint16_t code, const char *reason);
/* Closes the hub's timers and frees it once they are closed. Clients must
 * all be freed first. */
void srv_ws_hub_free(srv_ws_hub_t *hub);

/* Upper bounds (seconds) of the frame lateness histogram's buckets; a
 * last bucket counts the rest. */
#define SRV_WS_LATE_BUCKETS 8
extern const double srv_ws_late_bounds[SRV_WS_LATE_BUCKETS];

typedef struct srv_ws_hub_stats_s {
  uint64_t clients;         /* Open now. */
  uint64_t streams;         /* Playing or paused now. */
  uint64_t frames_sent;     /* Since start. */
  uint64_t frames_dropped;  /* Backpressure. */
  uint64_t frames_skipped;  /* Ticks too late for a frame. */
  uint64_t evaluations;     /* Frames computed. */
  uint64_t cache_hits;      /* Frames shared from the cache. */
  uint64_t prefetched;      /* Frames computed ahead on the worker pool. */
  uint64_t messages_in;     /* Control messages. */
  uint64_t errors;          /* Error messages sent. */
  uint64_t batched_writes;  /* Client writes of a tick sent together. */
  uint64_t io_uring_writes; /* Of those, through io_uring. */
  /* Frames by lateness when written to the socket (write time minus the
   * frame's due time): counts per bucket, not cumulative. */
  uint64_t late[SRV_WS_LATE_BUCKETS + 1];
  double late_sum; /* Seconds. */
} srv_ws_hub_stats_t;

void srv_ws_hub_stats(const srv_ws_hub_t *hub, srv_ws_hub_stats_t *out);
/* Adds b's counters and gauges to a's (hubs of several loops). */
void srv_ws_hub_stats_add(srv_ws_hub_stats_t *a, const srv_ws_hub_stats_t *b);

/* A client on transport t (ctx passed back). Returns NULL on ENOMEM. */
srv_ws_client_t *srv_ws_client_new(srv_ws_hub_t *hub,
                                   const srv_ws_transport_t *t, void *ctx);

/* What a client was admitted with, so that revoking it reaches the open
 * session: the hash of its bearer token when its stream needed one (set),
 * else nothing. */
#define SRV_WS_CREDENTIAL_LEN 32
typedef struct srv_ws_credential_s {
  bool set;
  uint8_t hash[SRV_WS_CREDENTIAL_LEN];
  unsigned epoch; /* Revocations before its admission (loops.h). */
} srv_ws_credential_t;

/* Whether a credential is still in force (arg passed back); called on the
 * hub's loop, so it must be thread-safe. */
typedef bool (*srv_ws_credential_valid_cb)(
    void *arg, const uint8_t hash[SRV_WS_CREDENTIAL_LEN]);

void srv_ws_client_set_credential(srv_ws_client_t *c,
                                  const srv_ws_credential_t *cred);

/* Closes with 1008 (policy violation, "the token was revoked") every client
 * whose credential valid no longer accepts. Returns how many. */
unsigned srv_ws_hub_revoke(srv_ws_hub_t *hub, srv_ws_credential_valid_cb valid,
                           void *arg);
/* What a client's session amounted to, for its access log line. */
typedef struct srv_ws_client_summary_s {
  uint64_t frames_sent, frames_skipped, frames_dropped;
  uint64_t messages;   /* Control messages received. */
  unsigned close_sent; /* Close codes (0: none). */
  unsigned close_received;
} srv_ws_client_summary_t;

void srv_ws_client_summary(const srv_ws_client_t *c,
                           srv_ws_client_summary_t *out);

/* Bytes from the peer. */
void srv_ws_client_feed(srv_ws_client_t *c, const void *data, size_t len);
/* The peer is gone (EOF or a read error): the transport is closed. */
void srv_ws_client_eof(srv_ws_client_t *c);
/* The transport is gone: stops the streams and frees the client (at once,
 * or when the client's own call on the stack returns). */
void srv_ws_client_free(srv_ws_client_t *c);

#endif
