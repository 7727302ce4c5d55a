/* Tests for the Redis store backend (server/redis/store_backend.h) through
 * its backend.h operations, against a real redis-server (redis_fixture.h):
 * publishing an upload (created or not, a name conflict and where it is,
 * names moved with replace and back, a clip whose
 * skeleton is gone), loading a miss into the node's cache by id or name
 * (one load shared by concurrent requests, a name two assets share found
 * by neither), loading from a worker thread, removing (a skeleton that
 * still has clips, a second remove, the wrong kind), the cascading remove,
 * listings (every asset by kind then id, paged past 500 ids, a skeleton's
 * clips), the published changes every node drops from its cache, a cache
 * kept under its memory limit, Redis answering an error, and the
 * unavailable paths: a URL where nothing listens, and a server stopped
 * mid-test (by its PID) then started again (the cache is emptied). */
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/native_json.h"
#include "redis_fixture.h"
#include "server/redis/scripts.h"
#include "server/redis/store_backend.h"
#include "store/cache.h"
#include "store/store.h"

/* ---- what a backend answers ------------------------------------------------
 */

typedef struct item_s {
  fmt_asset_kind kind;
  char id[FMT_ID_LEN + 1];
  char name[300];
  char skeleton[FMT_ID_LEN + 1];
  uint32_t count;
  float duration;
} item_t;

typedef struct moved_s {
  fmt_asset_kind kind;
  char name[64], old_id[FMT_ID_LEN + 1], new_id[FMT_ID_LEN + 1];
} moved_t;

typedef struct box_s {
  int calls;
  srv_backend_status status;
  bool created;
  char message[512];
  char at[64];
  size_t count;
  item_t *items;
  size_t moved_count;
  moved_t moved[4];
} box_t;

static void on_reply(void *arg, const srv_backend_reply_t *r) {
  box_t *b = arg;
  b->calls++;
  b->status = r->status;
  b->created = r->created;
  snprintf(b->message, sizeof b->message, "%s", r->message);
  snprintf(b->at, sizeof b->at, "%s", r->at);
  b->moved_count = r->moved_count;
  ck_assert_uint_le(r->moved_count, 4);
  for (size_t i = 0; i < r->moved_count; i++) {
    moved_t *m = &b->moved[i];
    m->kind = r->moved[i].kind;
    snprintf(m->name, sizeof m->name, "%s", r->moved[i].name);
    snprintf(m->old_id, sizeof m->old_id, "%s", r->moved[i].old_id);
    snprintf(m->new_id, sizeof m->new_id, "%s", r->moved[i].new_id);
  }
  free(b->items);
  b->items = NULL;
  /* items and count are set for answers that list something (OK). */
  b->count = r->status == SRV_BACKEND_OK ? r->count : 0;
  if (b->count == 0) return;
  ck_assert_ptr_nonnull(r->items);
  b->items = calloc(r->count, sizeof *b->items);
  ck_assert_ptr_nonnull(b->items);
  for (size_t i = 0; i < r->count; i++) {
    const fmt_asset_summary_t *s = &r->items[i];
    item_t *it = &b->items[i];
    it->kind = s->kind;
    ck_assert_ptr_nonnull(s->id);
    snprintf(it->id, sizeof it->id, "%s", s->id);
    snprintf(it->name, sizeof it->name, "%s", s->name ? s->name : "");
    snprintf(it->skeleton, sizeof it->skeleton, "%s",
             s->skeleton ? s->skeleton : "");
    it->count = s->count;
    it->duration = s->duration;
  }
}

static void box_free(box_t *b) {
  free(b->items);
  memset(b, 0, sizeof *b);
}

/* ---- the node: a loop, a cache, a pool and the backend ------------------- */

typedef struct node_s {
  uv_loop_t loop;
  uv_timer_t tick; /* Wakes UV_RUN_ONCE: waits stay bounded. */
  store_t *cache;
  srv_pool_t pool;
  srv_redis_backend_t *rb;
  const srv_backend_t *be;
} node_t;

static node_t nd;

static void on_tick(uv_timer_t *t) { (void)t; }

static store_t *memory_store(void) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  return s;
}

static bool available(void) { return nd.be->ops->available(nd.be->self); }

static void run_for(int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (redis_now_ms() < end) uv_run(&nd.loop, UV_RUN_ONCE);
}

