/* Tests for the store at scale: every byte of an asset is counted (a clip
 * with no track on a 32,767-joint skeleton holds 12 bytes a joint), an
 * upload that cannot fit is refused before its objects are built, and
 * ingest and lookups stay linear (tens of thousands of assets in one
 * upload, looked up by id and by name), and so do drops (by id, by name,
 * a skeleton with its clips). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "store/cache.h"
#include "store/store.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* A skeleton of `joints` joints in a chain and `clips` clips: with no
 * track when keys is 0, else one rotation track of `keys` keys each. */
static void rig_text(fmt_buf_t *b, size_t joints, size_t clips, size_t keys) {
  fmt_buf_printf(b, "{\"skeleton\":{\"name\":\"rig\",\"joints\":[");
  for (size_t i = 0; i < joints; i++)
    fmt_buf_printf(b, "%s{\"name\":\"j%zu\",\"parent\":%ld}", i ? "," : "", i,
                   (long)i - 1);
  fmt_buf_printf(b, "]},\"clips\":[");
  for (size_t c = 0; c < clips; c++) {
    fmt_buf_printf(b, "%s{\"name\":\"c%zu\",\"tracks\":[", c ? "," : "", c);
    if (keys > 0) {
      fmt_buf_printf(b, "{\"joint\":\"j0\",\"path\":\"rotation\",\"times\":[");
      for (size_t k = 0; k < keys; k++)
        fmt_buf_printf(b, "%s%zu", k ? "," : "", k + c);
      fmt_buf_printf(b, "],\"values\":[");
      for (size_t k = 0; k < keys; k++)
        fmt_buf_printf(b, "%s0,0,0,1", k ? "," : "");
      fmt_buf_printf(b, "]}");
    }
    fmt_buf_printf(b, "]}");
  }
  fmt_buf_printf(b, "]}");
  ck_assert(!b->failed);
}

static store_t *open_memory(size_t max_bytes) {
  store_options_t o = {.max_bytes = max_bytes};
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(&o, &s, &err), 0);
  return s;
}

/* Item: 4,000 empty clips on a 32,767-joint skeleton (about 1.5 GB of
 * core objects from 1 MB of JSON) under a 64 MiB limit. The decode, given
 * the store's room, stops at the clip that does not fit (507) having built
 * at most the room's worth; the store's count stays exact. */
START_TEST(empty_clips_are_counted_and_refused_before_building) {
  size_t clips = SANITIZED ? 400 : 4000;
  size_t limit = SANITIZED ? (size_t)16 << 20 : (size_t)64 << 20;
  fmt_buf_t text = FMT_BUF_INIT;
  rig_text(&text, ANIM_MAX_JOINTS, clips, 0);
  store_t *s = open_memory(limit);
  fmt_decode_options_t opts = {.max_bytes = store_decode_room(s)};
  ck_assert_uint_eq(opts.max_bytes, limit);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text.data, text.len, &opts, &b, &err),
                   -1);
  ck_assert_int_eq(fmt_error_status(err.code), 507);
  ck_assert_str_eq(fmt_error_name(err.code), "insufficient_storage");
  ck_assert_uint_eq(b.clip_count + b.skeleton_count, 0);

  /* Ten of them fit; each is counted with its 12 bytes a joint. */
  fmt_buf_t small = FMT_BUF_INIT;
  rig_text(&small, ANIM_MAX_JOINTS, 10, 0);
  ck_assert_int_eq(
      fmt_decode_native_json(small.data, small.len, &opts, &b, &err), 0);
  size_t decoded = b.bytes;
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_ge(st.bytes, decoded);
  size_t clip_bytes = res.entries[1].asset->bytes;
  ck_assert_uint_ge(clip_bytes, 12u * ANIM_MAX_JOINTS);
  ck_assert_uint_ge(st.bytes, 10 * 12u * ANIM_MAX_JOINTS);
  ck_assert_uint_le(st.bytes, limit);
  ck_assert_uint_eq(store_decode_room(s), limit - st.bytes);
  store_ingest_result_free(&res);
  fmt_buf_free(&small);
  fmt_buf_free(&text);
  store_close(s);
}
END_TEST

