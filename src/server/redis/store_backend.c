/* server: the Redis store backend (store_backend.h). */
#include "server/redis/store_backend.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "server/redis/client.h"
#include "server/redis/conn_pool.h"
#include "server/redis/miss_cache.h"
#include "server/redis/scripts.h"
#include "store/cache.h"

/* Drops remembered for the loads in flight; a load that started more than
 * this many drops ago counts as dropped (it is looked up again). */
#define DROP_MARKS 1024
/* Lookups of one load at most: each again after what it adopted was
 * dropped meanwhile. */
#define MAX_LOOKUPS 3

typedef struct waiter_s {
  srv_backend_cb cb;
  void *arg;
} waiter_t;

/* One asset being loaded; requests for the same key wait on it. */
typedef struct load_s {
  srv_job_t job; /* First member. */
  srv_redis_backend_t *owner;
  struct load_s *next;
  char *key; /* kind '\0' id_or_name '\0' skeleton_id, key_len bytes. */
  size_t key_len;
  store_kind kind;
  waiter_t *waiters;
  size_t waiter_count, waiter_cap;
  /* The drop epoch when the lookup was sent ("drops during loads"
   * below: what is dropped after it is not kept), and lookups sent so
   * far. */
  uint64_t since;
  uint64_t miss_generation; /* Of the miss cache, when it was sent. */
  unsigned lookups;
  bool stale; /* Adopted, then dropped again: looked up again. */
  /* From Redis, then decoded on the pool. */
  char id[FMT_ID_LEN + 1], skeleton_id[FMT_ID_LEN + 1];
  bool unnamed, skeleton_unnamed; /* Names moved away by a replace. */
  char *text, *skeleton_text;
  size_t text_len, skeleton_text_len;
  srv_backend_reply_t reply;
} load_t;

struct srv_redis_backend_s {
  srv_backend_t iface;
  srv_redis_opts_t opts; /* Where Redis is (load_blocking connects). */
  char url[300];
  uv_loop_t *loop;
  srv_redis_t *redis;
  srv_redis_pool_t *conns;  /* load_blocking's connections. */
  srv_miss_cache_t *misses; /* Not-found answers, briefly. */
  store_t *store;
  srv_pool_t *pool;
  size_t max_bytes;
  load_t *loads; /* In flight. */
  /* The drops published while loads are in flight: a ring of the last
   * DROP_MARKS, marks[epoch % DROP_MARKS] the one of that epoch. */
  pthread_mutex_t marks_lock;
  uint64_t epoch;
  struct drop_mark_s {
    uint64_t epoch, hash; /* hash 0: everything (the cache emptied). */
  } marks[DROP_MARKS];
  unsigned jobs; /* Loads on the pool. */
  bool closing;
  srv_redis_backend_stats_t stats;
};

static void reply_set(srv_backend_reply_t *r, srv_backend_status status,
                      const char *fmt, const char *detail) {
  r->status = status;
  r->created = false;
  snprintf(r->message, sizeof r->message, fmt, detail ? detail : "");
}

static void answer_unavailable(srv_backend_cb cb, void *arg) {
  srv_backend_reply_t r = {0};
  reply_set(&r, SRV_BACKEND_UNAVAILABLE,
            "the shared store (Redis) cannot be reached; retry later%s", "");
  cb(arg, &r);
}

static const char *str_at(const redisReply *r, size_t i) {
  if (r == NULL || r->type != REDIS_REPLY_ARRAY || i >= r->elements ||
      r->element[i]->type != REDIS_REPLY_STRING)
    return NULL;
  return r->element[i]->str;
}

static long long int_at(const redisReply *r, size_t i) {
  if (r == NULL || r->type != REDIS_REPLY_ARRAY || i >= r->elements ||
      r->element[i]->type != REDIS_REPLY_INTEGER)
    return 0;
  return r->element[i]->integer;
}

/* ---- drops during loads --------------------------------------------------
 *
 * A drop event can arrive while a load of the same asset is between its
 * lookup (Redis still had it) and its adoption into the cache (on the
 * pool): the drop finds nothing to drop, and the load would adopt a
 * deleted asset for good. So every drop bumps the drop epoch and marks
 * what it dropped (before dropping it), a load keeps the epoch of its
 * lookup, and after adopting it looks for marks newer than that: what was
 * marked it drops again and looks up again. Either the load sees the mark,
 * or it adopted before the mark and the drop that follows finds it. */

static uint64_t mark_hash(char verb, store_kind kind, const char *what) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ (unsigned char)verb) * 1099511628211ull;
  h = (h ^ (unsigned)kind) * 1099511628211ull;
  for (const unsigned char *p = (const unsigned char *)what; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h ? h : 1;
}

static uint64_t drop_epoch(srv_redis_backend_t *b) {
  pthread_mutex_lock(&b->marks_lock);
  uint64_t e = b->epoch;
  pthread_mutex_unlock(&b->marks_lock);
  return e;
}

/* Loop thread: hash (0: everything) is about to be dropped. */
static void drop_mark(srv_redis_backend_t *b, uint64_t hash) {
  pthread_mutex_lock(&b->marks_lock);
  b->epoch++;
  b->marks[b->epoch % DROP_MARKS] =
      (struct drop_mark_s){.epoch = b->epoch, .hash = hash};
  pthread_mutex_unlock(&b->marks_lock);
}

/* True when one of the n hashes was marked (or everything was) after
 * epoch since, or when too many drops came since to tell. */
static bool dropped_since(srv_redis_backend_t *b, uint64_t since,
                          const uint64_t *hashes, size_t n) {
  bool hit = false;
  pthread_mutex_lock(&b->marks_lock);
  if (b->epoch - since >= DROP_MARKS) hit = true;
  for (uint64_t e = since + 1; !hit && e <= b->epoch; e++) {
    uint64_t h = b->marks[e % DROP_MARKS].hash;
    for (size_t i = 0; i < n && !hit; i++) hit = h == 0 || h == hashes[i];
  }
  pthread_mutex_unlock(&b->marks_lock);
  return hit;
}

