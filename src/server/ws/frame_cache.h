/* server: evaluation of stream frames, shared between subscribers.
 *
 * A frame's numbers depend only on (skeleton, clip, mesh, sampled clip
 * time, wrap, space, joint mask, normals, skinning method, a blend
 * space's clips, the request fields' canonical text), so a small
 * cache keyed by exactly those lets every subscriber of the same
 * animation at the same clip time reuse one evaluation: a thousand viewers
 * of one clip cost one evaluation per distinct frame time. Entries retain
 * their assets, so a key's pointers can never be reused by another asset
 * while the entry lives. The numbers come from the API's evaluation
 * pipeline (request/evaluate.h), as the HTTP pose and skin answers do, so
 * they are equal bit for bit. Skinned-mesh frames are computed one frame
 * ahead on the server's worker pool (srv_ws_eval_prefetch); an entry a
 * job is writing is never read or reused until the job is back. Loop thread
 * only (the jobs touch only their entry and the immutable assets; their results
 * come back to the cache's loop). Delta frames of a frame (encoding
 * "delta") are cached beside its q16 payload, keyed by what their bytes
 * depend on (srv_ws_delta_key_t), so streams in step share them. */
#ifndef ANIMD_SERVER_WS_EVAL_H
#define ANIMD_SERVER_WS_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/pool.h"
#include "server/request/fields.h"
#include "server/ws/blob.h"
#include "store/store.h"

typedef struct srv_ws_eval_key_s {
  store_asset_t *skeleton; /* Always set (a mesh's skeleton for meshes). */
  store_asset_t *clip;
  store_asset_t *mesh; /* NULL for poses. */
  float t;             /* Sampled clip time (after wrapping). */
  uint8_t wrap;        /* anim_wrap */
  uint8_t space;       /* fmt_space (poses). */
  uint8_t normals;     /* Meshes: also normals. */
  uint8_t method;      /* anim_skin_method (meshes). */
  /* Caller-order joint indices to send, in order, or NULL for all. */
  const uint32_t *mask;
  uint32_t mask_count;
  /* Meshes: also wanted in this encoding (fmt_encoding). Not part of the
   * key: the floats are the same, and the q16 bytes are made once per
   * entry, the first time a subscriber asks for them. */
  uint8_t encoding;
  /* A blend space's clips (its fields give the blend space), in its
   * order, each a layer at t with wrap; clip is then NULL. Borrowed by a
   * key being looked up; an entry holds its own references. */
  store_asset_t *const *clips;
  uint32_t clip_count;
  /* The request's table fields (request/fields.h): borrowed by a key
   * being looked up; an entry holds its own references. */
  srv_fields_t fields;
} srv_ws_eval_key_t;

/* One evaluated frame: count floats (in the HTTP binary layout), shared
 * read-only by the subscribers that asked for it. */
typedef struct srv_ws_frame_data_s {
  const float *floats;
  uint32_t count;
  uint32_t elements; /* Joints or vertices sent. */
  /* With key.encoding q16: the frame's q16 payload (formats/q16.h),
   * q16_words 32-bit words; else NULL and 0. */
  const uint8_t *q16;
  uint32_t q16_words;
  /* The frame's binary payload as shared bytes: the q16 payload, else
   * the floats in little-endian order; payload_len bytes at
   * payload->data. NULL on a host whose floats are not little-endian
   * (encode the floats then). Borrowed: a caller keeping it past the next
   * call takes a reference (blob.h); the bytes never change meanwhile. */
  srv_ws_blob_t *payload;
  size_t payload_len;
  /* The request fields' answer (request/fields.h): answer_count floats
   * (0: none), right after the floats; the payload then includes them,
   * but for q16 (payload NULL: the frame is built whole). */
  const float *answer;
  uint32_t answer_count;
  /* With q16: the buffer holding q16 (borrowed, as payload). */
  srv_ws_blob_t *q16_blob;
  /* The frame's number in this cache, never given to another frame
   * (the delta frames below name it). */
  uint64_t serial;
} srv_ws_frame_data_t;

typedef struct srv_ws_eval_s srv_ws_eval_t;

/* A cache of at most entries frames holding at most max_bytes of frame
 * buffers (beyond it, least recently used buffers are freed; one frame
 * larger than the budget is still made); pool (may be NULL) runs
 * prefetches,
 * which come back through inbox when the cache lives on a loop other than
 * the pool's (NULL: the pool's loop). Returns NULL on ENOMEM. */
srv_ws_eval_t *srv_ws_eval_new(unsigned entries, size_t max_bytes,
                               srv_pool_t *pool, srv_pool_inbox_t *inbox);
/* Frees the cache, or marks it to be freed when the last prefetch job
 * comes back from the pool. */