/* Item: 40,000 clips in one upload (quadratic ingest took 7.9 s), then
 * every one found by id and by name, and duplicates and name conflicts
 * within the upload still caught. */
START_TEST(large_upload_is_linear) {
  size_t clips = SANITIZED ? 5000 : 40000;
  fmt_buf_t text = FMT_BUF_INIT;
  rig_text(&text, 2, clips, 1);
  store_t *s = open_memory(0);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text.data, text.len, NULL, &b, &err),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
  ck_assert_uint_eq(res.count, clips + 1);
  const store_asset_t *rig = res.entries[0].asset;
  for (size_t c = 0; c < clips; c++) {
    const store_asset_t *want = res.entries[1 + c].asset;
    char name[32];
    snprintf(name, sizeof name, "c%zu", c);
    store_asset_t *by_name = store_lookup(s, STORE_CLIP, name, rig);
    store_asset_t *by_id = store_lookup(s, STORE_CLIP, want->id, NULL);
    ck_assert_ptr_eq(by_name, want);
    ck_assert_ptr_eq(by_id, want);
    store_asset_release(by_name);
    store_asset_release(by_id);
  }
  ck_assert_ptr_null(store_lookup(s, STORE_CLIP, "nope", rig));
  /* Deleting keeps the other lookups right (the list and the name groups
   * are updated in place). */
  for (size_t c = 0; c < clips; c += 2)
    ck_assert_int_eq(
        store_delete(s, STORE_CLIP, res.entries[1 + c].asset->id, &err), 0);
  for (size_t c = 0; c < clips; c++) {
    char name[32];
    snprintf(name, sizeof name, "c%zu", c);
    store_asset_t *a = store_lookup(s, STORE_CLIP, name, NULL);
    ck_assert(c % 2 ? a == res.entries[1 + c].asset : a == NULL);
    store_asset_release(a);
  }
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.clips, clips / 2);
  store_ingest_result_free(&res);

  /* The same clip twice in one upload is one asset; two different clips
   * under one name are a conflict. */
  const char *dup = "{\"skeleton\":{\"name\":\"r2\",\"joints\":[{\"name\":"
                    "\"a\",\"parent\":-1}]},"
                    "\"clips\":[{\"name\":\"x\",\"tracks\":[]},{\"name\":\"x\","
                    "\"tracks\":[]}]}";
  ck_assert_int_eq(fmt_decode_native_json(dup, strlen(dup), NULL, &b, &err), 0);
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
  ck_assert_ptr_eq(res.entries[1].asset, res.entries[2].asset);
  ck_assert(res.entries[1].created);
  ck_assert(!res.entries[2].created);
  store_ingest_result_free(&res);
  const char *clash = "{\"skeleton\":{\"name\":\"r3\",\"joints\":[{\"name\":"
                      "\"a\",\"parent\":-1}]},"
                      "\"clips\":[{\"name\":\"x\",\"tracks\":[]},"
                      "{\"name\":\"x\",\"duration\":2,\"tracks\":[]}]}";
  ck_assert_int_eq(fmt_decode_native_json(clash, strlen(clash), NULL, &b, &err),
                   0);
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 409);
  ck_assert_str_eq(fmt_error_name(err.code), "name_conflict");
  ck_assert_ptr_null(store_lookup(s, STORE_SKELETON, "r3", NULL));
  fmt_buf_free(&text);
  store_close(s);
}
END_TEST

static uint64_t scanned(store_t *s) {
  store_stats_t st;
  store_stats(s, &st);
  return st.scanned;
}

/* Drops every clip of a rig of `clips` clips one by one, as a failed
 * publish does (each dropped clip costs one asset read, however many
 * are cached), then the skeleton. Returns the assets read. */
static uint64_t drop_one_by_one(size_t clips) {
  fmt_buf_t text = FMT_BUF_INIT;
  rig_text(&text, 2, clips, 0);
  store_t *s = open_memory(0);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text.data, text.len, NULL, &b, &err),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
  uint64_t before = scanned(s);
  for (size_t i = res.count; i-- > 0;)
    ck_assert_uint_eq(
        store_drop(s, res.entries[i].asset->kind, res.entries[i].asset->id), 1);
  uint64_t cost = scanned(s) - before;
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.clips + st.skeletons, 0);
  store_ingest_result_free(&res);
  fmt_buf_free(&text);
  store_close(s);
  return cost;
}