/* Worker thread, after l adopted its asset (and skeleton): drops what was
 * dropped meanwhile (the asset by id or name; its skeleton, with the
 * skeleton's other children, by id or name) and tells whether it did. */
static bool drop_if_dropped(load_t *l) {
  srv_redis_backend_t *b = l->owner;
  store_asset_t *a = store_lookup(b->store, l->kind, l->id, NULL);
  uint64_t mine[2] = {mark_hash('d', l->kind, l->id),
                      a ? mark_hash('n', l->kind, a->name) : 1};
  bool stale = a == NULL || dropped_since(b, l->since, mine, 2);
  bool skeleton_stale = false;
  if (a != NULL && a->skeleton_asset != NULL) {
    uint64_t sk[2] = {mark_hash('d', STORE_SKELETON, l->skeleton_id),
                      mark_hash('n', STORE_SKELETON, a->skeleton_asset->name)};
    skeleton_stale = dropped_since(b, l->since, sk, 2);
  }
  store_asset_release(a);
  if (skeleton_stale) store_drop(b->store, STORE_SKELETON, l->skeleton_id);
  if (stale) store_drop(b->store, l->kind, l->id);
  return stale || skeleton_stale;
}

/* Tests only: while the file ANIMD_TEST_LOAD_HOLD names exists (at most
 * 10 s), a load waits between its lookup and its adoption, so a test can
 * deliver a drop in between. Unset (the default): nothing. */
static void test_hold(void) {
  const char *path = getenv("ANIMD_TEST_LOAD_HOLD");
  struct stat st;
  for (int i = 0; path && *path && i < 1000 && stat(path, &st) == 0; i++)
    nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
}

/* ---- loads ----------------------------------------------------------------
 */

/* How many ids an ambiguous lookup lists (the lookup script's ARGV[4]). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define LISTED STR(STORE_MATCH_LISTED)

static void load_finish(load_t *l) {
  srv_redis_backend_t *b = l->owner;
  for (load_t **p = &b->loads; *p; p = &(*p)->next)
    if (*p == l) {
      *p = l->next;
      break;
    }
  for (size_t i = 0; i < l->waiter_count; i++)
    l->waiters[i].cb(l->waiters[i].arg, &l->reply);
  free(l->waiters);
  free(l->key);
  free(l->text);
  free(l->skeleton_text);
  free(l);
}

/* Evicts the least recently used assets when adopting len more bytes of
 * text could pass the limit (decoded assets take about as much as their
 * text), or, with len 0, when the cache is past it. */
static void make_room(srv_redis_backend_t *b, size_t len) {
  size_t n = store_evict(b->store, len, b->max_bytes);
  if (n != 0) __atomic_fetch_add(&b->stats.evictions, n, __ATOMIC_RELAXED);
}

/* Returns 0; 1 when the asset's skeleton is not in the cache (evicted
 * meanwhile: try again); -1 on another error (the reply says it). */
static int adopt(load_t *l, store_kind kind, const char *id, const char *text,
                 size_t len, bool unnamed) {
  fmt_error_t err = {0};
  store_asset_t *a = NULL;
  if (store_adopt(l->owner->store, kind, id, text, len, unnamed, &a, &err) !=
      0) {
    reply_set(&l->reply,
              err.code == FMT_ERR_INSUFFICIENT_STORAGE ? SRV_BACKEND_NO_ROOM
                                                       : SRV_BACKEND_FAILED,
              "cannot cache it: %.200s", err.message);
    return err.code == FMT_ERR_NOT_FOUND ? 1 : -1;
  }
  store_asset_release(a);
  return 0;
}

/* Worker thread: makes room, decodes and adopts the skeleton, then the
 * asset, and evicts again if decoding took more than the texts did. A
 * skeleton evicted by another load in between is adopted again. */
static void load_work(srv_job_t *job) {
  load_t *l = (load_t *)job;
  srv_redis_backend_t *b = l->owner;
  test_hold();
  for (int attempt = 0; attempt < 3; attempt++) {
    make_room(b, l->text_len + l->skeleton_text_len);
    if (l->kind != STORE_SKELETON &&
        adopt(l, STORE_SKELETON, l->skeleton_id, l->skeleton_text,
              l->skeleton_text_len, l->skeleton_unnamed) != 0)
      return;
    int rc = adopt(l, l->kind, l->id, l->text, l->text_len, l->unnamed);
    if (rc == 0) {
      make_room(b, 0);
      l->stale = drop_if_dropped(l);
      l->reply.status = SRV_BACKEND_OK;
      return;
    }
    if (rc != 1) return;
  }
}

static void backend_free(srv_redis_backend_t *b) {
  srv_redis_pool_free(b->conns);
  srv_miss_cache_free(b->misses);
  pthread_mutex_destroy(&b->marks_lock);
  free(b);
}

static int lookup_send(load_t *l);

static void load_done(srv_job_t *job, int status) {
  load_t *l = (load_t *)job;
  srv_redis_backend_t *b = l->owner;
  b->jobs--;
  if (status != 0)
    reply_set(&l->reply, SRV_BACKEND_UNAVAILABLE, "shutting down%s", "");
  else if (l->stale && !b->closing && l->lookups < MAX_LOOKUPS) {
    /* Dropped while it loaded: ask Redis again (a delete now answers
     * not found, a name shared now ambiguous). */
    __atomic_fetch_add(&b->stats.stale, 1, __ATOMIC_RELAXED);
    if (lookup_send(l) == 0) return;
    reply_set(&l->reply, SRV_BACKEND_UNAVAILABLE,
              "the shared store (Redis) cannot be reached; retry later%s", "");
  } else if (l->stale)
    reply_set(&l->reply, SRV_BACKEND_UNAVAILABLE,
              "the asset keeps being dropped while it loads; retry later%s",
              "");
  else if (l->reply.status == SRV_BACKEND_OK)
    __atomic_fetch_add(&b->stats.loads, 1, __ATOMIC_RELAXED);
  load_finish(l);
  if (b->closing && b->jobs == 0 && b->redis == NULL) backend_free(b);
}

