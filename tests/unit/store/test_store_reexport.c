/* Tests for re-exports in the store (store_names_t prefix and replace): a
 * new export of a rig is a name conflict at the entry that clashes
 * (clips[i].name, meshes[i].name, or "clip" for a given name); with
 * replace the names move in one step (lookups by name find the new assets,
 * the old ones only by id, and the result lists what moved), an identical
 * re-upload moves nothing, an earlier export uploaded again takes its
 * names back, a new skeleton takes its name and the clips of the older
 * rig; a prefix qualifies every name of every kind and is
 * validated; with a data dir, the moved names survive a reopen (marker
 * files), a marker whose asset is gone is removed, and deleting an asset
 * removes its marker. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

/* A one-joint rig named skeleton at height y, with the clip "walk" moving
 * by dx, the clip "run" and the mesh "body". */
static void rig_text(char *out, size_t cap, const char *skeleton, int y,
                     int dx) {
  snprintf(out, cap,
           "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":\"root\","
           "\"parent\":-1,\"translation\":[0,%d,0]}]},"
           "\"clips\":[{\"name\":\"run\",\"tracks\":[{\"joint\":\"root\","
           "\"path\":\"translation\",\"times\":[0,1],"
           "\"values\":[0,0,0,9,0,0]}]},"
           "{\"name\":\"walk\",\"tracks\":[{\"joint\":\"root\","
           "\"path\":\"translation\",\"times\":[0,1],"
           "\"values\":[0,0,0,%d,0,0]}]}],"
           "\"meshes\":[{\"name\":\"body\",\"positions\":[0,0,0],"
           "\"joints\":[0,0,0,0],\"weights\":[1,0,0,0]}]}",
           skeleton, y, dx);
}

static int upload(store_t *s, const char *skeleton, int y, int dx,
                  const store_names_t *names, store_ingest_result_t *r,
                  fmt_error_t *err) {
  char text[2048];
  rig_text(text, sizeof text, skeleton, y, dx);
  fmt_bundle_t b;
  memset(err, 0, sizeof *err);
  int rc = fmt_decode_native_json(text, strlen(text), NULL, &b, err);
  if (rc == 0) rc = store_ingest_named(s, &b, NULL, names, r, err);
  return rc;
}

/* The id of the asset a lookup by name finds ("" when none). */
static const char *found(store_t *s, store_kind kind, const char *name,
                         const store_asset_t *skeleton, char id[65]) {
  store_asset_t *a = store_lookup(s, kind, name, skeleton);
  snprintf(id, 65, "%s", a ? a->id : "");
  store_asset_release(a);
  return id;
}

/* Entries of an upload of rig_text: skeleton, run, walk, body. */
enum { SK = 0, RUN = 1, WALK = 2, BODY = 3 };

START_TEST(test_conflict_says_where) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  store_ingest_result_t r1, r2;
  ck_assert_int_eq(upload(s, "rig", 1, 1, NULL, &r1, &err), 0);
  /* Same skeleton, another walk: the second clip of the upload. */
  ck_assert_int_eq(upload(s, "rig", 1, 2, NULL, &r2, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "name_conflict");
  ck_assert_str_eq(err.at, "clips[1].name");
  char want[256];
  snprintf(want, sizeof want,
           "its skeleton has a clip named \"walk\" already (%s): upload with "
           "?replace=1 to move the name, or ?prefix= to keep both",
           r1.entries[WALK].asset->id);
  ck_assert_str_eq(err.message, want);
  /* A clip named by ?clip= clashes at "clip". */
  char text[512];
  snprintf(text, sizeof text,
           "{\"clips\":[{\"name\":\"x\",\"skeleton\":\"%s\",\"tracks\":[{"
           "\"joint\":\"root\",\"path\":\"translation\",\"times\":[0],"
           "\"values\":[5,0,0]}]}]}",
           r1.entries[SK].asset->id);
  store_resolver_t res;
  store_resolver_init(&res, s);
  fmt_decode_options_t opts = {.resolve = store_resolve,
                               .resolve_user_data = &res};
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), &opts, &b, &err),
                   0);
  store_names_t clip = {.clip = "run"};
  ck_assert_int_eq(store_ingest_named(s, &b, store_resolver_external(&res),
                                      &clip, &r2, &err),
                   -1);
  ck_assert_str_eq(err.at, "clip");
  store_resolver_release(&res);
  /* A mesh: meshes[0].name (a new body, same skeleton, same clips). */
  snprintf(text, sizeof text,
           "{\"meshes\":[{\"name\":\"body\",\"skeleton\":\"%s\","
           "\"positions\":[1,0,0],\"joints\":[0,0,0,0],"
           "\"weights\":[1,0,0,0]}]}",
           r1.entries[SK].asset->id);
  store_resolver_init(&res, s);
  opts.resolve_user_data = &res;
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), &opts, &b, &err),
                   0);
  ck_assert_int_eq(
      store_ingest(s, &b, store_resolver_external(&res), &r2, &err), -1);
  ck_assert_str_eq(err.at, "meshes[0].name");
  store_resolver_release(&res);
  store_ingest_result_free(&r1);
  store_close(s);
}
END_TEST

