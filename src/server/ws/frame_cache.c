/* server: evaluation of stream frames, shared between subscribers.
 *
 * Key design choice: a fixed array of entries with round-robin
 * replacement (skipping entries a pool job is writing) and a linear key
 * scan. Streams on the same clip and time
 * grid ask for the same few keys within a frame period, so a few dozen
 * entries catch them all, and a scan of those is cheaper than hashing.
 * Memory is bounded in bytes: an entry's buffer is sized to its frame
 * (shrunk when a smaller frame reuses it), least recently used buffers
 * are freed to make room, and entries idle for a while (srv_ws_eval_trim)
 * let go of their buffer and their assets, so a deleted mesh is freed.
 * A frame's delta frames live in its entry (a few slots, least recently
 * used replaced), count in the byte budget and go with the frame. */
#include "server/ws/frame_cache.h"

#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "formats/q16.h"
#include "formats/vocab.h"
#include "server/request/evaluate.h"

typedef struct entry_s {
  srv_ws_eval_key_t key; /* mask points to mask_copy, clips to clips_copy. */
  uint32_t *mask_copy;
  store_asset_t *clips_copy[ANIM_BLEND_SPACE_MAX];
  /* The floats, and the q16 payload once made (q16_ready), in buffers
   * that queued frames may share (blob.h): a shared buffer is never
   * written again; the entry takes a new one. */
  srv_ws_blob_t *floats;
  size_t cap; /* Floats allocated. */
  srv_ws_blob_t *q16;
  bool q16_ready;
  srv_ws_frame_data_t data;
  uint64_t serial; /* Of the frame now in the entry (claim). */
  /* Delta frames of this frame (loop thread only). */
  struct {
    srv_ws_delta_key_t key;
    srv_ws_blob_t *blob; /* NULL: a free slot. */
    size_t len;
    uint64_t used; /* e->delta_clock when last put or found. */
  } deltas[SRV_WS_DELTA_SLOTS];
  bool used;        /* key is set (and its assets retained). */
  bool pending;     /* A pool job is writing floats: hands off. */
  uint64_t used_ns; /* Last set or read. */
  /* Told when the pending job is back (srv_ws_eval_prefetch_then). */
  srv_ws_eval_ready_fn ready;
  void *ready_arg;
} entry_t;

/* entry_data, for a job's worker (defined below). */
static int entry_data(entry_t *en, const srv_ws_eval_key_t *key,
                      srv_ws_frame_data_t *out);

typedef struct eval_job_s {
  srv_job_t job; /* First: the pool hands this pointer back. */
  srv_ws_eval_t *e;
  entry_t *en;
  uint8_t encoding; /* The prefetching key's. */
  int result;
  srv_ws_eval_use_fn use; /* Worker: the frame, once made (or NULL). */
  void *use_arg;
  bool used;
} eval_job_t;

struct srv_ws_eval_s {
  entry_t *entries;
  unsigned count;
  unsigned next; /* Round-robin victim. */
  srv_pool_t *pool;
  srv_pool_inbox_t *inbox; /* NULL: jobs come back on the pool's loop. */
  unsigned pending;        /* Jobs in flight. */
  size_t bytes;            /* Floats allocated by every entry, in bytes. */
  size_t max_bytes;
  uint64_t serials;     /* The last frame serial given. */
  uint64_t delta_clock; /* Ticks at every delta frame put or found. */
  bool freeing;         /* Free once the last job is back. */
  srv_ws_eval_stats_t stats;
};

srv_ws_eval_t *srv_ws_eval_new(unsigned entries, size_t max_bytes,
                               srv_pool_t *pool, srv_pool_inbox_t *inbox) {
  srv_ws_eval_t *e = calloc(1, sizeof *e);
  if (e == NULL) return NULL;
  e->entries = calloc(entries, sizeof *e->entries);
  if (e->entries == NULL) {
    free(e);
    return NULL;
  }
  e->count = entries;
  e->max_bytes = max_bytes;
  e->pool = pool;
  e->inbox = inbox;
  return e;
}

/* Gives en's delta frames back. */
static void deltas_drop(srv_ws_eval_t *e, entry_t *en) {
  for (unsigned i = 0; i < SRV_WS_DELTA_SLOTS; i++) {
    if (en->deltas[i].blob == NULL) continue;
    e->bytes -= en->deltas[i].blob->cap;
    srv_ws_blob_unref(en->deltas[i].blob);
    en->deltas[i].blob = NULL;
  }
}