static char *copy_reply_string(const redisReply *r, size_t i, size_t *len) {
  const redisReply *e = r->element[i];
  char *s = malloc(e->len + 1);
  if (s == NULL) return NULL;
  memcpy(s, e->str, e->len);
  s[e->len] = '\0';
  *len = e->len;
  return s;
}

/* An ambiguous lookup's reply {"ambiguous", count, ids...} into l->reply:
 * the sentence a node answers for a name its store holds several times
 * (store_match_describe). */
static void take_ambiguous(load_t *l, const redisReply *r, const char *name) {
  store_match_t m = {.count = (size_t)int_at(r, 1)};
  for (size_t i = 2; i < r->elements && m.listed < STORE_MATCH_LISTED; i++) {
    const char *id = str_at(r, i);
    if (id == NULL || strlen(id) != FMT_ID_LEN) continue;
    memcpy(m.ids[m.listed++], id, FMT_ID_LEN + 1);
  }
  l->reply.status = SRV_BACKEND_AMBIGUOUS;
  store_match_describe(&m, l->kind, name, l->reply.message,
                       sizeof l->reply.message);
}

/* Takes a lookup's reply for name into l (its texts copied). Returns 0
 * when there is something to decode, or -1 with l->reply set. */
static int take_lookup(load_t *l, const redisReply *r, const char *name) {
  const char *status = str_at(r, 0);
  if (r == NULL) {
    reply_set(&l->reply, SRV_BACKEND_UNAVAILABLE,
              "the shared store (Redis) was lost during the lookup; retry "
              "later%s",
              "");
    return -1;
  }
  if (status == NULL) {
    reply_set(&l->reply, SRV_BACKEND_FAILED, "the shared store answered: %s",
              r->type == REDIS_REPLY_ERROR ? r->str : "something unexpected");
    return -1;
  }
  if (strcmp(status, "ambiguous") == 0) {
    take_ambiguous(l, r, name);
    return -1;
  }
  if (strcmp(status, "ok") != 0) {
    reply_set(&l->reply, SRV_BACKEND_NOT_FOUND, "not found%s", "");
    return -1;
  }
  bool skeleton = l->kind == STORE_SKELETON;
  const char *id = str_at(r, 1), *sid = str_at(r, 3);
  bool shaped =
      id && strlen(id) == FMT_ID_LEN && str_at(r, 2) &&
      (skeleton || (sid && strlen(sid) == FMT_ID_LEN && str_at(r, 4)));
  if (shaped) {
    const char *u = str_at(r, skeleton ? 3 : 5), *su = str_at(r, 6);
    l->unnamed = u != NULL && strcmp(u, "1") == 0;
    l->skeleton_unnamed = !skeleton && su != NULL && strcmp(su, "1") == 0;
    memcpy(l->id, id, FMT_ID_LEN + 1);
    l->text = copy_reply_string(r, 2, &l->text_len);
    if (!skeleton) {
      memcpy(l->skeleton_id, sid, FMT_ID_LEN + 1);
      l->skeleton_text = copy_reply_string(r, 4, &l->skeleton_text_len);
    }
  }
  if (!shaped || l->text == NULL || (!skeleton && l->skeleton_text == NULL)) {
    reply_set(&l->reply, SRV_BACKEND_FAILED,
              "the shared store answered something unexpected%s", "");
    return -1;
  }
  reply_set(&l->reply, SRV_BACKEND_FAILED, "not decoded%s", "");
  return 0;
}

static void on_lookup(void *arg, redisReply *r) {
  load_t *l = arg;
  srv_redis_backend_t *b = l->owner;
  const char *name = l->key + strlen(store_kind_name(l->kind)) + 1;
  if (take_lookup(l, r, name) == 0) {
    if (srv_pool_submit(b->pool, &l->job) == 0) {
      b->jobs++;
      return;
    }
    reply_set(&l->reply, SRV_BACKEND_UNAVAILABLE,
              "the worker queue is full; retry later%s", "");
  } else if (l->reply.status == SRV_BACKEND_NOT_FOUND) {
    srv_miss_cache_add(b->misses, l->key, l->key_len, l->miss_generation);
  }
  load_finish(l);
}

/* Sends l's lookup (again): its key, from the drop epoch of now. Returns
 * 0, or UV_ENOTCONN. */
static int lookup_send(load_t *l) {
  srv_redis_backend_t *b = l->owner;
  const char *kname = l->key, *name = kname + strlen(kname) + 1;
  const char *sk = name + strlen(name) + 1;
  free(l->text);
  free(l->skeleton_text);
  l->text = l->skeleton_text = NULL;
  l->text_len = l->skeleton_text_len = 0;
  l->stale = false;
  l->lookups++;
  l->since = drop_epoch(b);
  l->miss_generation = srv_miss_cache_generation(b->misses);
  const char *argv[] = {"EVAL", srv_redis_lookup_script, "0", kname, name, sk,
                        LISTED};
  if (b->closing || b->redis == NULL) return UV_ENOTCONN;
  return srv_redis_command(b->redis, on_lookup, l, 7, argv, NULL);
}

/* The key of a load (kind '\0' id_or_name '\0' skeleton id) into buf;
 * its length, or 0 when it does not fit. */
static size_t load_key(char *buf, size_t cap, store_kind kind,
                       const char *id_or_name, const char *sk) {
  const char *kname = store_kind_name(kind);
  size_t kl = strlen(kname), nl = strlen(id_or_name), sl = strlen(sk);
  if (kl + 1 + nl + 1 + sl + 1 > cap) return 0;
  memcpy(buf, kname, kl + 1);
  memcpy(buf + kl + 1, id_or_name, nl + 1);
  memcpy(buf + kl + 1 + nl + 1, sk, sl + 1);
  return kl + 1 + nl + 1 + sl;
}