START_TEST(test_replace_moves_names) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  store_ingest_result_t r1, r2, r3, r4;
  ck_assert_int_eq(upload(s, "rig", 1, 1, NULL, &r1, &err), 0);
  ck_assert_uint_eq(r1.moved_count, 0);
  store_names_t replace = {.replace = true};
  ck_assert_int_eq(upload(s, "rig", 1, 2, &replace, &r2, &err), 0);
  /* Same skeleton and run (not created), a new walk: one name moved. */
  ck_assert(!r2.entries[SK].created);
  ck_assert(!r2.entries[RUN].created);
  ck_assert(r2.entries[WALK].created);
  ck_assert_uint_eq(r2.moved_count, 1);
  ck_assert_ptr_eq(r2.moved[0].old, r1.entries[WALK].asset);
  ck_assert_ptr_eq(r2.moved[0].new_asset, r2.entries[WALK].asset);
  char id[65];
  const store_asset_t *sk = r1.entries[SK].asset;
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id),
                   r2.entries[WALK].asset->id);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", sk, id),
                   r2.entries[WALK].asset->id);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "walk", NULL), 1);
  /* The old clip: by its id, and it keeps its content name. */
  ck_assert_str_eq(found(s, STORE_CLIP, r1.entries[WALK].asset->id, NULL, id),
                   r1.entries[WALK].asset->id);
  ck_assert_str_eq(r1.entries[WALK].asset->name, "walk");
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.clips, 3);
  /* The same upload again: nothing new, nothing moved. */
  ck_assert_int_eq(upload(s, "rig", 1, 2, &replace, &r3, &err), 0);
  ck_assert(!r3.any_created);
  ck_assert_uint_eq(r3.moved_count, 0);
  store_ingest_result_free(&r3);
  /* The first export again, with replace: it exists, and takes its name
   * back (a roll-back); without replace it is a plain no-op. */
  ck_assert_int_eq(upload(s, "rig", 1, 1, NULL, &r3, &err), 0);
  ck_assert(!r3.any_created);
  ck_assert_uint_eq(r3.moved_count, 0);
  store_ingest_result_free(&r3);
  ck_assert_int_eq(upload(s, "rig", 1, 1, &replace, &r3, &err), 0);
  ck_assert(!r3.any_created);
  ck_assert_uint_eq(r3.moved_count, 1);
  ck_assert_ptr_eq(r3.moved[0].old, r2.entries[WALK].asset);
  ck_assert_ptr_eq(r3.moved[0].new_asset, r1.entries[WALK].asset);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id),
                   r1.entries[WALK].asset->id);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "walk", NULL), 1);
  store_ingest_result_free(&r3);
  /* And forward again. */
  ck_assert_int_eq(upload(s, "rig", 1, 2, &replace, &r3, &err), 0);
  ck_assert_uint_eq(r3.moved_count, 1);
  ck_assert_ptr_eq(r3.moved[0].old, r1.entries[WALK].asset);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id),
                   r2.entries[WALK].asset->id);
  store_ingest_result_free(&r3);
  /* A new skeleton of the same name: it takes the skeleton's name and
   * every clip and mesh name of the older rig (walk from the second
   * export, run and body from the first), by kind then old id. */
  ck_assert_int_eq(upload(s, "rig", 2, 3, &replace, &r3, &err), 0);
  ck_assert_uint_eq(r3.moved_count, 4);
  ck_assert_ptr_eq(r3.moved[0].old, sk);
  ck_assert_ptr_eq(r3.moved[0].new_asset, r3.entries[SK].asset);
  ck_assert_int_eq(r3.moved[1].old->kind, STORE_CLIP);
  ck_assert_int_eq(r3.moved[2].old->kind, STORE_CLIP);
  ck_assert_int_lt(strcmp(r3.moved[1].old->id, r3.moved[2].old->id), 0);
  ck_assert_ptr_eq(r3.moved[3].old, r1.entries[BODY].asset);
  ck_assert_ptr_eq(r3.moved[3].new_asset, r3.entries[BODY].asset);
  for (int i = 1; i < 3; i++) {
    const store_asset_t *old = r3.moved[i].old;
    ck_assert(old == r2.entries[WALK].asset || old == r1.entries[RUN].asset);
    ck_assert_ptr_eq(
        r3.moved[i].new_asset,
        r3.entries[old == r1.entries[RUN].asset ? RUN : WALK].asset);
  }
  ck_assert_str_eq(found(s, STORE_SKELETON, "rig", NULL, id),
                   r3.entries[SK].asset->id);
  ck_assert_str_eq(found(s, STORE_CLIP, "run", NULL, id),
                   r3.entries[RUN].asset->id);
  ck_assert_str_eq(found(s, STORE_MESH, "body", NULL, id),
                   r3.entries[BODY].asset->id);
  /* Another rig's walk keeps its name: only earlier exports lose it. */
  ck_assert_int_eq(upload(s, "other", 1, 1, NULL, &r4, &err), 0);
  store_ingest_result_free(&r4);
  ck_assert_int_eq(upload(s, "rig", 2, 4, &replace, &r4, &err), 0);
  ck_assert_uint_eq(r4.moved_count, 1);
  ck_assert_ptr_eq(r4.moved[0].old, r3.entries[WALK].asset);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "walk", NULL), 2);
  store_ingest_result_free(&r4);
  store_ingest_result_free(&r3);
  store_ingest_result_free(&r2);
  store_ingest_result_free(&r1);
  store_close(s);
}
END_TEST