static void entry_drop(srv_ws_eval_t *e, entry_t *en) {
  deltas_drop(e, en);
  if (!en->used) return;
  store_asset_release(en->key.skeleton);
  store_asset_release(en->key.clip);
  store_asset_release(en->key.mesh);
  for (uint32_t i = 0; i < en->key.clip_count; i++)
    store_asset_release(en->clips_copy[i]);
  srv_fields_free(&en->key.fields);
  en->used = false;
  en->q16_ready = false;
}

/* Drops en and gives its buffer back. */
static void entry_empty(srv_ws_eval_t *e, entry_t *en) {
  entry_drop(e, en);
  srv_ws_blob_unref(en->floats);
  en->floats = NULL;
  e->bytes -= en->cap * sizeof(float);
  en->cap = 0;
}

void srv_ws_eval_clear(srv_ws_eval_t *e) {
  for (unsigned i = 0; i < e->count; i++)
    if (!e->entries[i].pending) entry_empty(e, &e->entries[i]);
}

size_t srv_ws_eval_trim(srv_ws_eval_t *e, uint64_t idle_ns) {
  uint64_t now = uv_hrtime();
  size_t before = e->bytes;
  for (unsigned i = 0; i < e->count; i++) {
    entry_t *en = &e->entries[i];
    if (!en->pending && (en->used || en->cap > 0) &&
        now - en->used_ns > idle_ns)
      entry_empty(e, en);
  }
  return before - e->bytes;
}

size_t srv_ws_eval_bytes(const srv_ws_eval_t *e) { return e->bytes; }

/* Frees the least recently used buffers of other entries until need more
 * bytes fit the budget (or none is left to free). */
static void make_room(srv_ws_eval_t *e, const entry_t *keep, size_t need) {
  while (e->bytes + need > e->max_bytes) {
    entry_t *victim = NULL;
    for (unsigned i = 0; i < e->count; i++) {
      entry_t *c = &e->entries[i];
      if (c == keep || c->pending || c->cap == 0) continue;
      if (victim == NULL || c->used_ns < victim->used_ns) victim = c;
    }
    if (victim == NULL) return;
    entry_empty(e, victim);
  }
}

static void eval_destroy(srv_ws_eval_t *e) {
  srv_ws_eval_clear(e);
  for (unsigned i = 0; i < e->count; i++) {
    srv_ws_blob_unref(e->entries[i].floats);
    srv_ws_blob_unref(e->entries[i].q16);
    free(e->entries[i].mask_copy);
  }
  free(e->entries);
  free(e);
}

void srv_ws_eval_free(srv_ws_eval_t *e) {
  if (e == NULL) return;
  e->freeing = true;
  if (e->pending == 0) eval_destroy(e);
}

void srv_ws_eval_stats(const srv_ws_eval_t *e, srv_ws_eval_stats_t *out) {
  *out = e->stats;
}

static bool key_eq(const srv_ws_eval_key_t *a, const srv_ws_eval_key_t *b) {
  if (a->skeleton != b->skeleton || a->clip != b->clip || a->mesh != b->mesh ||
      memcmp(&a->t, &b->t, sizeof a->t) != 0 || a->wrap != b->wrap ||
      a->space != b->space || a->normals != b->normals ||
      a->method != b->method || a->mask_count != b->mask_count ||
      a->clip_count != b->clip_count ||
      !srv_fields_equal(&a->fields, &b->fields))
    return false;
  for (uint32_t i = 0; i < a->clip_count; i++)
    if (a->clips[i] != b->clips[i]) return false;
  if (a->mask_count == 0) return (a->mask == NULL) == (b->mask == NULL);
  return memcmp(a->mask, b->mask, a->mask_count * sizeof *a->mask) == 0;
}

srv_eval_job_t srv_ws_eval_job(const srv_ws_eval_key_t *k,
                               srv_eval_layer_t *layers) {
  for (uint32_t i = 0; i < k->clip_count; i++)
    layers[i] = (srv_eval_layer_t){.clip = k->clips[i]->clip,
                                   .t = k->t,
                                   .wrap = (anim_wrap)k->wrap,
                                   .weight = 1.0f};
  srv_eval_job_t job = {
      .skeleton = k->skeleton->skeleton,
      .clip = k->clip != NULL ? k->clip->clip : NULL,
      .layers = k->clip_count > 0 ? layers : NULL,
      .layer_count = k->clip_count,
      .t = k->t,
      .wrap = (anim_wrap)k->wrap,
      .space = (fmt_space)k->space,
      .joints = k->mask,
      .joint_count = k->mask_count,
      .mesh = k->mesh != NULL ? k->mesh->mesh : NULL,
      .method = (anim_skin_method)k->method,
      .normals = k->normals ? ANIM_NORMALS_LINEAR : ANIM_NORMALS_NONE,
      .fields = &k->fields,
  };
  return job;
}

