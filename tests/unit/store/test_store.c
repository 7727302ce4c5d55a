/* Tests for the in-memory store: ingest (created / already there), lookup
 * by id and by name, listing, deletion rules, reference counts that keep a
 * deleted asset alive for its holders (ASan checks the reads), name
 * conflicts, the memory limit and concurrent ingests. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static char *demo_text(size_t *len) {
  FILE *f = fopen("config/demo.json", "rb");
  ck_assert_msg(f != NULL, "config/demo.json (run from the repository root)");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n);
  ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return data;
}

/* Decodes text (resolving stored skeletons) and ingests it. */
static int upload(store_t *s, const char *text, size_t len,
                  store_ingest_result_t *res, fmt_error_t *err) {
  store_resolver_t r;
  store_resolver_init(&r, s);
  fmt_decode_options_t opts = {.resolve = store_resolve,
                               .resolve_user_data = &r};
  fmt_bundle_t b;
  int rc = fmt_decode_native_json(text, len, &opts, &b, err);
  if (rc == 0) rc = store_ingest(s, &b, store_resolver_external(&r), res, err);
  store_resolver_release(&r);
  return rc;
}

static store_t *open_memory(size_t max_bytes) {
  store_options_t o = {.max_bytes = max_bytes};
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(&o, &s, &err), 0);
  return s;
}

static void upload_demo(store_t *s, store_ingest_result_t *res) {
  size_t len;
  char *text = demo_text(&len);
  fmt_error_t err = {0};
  int rc = upload(s, text, len, res, &err);
  ck_assert_msg(rc == 0, "%s: %s", fmt_error_name(err.code), err.message);
  free(text);
}

START_TEST(test_ingest_twice_and_lookup) {
  store_t *s = open_memory(0);
  store_ingest_result_t r1, r2;
  upload_demo(s, &r1);
  ck_assert_uint_eq(r1.count, 4);
  ck_assert(r1.any_created);
  for (size_t i = 0; i < 4; i++) {
    ck_assert(r1.entries[i].created);
    ck_assert(fmt_is_content_id(r1.entries[i].asset->id));
  }
  ck_assert_int_eq(r1.entries[0].asset->kind, STORE_SKELETON);
  ck_assert_int_eq(r1.entries[1].asset->kind, STORE_CLIP);
  ck_assert_str_eq(r1.entries[1].asset->name, "wave");
  ck_assert_int_eq(r1.entries[3].asset->kind, STORE_MESH);
  ck_assert_ptr_eq(r1.entries[1].asset->skeleton_asset, r1.entries[0].asset);
  upload_demo(s, &r2);
  ck_assert(!r2.any_created);
  for (size_t i = 0; i < 4; i++) {
    ck_assert(!r2.entries[i].created);
    ck_assert_ptr_eq(r2.entries[i].asset, r1.entries[i].asset);
  }
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons, 1);
  ck_assert_uint_eq(st.clips, 2);
  ck_assert_uint_eq(st.meshes, 1);
  ck_assert_uint_eq(st.ingested, 4);
  /* 17 joints' arrays, 2 clips' keys, 512 vertices: well over 10 KiB. */
  ck_assert_uint_gt(st.bytes, 512 * 3 * 4 * 2);

  store_asset_t *skel = r1.entries[0].asset;
  store_asset_t *a = store_lookup(s, STORE_SKELETON, skel->id, NULL);
  ck_assert_ptr_eq(a, skel);
  store_asset_release(a);
  a = store_lookup(s, STORE_SKELETON, "demo-humanoid", NULL);
  ck_assert_ptr_eq(a, skel);
  store_asset_release(a);
  a = store_lookup(s, STORE_CLIP, "idle", skel);
  ck_assert_ptr_eq(a, r1.entries[2].asset);
  store_asset_release(a);
  a = store_lookup(s, STORE_MESH, "body", NULL);
  ck_assert_ptr_eq(a, r1.entries[3].asset);
  store_asset_release(a);
  ck_assert_ptr_null(store_lookup(s, STORE_CLIP, "run", skel));
  ck_assert_ptr_null(store_lookup(s, STORE_CLIP, skel->id, NULL));

  fmt_asset_summary_t sum;
  store_asset_summary(r1.entries[1].asset, &sum);
  ck_assert_int_eq(sum.kind, FMT_ASSET_CLIP);
  ck_assert_str_eq(sum.skeleton, skel->id);
  ck_assert(sum.duration == 2.0f);
  store_asset_summary(r1.entries[3].asset, &sum);
  ck_assert_uint_eq(sum.count, 512);

  store_asset_t **list;
  size_t n;
  ck_assert_int_eq(store_list(s, &list, &n), 0);
  ck_assert_uint_eq(n, 4);
  ck_assert_int_eq(list[0]->kind, STORE_SKELETON);
  ck_assert_int_eq(list[1]->kind, STORE_CLIP);
  ck_assert_int_eq(list[2]->kind, STORE_CLIP);
  ck_assert_int_lt(memcmp(list[1]->id, list[2]->id, 64), 0);
  ck_assert_int_eq(list[3]->kind, STORE_MESH);
  store_list_free(list, n);

  fmt_buf_t d = FMT_BUF_INIT;
  ck_assert_int_eq(store_asset_describe(skel, &d), 0);
  ck_assert_int_eq(strncmp(fmt_buf_cstr(&d), "{\"id\":\"", 7), 0);
  ck_assert_int_eq(memcmp(d.data + 7, skel->id, 64), 0);
  fmt_buf_free(&d);

  store_ingest_result_free(&r1);
  store_ingest_result_free(&r2);
  store_close(s);
}
END_TEST

