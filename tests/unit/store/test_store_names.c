/* Tests for names in the store: a name several assets share is reported
 * as ambiguous with the ids of the matches (never as absent), names given
 * at upload replace the decoded ones (and are refused where they cannot
 * apply), the clips and meshes of a skeleton are listed, and a cascading
 * delete removes a skeleton with everything that belongs to it. Names are
 * at most 256 bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

/* A one-joint rig named `skeleton` (its root at height y, so rigs of one
 * name differ) with a clip named `clip` and, when mesh, a mesh "body". */
static void rig_text(char *out, size_t cap, const char *skeleton, int y,
                     const char *clip, bool mesh) {
  snprintf(out, cap,
           "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":\"root\","
           "\"parent\":-1,\"translation\":[0,%d,0]}]},"
           "\"clips\":[{\"name\":\"%s\",\"tracks\":[{\"joint\":\"root\","
           "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
           "\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}]%s}",
           skeleton, y, clip,
           mesh ? ",\"meshes\":[{\"name\":\"body\",\"positions\":[0,0,0],"
                  "\"joints\":[0,0,0,0],\"weights\":[1,0,0,0]}]"
                : "");
}

static int upload_named(store_t *s, const char *text,
                        const store_names_t *names, store_ingest_result_t *r,
                        fmt_error_t *err) {
  fmt_bundle_t b;
  int rc = fmt_decode_native_json(text, strlen(text), NULL, &b, err);
  if (rc == 0) rc = store_ingest_named(s, &b, NULL, names, r, err);
  return rc;
}

static store_asset_t *upload_rig(store_t *s, const char *skeleton, int y,
                                 const char *clip, bool mesh) {
  char text[1024];
  rig_text(text, sizeof text, skeleton, y, clip, mesh);
  store_ingest_result_t r;
  fmt_error_t err = {0};
  ck_assert_msg(upload_named(s, text, NULL, &r, &err) == 0, "%s", err.message);
  store_asset_t *sk = r.entries[0].asset;
  store_asset_retain(sk);
  store_ingest_result_free(&r);
  return sk;
}

static store_t *open_memory(void) {
  store_t *s = NULL;
  fmt_error_t err = {0};
  ck_assert_int_eq(store_open(NULL, &s, &err), 0);
  return s;
}

/* "did you mean": the nearest name of a kind, within a skeleton when
 * given, case first; at most suggest_scan names compared. */
START_TEST(test_suggest_names) {
  for (int capped = 0; capped < 2; capped++) {
    store_options_t opts = {.suggest_scan = capped ? 1 : 0};
    store_t *s = NULL;
    fmt_error_t err = {0};
    ck_assert_int_eq(store_open(&opts, &s, &err), 0);
    store_asset_t *hero = upload_rig(s, "hero", 1, "wave", true);
    store_asset_t *villain = upload_rig(s, "villain", 2, "walk", false);
    char near[64];
    if (!capped) {
      store_suggest(s, STORE_CLIP, "Wave", NULL, near, sizeof near);
      ck_assert_str_eq(near, "wave");
      store_suggest(s, STORE_CLIP, "wav", hero, near, sizeof near);
      ck_assert_str_eq(near, "wave");
      /* Within villain, "walk" is 2 edits from "wav": too far. */
      store_suggest(s, STORE_CLIP, "wav", villain, near, sizeof near);
      ck_assert_str_eq(near, "");
      store_suggest(s, STORE_SKELETON, "hera", NULL, near, sizeof near);
      ck_assert_str_eq(near, "hero");
      store_suggest(s, STORE_MESH, "bdy", NULL, near, sizeof near);
      ck_assert_str_eq(near, "body");
      store_suggest(s, STORE_MESH, "zzzzzz", NULL, near, sizeof near);
      ck_assert_str_eq(near, "");
    }
    /* "wal": 1 edit from walk, 2 from wave. Capped at one clip compared,
     * only the first published ("wave") is seen. */
    store_suggest(s, STORE_CLIP, "wal", NULL, near, sizeof near);
    ck_assert_str_eq(near, capped ? "" : "walk");
    store_asset_release(hero);
    store_asset_release(villain);
    store_close(s);
  }
}
END_TEST