static bool run_until_available(bool want, int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (available() != want && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  return available() == want;
}

static bool run_until_calls(const box_t *b, int want, int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (b->calls < want && redis_now_ms() < end) uv_run(&nd.loop, UV_RUN_ONCE);
  return b->calls >= want;
}

/* The miss cache of the next node opened (0: none). */
static unsigned nd_miss_ttl_ms;

static void node_open_url(const char *url, size_t max_bytes,
                          unsigned timeout_ms) {
  memset(&nd, 0, sizeof nd);
  ck_assert_int_eq(uv_loop_init(&nd.loop), 0);
  uv_timer_init(&nd.loop, &nd.tick);
  uv_timer_start(&nd.tick, on_tick, 5, 5);
  nd.cache = memory_store();
  ck_assert_int_eq(srv_pool_init(&nd.pool, &nd.loop, 2, 64), 0);
  char err[256] = "";
  srv_redis_backend_limits_t limits = {.timeout_ms = timeout_ms,
                                       .miss_ttl_ms = nd_miss_ttl_ms};
  ck_assert_msg(srv_redis_backend_open(&nd.loop, url, nd.cache, &nd.pool,
                                       max_bytes, &limits, &nd.rb, err,
                                       sizeof err) == 0,
                "%s", err);
  nd.be = srv_redis_backend(nd.rb);
  ck_assert_ptr_nonnull(nd.be);
  ck_assert_ptr_nonnull(nd.be->ops);
  ck_assert_ptr_eq(nd.be->self, nd.rb);
  ck_assert_str_eq(nd.be->name, url);
}

static void node_open_port(int port, size_t max_bytes, unsigned timeout_ms,
                           bool wait_up) {
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
  node_open_url(url, max_bytes, timeout_ms);
  if (wait_up) ck_assert(run_until_available(true, 5000));
}

static void node_close(void) {
  srv_redis_backend_close(nd.rb);
  nd.rb = NULL;
  srv_pool_close(&nd.pool);
  uv_close((uv_handle_t *)&nd.tick, NULL);
  uint64_t end = redis_now_ms() + 5000;
  while (uv_loop_alive(&nd.loop) && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_loop_close(&nd.loop), 0);
  store_close(nd.cache);
}

static srv_redis_backend_stats_t stats(void) {
  srv_redis_backend_stats_t st;
  srv_redis_backend_stats(nd.rb, &st);
  return st;
}

static size_t cached_assets(void) {
  store_stats_t st;
  store_stats(nd.cache, &st);
  return st.skeletons + st.clips + st.meshes;
}

static bool cached(store_kind kind, const char *id_or_name,
                   const store_asset_t *skeleton) {
  store_asset_t *a = store_lookup(nd.cache, kind, id_or_name, skeleton);
  if (a == NULL) return false;
  store_asset_release(a);
  return true;
}

/* ---- uploads: made in a store of their own, as the API makes them ------- */

typedef struct upload_s {
  store_t *src;
  store_ingest_result_t r;
  fmt_buf_t texts[8];
} upload_t;

/* A one-joint rig named skeleton (its root at height y, so rigs of one name
 * differ) with a clip named clip and, when mesh, a mesh "body". */
static void upload_rig_x(upload_t *u, const char *skeleton, int y,
                         const char *clip, bool mesh, int clip_x) {
  char text[4096];
  snprintf(text, sizeof text,
           "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":\"root\","
           "\"parent\":-1,\"translation\":[0,%d,0]},{\"name\":\"tip\","
           "\"parent\":0,\"translation\":[0,1,0]}]},"
           "\"clips\":[{\"name\":\"%s\",\"tracks\":[{\"joint\":\"root\","
           "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
           "\"times\":[0,1.5],\"values\":[0,0,0,%d,0,0]}]}]%s}",
           skeleton, y, clip, clip_x,
           mesh ? ",\"meshes\":[{\"name\":\"body\",\"positions\":[0,0,0,1,0,0,"
                  "0,1,0],\"joints\":[0,0,0,0,0,0,0,0,1,0,0,0],\"weights\":["
                  "1,0,0,0,1,0,0,0,1,0,0,0]}]"
                : "");
  memset(u, 0, sizeof *u);
  u->src = memory_store();
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_msg(fmt_decode_native_json(text, strlen(text), NULL, &b, &err) == 0,
                "%s", err.message);
  ck_assert_msg(store_ingest(u->src, &b, NULL, &u->r, &err) == 0, "%s",
                err.message);
  fmt_bundle_free(&b);
  ck_assert_uint_le(u->r.count, 8);
  for (size_t i = 0; i < u->r.count; i++) {
    fmt_buf_init(&u->texts[i]);
    ck_assert_int_eq(store_asset_encode(u->r.entries[i].asset, &u->texts[i]),
                     0);
  }
}

static void upload_rig(upload_t *u, const char *skeleton, int y,
                       const char *clip, bool mesh) {
  upload_rig_x(u, skeleton, y, clip, mesh, 1);
}

static void upload_free(upload_t *u) {
  for (size_t i = 0; i < u->r.count; i++) fmt_buf_free(&u->texts[i]);
  store_ingest_result_free(&u->r);
  store_close(u->src);
}

static const store_asset_t *asset(const upload_t *u, size_t i) {
  ck_assert_uint_lt(i, u->r.count);
  return u->r.entries[i].asset;
}

static const char *id_of(const upload_t *u, size_t i) {
  return asset(u, i)->id;
}

/* Publishes entries from..from+n of u (moving their names with replace)
 * and waits for the answer. */
static void publish_as(const upload_t *u, size_t from, size_t n, bool replace,
                       box_t *b) {
  srv_backend_entry_t e[8];
  for (size_t i = 0; i < n; i++)
    e[i] = (srv_backend_entry_t){.asset = asset(u, from + i),
                                 .text = u->texts[from + i].data,
                                 .len = u->texts[from + i].len};
  int before = b->calls;
  nd.be->ops->publish(nd.be->self, e, n, replace, on_reply, b);
  ck_assert(run_until_calls(b, before + 1, 5000));
  ck_assert_int_eq(b->calls, before + 1);
}

static void publish_some(const upload_t *u, size_t from, size_t n, box_t *b) {
  publish_as(u, from, n, false, b);
}

static void publish(const upload_t *u, box_t *b) {
  publish_some(u, 0, u->r.count, b);
}

static void publish_replace(const upload_t *u, box_t *b) {
  publish_as(u, 0, u->r.count, true, b);
}

static void load(store_kind kind, const char *q, const char *skeleton_id,
                 box_t *b) {
  int before = b->calls;
  nd.be->ops->load(nd.be->self, kind, q, skeleton_id, on_reply, b);
  ck_assert(run_until_calls(b, before + 1, 5000));
}

static void remove_asset(store_kind kind, const char *id, box_t *b) {
  int before = b->calls;
  nd.be->ops->remove(nd.be->self, kind, id, on_reply, b);
  ck_assert(run_until_calls(b, before + 1, 5000));
}

static void list(store_kind kind, const char *skeleton_id, box_t *b) {
  int before = b->calls;
  nd.be->ops->list(nd.be->self, kind, skeleton_id, "", SIZE_MAX, on_reply, b);
  ck_assert(run_until_calls(b, before + 1, 5000));
}

/* ---- publish
 * ------------------------------------------------------------------- */

START_TEST(test_publish_then_load_by_id) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", true);
  ck_assert_uint_eq(u.r.count, 3);
  box_t b = {0};
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  /* The same upload again: nothing new. */
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(!b.created);
  /* Redis keeps the text and the summary of each. */
  redisReply *r =
      redis_sync(suite_redis.port, "HGETALL animd:a:%s", id_of(&u, 1));
  ck_assert_ptr_nonnull(r);
  ck_assert_uint_eq(r->elements, 12);
  for (size_t i = 0; i < r->elements; i += 2) {
    const char *k = r->element[i]->str, *v = r->element[i + 1]->str;
    if (strcmp(k, "kind") == 0) ck_assert_str_eq(v, "clip");
    if (strcmp(k, "name") == 0) ck_assert_str_eq(v, "wave");
    if (strcmp(k, "skeleton") == 0) ck_assert_str_eq(v, id_of(&u, 0));
    if (strcmp(k, "duration") == 0) ck_assert_str_eq(v, "1.5");
    if (strcmp(k, "text") == 0) {
      ck_assert_uint_eq(r->element[i + 1]->len, u.texts[1].len);
      ck_assert_int_eq(memcmp(v, u.texts[1].data, u.texts[1].len), 0);
    }
  }
  freeReplyObject(r);
  /* The cache is empty: a load brings the clip and its skeleton. */
  ck_assert_uint_eq(cached_assets(), 0);
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(cached(STORE_CLIP, id_of(&u, 1), NULL));
  ck_assert(cached(STORE_SKELETON, id_of(&u, 0), NULL));
  ck_assert(!cached(STORE_MESH, id_of(&u, 2), NULL));
  ck_assert_uint_eq(cached_assets(), 2);
  load(STORE_MESH, id_of(&u, 2), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 3);
  /* The cached copy is the same asset: same id, same name. */
  store_asset_t *a = store_lookup(nd.cache, STORE_CLIP, id_of(&u, 1), NULL);
  ck_assert_ptr_nonnull(a);
  ck_assert_str_eq(a->name, "wave");
  ck_assert_ptr_nonnull(a->skeleton_asset);
  ck_assert_str_eq(a->skeleton_asset->id, id_of(&u, 0));
  store_asset_release(a);
  srv_redis_backend_stats_t st = stats();
  ck_assert_uint_eq(st.loads, 2);
  ck_assert_uint_eq(st.shared, 0);
  ck_assert_uint_eq(st.connects, 2);
  ck_assert_uint_eq(st.losses, 0);
  box_free(&b);
  upload_free(&u);
  node_close();
}
END_TEST

