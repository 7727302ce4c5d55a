/* Tests for the per-thread lookup cache (store_find_cached): a second
 * lookup of a name or id is a hit with the same answer, every change of
 * the store a lookup could see (an upload, a delete, a cascade, a replace
 * moving a name, an adoption, a drop by id and by name, an eviction, a
 * store closed and another opened) is seen by the next cached lookup, a
 * thread's cached references go at its exit, and lookups on one thread
 * while another changes the store never answer with what the store never
 * held (built with ThreadSanitizer in make check-threads). */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "store/store.h"

/* A one-joint rig named `skeleton` (its root at height y, so rigs of one
 * name differ) with a clip named `clip`. */
static int upload(store_t *s, const char *skeleton, int y, const char *clip,
                  const store_names_t *names, store_asset_t **out) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":\"root\","
           "\"parent\":-1,\"translation\":[0,%d,0]}]},"
           "\"clips\":[{\"name\":\"%s\",\"tracks\":[{\"joint\":\"root\","
           "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
           "\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}]}",
           skeleton, y, clip);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  store_ingest_result_t r;
  int rc = fmt_decode_native_json(text, strlen(text), NULL, &b, &err);
  if (rc == 0) rc = store_ingest_named(s, &b, NULL, names, &r, &err);
  if (rc != 0) return rc;
  *out = r.entries[0].asset;
  store_asset_retain(*out);
  store_ingest_result_free(&r);
  return 0;
}

static store_asset_t *upload_rig(store_t *s, const char *skeleton, int y,
                                 const char *clip) {
  store_asset_t *sk = NULL;
  ck_assert_int_eq(upload(s, skeleton, y, clip, NULL, &sk), 0);
  return sk;
}

static store_t *open_memory(void) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  return s;
}

/* A cached lookup's answer: its asset (released at once: the store or the
 * test holds it still) and how many matched. */
static size_t find(store_t *s, store_kind kind, const char *name,
                   const store_asset_t *skeleton, store_asset_t **asset) {
  store_match_t m;
  store_find_cached(s, kind, name, skeleton, &m);
  *asset = m.asset;
  store_asset_release(m.asset);
  return m.count;
}

static uint64_t hits(void) {
  uint64_t h, m;
  store_lookup_cache_counts(&h, &m);
  return h;
}

static uint64_t misses(void) {
  uint64_t h, m;
  store_lookup_cache_counts(&h, &m);
  return m;
}

static unsigned refs(store_asset_t *a) {
  return (unsigned)atomic_load(&a->_refs);
}

START_TEST(test_second_lookup_is_a_hit) {
  store_asset_t *got;
  store_t *s = open_memory();
  store_asset_t *sk = upload_rig(s, "rig", 1, "walk");
  uint64_t h0 = hits(), m0 = misses();
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, sk);
  ck_assert_uint_eq(misses() - m0, 1);
  ck_assert_uint_eq(hits() - h0, 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, sk);
  ck_assert_uint_eq(hits() - h0, 1);
  /* By id, and a clip within its skeleton: a miss each, then hits. */
  store_asset_t *clip;
  ck_assert_uint_eq(find(s, STORE_CLIP, "walk", sk, &clip), 1);
  ck_assert_ptr_eq(clip->skeleton_asset, sk);
  ck_assert_uint_eq(find(s, STORE_SKELETON, sk->id, NULL, &got), 1);
  ck_assert_ptr_eq(got, sk);
  ck_assert_uint_eq(misses() - m0, 3);
  for (int i = 0; i < 10; i++) {
    ck_assert_uint_eq(find(s, STORE_CLIP, "walk", sk, &got), 1);
    ck_assert_ptr_eq(got, clip);
    ck_assert_uint_eq(find(s, STORE_SKELETON, sk->id, NULL, &got), 1);
    ck_assert_ptr_eq(got, sk);
  }
  ck_assert_uint_eq(hits() - h0, 21);
  ck_assert_uint_eq(misses() - m0, 3);
  /* The same name within another skeleton, or as another kind, is
   * another key; an absent name is never cached. */
  ck_assert_uint_eq(find(s, STORE_CLIP, "walk", NULL, &got), 1);
  ck_assert_uint_eq(find(s, STORE_MESH, "walk", NULL, &got), 0);
  ck_assert_uint_eq(find(s, STORE_MESH, "walk", NULL, &got), 0);
  ck_assert_ptr_null(got);
  ck_assert_uint_eq(misses() - m0, 6);
  /* A hit hands out its own reference; the cache keeps one per entry
   * (skeleton by name and by id: two) until cleared. */
  ck_assert_uint_eq(refs(sk), 1 + 1 + 2 + 1);
  store_match_t m;
  store_find_cached(s, STORE_SKELETON, "rig", NULL, &m);
  ck_assert_uint_eq(refs(sk), 1 + 1 + 2 + 1 + 1);
  store_asset_release(m.asset);
  store_lookup_cache_clear();
  /* The test's, the store's and the clip's. */
  ck_assert_uint_eq(refs(sk), 3);
  store_asset_release(sk);
  store_close(s);
}
END_TEST