/* True when that asset was not found a moment ago (miss_cache.h). */
static bool miss_remembered(srv_redis_backend_t *b, store_kind kind,
                            const char *id_or_name, const char *sk) {
  char key[1024];
  size_t len = load_key(key, sizeof key, kind, id_or_name, sk);
  if (len == 0 || !srv_miss_cache_has(b->misses, key, len)) return false;
  __atomic_fetch_add(&b->stats.misses_remembered, 1, __ATOMIC_RELAXED);
  return true;
}

static bool add_waiter(load_t *l, srv_backend_cb cb, void *arg) {
  if (l->waiter_count == l->waiter_cap) {
    size_t cap = l->waiter_cap ? 2 * l->waiter_cap : 4;
    waiter_t *w = realloc(l->waiters, cap * sizeof *w);
    if (w == NULL) return false;
    l->waiters = w;
    l->waiter_cap = cap;
  }
  l->waiters[l->waiter_count++] = (waiter_t){cb, arg};
  return true;
}

static void fail_now(srv_backend_cb cb, void *arg, const char *what) {
  srv_backend_reply_t r = {0};
  reply_set(&r, SRV_BACKEND_FAILED, "%s", what);
  cb(arg, &r);
}

static void backend_load(void *self, store_kind kind, const char *id_or_name,
                         const char *skeleton_id, srv_backend_cb cb,
                         void *arg) {
  srv_redis_backend_t *b = self;
  if (b->closing || !srv_redis_up(b->redis)) {
    answer_unavailable(cb, arg);
    return;
  }
  const char *kname = store_kind_name(kind);
  const char *sk = skeleton_id ? skeleton_id : "";
  size_t kl = strlen(kname), nl = strlen(id_or_name), sl = strlen(sk);
  size_t key_len = kl + 1 + nl + 1 + sl;
  if (miss_remembered(b, kind, id_or_name, sk)) {
    srv_backend_reply_t r = {0};
    reply_set(&r, SRV_BACKEND_NOT_FOUND, "not found%s", "");
    cb(arg, &r);
    return;
  }
  for (load_t *l = b->loads; l; l = l->next)
    if (l->key_len == key_len && memcmp(l->key, kname, kl) == 0 &&
        memcmp(l->key + kl + 1, id_or_name, nl) == 0 &&
        memcmp(l->key + kl + 1 + nl + 1, sk, sl) == 0) {
      if (!add_waiter(l, cb, arg)) {
        fail_now(cb, arg, "out of memory");
        return;
      }
      b->stats.shared++;
      return;
    }
  load_t *l = calloc(1, sizeof *l);
  char *key = malloc(key_len + 1);
  if (l == NULL || key == NULL || !add_waiter(l, cb, arg)) {
    free(l ? l->waiters : NULL);
    free(l);
    free(key);
    fail_now(cb, arg, "out of memory");
    return;
  }
  memcpy(key, kname, kl + 1);
  memcpy(key + kl + 1, id_or_name, nl + 1);
  memcpy(key + kl + 1 + nl + 1, sk, sl + 1);
  l->key = key;
  l->key_len = key_len;
  l->kind = kind;
  l->owner = b;
  l->job.work = load_work;
  l->job.done = load_done;
  if (lookup_send(l) != 0) {
    free(l->waiters);
    free(l->key);
    free(l);
    answer_unavailable(cb, arg);
    return;
  }
  l->next = b->loads;
  b->loads = l;
}

/* ---- publish and remove
 * ------------------------------------------------------ */

typedef struct call_s {
  srv_redis_backend_t *owner;
  srv_backend_cb cb;
  void *arg;
} call_t;

static call_t *call_new(srv_redis_backend_t *b, srv_backend_cb cb, void *arg) {
  call_t *c = malloc(sizeof *c);
  if (c != NULL) *c = (call_t){b, cb, arg};
  return c;
}

/* The status word of a script's reply, or NULL; a lost connection sets
 * out to unavailable (what: "upload", "delete"). */
static const char *call_status(srv_backend_reply_t *out, redisReply *r,
                               const char *what) {
  if (r == NULL)
    reply_set(out, SRV_BACKEND_UNAVAILABLE,
              "the shared store (Redis) was lost before it confirmed the "
              "%s; send it again",
              what);
  return str_at(r, 0);
}

/* True when a script's status word is the wire string of code (the
 * scripts answer with the error table's codes, scripts.h). */
static bool is_status(const char *status, fmt_error_code code) {
  return status != NULL && fmt_error_lookup(status) == (int)code;
}

static int kind_of(const char *s, size_t len);

static int compare_moved(const void *pa, const void *pb) {
  const fmt_moved_name_t *a = pa, *b = pb;
  if (a->kind != b->kind) return (int)a->kind - (int)b->kind;
  return strcmp(a->old_id, b->old_id);
}

/* The names a replace moved: {kind, name, old id, new id, ...} (element
 * 2 of the publish reply), pointing into r, sorted by kind then old id.
 * Returns 0, or -1 when out of memory or not of that shape. */
static int take_moved(const redisReply *r, srv_backend_reply_t *out,
                      fmt_moved_name_t **moved) {
  *moved = NULL;
  if (r->elements < 3) return 0; /* A script without replace. */
  const redisReply *m = r->element[2];
  if (m->type != REDIS_REPLY_ARRAY || m->elements % 4 != 0) return -1;
  size_t n = m->elements / 4;
  *moved = calloc(n ? n : 1, sizeof **moved);
  if (*moved == NULL) return -1;
  for (size_t i = 0; i < n; i++) {
    const char *s[4];
    for (size_t k = 0; k < 4; k++) s[k] = str_at(m, 4 * i + k);
    int kind = s[0] ? kind_of(s[0], strlen(s[0])) : -1;
    if (kind < 0 || !s[1] || !s[2] || !s[3]) return -1;
    (*moved)[i] = (fmt_moved_name_t){.kind = (fmt_asset_kind)kind,
                                     .name = s[1],
                                     .old_id = s[2],
                                     .new_id = s[3]};
  }
  qsort(*moved, n, sizeof **moved, compare_moved);
  out->moved = *moved;
  out->moved_count = n;
  return 0;
}