START_TEST(test_prefix_names_every_kind) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  store_ingest_result_t r1, r2;
  ck_assert_int_eq(upload(s, "rig", 1, 1, NULL, &r1, &err), 0);
  store_names_t prev = {.prefix = "prev/"};
  ck_assert_int_eq(upload(s, "rig", 1, 2, &prev, &r2, &err), 0);
  static const char *const want[] = {"prev/rig", "prev/run", "prev/walk",
                                     "prev/body"};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_str_eq(r2.entries[i].asset->name, want[i]);
    ck_assert(r2.entries[i].created);
  }
  /* The names are content: the skeleton is another one. */
  ck_assert_str_ne(r2.entries[SK].asset->id, r1.entries[SK].asset->id);
  char id[65];
  ck_assert_str_eq(found(s, STORE_CLIP, "prev/walk", NULL, id),
                   r2.entries[WALK].asset->id);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id),
                   r1.entries[WALK].asset->id);
  store_ingest_result_free(&r2);
  /* With ?name=, the given name is qualified too. */
  store_names_t named = {.skeleton = "hero", .prefix = "new/"};
  ck_assert_int_eq(upload(s, "rig", 1, 2, &named, &r2, &err), 0);
  ck_assert_str_eq(r2.entries[SK].asset->name, "new/hero");
  store_ingest_result_free(&r2);
  /* Prefixes that cannot be. */
  static const char *const bad[] = {
      "", "a b/", "new\"/", "x\n",
      "0123456789012345678901234567890123456789012345678901234567890123/"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    store_names_t p = {.prefix = bad[i]};
    ck_assert_int_eq(upload(s, "rig", 1, 2, &p, &r2, &err), -1);
    ck_assert_str_eq(fmt_error_name(err.code), "bad_parameter");
    ck_assert_str_eq(err.at, "prefix");
  }
  ck_assert_int_eq(store_check_prefix("v2.1:take_3-a/", "prefix", &err), 0);
  store_ingest_result_free(&r1);
  store_close(s);
}
END_TEST