unsigned long srv_ws_eval_cost(const srv_ws_eval_key_t *key) {
  srv_eval_layer_t layers[ANIM_BLEND_SPACE_MAX];
  srv_eval_job_t job = srv_ws_eval_job(key, layers);
  return srv_eval_cost(&job);
}

/* Floats a frame of key holds: its own, then the fields' answer. */
static size_t entry_floats(const srv_ws_eval_key_t *k) {
  srv_eval_layer_t layers[ANIM_BLEND_SPACE_MAX];
  srv_eval_job_t job = srv_ws_eval_job(k, layers);
  return srv_eval_float_count(&job) + srv_eval_answer_count(&job);
}

/* Fills en->floats for en->key with the calling thread's scratch. Touches
 * only en and the immutable assets, so it runs on a worker as well as on
 * the loop. en->floats must already hold entry_floats(key) floats. */
static int evaluate(entry_t *en) {
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  if (s == NULL) return UV_ENOMEM;
  srv_eval_layer_t layers[ANIM_BLEND_SPACE_MAX];
  srv_eval_job_t job = srv_ws_eval_job(&en->key, layers);
  job.out = (float *)en->floats->data;
  job.answer = job.out + srv_eval_float_count(&job);
  anim_result r = srv_eval_run(&job, s);
  if (r != ANIM_OK) return r == ANIM_ERR_OUT_OF_MEMORY ? UV_ENOMEM : UV_EINVAL;
  en->data.floats = (const float *)en->floats->data;
  en->data.count = (uint32_t)srv_eval_float_count(&job);
  en->data.answer = job.answer;
  en->data.answer_count = (uint32_t)srv_eval_answer_count(&job);
  en->data.elements = srv_eval_element_count(&job);
  return 0;
}

/* Makes en's q16 payload from its floats (a mesh frame), once. Touches
 * only en, so it runs on a worker as well. 0 or UV_ENOMEM. */
static int encode_q16(entry_t *en) {
  if (en->q16_ready) return 0;
  bool normals = en->key.normals != 0;
  uint32_t v = en->data.elements;
  size_t size = fmt_q16_size(v, normals);
  if (en->q16 == NULL || size > en->q16->cap) {
    srv_ws_blob_t *q = srv_ws_blob_new(size);
    if (q == NULL) return UV_ENOMEM;
    srv_ws_blob_unref(en->q16);
    en->q16 = q;
  }
  const float *f = en->data.floats;
  fmt_q16_encode(f, normals ? f + 3 * (size_t)v : NULL, v, en->q16->data);
  en->q16_ready = true;
  return 0;
}

/* en's data for key: with the q16 payload when key asks for it. */
static int entry_data(entry_t *en, const srv_ws_eval_key_t *key,
                      srv_ws_frame_data_t *out) {
  *out = en->data;
  out->serial = en->serial;
  out->q16 = NULL;
  out->q16_words = 0;
  out->q16_blob = NULL;
  out->payload = NULL;
  out->payload_len = 0;
  if (key->encoding != FMT_ENCODING_Q16 || en->key.mesh == NULL) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The fields' answer follows the floats in the same buffer. */
    out->payload = en->floats;
    out->payload_len = 4 * ((size_t)en->data.count + en->data.answer_count);
#endif
    return 0;
  }
  int r = encode_q16(en);
  if (r != 0) return r;
  size_t size = fmt_q16_size(en->data.elements, en->key.normals != 0);
  out->q16 = en->q16->data;
  out->q16_words = (uint32_t)(size / 4);
  out->q16_blob = en->q16;
  /* With a fields' answer the frame is built whole (ws__frame_message). */
  out->payload = en->data.answer_count == 0 ? en->q16 : NULL;
  out->payload_len = en->data.answer_count == 0 ? size : 0;
  return 0;
}