static void on_publish(void *arg, redisReply *r) {
  call_t *c = arg;
  srv_backend_reply_t out = {0};
  fmt_moved_name_t *moved = NULL;
  const char *status = call_status(&out, r, "upload");
  if (r == NULL) {
    /* Unavailable. */
  } else if (status != NULL && strcmp(status, "ok") == 0) {
    out.status = SRV_BACKEND_OK;
    out.created = int_at(r, 1) != 0;
    if (take_moved(r, &out, &moved) != 0)
      reply_set(&out, SRV_BACKEND_FAILED,
                "stored, but what moved cannot be read (out of memory or "
                "an unexpected answer)%s",
                "");
    make_room(c->owner, 0); /* The upload is in the cache too. */
    /* Before the "add" event comes back: this node's next request finds
     * it. */
    srv_miss_cache_clear(c->owner->misses);
  } else if (is_status(status, FMT_ERR_NAME_CONFLICT)) {
    reply_set(&out, SRV_BACKEND_NAME_CONFLICT, "%s", str_at(r, 1));
    snprintf(out.at, sizeof out.at, "%s", str_at(r, 2) ? str_at(r, 2) : "");
  } else if (status != NULL && strcmp(status, "gone") == 0)
    reply_set(&out, SRV_BACKEND_GONE, "%s", str_at(r, 1));
  else
    reply_set(&out, SRV_BACKEND_FAILED, "the shared store answered: %s",
              r->type == REDIS_REPLY_ERROR ? r->str : "something unexpected");
  c->cb(c->arg, &out);
  free(moved);
  free(c);
}

static void backend_publish(void *self, const srv_backend_entry_t *entries,
                            size_t count, bool replace, srv_backend_cb cb,
                            void *arg) {
  srv_redis_backend_t *b = self;
  if (b->closing || !srv_redis_up(b->redis)) {
    answer_unavailable(cb, arg);
    return;
  }
  size_t argc = 4 + 7 * count + 1;
  const char **argv = calloc(argc, sizeof *argv);
  size_t *lens = calloc(argc, sizeof *lens);
  char(*numbers)[2][24] = calloc(count ? count : 1, sizeof *numbers);
  call_t *c = call_new(b, cb, arg);
  char n[24];
  snprintf(n, sizeof n, "%zu", count);
  if (argv && lens && numbers && c) {
    argv[0] = "EVAL";
    argv[1] = srv_redis_publish_script;
    argv[2] = "0";
    argv[3] = n;
    for (size_t i = 0; i < count; i++) {
      const store_asset_t *a = entries[i].asset;
      fmt_asset_summary_t sum;
      store_asset_summary(a, &sum);
      snprintf(numbers[i][0], sizeof numbers[i][0], "%u", (unsigned)sum.count);
      snprintf(numbers[i][1], sizeof numbers[i][1], "%.9g",
               (double)sum.duration);
      const char **e = argv + 4 + 7 * i;
      e[0] = store_kind_name(a->kind);
      e[1] = a->id;
      e[2] = a->name;
      e[3] = a->skeleton_asset ? a->skeleton_asset->id : "";
      e[4] = numbers[i][0];
      e[5] = numbers[i][1];
      e[6] = entries[i].text;
      lens[4 + 7 * i + 6] = entries[i].len;
    }
    argv[argc - 1] = replace ? "1" : "0";
    for (size_t i = 0; i < argc; i++)
      if (lens[i] == 0) lens[i] = strlen(argv[i]);
  }
  int rc =
      argv && lens && numbers && c
          ? srv_redis_command(b->redis, on_publish, c, (int)argc, argv, lens)
          : UV_ENOMEM;
  free(argv);
  free(lens);
  free(numbers);
  if (rc == 0) return;
  free(c);
  if (rc == UV_ENOMEM)
    fail_now(cb, arg, "out of memory");
  else
    answer_unavailable(cb, arg);
}

static void on_remove(void *arg, redisReply *r) {
  call_t *c = arg;
  srv_backend_reply_t out = {0};
  const char *status = call_status(&out, r, "delete");
  if (r == NULL) {
    /* Unavailable. */
  } else if (status != NULL && strcmp(status, "ok") == 0)
    out.status = SRV_BACKEND_OK;
  else if (is_status(status, FMT_ERR_NOT_FOUND))
    reply_set(&out, SRV_BACKEND_NOT_FOUND, "not found%s", "");
  else if (is_status(status, FMT_ERR_CONFLICT)) {
    out.status = SRV_BACKEND_CONFLICT;
    snprintf(out.message, sizeof out.message,
             "the skeleton still has %lld clip(s) and %lld mesh(es): "
             "delete them first",
             int_at(r, 1), int_at(r, 2));
  } else
    reply_set(&out, SRV_BACKEND_FAILED, "the shared store answered: %s",
              r->type == REDIS_REPLY_ERROR ? r->str : "something unexpected");
  c->cb(c->arg, &out);
  free(c);
}

/* Runs a script whose reply on_reply turns into cb's answer. */
static void call_script(srv_redis_backend_t *b,
                        void (*on_reply)(void *arg, redisReply *r),
                        srv_backend_cb cb, void *arg, int argc,
                        const char **argv) {
  if (b->closing || !srv_redis_up(b->redis)) {
    answer_unavailable(cb, arg);
    return;
  }
  call_t *c = call_new(b, cb, arg);
  if (c == NULL) {
    fail_now(cb, arg, "out of memory");
    return;
  }
  if (srv_redis_command(b->redis, on_reply, c, argc, argv, NULL) != 0) {
    free(c);
    answer_unavailable(cb, arg);
  }
}