void srv_ws_eval_free(srv_ws_eval_t *e);

/* The frame for key, evaluated now or found in the cache. The data stays
 * valid until the next call. Returns 0, or a negative errno (UV_ENOMEM;
 * UV_EINVAL when a core job refused the inputs). */
int srv_ws_eval_get(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                    srv_ws_frame_data_t *out);

/* Starts computing the frame of key on the worker pool, so a later
 * srv_ws_eval_get finds it ready: heavy frames (skinned meshes) are
 * computed off the loop, one frame ahead of their due time. Returns 0
 * (submitted, or already cached), UV_ENOSYS without a pool, UV_EBUSY or
 * UV_EAGAIN when the cache or the pool is full (the frame will then be
 * computed when asked for). */
int srv_ws_eval_prefetch(srv_ws_eval_t *e, const srv_ws_eval_key_t *key);

/* The pipeline's job for key (its output still to be set); a blend
 * space's layers go to layers (key->clip_count of them). */
struct srv_eval_job_s srv_ws_eval_job(const srv_ws_eval_key_t *key,
                                      struct srv_eval_layer_s *layers);

/* The evaluation cost of key's frame (request/evaluate.h's
 * srv_eval_cost), for the scheduling rule of server/schedule.h. */
unsigned long srv_ws_eval_cost(const srv_ws_eval_key_t *key);

/* As srv_ws_eval_prefetch, for an answer that waits for its frame:
 * use(arg, frame) runs on the worker once the frame is made (the answer
 * is built there too), then ready(arg, result, used) on the cache's loop
 * (result 0, or a negative errno; used: whether use ran, which it does
 * not when the frame was already being made for a stream; the frame is
 * then found by srv_ws_eval_get until the loop runs anything else).
 * ready always runs once (also while the cache is being freed: then it
 * must touch nothing but arg). Returns 0 (ready will run), 1 when the
 * frame is cached already (nothing will run), or as srv_ws_eval_prefetch
 * (UV_EBUSY also when another answer waits for the same frame). */
typedef void (*srv_ws_eval_use_fn)(void *arg, const srv_ws_frame_data_t *fd);
typedef void (*srv_ws_eval_ready_fn)(void *arg, int result, bool used);
int srv_ws_eval_prefetch_then(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                              srv_ws_eval_use_fn use,
                              srv_ws_eval_ready_fn ready, void *arg);
/* What a delta frame of a frame (formats/q16_delta.h) depends on beyond
 * the frame: the serials of the frames its decoder holds, the last first
 * (0: none; a 0 a then means a key frame), the serial of its parents, and
 * its seq. Equal keys: equal bytes. */
typedef struct srv_ws_delta_key_s {
  uint64_t a, b;
  uint64_t parents;
  uint32_t seq;
} srv_ws_delta_key_t;

/* Delta frames cached beside one frame at most (the least recently used
 * goes first). */
#define SRV_WS_DELTA_SLOTS 4

/* The delta frame cached beside frame serial for key, or NULL: its
 * buffer (borrowed: take a reference to keep it) and *len bytes. */
srv_ws_blob_t *srv_ws_eval_delta_find(srv_ws_eval_t *e, uint64_t serial,
                                      const srv_ws_delta_key_t *key,
                                      size_t *len);
/* Caches the delta frame of len bytes in b (a reference taken) beside
 * frame serial for key, within the cache's byte budget. Returns 0, or
 * UV_ENOENT when the frame is no longer cached. */
int srv_ws_eval_delta_put(srv_ws_eval_t *e, uint64_t serial,
                          const srv_ws_delta_key_t *key, srv_ws_blob_t *b,
                          size_t len);

/* Counters since creation. */
typedef struct srv_ws_eval_stats_s {
  uint64_t evaluations; /* Frames computed (on the loop or the pool). */
  uint64_t hits;        /* Frames served from the cache. */
  uint64_t prefetched;  /* Jobs submitted to the pool. */
  uint64_t late;        /* Asked for while their job was still running. */
} srv_ws_eval_stats_t;

void srv_ws_eval_stats(const srv_ws_eval_t *e, srv_ws_eval_stats_t *out);

/* Drops every entry (and the assets they retain), freeing its buffer. */
void srv_ws_eval_clear(srv_ws_eval_t *e);

/* Drops the entries not used for idle_ns: their buffers and assets go.
 * Returns the bytes of the buffers given back. */
size_t srv_ws_eval_trim(srv_ws_eval_t *e, uint64_t idle_ns);

/* Bytes of frame buffers held now, delta frames included (bounded by
 * max_bytes, but for one frame larger than the budget). */
size_t srv_ws_eval_bytes(const srv_ws_eval_t *e);

#endif