/* ---- with a data dir ------------------------------------------------------
 */

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/animd-reexport-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static store_t *open_dir(void) {
  store_options_t o = {.data_dir = dir, .log = NULL};
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(&o, &s, &err), 0);
  return s;
}

static bool marker_exists(const store_asset_t *a) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s-%s.unnamed", dir, store_kind_name(a->kind),
           a->id);
  return access(path, F_OK) == 0;
}

START_TEST(test_replace_persists) {
  make_dir();
  store_t *s = open_dir();
  fmt_error_t err = {0};
  store_ingest_result_t r1, r2;
  ck_assert_int_eq(upload(s, "rig", 1, 1, NULL, &r1, &err), 0);
  store_names_t replace = {.replace = true};
  ck_assert_int_eq(upload(s, "rig", 1, 2, &replace, &r2, &err), 0);
  char old[65], fresh[65], id[65];
  snprintf(old, sizeof old, "%s", r1.entries[WALK].asset->id);
  snprintf(fresh, sizeof fresh, "%s", r2.entries[WALK].asset->id);
  ck_assert(marker_exists(r1.entries[WALK].asset));
  ck_assert(!marker_exists(r2.entries[WALK].asset));
  store_ingest_result_free(&r2);
  /* Back and forth: the markers follow the names. */
  ck_assert_int_eq(upload(s, "rig", 1, 1, &replace, &r2, &err), 0);
  ck_assert(!marker_exists(r1.entries[WALK].asset));
  ck_assert(marker_exists(r2.moved[0].old));
  store_ingest_result_free(&r2);
  ck_assert_int_eq(upload(s, "rig", 1, 2, &replace, &r2, &err), 0);
  ck_assert(marker_exists(r1.entries[WALK].asset));
  ck_assert(!marker_exists(r2.entries[WALK].asset));
  store_ingest_result_free(&r2);
  store_ingest_result_free(&r1);
  store_close(s);
  /* Reopened: the name finds the new clip, the id the old one. */
  s = open_dir();
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skipped, 0);
  ck_assert_uint_eq(st.clips, 3);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id), fresh);
  ck_assert_uint_eq(store_name_count(s, STORE_CLIP, "walk", NULL), 1);
  ck_assert_str_eq(found(s, STORE_CLIP, old, NULL, id), old);
  /* Deleting the old clip removes its marker. */
  store_asset_t *a = store_lookup(s, STORE_CLIP, old, NULL);
  ck_assert(marker_exists(a));
  ck_assert_int_eq(store_delete(s, STORE_CLIP, old, &err), 0);
  ck_assert(!marker_exists(a));
  store_asset_release(a);
  store_close(s);
  /* A marker without its asset is removed at open. */
  char stray[256];
  snprintf(stray, sizeof stray, "%s/clip-%s.unnamed", dir, old);
  FILE *f = fopen(stray, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  s = open_dir();
  ck_assert_int_eq(access(stray, F_OK), -1);
  ck_assert_str_eq(found(s, STORE_CLIP, "walk", NULL, id), fresh);
  store_close(s);
  remove_dir();
}
END_TEST

Suite *store_reexport_suite(void) {
  Suite *s = suite_create("store_reexport");
  TCase *tc = tcase_create("reexport");
  tcase_add_test(tc, test_conflict_says_where);
  tcase_add_test(tc, test_replace_moves_names);
  tcase_add_test(tc, test_prefix_names_every_kind);
  tcase_add_test(tc, test_replace_persists);
  suite_add_tcase(s, tc);
  return s;
}