static void backend_remove(void *self, store_kind kind, const char *id,
                           srv_backend_cb cb, void *arg) {
  const char *argv[] = {"EVAL", srv_redis_remove_script, "0",
                        store_kind_name(kind), id};
  call_script(self, on_remove, cb, arg, 5, argv);
}

/* {"ok", clip ids, mesh ids}: the removed clips and meshes as items. */
static void on_cascade(void *arg, redisReply *r) {
  call_t *c = arg;
  srv_backend_reply_t out = {0};
  const char *status = call_status(&out, r, "delete");
  fmt_asset_summary_t *items = NULL;
  if (r == NULL) {
    /* Unavailable. */
  } else if (status != NULL && strcmp(status, "ok") == 0 && r->elements == 3 &&
             r->element[1]->type == REDIS_REPLY_ARRAY &&
             r->element[2]->type == REDIS_REPLY_ARRAY) {
    size_t n = r->element[1]->elements + r->element[2]->elements;
    items = calloc(n ? n : 1, sizeof *items);
    if (items == NULL) {
      reply_set(&out, SRV_BACKEND_FAILED,
                "deleted, but out of memory to list what%s", "");
    } else {
      out.status = SRV_BACKEND_OK;
      for (size_t k = 0; k < 2; k++) {
        const redisReply *ids = r->element[1 + k];
        for (size_t i = 0; i < ids->elements; i++)
          if (ids->element[i]->type == REDIS_REPLY_STRING)
            items[out.count++] = (fmt_asset_summary_t){
                .kind = k == 0 ? FMT_ASSET_CLIP : FMT_ASSET_MESH,
                .id = ids->element[i]->str};
      }
      out.items = items;
    }
  } else if (is_status(status, FMT_ERR_NOT_FOUND))
    reply_set(&out, SRV_BACKEND_NOT_FOUND, "not found%s", "");
  else
    reply_set(&out, SRV_BACKEND_FAILED, "the shared store answered: %s",
              r->type == REDIS_REPLY_ERROR ? r->str : "something unexpected");
  c->cb(c->arg, &out);
  free(items);
  free(c);
}

static void backend_remove_cascade(void *self, const char *id,
                                   srv_backend_cb cb, void *arg) {
  const char *argv[] = {"EVAL", srv_redis_cascade_script, "0", id};
  call_script(self, on_cascade, cb, arg, 4, argv);
}

/* ---- listings
 * ---------------------------------------------------------------- */

/* Ids asked of Redis at a time: one script call stays short in Redis and
 * its reply small on the loop. */
#define LIST_PAGE 500

/* One asset listed: its strings are offsets in the listing's strings
 * until the listing is done (they move as the buffer grows). */
typedef struct listed_s {
  fmt_asset_summary_t summary; /* Without its strings. */
  size_t id_at, name_at, skeleton_at;
} listed_t;

/* A listing under way: one page of one kind at a time. */
typedef struct listing_s {
  srv_redis_backend_t *owner;
  srv_backend_cb cb;
  void *arg;
  int kind, last_kind;           /* The kind being listed, and the last one. */
  size_t max;                    /* Items at most. */
  size_t asked;                  /* Ids the page in flight asked for. */
  char skeleton[FMT_ID_LEN + 1]; /* "" for every asset. */
  char after[FMT_ID_LEN + 1];    /* The last id of the previous page. */
  listed_t *items;
  size_t count, cap;
  fmt_buf_t strings; /* The items' ids and names, NUL-separated. */
} listing_t;

static void listing_finish(listing_t *g, srv_backend_reply_t *out) {
  fmt_asset_summary_t *items = NULL;
  if (out->status == SRV_BACKEND_OK) {
    items = calloc(g->count ? g->count : 1, sizeof *items);
    if (items == NULL)
      reply_set(out, SRV_BACKEND_FAILED, "out of memory%s", "");
  }
  if (items != NULL) {
    const char *text = g->strings.data;
    for (size_t i = 0; i < g->count; i++) {
      const listed_t *it = &g->items[i];
      items[i] = it->summary;
      items[i].id = text + it->id_at;
      items[i].name = text + it->name_at;
      if (it->summary.kind != FMT_ASSET_SKELETON)
        items[i].skeleton = text + it->skeleton_at;
    }
    out->items = items;
    out->count = g->count;
  }
  g->cb(g->arg, out);
  free(items);
  free(g->items);
  fmt_buf_free(&g->strings);
  free(g);
}

/* The offset of s appended to the strings, with its NUL. */
static size_t listing_string(listing_t *g, const redisReply *s) {
  size_t at = g->strings.len;
  fmt_buf_append(&g->strings, s->str, s->len);
  fmt_buf_putc(&g->strings, '\0');
  return at;
}

static void listing_next(listing_t *g);