/* Another node uploads another clip named "wave" for the same skeleton:
 * refused, and nothing of it is written. */
START_TEST(test_publish_name_conflict) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Armature", 0, "wave", false);
  upload_rig_x(&v, "Armature", 0, "wave", false, 2);
  ck_assert_str_eq(id_of(&u, 0), id_of(&v, 0));
  ck_assert_str_ne(id_of(&u, 1), id_of(&v, 1));
  box_t b = {0};
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  publish(&v, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NAME_CONFLICT);
  char want[256];
  snprintf(want, sizeof want,
           "the skeleton already has a clip named 'wave' (%s)", id_of(&u, 1));
  ck_assert_str_eq(b.message, want);
  ck_assert_str_eq(b.at, "clips[0].name");
  ck_assert(!b.created);
  redisReply *r =
      redis_sync(suite_redis.port, "EXISTS animd:a:%s", id_of(&v, 1));
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
  /* The same clip again is no conflict with itself. */
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(!b.created);
  /* Once the first is removed, the name is free. */
  remove_asset(STORE_CLIP, id_of(&u, 1), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  publish(&v, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

/* What Redis says of an asset's "unnamed" field ("" when unset). */
static void unnamed_field(const char *id, char *out, size_t cap) {
  redisReply *r = redis_sync(suite_redis.port, "HGET animd:a:%s unnamed", id);
  ck_assert_ptr_nonnull(r);
  snprintf(out, cap, "%s", r->type == REDIS_REPLY_STRING ? r->str : "");
  freeReplyObject(r);
}

/* With replace, another clip "wave" for the same skeleton is no conflict:
 * the name moves to it (the old clip marked unnamed in Redis, and cached
 * here without its name when loaded by id), the reply says what moved;
 * the same upload again moves nothing, and the first one again takes the
 * name back. */
START_TEST(test_publish_replace) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Armature", 0, "wave", false);
  upload_rig_x(&v, "Armature", 0, "wave", false, 2);
  box_t b = {0};
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.moved_count, 0);
  publish_replace(&v, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  ck_assert_uint_eq(b.moved_count, 1);
  ck_assert_int_eq(b.moved[0].kind, FMT_ASSET_CLIP);
  ck_assert_str_eq(b.moved[0].name, "wave");
  ck_assert_str_eq(b.moved[0].old_id, id_of(&u, 1));
  ck_assert_str_eq(b.moved[0].new_id, id_of(&v, 1));
  char flag[8];
  unnamed_field(id_of(&u, 1), flag, sizeof flag);
  ck_assert_str_eq(flag, "1");
  /* The old clip by id, then the name: the new one, not ambiguous. */
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  load(STORE_CLIP, "wave", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  store_asset_t *a = store_lookup(nd.cache, STORE_CLIP, "wave", NULL);
  ck_assert_ptr_nonnull(a);
  ck_assert_str_eq(a->id, id_of(&v, 1));
  store_asset_release(a);
  ck_assert(cached(STORE_CLIP, id_of(&u, 1), NULL));
  /* Again: nothing new, nothing moved. */
  publish_replace(&v, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(!b.created);
  ck_assert_uint_eq(b.moved_count, 0);
  /* The first again: the name comes back to it. */
  publish_replace(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.moved_count, 1);
  ck_assert_str_eq(b.moved[0].old_id, id_of(&v, 1));
  ck_assert_str_eq(b.moved[0].new_id, id_of(&u, 1));
  unnamed_field(id_of(&u, 1), flag, sizeof flag);
  ck_assert_str_eq(flag, "");
  unnamed_field(id_of(&v, 1), flag, sizeof flag);
  ck_assert_str_eq(flag, "1");
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

START_TEST(test_publish_clip_of_missing_skeleton) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", true);
  box_t b = {0};
  /* The clip and the mesh without their skeleton. */
  publish_some(&u, 1, 2, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_GONE);
  char want[256];
  snprintf(want, sizeof want, "skeleton %s was deleted", id_of(&u, 0));
  ck_assert_str_eq(b.message, want);
  redisReply *r = redis_sync(suite_redis.port, "DBSIZE");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
  /* With the skeleton stored first, they are accepted. */
  publish_some(&u, 0, 1, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  publish_some(&u, 1, 2, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  box_free(&b);
  upload_free(&u);
  node_close();
}
END_TEST

/* ---- loads ------------------------------------------------------------------
 */

START_TEST(test_load_miss) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  box_t b = {0};
  char id[FMT_ID_LEN + 1];
  memset(id, 'a', FMT_ID_LEN);
  id[FMT_ID_LEN] = '\0';
  load(STORE_SKELETON, id, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  ck_assert_str_eq(b.message, "not found");
  load(STORE_CLIP, "nobody", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  load(STORE_CLIP, "nobody", id, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  ck_assert_int_eq(b.calls, 3);
  ck_assert_uint_eq(stats().loads, 0);
  ck_assert_uint_eq(cached_assets(), 0);
  box_free(&b);
  node_close();
}
END_TEST

START_TEST(test_load_by_name) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Hero", 0, "run", true);
  upload_rig(&v, "Villain", 0, "run", false);
  box_t b = {0};
  publish(&u, &b);
  publish(&v, &b);
  /* A skeleton by its name. */
  load(STORE_SKELETON, "Hero", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(cached(STORE_SKELETON, id_of(&u, 0), NULL));
  ck_assert(!cached(STORE_SKELETON, id_of(&v, 0), NULL));
  /* A clip by its name within its skeleton; the other rig's "run" is
   * another clip. */
  load(STORE_CLIP, "run", id_of(&v, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(cached(STORE_CLIP, id_of(&v, 1), NULL));
  ck_assert(!cached(STORE_CLIP, id_of(&u, 1), NULL));
  /* "run" alone names two clips: ambiguous (loads neither). */
  load(STORE_CLIP, "run", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_AMBIGUOUS);
  ck_assert_ptr_nonnull(strstr(b.message, "'run' names 2 clips: "));
  /* A mesh name unique across skeletons is found without one. */
  load(STORE_MESH, "body", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(cached(STORE_MESH, id_of(&u, 2), NULL));
  /* An id with a skeleton it does not belong to is not found. */
  load(STORE_CLIP, id_of(&u, 1), id_of(&v, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  /* A skeleton's name with the wrong kind is not found. */
  load(STORE_CLIP, "Hero", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

/* A second skeleton named like the first: the name now stands for none,
 * and every node drops what it cached under it (published "name"). */
START_TEST(test_name_shared_by_two) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Armature", 0, "wave", false);
  upload_rig(&v, "Armature", 7, "jump", false);
  box_t b = {0};
  publish(&u, &b);
  load(STORE_SKELETON, "Armature", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  load(STORE_CLIP, "wave", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 2);
  ck_assert_uint_eq(stats().drops, 0);
  publish(&v, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  /* The message comes on the subscription: the skeleton and its clip. */
  uint64_t end = redis_now_ms() + 5000;
  while (stats().drops < 2 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(stats().drops, 2);
  ck_assert_uint_eq(cached_assets(), 0);
  /* Ambiguous, as on one node: 409 ambiguous listing both ids. */
  load(STORE_SKELETON, "Armature", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_AMBIGUOUS);
  const char *lo = id_of(&u, 0), *hi = id_of(&v, 0);
  if (strcmp(lo, hi) > 0) {
    const char *t = lo;
    lo = hi;
    hi = t;
  }
  char want[512];
  snprintf(want, sizeof want,
           "'Armature' names 2 skeletons: %s, %s (use an id)", lo, hi);
  ck_assert_str_eq(b.message, want);
  ck_assert_uint_eq(cached_assets(), 0);
  /* Each by its id. */
  load(STORE_SKELETON, id_of(&u, 0), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  load(STORE_SKELETON, id_of(&v, 0), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 2);
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

START_TEST(test_concurrent_loads_share_one) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", false);
  box_t p = {0};
  publish(&u, &p);
  enum { N = 5 };
  box_t b[N];
  memset(b, 0, sizeof b);
  for (int i = 0; i < N; i++)
    nd.be->ops->load(nd.be->self, STORE_CLIP, "wave", id_of(&u, 0), on_reply,
                     &b[i]);
  /* Another key is another load. */
  box_t other = {0};
  nd.be->ops->load(nd.be->self, STORE_CLIP, "wave", NULL, on_reply, &other);
  for (int i = 0; i < N; i++) {
    ck_assert(run_until_calls(&b[i], 1, 5000));
    ck_assert_int_eq(b[i].calls, 1);
    ck_assert_int_eq(b[i].status, SRV_BACKEND_OK);
  }
  ck_assert(run_until_calls(&other, 1, 5000));
  ck_assert_int_eq(other.status, SRV_BACKEND_OK);
  srv_redis_backend_stats_t st = stats();
  ck_assert_uint_eq(st.shared, N - 1);
  ck_assert_uint_eq(st.loads, 2);
  ck_assert_uint_eq(cached_assets(), 2);
  for (int i = 0; i < N; i++) box_free(&b[i]);
  box_free(&other);
  box_free(&p);
  upload_free(&u);
  node_close();
}
END_TEST

typedef struct blocking_s {
  const srv_backend_t *be;
  store_kind kind;
  const char *q;
  srv_backend_status status;
} blocking_t;

static void *load_blocking_thread(void *arg) {
  blocking_t *t = arg;
  t->status = t->be->ops->load_blocking(t->be->self, t->kind, t->q, NULL);
  return NULL;
}

static srv_backend_status load_blocking(store_kind kind, const char *q) {
  blocking_t t = {nd.be, kind, q, SRV_BACKEND_FAILED};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, load_blocking_thread, &t), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  return t.status;
}

START_TEST(test_load_blocking_from_a_worker) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", true);
  box_t b = {0};
  publish(&u, &b);
  ck_assert_int_eq(load_blocking(STORE_MESH, id_of(&u, 2)), SRV_BACKEND_OK);
  ck_assert(cached(STORE_MESH, id_of(&u, 2), NULL));
  ck_assert(cached(STORE_SKELETON, id_of(&u, 0), NULL));
  ck_assert_int_eq(load_blocking(STORE_SKELETON, "Armature"), SRV_BACKEND_OK);
  ck_assert_int_eq(load_blocking(STORE_CLIP, "nothing"), SRV_BACKEND_NOT_FOUND);
  ck_assert_uint_eq(stats().loads, 2);
  box_free(&b);
  upload_free(&u);
  node_close();
}
END_TEST

/* ---- removes
 * -------------------------------------------------------------------- */

START_TEST(test_remove) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", true);
  box_t b = {0};
  publish(&u, &b);
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 2);
  /* A skeleton with a clip and a mesh stays. */
  remove_asset(STORE_SKELETON, id_of(&u, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_CONFLICT);
  ck_assert_str_eq(b.message, "the skeleton still has 1 clip(s) and 1 "
                              "mesh(es): delete them first");
  /* The wrong kind is not found. */
  remove_asset(STORE_MESH, id_of(&u, 1), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  ck_assert_str_eq(b.message, "not found");
  remove_asset(STORE_CLIP, id_of(&u, 1), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  /* Every node drops it (the published "drop"), this one too. */
  uint64_t end = redis_now_ms() + 5000;
  while (stats().drops < 1 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(stats().drops, 1);
  ck_assert(!cached(STORE_CLIP, id_of(&u, 1), NULL));
  ck_assert(cached(STORE_SKELETON, id_of(&u, 0), NULL));
  remove_asset(STORE_CLIP, id_of(&u, 1), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  load(STORE_CLIP, "wave", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  remove_asset(STORE_SKELETON, id_of(&u, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_CONFLICT);
  ck_assert_str_eq(b.message, "the skeleton still has 0 clip(s) and 1 "
                              "mesh(es): delete them first");
  remove_asset(STORE_MESH, id_of(&u, 2), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  remove_asset(STORE_SKELETON, id_of(&u, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  /* Nothing is left in Redis: no asset, no index, no name. */
  redisReply *r = redis_sync(suite_redis.port, "DBSIZE");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
  box_free(&b);
  upload_free(&u);
  node_close();
}
END_TEST

START_TEST(test_remove_cascade) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Armature", 0, "wave", true);
  upload_rig(&v, "Other", 0, "jump", false);
  box_t b = {0};
  publish(&u, &b);
  publish(&v, &b);
  load(STORE_MESH, id_of(&u, 2), NULL, &b);
  load(STORE_CLIP, id_of(&v, 1), NULL, &b);
  ck_assert_uint_eq(cached_assets(), 4);
  int before = b.calls;
  nd.be->ops->remove_cascade(nd.be->self, id_of(&u, 0), on_reply, &b);
  ck_assert(run_until_calls(&b, before + 1, 5000));
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 2);
  ck_assert_int_eq(b.items[0].kind, FMT_ASSET_CLIP);
  ck_assert_str_eq(b.items[0].id, id_of(&u, 1));
  ck_assert_int_eq(b.items[1].kind, FMT_ASSET_MESH);
  ck_assert_str_eq(b.items[1].id, id_of(&u, 2));
  /* Dropped here by the published "drop skeleton": the other rig stays. */
  uint64_t end = redis_now_ms() + 5000;
  while (cached_assets() > 2 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(cached_assets(), 2);
  ck_assert(cached(STORE_CLIP, id_of(&v, 1), NULL));
  load(STORE_SKELETON, id_of(&u, 0), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  load(STORE_CLIP, "wave", NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  before = b.calls;
  nd.be->ops->remove_cascade(nd.be->self, id_of(&u, 0), on_reply, &b);
  ck_assert(run_until_calls(&b, before + 1, 5000));
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  ck_assert_uint_eq(b.count, 0);
  /* A clip's id is not a skeleton's. */
  before = b.calls;
  nd.be->ops->remove_cascade(nd.be->self, id_of(&v, 1), on_reply, &b);
  ck_assert(run_until_calls(&b, before + 1, 5000));
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  /* A skeleton without clips or meshes: nothing else listed. */
  remove_asset(STORE_CLIP, id_of(&v, 1), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  before = b.calls;
  nd.be->ops->remove_cascade(nd.be->self, id_of(&v, 0), on_reply, &b);
  ck_assert(run_until_calls(&b, before + 1, 5000));
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 0);
  redisReply *r = redis_sync(suite_redis.port, "DBSIZE");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

/* ---- listings
 * -------------------------------------------------------------------- */

START_TEST(test_list_all_and_of_a_skeleton) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u, v;
  upload_rig(&u, "Hero", 0, "run", true);
  upload_rig(&v, "Villain", 3, "sneak", false);
  box_t b = {0};
  list(STORE_SKELETON, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 0);
  publish(&u, &b);
  publish(&v, &b);
  list(STORE_SKELETON, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 5);
  /* By kind, then by id. */
  const fmt_asset_kind kinds[] = {FMT_ASSET_SKELETON, FMT_ASSET_SKELETON,
                                  FMT_ASSET_CLIP, FMT_ASSET_CLIP,
                                  FMT_ASSET_MESH};
  for (size_t i = 0; i < b.count; i++) {
    ck_assert_int_eq(b.items[i].kind, kinds[i]);
    if (i > 0 && b.items[i].kind == b.items[i - 1].kind)
      ck_assert_int_lt(strcmp(b.items[i - 1].id, b.items[i].id), 0);
  }
  for (size_t i = 0; i < b.count; i++) {
    const item_t *it = &b.items[i];
    const upload_t *w = NULL;
    size_t k = 0;
    for (size_t j = 0; j < 3 && w == NULL; j++) {
      if (j < u.r.count && strcmp(it->id, id_of(&u, j)) == 0) w = &u, k = j;
      if (j < v.r.count && strcmp(it->id, id_of(&v, j)) == 0) w = &v, k = j;
    }
    ck_assert_msg(w != NULL, "unknown id %s", it->id);
    ck_assert_str_eq(it->name, asset(w, k)->name);
    if (it->kind == FMT_ASSET_SKELETON) {
      ck_assert_uint_eq(it->count, 2); /* Joints. */
      ck_assert_str_eq(it->skeleton, "");
    } else {
      ck_assert_str_eq(it->skeleton, id_of(w, 0));
    }
    if (it->kind == FMT_ASSET_CLIP)
      ck_assert_float_eq_tol(it->duration, 1.5f, 1e-6f);
    if (it->kind == FMT_ASSET_MESH) ck_assert_uint_eq(it->count, 3);
  }
  /* The clips of one skeleton, and its meshes. */
  list(STORE_CLIP, id_of(&v, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 1);
  ck_assert_str_eq(b.items[0].id, id_of(&v, 1));
  ck_assert_str_eq(b.items[0].name, "sneak");
  list(STORE_MESH, id_of(&v, 0), &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 0);
  list(STORE_MESH, id_of(&u, 0), &b);
  ck_assert_uint_eq(b.count, 1);
  ck_assert_str_eq(b.items[0].name, "body");
  box_free(&b);
  upload_free(&u);
  upload_free(&v);
  node_close();
}
END_TEST

/* Past one page of 500 ids: every one, in order, each once. Written
 * straight into Redis's layout (scripts.h). */
START_TEST(test_list_pages) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  enum { N = 1203 };
  struct timeval tv = {2, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", suite_redis.port, tv);
  ck_assert(c != NULL && c->err == 0);
  for (int i = 0; i < N; i++) {
    char id[FMT_ID_LEN + 1];
    snprintf(id, sizeof id, "%064x", i * 3);
    redisAppendCommand(c,
                       "HSET animd:a:%s kind skeleton name s%d skeleton %s "
                       "count %d duration 0 text {}",
                       id, i, "", i % 7 + 1);
    redisAppendCommand(c, "ZADD animd:i:skeleton 0 %s", id);
  }
  /* An index entry whose asset is gone is left out. */
  redisAppendCommand(c, "ZADD animd:i:skeleton 0 %064x", 1);
  for (int i = 0; i < 2 * N + 1; i++) {
    redisReply *r = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    ck_assert_int_ne(r->type, REDIS_REPLY_ERROR);
    freeReplyObject(r);
  }
  redisFree(c);
  box_t b = {0};
  list(STORE_SKELETON, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, N);
  for (int i = 0; i < N; i++) {
    char id[FMT_ID_LEN + 1], name[16];
    snprintf(id, sizeof id, "%064x", i * 3);
    snprintf(name, sizeof name, "s%d", i);
    ck_assert_str_eq(b.items[i].id, id);
    ck_assert_str_eq(b.items[i].name, name);
    ck_assert_uint_eq(b.items[i].count, (unsigned)(i % 7 + 1));
  }
  box_free(&b);
  node_close();
}
END_TEST

/* More stale index entries than a page (their assets gone) ahead of a live
 * one: the listing moves past them and ends, with the live asset. */
START_TEST(test_list_past_a_page_of_stale_entries) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  enum { STALE = 1100 };
  struct timeval tv = {2, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", suite_redis.port, tv);
  ck_assert(c != NULL && c->err == 0);
  for (int i = 0; i < STALE; i++)
    redisAppendCommand(c, "ZADD animd:i:skeleton 0 %064x", i);
  char live[FMT_ID_LEN + 1];
  snprintf(live, sizeof live, "%064x", STALE + 1);
  redisAppendCommand(c,
                     "HSET animd:a:%s kind skeleton name live skeleton %s "
                     "count 2 duration 0 text {}",
                     live, "");
  redisAppendCommand(c, "ZADD animd:i:skeleton 0 %s", live);
  for (int i = 0; i < STALE + 2; i++) {
    redisReply *r = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    ck_assert_int_ne(r->type, REDIS_REPLY_ERROR);
    freeReplyObject(r);
  }
  redisFree(c);
  box_t b = {0};
  list(STORE_SKELETON, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(b.count, 1);
  ck_assert_str_eq(b.items[0].id, live);
  ck_assert_str_eq(b.items[0].name, "live");
  box_free(&b);
  node_close();
}
END_TEST

/* ---- limits and errors ----------------------------------------------------
 */

/* A cache with a memory limit evicts the least recently used assets before
 * adopting more. */
START_TEST(test_cache_stays_under_limit) {
  NEED_REDIS();
  enum { N = 8 };
  upload_t u[N];
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "rig%d", i);
    upload_rig(&u[i], name, i, "wave", false);
  }
  /* Room for about three rigs. */
  size_t rig = asset(&u[0], 0)->bytes + asset(&u[0], 1)->bytes;
  size_t limit = 3 * rig + rig / 2;
  node_open_port(suite_redis.port, limit, 0, true);
  box_t b = {0};
  for (int i = 0; i < N; i++) publish(&u[i], &b);
  for (int i = 0; i < N; i++) {
    load(STORE_CLIP, id_of(&u[i], 1), NULL, &b);
    ck_assert_int_eq(b.status, SRV_BACKEND_OK);
    store_stats_t st;
    store_stats(nd.cache, &st);
    ck_assert_msg(st.bytes <= limit, "%zu bytes cached, limit %zu", st.bytes,
                  limit);
    /* The one just loaded is there. */
    ck_assert(cached(STORE_CLIP, id_of(&u[i], 1), NULL));
  }
  srv_redis_backend_stats_t st = stats();
  ck_assert_uint_ge(st.evictions, 2 * (N - 3));
  ck_assert_uint_eq(st.loads, N);
  /* The first ones went first. */
  ck_assert(!cached(STORE_SKELETON, id_of(&u[0], 0), NULL));
  ck_assert(!cached(STORE_SKELETON, id_of(&u[1], 0), NULL));
  box_free(&b);
  for (int i = 0; i < N; i++) upload_free(&u[i]);
  node_close();
}
END_TEST

/* What Redis holds is not an asset text: the load fails, and an error
 * Redis answers is passed on. */
START_TEST(test_redis_errors_and_bad_text) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  char id[FMT_ID_LEN + 1];
  memset(id, 'b', FMT_ID_LEN);
  id[FMT_ID_LEN] = '\0';
  redisReply *r =
      redis_sync(suite_redis.port,
                 "HSET animd:a:%s kind skeleton name x text nonsense", id);
  ck_assert_ptr_nonnull(r);
  freeReplyObject(r);
  box_t b = {0};
  load(STORE_SKELETON, id, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_FAILED);
  ck_assert_msg(strncmp(b.message, "cannot cache it: ", 17) == 0, "%s",
                b.message);
  ck_assert_uint_eq(cached_assets(), 0);
  /* A key of the wrong type: the script's error comes back. */
  memset(id, 'c', FMT_ID_LEN);
  r = redis_sync(suite_redis.port, "SET animd:a:%s plain", id);
  ck_assert_ptr_nonnull(r);
  freeReplyObject(r);
  load(STORE_SKELETON, id, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_FAILED);
  ck_assert_msg(strncmp(b.message, "the shared store answered: ", 27) == 0,
                "%s", b.message);
  ck_assert_ptr_nonnull(strstr(b.message, "WRONGTYPE"));
  remove_asset(STORE_SKELETON, id, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_FAILED);
  ck_assert_ptr_nonnull(strstr(b.message, "WRONGTYPE"));
  ck_assert(available());
  box_free(&b);
  node_close();
}
END_TEST

/* Published changes of the channel, as another node sends them. */
START_TEST(test_messages_drop_cached) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", true);
  box_t b = {0};
  publish(&u, &b);
  load(STORE_MESH, id_of(&u, 2), NULL, &b);
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_uint_eq(cached_assets(), 3);
  /* Not understood: ignored. Then a mesh by id, a clip by name. */
  const char *ignored[] = {"drop", "drop clip", "drop bone x", "shout clip x",
                           "name  wave"};
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++) {
    redisReply *r =
        redis_sync(suite_redis.port, "PUBLISH %s %b", SRV_REDIS_CHANNEL,
                   ignored[i], strlen(ignored[i]));
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->integer, 1);
    freeReplyObject(r);
  }
  redisReply *r;
  char msg[128];
  snprintf(msg, sizeof msg, "drop mesh %s", id_of(&u, 2));
  r = redis_sync(suite_redis.port, "PUBLISH %s %b", SRV_REDIS_CHANNEL, msg,
                 strlen(msg));
  freeReplyObject(r);
  uint64_t end = redis_now_ms() + 5000;
  while (cached_assets() > 2 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(cached_assets(), 2);
  ck_assert(!cached(STORE_MESH, id_of(&u, 2), NULL));
  ck_assert_uint_eq(stats().drops, 1);
  snprintf(msg, sizeof msg, "name clip wave");
  r = redis_sync(suite_redis.port, "PUBLISH %s %b", SRV_REDIS_CHANNEL, msg,
                 strlen(msg));
  freeReplyObject(r);
  end = redis_now_ms() + 5000;
  while (cached_assets() > 1 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(cached_assets(), 1);
  ck_assert_uint_eq(stats().drops, 2);
  ck_assert(cached(STORE_SKELETON, id_of(&u, 0), NULL));
  box_free(&b);
  upload_free(&u);
  node_close();
}
END_TEST

/* Item: events of 1,024 bytes or more were ignored, so a node kept a long
 * name's assets after the name moved. Uploads bound names to 256 bytes
 * now, but a skeleton stored before (its text written to Redis as an old
 * node did) still drops on its 1,100-byte name's event. */
START_TEST(test_long_event_drops_cached) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  char name[1101];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  char json[1400];
  snprintf(json, sizeof json,
           "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":"
           "\"root\",\"parent\":-1}]}}",
           name);
  fmt_bundle_t bundle;
  fmt_error_t err = {0};
  ck_assert_int_eq(
      fmt_decode_native_json(json, strlen(json), NULL, &bundle, &err), 0);
  fmt_buf_t text = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_encode_skeleton(&text, bundle.skeletons[0]), 0);
  fmt_bundle_free(&bundle);
  char id[FMT_ID_LEN + 1];
  ck_assert_int_eq(fmt_content_id(text.data, text.len, id), 0);
  redisReply *r =
      redis_sync(suite_redis.port,
                 "HSET animd:a:%s kind skeleton name %s skeleton %s "
                 "count 1 duration 0 text %b",
                 id, name, "", text.data, text.len);
  ck_assert_ptr_nonnull(r);
  freeReplyObject(r);
  box_t b = {0};
  load(STORE_SKELETON, id, NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 1);
  char msg[1200];
  snprintf(msg, sizeof msg, "name skeleton %s", name);
  r = redis_sync(suite_redis.port, "PUBLISH %s %b", SRV_REDIS_CHANNEL, msg,
                 strlen(msg));
  freeReplyObject(r);
  uint64_t end = redis_now_ms() + 5000;
  while (cached_assets() > 0 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(cached_assets(), 0);
  ck_assert_uint_eq(stats().drops, 1);
  box_free(&b);
  fmt_buf_free(&text);
  node_close();
}
END_TEST

/* ---- unavailable
 * ---------------------------------------------------------------- */

static void expect_unavailable_now(void) {
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", false);
  box_t b = {0};
  const char *msg = "the shared store (Redis) cannot be reached; retry later";
  srv_backend_entry_t e = {asset(&u, 0), u.texts[0].data, u.texts[0].len};
  /* Each answers at once, within the call. */
  nd.be->ops->publish(nd.be->self, &e, 1, false, on_reply, &b);
  ck_assert_int_eq(b.calls, 1);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  ck_assert_str_eq(b.message, msg);
  nd.be->ops->load(nd.be->self, STORE_SKELETON, "Armature", NULL, on_reply, &b);
  ck_assert_int_eq(b.calls, 2);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  ck_assert_str_eq(b.message, msg);
  nd.be->ops->remove(nd.be->self, STORE_CLIP, id_of(&u, 1), on_reply, &b);
  ck_assert_int_eq(b.calls, 3);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  nd.be->ops->remove_cascade(nd.be->self, id_of(&u, 0), on_reply, &b);
  ck_assert_int_eq(b.calls, 4);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  nd.be->ops->list(nd.be->self, STORE_SKELETON, NULL, "", SIZE_MAX, on_reply,
                   &b);
  ck_assert_int_eq(b.calls, 5);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  ck_assert_str_eq(b.message, msg);
  box_free(&b);
  upload_free(&u);
}

START_TEST(test_nothing_listens) {
  int port = redis_free_port();
  node_open_port(port, 0, 300, false);
  run_for(300);
  ck_assert(!available());
  expect_unavailable_now();
  /* From a worker thread: refused at once. */
  uint64_t t0 = redis_now_ms();
  ck_assert_int_eq(load_blocking(STORE_SKELETON, "Armature"),
                   SRV_BACKEND_UNAVAILABLE);
  ck_assert_uint_lt(redis_now_ms() - t0, 2000);
  srv_redis_backend_stats_t st = stats();
  ck_assert_uint_eq(st.connects, 0);
  ck_assert_uint_eq(st.loads, 0);
  node_close();
}
END_TEST

START_TEST(test_bad_url) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  store_t *cache = memory_store();
  srv_redis_backend_t *rb = NULL;
  char err[256] = "";
  srv_redis_backend_limits_t limits = {0};
  ck_assert_int_eq(srv_redis_backend_open(&loop, "redis://127.0.0.1:0/0", cache,
                                          NULL, 0, &limits, &rb, err,
                                          sizeof err),
                   -1);
  ck_assert_ptr_null(rb);
  ck_assert_str_eq(err, "store: bad port in 'redis://127.0.0.1:0/0'");
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  store_close(cache);
}
END_TEST

/* Redis stopped mid-test: what was in flight and everything after answers
 * unavailable; started again, the node's cache (which may have missed
 * changes meanwhile) is emptied and the backend works again. */
START_TEST(test_server_lost_and_back) {
  if (!redis_installed()) return;
  redis_proc_t own = {0};
  ck_assert(redis_proc_start(&own, 0));
  node_open_port(own.port, 0, 500, true);
  upload_t u;
  upload_rig(&u, "Armature", 0, "wave", false);
  box_t b = {0};
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert_uint_eq(cached_assets(), 2);
  /* A load and a publish in flight when it goes. */
  box_t inflight = {0}, pub = {0};
  nd.be->ops->load(nd.be->self, STORE_SKELETON, "Nobody", NULL, on_reply,
                   &inflight);
  srv_backend_entry_t e = {asset(&u, 0), u.texts[0].data, u.texts[0].len};
  nd.be->ops->publish(nd.be->self, &e, 1, false, on_reply, &pub);
  ck_assert_int_eq(inflight.calls + pub.calls, 0);
  redis_proc_signal_stop(&own, SIGKILL);
  ck_assert(run_until_calls(&inflight, 1, 5000));
  ck_assert(run_until_calls(&pub, 1, 5000));
  ck_assert_int_eq(inflight.status, SRV_BACKEND_UNAVAILABLE);
  ck_assert_str_eq(inflight.message, "the shared store (Redis) was lost "
                                     "during the lookup; retry later");
  ck_assert_int_eq(pub.status, SRV_BACKEND_UNAVAILABLE);
  ck_assert_str_eq(pub.message, "the shared store (Redis) was lost before it "
                                "confirmed the upload; send it again");
  ck_assert(run_until_available(false, 3000));
  expect_unavailable_now();
  ck_assert_uint_eq(stats().losses, 2);
  /* The cache keeps serving what it has meanwhile. */
  ck_assert_uint_eq(cached_assets(), 2);
  ck_assert_uint_eq(stats().flushes, 0);
  ck_assert(redis_proc_start(&own, own.port));
  ck_assert(run_until_available(true, 8000));
  uint64_t end = redis_now_ms() + 3000;
  while (stats().flushes < 1 && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_uint_eq(stats().flushes, 1);
  ck_assert_uint_eq(cached_assets(), 0);
  /* A fresh Redis (no persistence): the upload again. */
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_NOT_FOUND);
  publish(&u, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  ck_assert(b.created);
  load(STORE_CLIP, id_of(&u, 1), NULL, &b);
  ck_assert_int_eq(b.status, SRV_BACKEND_OK);
  box_free(&b);
  box_free(&inflight);
  box_free(&pub);
  upload_free(&u);
  node_close();
  redis_proc_finish(&own);
}
END_TEST

/* Closing with a load in flight answers it unavailable. */
START_TEST(test_close_with_load_in_flight) {
  NEED_REDIS();
  node_open_port(suite_redis.port, 0, 0, true);
  box_t b = {0};
  nd.be->ops->load(nd.be->self, STORE_SKELETON, "Nobody", NULL, on_reply, &b);
  ck_assert_int_eq(b.calls, 0);
  srv_redis_backend_close(nd.rb);
  ck_assert_int_eq(b.calls, 1);
  ck_assert_int_eq(b.status, SRV_BACKEND_UNAVAILABLE);
  nd.rb = NULL;
  srv_pool_close(&nd.pool);
  uv_close((uv_handle_t *)&nd.tick, NULL);
  uint64_t end = redis_now_ms() + 5000;
  while (uv_loop_alive(&nd.loop) && redis_now_ms() < end)
    uv_run(&nd.loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_loop_close(&nd.loop), 0);
  store_close(nd.cache);
  box_free(&b);
}
END_TEST

Suite *server_redis_backend_suite(void) {
  Suite *s = suite_create("server_redis_backend");
  TCase *offline = tcase_create("offline");
  tcase_set_timeout(offline, 30);
  tcase_add_test(offline, test_nothing_listens);
  tcase_add_test(offline, test_bad_url);
  suite_add_tcase(s, offline);
  TCase *live = tcase_create("redis");
  tcase_set_timeout(live, 60);
  tcase_add_unchecked_fixture(live, suite_redis_setup, suite_redis_teardown);
  tcase_add_test(live, test_publish_then_load_by_id);
  tcase_add_test(live, test_publish_name_conflict);
  tcase_add_test(live, test_publish_replace);
  tcase_add_test(live, test_publish_clip_of_missing_skeleton);
  tcase_add_test(live, test_load_miss);
  tcase_add_test(live, test_load_by_name);
  tcase_add_test(live, test_name_shared_by_two);
  tcase_add_test(live, test_concurrent_loads_share_one);
  tcase_add_test(live, test_load_blocking_from_a_worker);
  tcase_add_test(live, test_remove);
  tcase_add_test(live, test_remove_cascade);
  tcase_add_test(live, test_list_all_and_of_a_skeleton);
  tcase_add_test(live, test_list_pages);
  tcase_add_test(live, test_list_past_a_page_of_stale_entries);
  tcase_add_test(live, test_cache_stays_under_limit);
  tcase_add_test(live, test_redis_errors_and_bad_text);
  tcase_add_test(live, test_messages_drop_cached);
  tcase_add_test(live, test_long_event_drops_cached);
  tcase_add_test(live, test_server_lost_and_back);
  tcase_add_test(live, test_close_with_load_in_flight);
  suite_add_tcase(s, live);
  return s;
}