START_TEST(test_ambiguous_names_list_ids) {
  store_t *s = open_memory();
  store_asset_t *sk[5];
  for (int i = 0; i < 5; i++) sk[i] = upload_rig(s, "Armature", i, "wave", 0);
  store_match_t m;
  store_find(s, STORE_SKELETON, "Armature", NULL, &m);
  ck_assert_ptr_null(m.asset);
  ck_assert_uint_eq(m.count, 5);
  ck_assert_uint_eq(m.listed, 5);
  /* Every id listed once, ascending. */
  for (size_t i = 0; i < m.listed; i++) {
    if (i > 0) ck_assert_int_lt(strcmp(m.ids[i - 1], m.ids[i]), 0);
    int found = 0;
    for (int k = 0; k < 5; k++) found += strcmp(sk[k]->id, m.ids[i]) == 0;
    ck_assert_int_eq(found, 1);
  }
  char msg[512];
  store_match_describe(&m, STORE_SKELETON, "Armature", msg, sizeof msg);
  ck_assert_msg(strstr(msg, "'Armature' names 5 skeletons:") == msg, "%s", msg);
  for (int k = 0; k < 5; k++) ck_assert_ptr_nonnull(strstr(msg, sk[k]->id));
  /* A clip name shared across skeletons: ambiguous alone, found within
   * its skeleton; an id always finds its asset. */
  store_find(s, STORE_CLIP, "wave", NULL, &m);
  ck_assert_uint_eq(m.count, 5);
  ck_assert_ptr_null(m.asset);
  store_find(s, STORE_CLIP, "wave", sk[2], &m);
  ck_assert_uint_eq(m.count, 1);
  ck_assert_ptr_eq(m.asset->skeleton_asset, sk[2]);
  store_asset_release(m.asset);
  store_find(s, STORE_SKELETON, sk[3]->id, NULL, &m);
  ck_assert_ptr_eq(m.asset, sk[3]);
  store_asset_release(m.asset);
  store_find(s, STORE_SKELETON, "nobody", NULL, &m);
  ck_assert_uint_eq(m.count, 0);
  ck_assert_ptr_null(m.asset);
  ck_assert_ptr_null(store_lookup(s, STORE_SKELETON, "Armature", NULL));
  ck_assert_uint_eq(store_name_count(s, STORE_SKELETON, "Armature", NULL), 5);
  for (int i = 0; i < 5; i++) store_asset_release(sk[i]);
  store_close(s);
}
END_TEST

START_TEST(test_many_matches_list_the_smallest_ids) {
  store_t *s = open_memory();
  store_asset_t *sk[9];
  for (int i = 0; i < 9; i++) sk[i] = upload_rig(s, "Armature", i, "c", 0);
  store_match_t m;
  store_find(s, STORE_SKELETON, "Armature", NULL, &m);
  ck_assert_uint_eq(m.count, 9);
  ck_assert_uint_eq(m.listed, STORE_MATCH_LISTED);
  /* The listed ids are the smallest: no unlisted id sorts before the last
   * one listed. */
  for (int k = 0; k < 9; k++) {
    bool listed = false;
    for (size_t i = 0; i < m.listed; i++)
      listed |= strcmp(sk[k]->id, m.ids[i]) == 0;
    if (!listed) ck_assert_int_gt(strcmp(sk[k]->id, m.ids[m.listed - 1]), 0);
  }
  char msg[512];
  store_match_describe(&m, STORE_SKELETON, "Armature", msg, sizeof msg);
  ck_assert_ptr_nonnull(strstr(msg, " and 3 more (use an id)"));
  ck_assert_uint_lt(strlen(msg), sizeof msg - 1);
  for (int i = 0; i < 9; i++) store_asset_release(sk[i]);
  store_close(s);
}
END_TEST