static void on_list_page(void *arg, redisReply *r) {
  listing_t *g = arg;
  srv_backend_reply_t out = {0};
  if (r == NULL) {
    reply_set(&out, SRV_BACKEND_UNAVAILABLE,
              "the shared store (Redis) was lost during the listing; retry "
              "later%s",
              "");
    listing_finish(g, &out);
    return;
  }
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
      r->element[0]->type != REDIS_REPLY_INTEGER ||
      r->element[1]->type != REDIS_REPLY_ARRAY ||
      r->element[1]->elements % 5 != 0 ||
      r->element[2]->type != REDIS_REPLY_STRING ||
      r->element[2]->len > FMT_ID_LEN) {
    reply_set(&out, SRV_BACKEND_FAILED, "the shared store answered: %s",
              r->type == REDIS_REPLY_ERROR ? r->str : "something unexpected");
    listing_finish(g, &out);
    return;
  }
  const redisReply *rows = r->element[1];
  size_t n = rows->elements / 5;
  if (g->count + n > g->cap) {
    size_t cap = g->cap ? g->cap : 64;
    while (cap < g->count + n) cap *= 2;
    listed_t *items = realloc(g->items, cap * sizeof *items);
    if (items == NULL) {
      reply_set(&out, SRV_BACKEND_FAILED, "out of memory%s", "");
      listing_finish(g, &out);
      return;
    }
    g->items = items;
    g->cap = cap;
  }
  for (size_t i = 0; i < n; i++) {
    redisReply *const *row = rows->element + 5 * i;
    bool strings = true;
    for (size_t k = 0; k < 5; k++)
      strings = strings && row[k]->type == REDIS_REPLY_STRING;
    if (!strings || row[0]->len != FMT_ID_LEN) continue;
    listed_t *it = &g->items[g->count++];
    it->summary =
        (fmt_asset_summary_t){.kind = (fmt_asset_kind)g->kind,
                              .count = (uint32_t)strtoul(row[3]->str, NULL, 10),
                              .duration = strtof(row[4]->str, NULL)};
    it->id_at = listing_string(g, row[0]);
    it->name_at = listing_string(g, row[1]);
    it->skeleton_at = listing_string(g, row[2]);
  }
  /* The next page starts after the last id of this one, listed or not (an
   * index entry whose asset is gone), so a page of stale entries cannot
   * come back forever. */
  memcpy(g->after, r->element[2]->str, r->element[2]->len);
  g->after[r->element[2]->len] = '\0';
  if (g->strings.failed) {
    reply_set(&out, SRV_BACKEND_FAILED, "out of memory%s", "");
    listing_finish(g, &out);
    return;
  }
  bool kind_done = (unsigned long long)r->element[0]->integer < g->asked;
  if (g->count >= g->max || kind_done) {
    if (g->count >= g->max || g->kind == g->last_kind) {
      out.status = SRV_BACKEND_OK;
      listing_finish(g, &out);
      return;
    }
    g->kind++;
    g->after[0] = '\0';
  }
  listing_next(g);
}

static void listing_next(listing_t *g) {
  char limit[24];
  g->asked = g->max - g->count < LIST_PAGE ? g->max - g->count : LIST_PAGE;
  snprintf(limit, sizeof limit, "%zu", g->asked);
  const char *argv[] = {"EVAL",      srv_redis_list_script,
                        "0",         store_kind_name((store_kind)g->kind),
                        g->skeleton, g->after,
                        limit};
  if (srv_redis_command(g->owner->redis, on_list_page, g, 7, argv, NULL) != 0) {
    srv_backend_reply_t out = {0};
    reply_set(&out, SRV_BACKEND_UNAVAILABLE,
              "the shared store (Redis) cannot be reached; retry later%s", "");
    listing_finish(g, &out);
  }
}

static void backend_list(void *self, store_kind kind, const char *skeleton_id,
                         const char *after, size_t max, srv_backend_cb cb,
                         void *arg) {
  srv_redis_backend_t *b = self;
  if (b->closing || !srv_redis_up(b->redis)) {
    answer_unavailable(cb, arg);
    return;
  }
  listing_t *g = calloc(1, sizeof *g);
  if (g == NULL) {
    fail_now(cb, arg, "out of memory");
    return;
  }
  g->owner = b;
  g->cb = cb;
  g->arg = arg;
  fmt_buf_init(&g->strings);
  g->kind = (int)kind;
  g->last_kind = skeleton_id != NULL ? (int)kind : STORE_MESH;
  if (skeleton_id != NULL)
    snprintf(g->skeleton, sizeof g->skeleton, "%s", skeleton_id);
  snprintf(g->after, sizeof g->after, "%s", after ? after : "");
  g->max = max ? max : 1;
  listing_next(g);
}

/* A connection of the pool's (the loop's connection belongs to the
 * loop), for one lookup and its adoption. */
static srv_backend_status backend_load_blocking(void *self, store_kind kind,
                                                const char *id_or_name,
                                                const char *skeleton_id) {
  srv_redis_backend_t *b = self;
  const char *sk = skeleton_id ? skeleton_id : "";
  if (miss_remembered(b, kind, id_or_name, sk)) return SRV_BACKEND_NOT_FOUND;
  redisContext *ctx = srv_redis_pool_take(b->conns);
  if (ctx == NULL) return SRV_BACKEND_UNAVAILABLE;
  load_t l = {.owner = b, .kind = kind};
  const char *argv[] = {"EVAL",     srv_redis_lookup_script,
                        "0",        store_kind_name(kind),
                        id_or_name, sk,
                        LISTED};
  bool broken = false;
  for (l.lookups = 1; l.lookups <= MAX_LOOKUPS; l.lookups++) {
    if (l.lookups > 1) __atomic_fetch_add(&b->stats.stale, 1, __ATOMIC_RELAXED);
    l.stale = false;
    l.since = drop_epoch(b);
    l.miss_generation = srv_miss_cache_generation(b->misses);
    redisReply *r = redisCommandArgv(ctx, 7, argv, NULL);
    broken = r == NULL;
    if (take_lookup(&l, r, id_or_name) == 0) load_work(&l.job);
    if (r != NULL) freeReplyObject(r);
    free(l.text);
    free(l.skeleton_text);
    l.text = l.skeleton_text = NULL;
    if (broken || !l.stale) break;
    reply_set(&l.reply, SRV_BACKEND_UNAVAILABLE,
              "the asset keeps being dropped while it loads; retry later%s",
              "");
  }
  srv_redis_pool_give(b->conns, ctx, broken);
  if (l.reply.status == SRV_BACKEND_OK)
    __atomic_fetch_add(&b->stats.loads, 1, __ATOMIC_RELAXED);
  if (l.reply.status == SRV_BACKEND_NOT_FOUND) {
    char key[1024];
    size_t len = load_key(key, sizeof key, kind, id_or_name, sk);
    if (len != 0) srv_miss_cache_add(b->misses, key, len, l.miss_generation);
  }
  return l.reply.status;
}