static entry_t *find(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  for (unsigned i = 0; i < e->count; i++) {
    entry_t *en = &e->entries[i];
    if (en->used && key_eq(&en->key, key)) return en;
  }
  return NULL;
}

/* Takes the next entry no job is writing, sets key (retaining its assets)
 * and sizes its floats. NULL when every entry is busy or on ENOMEM. */
static entry_t *claim(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  entry_t *en = NULL;
  for (unsigned tries = 0; tries < e->count && en == NULL; tries++) {
    entry_t *c = &e->entries[e->next];
    e->next = (e->next + 1) % e->count;
    if (!c->pending) en = c;
  }
  if (en == NULL) return NULL;
  entry_drop(e, en);
  /* Buffers queued frames still hold stay theirs. */
  if (en->q16 != NULL && en->q16->refs > 1) {
    srv_ws_blob_unref(en->q16);
    en->q16 = NULL;
  }
  if (en->floats != NULL && en->floats->refs > 1) {
    srv_ws_blob_unref(en->floats);
    en->floats = NULL;
    e->bytes -= en->cap * sizeof(float);
    en->cap = 0;
  }
  if (key->mask != NULL) {
    uint32_t *m = realloc(en->mask_copy, key->mask_count * sizeof *m);
    if (m == NULL) return NULL;
    memcpy(m, key->mask, key->mask_count * sizeof *m);
    en->mask_copy = m;
  }
  size_t need = entry_floats(key);
  if (en->floats == NULL || need > en->cap || en->cap > 2 * need + 1024) {
    /* Exactly the frame's size: a buffer grown for a big mesh does not
     * stay big for a small pose. */
    e->bytes -= en->cap * sizeof(float);
    en->cap = 0;
    srv_ws_blob_unref(en->floats);
    en->floats = NULL;
    make_room(e, en, need * sizeof(float));
    en->floats = srv_ws_blob_new(need * sizeof(float));
    if (en->floats == NULL) return NULL;
    en->cap = need;
    e->bytes += need * sizeof(float);
  }
  en->used_ns = uv_hrtime();
  en->serial = ++e->serials;
  en->key = *key;
  en->key.mask = key->mask != NULL ? en->mask_copy : NULL;
  for (uint32_t i = 0; i < key->clip_count; i++) {
    en->clips_copy[i] = key->clips[i];
    store_asset_retain(key->clips[i]);
  }
  en->key.clips = en->clips_copy;
  srv_fields_copy(&en->key.fields, &key->fields);
  store_asset_retain(key->skeleton);
  if (key->clip != NULL) store_asset_retain(key->clip);
  if (key->mesh != NULL) store_asset_retain(key->mesh);
  en->used = true;
  return en;
}

int srv_ws_eval_get(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                    srv_ws_frame_data_t *out) {
  entry_t *en = find(e, key);
  if (en != NULL && !en->pending) {
    en->used_ns = uv_hrtime();
    e->stats.hits++;
    return entry_data(en, key, out);
  }
  /* Not there, or still being computed on a worker: compute it here. A
   * pending entry is left to its job, so this frame goes to another. */
  if (en != NULL) e->stats.late++;
  en = claim(e, key);
  if (en == NULL) return UV_ENOMEM;
  int r = evaluate(en);
  if (r != 0) {
    entry_drop(e, en);
    return r;
  }
  e->stats.evaluations++;
  return entry_data(en, key, out);
}

static void job_work(srv_job_t *job) {
  eval_job_t *j = (eval_job_t *)job;
  j->result = evaluate(j->en);
  /* The q16 bytes too, off the loop, when the subscriber wants them. */
  if (j->result == 0 && j->encoding == FMT_ENCODING_Q16)
    j->result = encode_q16(j->en);
  if (j->result == 0 && j->use != NULL) {
    srv_ws_eval_key_t key = j->en->key;
    key.encoding = j->encoding;
    srv_ws_frame_data_t fd;
    j->result = entry_data(j->en, &key, &fd);
    if (j->result == 0) {
      j->use(j->use_arg, &fd);
      j->used = true;
    }
  }
}

static void job_done(srv_job_t *job, int status) {
  eval_job_t *j = (eval_job_t *)job;
  srv_ws_eval_t *e = j->e;
  entry_t *en = j->en;
  en->pending = false;
  int result = status != 0 ? status : j->result;
  bool used = j->used;
  if (result != 0)
    entry_drop(e, en);
  else
    e->stats.evaluations++;
  free(j);
  e->pending--;
  srv_ws_eval_ready_fn ready = en->ready;
  en->ready = NULL;
  if (ready != NULL) ready(en->ready_arg, result, used);
  if (e->freeing && e->pending == 0) eval_destroy(e);
}