START_TEST(test_every_change_is_seen) {
  store_asset_t *got;
  fmt_error_t err = {0};
  store_t *s = open_memory();
  store_asset_t *a1 = upload_rig(s, "rig", 1, "walk");
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  /* An upload elsewhere: the next lookup goes to the store again, same
   * answer. */
  store_asset_t *other = upload_rig(s, "other", 9, "run");
  uint64_t m0 = misses();
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, a1);
  ck_assert_uint_eq(misses() - m0, 1);
  /* An upload that makes the name ambiguous. */
  store_asset_t *a2 = upload_rig(s, "rig", 2, "walk");
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 2);
  ck_assert_ptr_null(got);
  /* A delete (cascade) makes it unique again. */
  ck_assert_int_eq(store_delete_cascade(s, a2->id, NULL, NULL, &err), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, a1);
  /* A clip deleted by id. */
  store_asset_t *clip;
  ck_assert_uint_eq(find(s, STORE_CLIP, "walk", a1, &clip), 1);
  ck_assert_uint_eq(find(s, STORE_CLIP, clip->id, NULL, &got), 1);
  char clip_id[FMT_ID_LEN + 1];
  memcpy(clip_id, clip->id, sizeof clip_id);
  ck_assert_int_eq(store_delete(s, STORE_CLIP, clip_id, &err), 0);
  ck_assert_uint_eq(find(s, STORE_CLIP, "walk", a1, &got), 0);
  ck_assert_uint_eq(find(s, STORE_CLIP, clip_id, NULL, &got), 0);
  /* A replace moves the name to the new rig: the old one keeps its id. */
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, a1);
  store_names_t replace = {.replace = true};
  store_asset_t *a3 = NULL;
  ck_assert_int_eq(upload(s, "rig", 3, "walk", &replace, &a3), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, a3);
  ck_assert_uint_eq(find(s, STORE_SKELETON, a1->id, NULL, &got), 1);
  ck_assert_ptr_eq(got, a1);
  /* A rename at upload and a prefix: new names, found at once. */
  store_names_t renamed = {.skeleton = "renamed", .prefix = "v2/"};
  store_asset_t *a4 = NULL;
  ck_assert_int_eq(upload(s, "rig", 4, "walk", &renamed, &a4), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "v2/renamed", NULL, &got), 1);
  ck_assert_ptr_eq(got, a4);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, a3);
  /* Dropped by id, then by name (a shared store's events). */
  ck_assert_uint_eq(store_drop(s, STORE_SKELETON, a4->id), 2);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "v2/renamed", NULL, &got), 0);
  ck_assert_uint_gt(store_drop_named(s, STORE_SKELETON, "rig"), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 0);
  /* Adopted from its text (a shared store's load). */
  fmt_buf_t text = FMT_BUF_INIT;
  ck_assert_int_eq(store_asset_encode(a3, &text), 0);
  store_asset_t *adopted = NULL;
  ck_assert_int_eq(store_adopt(s, STORE_SKELETON, a3->id, text.data, text.len,
                               false, &adopted, &err),
                   0);
  fmt_buf_free(&text);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, adopted);
  /* Evicted (a full cache making room). */
  ck_assert_uint_eq(find(s, STORE_SKELETON, "other", NULL, &got), 1);
  ck_assert_ptr_eq(got, other);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_gt(store_evict(s, st.bytes, st.bytes), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "other", NULL, &got), 0);
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 0);
  store_asset_release(adopted);
  store_asset_release(a1);
  store_asset_release(a2);
  store_asset_release(a3);
  store_asset_release(a4);
  store_asset_release(other);
  store_close(s);
}
END_TEST