static bool backend_available(void *self) {
  srv_redis_backend_t *b = self;
  return !b->closing && srv_redis_up(b->redis);
}

static const srv_backend_ops_t ops = {
    .load = backend_load,
    .publish = backend_publish,
    .remove = backend_remove,
    .remove_cascade = backend_remove_cascade,
    .list = backend_list,
    .load_blocking = backend_load_blocking,
    .available = backend_available,
};

/* ---- published changes
 * ---------------------------------------------------------- */

static int kind_of(const char *s, size_t len) {
  for (int k = STORE_SKELETON; k <= STORE_MESH; k++) {
    const char *n = store_kind_name((store_kind)k);
    if (strlen(n) == len && memcmp(n, s, len) == 0) return k;
  }
  return -1;
}

/* "drop <kind> <id>" or "name <kind> <name>", on the loop: each costs what
 * it drops (a probe by id, a name's group), never a walk of the cache.
 * Uploads bound names (STORE_NAME_MAX), but an event of any length is
 * taken: assets stored before the bound may have longer names. */
static void on_message(void *arg, const char *payload, size_t len) {
  srv_redis_backend_t *b = arg;
  char stack[512];
  char *text = len < sizeof stack ? stack : malloc(len + 1);
  if (text == NULL) {
    /* Cannot tell what to drop: drop everything. */
    drop_mark(b, 0);
    b->stats.drops += store_drop_all(b->store);
    return;
  }
  memcpy(text, payload, len);
  text[len] = '\0';
  if (strcmp(text, "add") == 0 || strncmp(text, "name ", 5) == 0)
    srv_miss_cache_clear(b->misses); /* A miss may find something now. */
  char *verb = text, *kind = strchr(verb, ' ');
  char *what = kind ? strchr(kind + 1, ' ') : NULL;
  int k = what ? kind_of(kind + 1, (size_t)(what - kind - 1)) : -1;
  if (k >= 0) {
    *kind = *what = '\0';
    what++;
    if (strcmp(verb, "drop") == 0) {
      drop_mark(b, mark_hash('d', (store_kind)k, what));
      b->stats.drops += store_drop(b->store, (store_kind)k, what);
    } else if (strcmp(verb, "name") == 0) {
      drop_mark(b, mark_hash('n', (store_kind)k, what));
      b->stats.drops += store_drop_named(b->store, (store_kind)k, what);
    }
  }
  if (text != stack) free(text);
}

static void on_resubscribed(void *arg) {
  srv_redis_backend_t *b = arg;
  drop_mark(b, 0);
  srv_miss_cache_clear(b->misses);
  store_drop_all(b->store);
  b->stats.flushes++;
}

/* ---- life cycle
 * ---------------------------------------------------------------------- */

int srv_redis_backend_open(uv_loop_t *loop, const char *url, store_t *store,
                           srv_pool_t *pool, size_t max_bytes,
                           const srv_redis_backend_limits_t *limits,
                           srv_redis_backend_t **out, char *err,
                           size_t err_len) {
  srv_redis_opts_t o = {0};
  if (srv_redis_parse_url(url, &o, err, err_len) != 0) return -1;
  srv_redis_backend_t *b = calloc(1, sizeof *b);
  if (b == NULL) {
    snprintf(err, err_len, "store: out of memory");
    return -1;
  }
  pthread_mutex_init(&b->marks_lock, NULL);
  b->loop = loop;
  b->store = store;
  b->pool = pool;
  b->max_bytes = max_bytes;
  snprintf(b->url, sizeof b->url, "%s", url);
  b->iface = (srv_backend_t){.ops = &ops, .self = b, .name = b->url};
  o.timeout_ms = limits->timeout_ms ? limits->timeout_ms : SRV_REDIS_TIMEOUT_MS;
  o.channel = SRV_REDIS_CHANNEL;
  o.on_message = on_message;
  o.on_resubscribed = on_resubscribed;
  o.arg = b;
  b->opts = o;
  b->conns = srv_redis_pool_new(&o, limits->pool_size);
  b->misses = srv_miss_cache_new(limits->miss_ttl_ms);
  if (b->conns == NULL || b->misses == NULL ||
      srv_redis_open(loop, &o, &b->redis) != 0) {
    srv_redis_pool_free(b->conns);
    srv_miss_cache_free(b->misses);
    free(b);
    snprintf(err, err_len, "store: out of memory");
    return -1;
  }
  *out = b;
  return 0;
}

const srv_backend_t *srv_redis_backend(srv_redis_backend_t *b) {
  return &b->iface;
}

void srv_redis_backend_close(srv_redis_backend_t *b) {
  if (b == NULL) return;
  b->closing = true;
  srv_redis_t *r = b->redis;
  srv_redis_close(r); /* Lookups in flight finish as unavailable. */
  b->redis = NULL;
  if (b->jobs == 0) backend_free(b);
}

void srv_redis_backend_stats(const srv_redis_backend_t *b,
                             srv_redis_backend_stats_t *out) {
  *out = b->stats;
  out->misses_remembered =
      __atomic_load_n(&b->stats.misses_remembered, __ATOMIC_RELAXED);
  out->stale = __atomic_load_n(&b->stats.stale, __ATOMIC_RELAXED);
  out->pool_connects = srv_redis_pool_connects(b->conns);
  out->evictions = __atomic_load_n(&b->stats.evictions, __ATOMIC_RELAXED);
  out->loads = __atomic_load_n(&b->stats.loads, __ATOMIC_RELAXED);
  if (b->redis) {
    out->connects = srv_redis_connects(b->redis);
    out->losses = srv_redis_losses(b->redis);
  }
}