START_TEST(test_names_given_at_upload) {
  store_t *s = open_memory();
  char text[1024];
  rig_text(text, sizeof text, "Armature", 1, "motion-1234abcd", 0);
  store_ingest_result_t r, r2;
  fmt_error_t err = {0};
  store_names_t names = {.skeleton = "hero", .clip = "wave"};
  ck_assert_int_eq(upload_named(s, text, &names, &r, &err), 0);
  ck_assert_str_eq(r.entries[0].asset->name, "hero");
  ck_assert_str_eq(r.entries[0].asset->skeleton->name, "hero");
  ck_assert_str_eq(r.entries[1].asset->name, "wave");
  store_asset_t *hero = store_lookup(s, STORE_SKELETON, "hero", NULL);
  ck_assert_ptr_eq(hero, r.entries[0].asset);
  store_asset_release(hero);
  /* The name is part of the content: the same rig under its own name is
   * another skeleton. */
  ck_assert_int_eq(upload_named(s, text, NULL, &r2, &err), 0);
  ck_assert_str_ne(r2.entries[0].asset->id, r.entries[0].asset->id);
  ck_assert_str_eq(r2.entries[0].asset->name, "Armature");
  store_ingest_result_free(&r2);
  /* Renaming the clip to a name its skeleton has is a conflict. */
  rig_text(text, sizeof text, "hero", 1, "other", 0);
  store_names_t again = {.clip = "other"};
  ck_assert_int_eq(upload_named(s, text, &again, &r2, &err), 0);
  store_ingest_result_free(&r2);
  char text2[1024];
  snprintf(text2, sizeof text2,
           "{\"clips\":[{\"name\":\"x\",\"skeleton\":\"%s\",\"tracks\":"
           "[{\"joint\":\"root\",\"path\":\"translation\",\"times\":[0],"
           "\"values\":[0,0,0]}]}]}",
           r.entries[0].asset->id);
  store_resolver_t res;
  store_resolver_init(&res, s);
  fmt_decode_options_t opts = {.resolve = store_resolve,
                               .resolve_user_data = &res};
  fmt_bundle_t b;
  ck_assert_int_eq(
      fmt_decode_native_json(text2, strlen(text2), &opts, &b, &err), 0);
  store_names_t clash = {.clip = "wave"};
  ck_assert_int_eq(store_ingest_named(s, &b, store_resolver_external(&res),
                                      &clash, &r2, &err),
                   -1);
  ck_assert_str_eq(fmt_error_name(err.code), "name_conflict");
  store_resolver_release(&res);
  /* Names that cannot apply. */
  static const struct {
    store_names_t names;
    const char *at;
  } bad[] = {
      {{.skeleton = ""}, "name"},
      {{.skeleton =
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
       "name"},
      {{.clip = ""}, "clip"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(upload_named(s, text, &bad[i].names, &r2, &err), -1);
    ck_assert_str_eq(fmt_error_name(err.code), "bad_parameter");
    ck_assert_str_eq(err.at, bad[i].at);
  }
  /* A bundle without a skeleton has nothing ?name= could name. */
  store_names_t no_skeleton = {.skeleton = "hero2"};
  store_resolver_init(&res, s);
  opts.resolve_user_data = &res;
  ck_assert_int_eq(
      fmt_decode_native_json(text2, strlen(text2), &opts, &b, &err), 0);
  ck_assert_int_eq(store_ingest_named(s, &b, store_resolver_external(&res),
                                      &no_skeleton, &r2, &err),
                   -1);
  ck_assert_str_eq(err.at, "name");
  store_resolver_release(&res);
  store_ingest_result_free(&r);
  store_close(s);
}
END_TEST

START_TEST(test_children_and_cascade) {
  store_t *s = open_memory();
  store_asset_t *a = upload_rig(s, "a", 1, "wave", true);
  store_asset_t *b = upload_rig(s, "b", 2, "wave", true);
  store_asset_t **list;
  size_t n;
  ck_assert_int_eq(store_children(s, a, STORE_CLIP, &list, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_ptr_eq(list[0]->skeleton_asset, a);
  ck_assert_str_eq(list[0]->name, "wave");
  store_list_free(list, n);
  ck_assert_int_eq(store_children(s, b, STORE_MESH, &list, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(list[0]->name, "body");
  store_list_free(list, n);
  fmt_error_t err = {0};
  ck_assert_int_eq(store_delete(s, STORE_SKELETON, a->id, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "conflict");
  ck_assert_ptr_nonnull(strstr(err.message, "cascade"));
  ck_assert_int_eq(store_delete_cascade(s, a->id, &list, &n, &err), 0);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(list[0]->kind, STORE_CLIP);
  ck_assert_int_eq(list[1]->kind, STORE_MESH);
  ck_assert_ptr_eq(list[2], a);
  store_list_free(list, n);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons, 1);
  ck_assert_uint_eq(st.clips, 1);
  ck_assert_uint_eq(st.meshes, 1);
  ck_assert_uint_eq(st.deleted, 3);
  /* The other rig's clip is no longer ambiguous. */
  store_asset_t *wave = store_lookup(s, STORE_CLIP, "wave", NULL);
  ck_assert_ptr_nonnull(wave);
  ck_assert_ptr_eq(wave->skeleton_asset, b);
  store_asset_release(wave);
  ck_assert_int_eq(store_delete_cascade(s, a->id, NULL, NULL, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "not_found");
  ck_assert_int_eq(store_delete_cascade(s, "b", NULL, NULL, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "not_found");
  /* A skeleton alone cascades to itself. */
  store_asset_t *c = upload_rig(s, "c", 3, "x", false);
  store_asset_t *x = store_lookup(s, STORE_CLIP, "x", c);
  ck_assert_int_eq(store_delete(s, STORE_CLIP, x->id, &err), 0);
  store_asset_release(x);
  ck_assert_int_eq(store_delete_cascade(s, c->id, NULL, NULL, &err), 0);
  store_asset_release(c);
  store_asset_release(a);
  store_asset_release(b);
  store_close(s);
}
END_TEST

/* Item: names had no length cap (a fleet's events of 1 KiB or more were
 * dropped, so a long name went stale on other nodes). A name of 256 bytes
 * is stored; 257 is refused with 400 bad_value at the name's field,
 * whether decoded or made by a prefix (bad_parameter at "prefix") or
 * given (bad_parameter at "clip"); nothing is stored. */
START_TEST(test_names_are_at_most_256_bytes) {
  store_t *s = open_memory();
  char name[STORE_NAME_MAX + 2], text[2048];
  memset(name, 'n', sizeof name - 1);
  name[STORE_NAME_MAX] = '\0';
  store_ingest_result_t r;
  fmt_error_t err = {0};
  rig_text(text, sizeof text, name, 1, name, false);
  ck_assert_int_eq(upload_named(s, text, NULL, &r, &err), 0);
  ck_assert_uint_eq(strlen(r.entries[1].asset->name), STORE_NAME_MAX);
  store_ingest_result_free(&r);

  name[STORE_NAME_MAX] = 'n';
  name[STORE_NAME_MAX + 1] = '\0';
  rig_text(text, sizeof text, "short", 2, name, false);
  ck_assert_int_eq(upload_named(s, text, NULL, &r, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 400);
  ck_assert_str_eq(fmt_error_name(err.code), "bad_value");
  ck_assert_str_eq(err.at, "clips[0].name");
  ck_assert_str_eq(err.message, "'clips[0].name' is 257 bytes long; a name "
                                "is at most 256 bytes");
  rig_text(text, sizeof text, name, 2, "wave", true);
  ck_assert_int_eq(upload_named(s, text, NULL, &r, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "bad_value");
  ck_assert_str_eq(err.at, "skeleton.name");
  /* A name given for the clip replaces the long one: stored. */
  rig_text(text, sizeof text, "short", 2, name, false);
  store_names_t given = {.clip = "wave"};
  ck_assert_int_eq(upload_named(s, text, &given, &r, &err), 0);
  store_ingest_result_free(&r);
  given.clip = name;
  ck_assert_int_eq(upload_named(s, text, &given, &r, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "bad_parameter");
  ck_assert_str_eq(err.at, "clip");
  /* 250 bytes and a prefix of 7: 257. */
  name[250] = '\0';
  rig_text(text, sizeof text, "short", 3, name, false);
  store_names_t prefixed = {.prefix = "export/"};
  ck_assert_int_eq(upload_named(s, text, &prefixed, &r, &err), -1);
  ck_assert_str_eq(fmt_error_name(err.code), "bad_parameter");
  ck_assert_str_eq(err.at, "prefix");
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons, 2);
  ck_assert_uint_eq(st.clips, 2);
  store_close(s);
}
END_TEST

Suite *store_names_suite(void) {
  Suite *s = suite_create("store_names");
  TCase *tc = tcase_create("store_names");
  tcase_add_test(tc, test_ambiguous_names_list_ids);
  tcase_add_test(tc, test_suggest_names);
  tcase_add_test(tc, test_many_matches_list_the_smallest_ids);
  tcase_add_test(tc, test_names_given_at_upload);
  tcase_add_test(tc, test_children_and_cascade);
  tcase_add_test(tc, test_names_are_at_most_256_bytes);
  suite_add_tcase(s, tc);
  return s;
}