/* Another store, even at the same address, is never answered from the
 * entries of a closed one. */
START_TEST(test_closed_store_forgotten) {
  store_asset_t *got;
  store_t *s = open_memory();
  store_asset_t *sk = upload_rig(s, "rig", 1, "walk");
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_uint_eq(refs(sk), 4); /* Test, store, its clip, cache. */
  store_close(s);
  ck_assert_uint_eq(refs(sk), 1); /* This thread's entry went with it. */
  store_asset_release(sk);
  for (int i = 0; i < 4; i++) {
    s = open_memory();
    ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 0);
    sk = upload_rig(s, "rig", 1 + i, "walk");
    ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
    ck_assert_ptr_eq(got, sk);
    store_asset_release(sk);
    store_close(s);
  }
}
END_TEST

/* A deleted asset's cached reference goes at this thread's next lookup
 * in that store. */
START_TEST(test_stale_reference_released) {
  store_asset_t *got;
  fmt_error_t err = {0};
  store_t *s = open_memory();
  store_asset_t *sk = upload_rig(s, "rig", 1, "walk");
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_int_eq(store_delete_cascade(s, sk->id, NULL, NULL, &err), 0);
  ck_assert_uint_eq(refs(sk), 2); /* The test's and the cache's. */
  ck_assert_uint_eq(find(s, STORE_SKELETON, "else", NULL, &got), 0);
  ck_assert_uint_eq(refs(sk), 1);
  store_asset_release(sk);
  store_close(s);
}
END_TEST

typedef struct reader_s {
  store_t *store;
  store_asset_t *rig; /* The one "rig" the store always holds. */
  int lookups;
  int wrong; /* Answers the store never gave. */
  uint64_t hits, misses;
} reader_t;

static void *look_up(void *p) {
  reader_t *r = p;
  for (int i = 0; i < r->lookups; i++) {
    store_match_t m;
    store_find_cached(r->store, STORE_SKELETON, "rig", NULL, &m);
    if (!((m.count == 1 && m.asset == r->rig) ||
          (m.count == 2 && m.asset == NULL)))
      r->wrong++;
    store_asset_release(m.asset);
    store_find_cached(r->store, STORE_CLIP, "walk", r->rig, &m);
    if (m.count != 1 || m.asset == NULL || m.asset->skeleton_asset != r->rig)
      r->wrong++;
    store_asset_release(m.asset);
  }
  store_lookup_cache_counts(&r->hits, &r->misses);
  return NULL;
}

/* One thread looks up while this one makes the name ambiguous and unique
 * again, and uploads and deletes elsewhere; the reader's cache goes with
 * its thread (the references counted before and after). */
START_TEST(test_two_threads) {
  store_t *s = open_memory();
  reader_t r = {.store = s, .lookups = 3000};
  r.rig = upload_rig(s, "rig", 1, "walk");
  unsigned before = refs(r.rig);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, look_up, &r), 0);
  fmt_error_t err = {0};
  for (int i = 0; i < 100; i++) {
    store_asset_t *twin = upload_rig(s, i % 2 ? "rig" : "elsewhere", 2, "run");
    ck_assert_int_eq(store_delete_cascade(s, twin->id, NULL, NULL, &err), 0);
    store_asset_release(twin);
  }
  pthread_join(t, NULL);
  ck_assert_int_eq(r.wrong, 0);
  ck_assert_uint_eq(r.hits + r.misses, 2 * (uint64_t)r.lookups);
  ck_assert_uint_eq(refs(r.rig), before);
  store_asset_t *got;
  ck_assert_uint_eq(find(s, STORE_SKELETON, "rig", NULL, &got), 1);
  ck_assert_ptr_eq(got, r.rig);
  store_asset_release(r.rig);
  store_close(s);
}
END_TEST

Suite *store_lookup_suite(void) {
  Suite *s = suite_create("store_lookup");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_second_lookup_is_a_hit);
  tcase_add_test(tc, test_every_change_is_seen);
  tcase_add_test(tc, test_closed_store_forgotten);
  tcase_add_test(tc, test_stale_reference_released);
  tcase_add_test(tc, test_two_threads);
  suite_add_tcase(s, tc);
  return s;
}