START_TEST(test_delete_rules_and_refcounts) {
  store_t *s = open_memory(0);
  store_ingest_result_t r;
  upload_demo(s, &r);
  store_asset_t *skel = r.entries[0].asset;
  char skel_id[65], wave_id[65];
  memcpy(skel_id, skel->id, 65);
  memcpy(wave_id, r.entries[1].asset->id, 65);
  store_ingest_result_free(&r);

  fmt_error_t err = {0};
  ck_assert_int_eq(store_delete(s, STORE_SKELETON, skel_id, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 409);
  ck_assert_str_eq(fmt_error_name(err.code), "conflict");
  ck_assert_ptr_nonnull(strstr(err.message, "2 clip(s) and 1 mesh(es)"));
  ck_assert_int_eq(store_delete(s, STORE_CLIP, skel_id, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 404);
  ck_assert_int_eq(store_delete(s, STORE_CLIP, "wave", &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 404);

  /* A job holds the clip while it is deleted. */
  store_asset_t *held = store_lookup(s, STORE_CLIP, wave_id, NULL);
  ck_assert_ptr_nonnull(held);
  ck_assert_int_eq(store_delete(s, STORE_CLIP, wave_id, &err), 0);
  ck_assert_ptr_null(store_lookup(s, STORE_CLIP, wave_id, NULL));
  ck_assert_int_eq(store_delete(s, STORE_CLIP, wave_id, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 404);
  /* Delete the other clip, the mesh and the skeleton too. */
  store_asset_t **list;
  size_t n;
  ck_assert_int_eq(store_list(s, &list, &n), 0);
  ck_assert_uint_eq(n, 3);
  for (size_t i = n; i-- > 0;)
    ck_assert_int_eq(store_delete(s, list[i]->kind, list[i]->id, &err), 0);
  store_list_free(list, n);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, 0);
  ck_assert_uint_eq(st.bytes, 0);
  ck_assert_uint_eq(st.deleted, 4);
  store_close(s);
  /* The held clip and its skeleton are still whole (ASan would catch a
   * read of freed memory here). */
  float sum = 0;
  for (uint32_t t = 0; t < held->clip->track_count; t++)
    sum += held->clip->tracks[t].values[0] + held->clip->tracks[t].times[0];
  ck_assert(sum == sum);
  ck_assert_uint_eq(held->skeleton_asset->skeleton->joint_count, 17);
  ck_assert_str_eq(held->skeleton_asset->skeleton->names[0], "hips");
  store_asset_release(held);
}
END_TEST

START_TEST(test_name_conflict_and_external_skeleton) {
  store_t *s = open_memory(0);
  store_ingest_result_t r;
  upload_demo(s, &r);
  char skel_id[65];
  memcpy(skel_id, r.entries[0].asset->id, 65);
  store_asset_t *skel = r.entries[0].asset;
  store_stats_t before;
  store_stats(s, &before);

  /* Another clip named "wave" on the same skeleton. */
  char text[512];
  snprintf(text, sizeof text,
           "{\"clips\":[{\"name\":\"wave\",\"skeleton\":\"%s\",\"tracks\":["
           "{\"joint\":\"head\",\"path\":\"scale\",\"times\":[0],"
           "\"values\":[2,2,2]}]}]}",
           skel_id);
  store_ingest_result_t r2;
  fmt_error_t err = {0};
  ck_assert_int_eq(upload(s, text, strlen(text), &r2, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 409);
  ck_assert_str_eq(fmt_error_name(err.code), "name_conflict");
  store_stats_t after;
  store_stats(s, &after);
  ck_assert_uint_eq(after.clips, before.clips);
  ck_assert_uint_eq(after.bytes, before.bytes);

  /* The same clip under a new name, for the skeleton named by name. */
  snprintf(text, sizeof text,
           "{\"clips\":[{\"name\":\"grow\",\"skeleton\":\"demo-humanoid\","
           "\"tracks\":[{\"joint\":\"head\",\"path\":\"scale\",\"times\":"
           "[0],\"values\":[2,2,2]}]}]}");
  ck_assert_int_eq(upload(s, text, strlen(text), &r2, &err), 0);
  ck_assert_uint_eq(r2.count, 1);
  ck_assert(r2.entries[0].created);
  ck_assert_ptr_eq(r2.entries[0].asset->skeleton_asset, skel);
  store_ingest_result_free(&r2);
  store_ingest_result_free(&r);
  store_close(s);
}
END_TEST

START_TEST(test_memory_limit) {
  store_t *s = open_memory(4096);
  store_ingest_result_t r;
  size_t len;
  char *text = demo_text(&len);
  fmt_error_t err = {0};
  ck_assert_int_eq(upload(s, text, len, &r, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 507);
  ck_assert_str_eq(fmt_error_name(err.code), "insufficient_storage");
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, 0);
  ck_assert_uint_eq(st.bytes, 0);
  ck_assert_uint_eq(st.refused_full, 1);
  ck_assert_uint_eq(st.max_bytes, 4096);
  /* A small skeleton still fits. */
  static const char small[] =
      "{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1}]}}";
  ck_assert_int_eq(upload(s, small, sizeof small - 1, &r, &err), 0);
  store_ingest_result_free(&r);
  free(text);
  store_close(s);
}
END_TEST

typedef struct race_s {
  store_t *store;
  const char *text;
  size_t len;
  int created;
} race_t;

static void *race_upload(void *arg) {
  race_t *r = arg;
  for (int i = 0; i < 5; i++) {
    store_ingest_result_t res;
    fmt_error_t err;
    if (upload(r->store, r->text, r->len, &res, &err) != 0) return NULL;
    for (size_t k = 0; k < res.count; k++) r->created += res.entries[k].created;
    store_asset_t *a = store_lookup(r->store, STORE_CLIP, "wave", NULL);
    if (a != NULL) store_asset_release(a);
    store_ingest_result_free(&res);
  }
  return NULL;
}

START_TEST(test_concurrent_ingest) {
  store_t *s = open_memory(0);
  size_t len;
  char *text = demo_text(&len);
  race_t r[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (race_t){s, text, len, 0};
    pthread_create(&th[i], NULL, race_upload, &r[i]);
  }
  int created = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    created += r[i].created;
  }
  ck_assert_int_eq(created, 4);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, 4);
  free(text);
  store_close(s);
}
END_TEST

Suite *store_suite(void) {
  Suite *s = suite_create("store");
  TCase *tc = tcase_create("store");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_ingest_twice_and_lookup);
  tcase_add_test(tc, test_delete_rules_and_refcounts);
  tcase_add_test(tc, test_name_conflict_and_external_skeleton);
  tcase_add_test(tc, test_memory_limit);
  tcase_add_test(tc, test_concurrent_ingest);
  suite_add_tcase(s, tc);
  return s;
}