/* Item: a failed publish of 10k clips froze a fleet node 6.5 s: each drop
 * listed, sorted and scanned the whole cache. Dropping 20,000 clips one by
 * one now reads each once (and 2,000 exactly a tenth of that). */
START_TEST(drops_are_linear) {
  size_t clips = SANITIZED ? 5000 : 20000;
  ck_assert_uint_eq(drop_one_by_one(clips / 10), clips / 10 + 1);
  ck_assert_uint_eq(drop_one_by_one(clips), clips + 1);
}
END_TEST

/* Item: drop and name events scanned the whole cache on every node. A
 * name event reads that name's group, a skeleton's drop its own clips:
 * the 20,000 other clips cached are never read. */
START_TEST(drops_by_name_read_only_that_name) {
  size_t clips = SANITIZED ? 5000 : 20000;
  fmt_buf_t text = FMT_BUF_INIT;
  rig_text(&text, 2, clips, 0);
  store_t *s = open_memory(0);
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text.data, text.len, NULL, &b, &err),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
  store_ingest_result_free(&res);
  /* Two more skeletons (one joint: other ids) with a clip "c7" each. */
  const char *others[] = {"{\"skeleton\":{\"name\":\"o1\",\"joints\":[{"
                          "\"name\":\"a\",\"parent\":-1}]},"
                          "\"clips\":[{\"name\":\"c7\",\"tracks\":[]},{"
                          "\"name\":\"k\",\"tracks\":[]}]}",
                          "{\"skeleton\":{\"name\":\"o2\",\"joints\":[{"
                          "\"name\":\"b\",\"parent\":-1}]},"
                          "\"clips\":[{\"name\":\"c7\",\"tracks\":[]}]}"};
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(
        fmt_decode_native_json(others[i], strlen(others[i]), NULL, &b, &err),
        0);
    ck_assert_int_eq(store_ingest(s, &b, NULL, &res, &err), 0);
    store_ingest_result_free(&res);
  }
  /* "name clip c7": the three clips of that name, each read twice (the
   * group, then its drop by id). */
  uint64_t before = scanned(s);
  ck_assert_uint_eq(store_drop_named(s, STORE_CLIP, "c7"), 3);
  ck_assert_uint_eq(scanned(s) - before, 2 * 3 + 3);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "c7", NULL), 0);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "c8", NULL), 1);
  /* "name skeleton o1": o1 with its last clip (read twice by the
   * cascade), read twice itself. */
  before = scanned(s);
  ck_assert_uint_eq(store_drop_named(s, STORE_SKELETON, "o1"), 2);
  ck_assert_uint_eq(scanned(s) - before, 2 + 2 + 1);
  ck_assert_uint_eq(store_drop_named(s, STORE_SKELETON, "nobody"), 0);
  /* The rig's drop by id reads its clips, not the store's. */
  store_asset_t *rig = store_lookup(s, STORE_SKELETON, "rig", NULL);
  char id[FMT_ID_LEN + 1];
  memcpy(id, rig->id, sizeof id);
  store_asset_release(rig);
  before = scanned(s);
  ck_assert_uint_eq(store_drop(s, STORE_SKELETON, id), clips);
  ck_assert_uint_eq(scanned(s) - before, 2 * (clips - 1) + 1);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons + st.clips, 1);
  fmt_buf_free(&text);
  store_close(s);
}
END_TEST

Suite *store_scale_suite(void) {
  Suite *s = suite_create("store_scale");
  TCase *tc = tcase_create("scale");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, empty_clips_are_counted_and_refused_before_building);
  tcase_add_test(tc, large_upload_is_linear);
  tcase_add_test(tc, drops_are_linear);
  tcase_add_test(tc, drops_by_name_read_only_that_name);
  suite_add_tcase(s, tc);
  return s;
}