/* Claims an entry for key and submits its job (use run on the worker
 * with the frame, when not NULL). */
static int submit(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                  srv_ws_eval_use_fn use, void *use_arg) {
  eval_job_t *j = calloc(1, sizeof *j);
  if (j == NULL) return UV_ENOMEM;
  entry_t *en = claim(e, key);
  if (en == NULL) {
    free(j);
    return UV_EBUSY;
  }
  j->job.work = job_work;
  j->job.done = job_done;
  j->e = e;
  j->en = en;
  j->encoding = key->encoding;
  j->use = use;
  j->use_arg = use_arg;
  en->pending = true;
  int r = srv_pool_submit_to(e->pool, &j->job, e->inbox);
  if (r != 0) {
    en->pending = false;
    entry_drop(e, en);
    free(j);
    return r;
  }
  e->pending++;
  e->stats.prefetched++;
  return 0;
}

int srv_ws_eval_prefetch_then(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                              srv_ws_eval_use_fn use,
                              srv_ws_eval_ready_fn ready, void *arg) {
  if (e->pool == NULL || e->freeing) return UV_ENOSYS;
  entry_t *en = find(e, key);
  if (en != NULL && !en->pending) return 1;
  if (en != NULL) {
    /* A stream's prefetch of the same frame: wait for it (use is not
     * run then). */
    if (en->ready != NULL) return UV_EBUSY;
  } else {
    int r = submit(e, key, use, arg);
    if (r != 0) return r;
    en = find(e, key);
  }
  en->ready = ready;
  en->ready_arg = arg;
  return 0;
}

int srv_ws_eval_prefetch(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  if (e->pool == NULL || e->freeing) return UV_ENOSYS;
  if (find(e, key) != NULL) return 0;
  return submit(e, key, NULL, NULL);
}

/* The entry holding frame serial, when it still does. */
static entry_t *find_serial(srv_ws_eval_t *e, uint64_t serial) {
  for (unsigned i = 0; i < e->count; i++) {
    entry_t *en = &e->entries[i];
    if (en->used && !en->pending && en->serial == serial) return en;
  }
  return NULL;
}

static bool delta_key_eq(const srv_ws_delta_key_t *a,
                         const srv_ws_delta_key_t *b) {
  return a->a == b->a && a->b == b->b && a->parents == b->parents &&
         a->seq == b->seq;
}

srv_ws_blob_t *srv_ws_eval_delta_find(srv_ws_eval_t *e, uint64_t serial,
                                      const srv_ws_delta_key_t *key,
                                      size_t *len) {
  entry_t *en = find_serial(e, serial);
  if (en == NULL) return NULL;
  for (unsigned i = 0; i < SRV_WS_DELTA_SLOTS; i++) {
    if (en->deltas[i].blob == NULL || !delta_key_eq(&en->deltas[i].key, key))
      continue;
    en->deltas[i].used = ++e->delta_clock;
    *len = en->deltas[i].len;
    return en->deltas[i].blob;
  }
  return NULL;
}

int srv_ws_eval_delta_put(srv_ws_eval_t *e, uint64_t serial,
                          const srv_ws_delta_key_t *key, srv_ws_blob_t *b,
                          size_t len) {
  entry_t *en = find_serial(e, serial);
  if (en == NULL) return UV_ENOENT;
  /* A free slot, else the least recently used. */
  unsigned slot = 0;
  for (unsigned i = 0; i < SRV_WS_DELTA_SLOTS; i++) {
    if (en->deltas[i].blob == NULL) {
      slot = i;
      break;
    }
    if (en->deltas[i].used < en->deltas[slot].used) slot = i;
  }
  if (en->deltas[slot].blob != NULL) {
    e->bytes -= en->deltas[slot].blob->cap;
    srv_ws_blob_unref(en->deltas[slot].blob);
    en->deltas[slot].blob = NULL;
  }
  make_room(e, en, b->cap);
  en->deltas[slot].key = *key;
  en->deltas[slot].blob = srv_ws_blob_ref(b);
  en->deltas[slot].len = len;
  en->deltas[slot].used = ++e->delta_clock;
  e->bytes += b->cap;
  return 0;
}
