/* Tests for the API's one lookup (request/target.h) on a store of two rigs
 * that share names: lists of names from a query and from a message, a
 * name found, missing (with what a fleet would fetch) or shared by two
 * assets (ambiguous, every id listed), a clip or meshes of another
 * skeleton, normals, joints, and the order the faults are reported in. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/native_json.h"
#include "server/request/target.h"

/* Two joints ("a", "b"), a clip "slide" and a mesh "pair" (no normals
 * given: the store computes them), named name; b sits at height y. */
static const char rig[] =
    "{\"skeleton\":{\"name\":\"%s\",\"joints\":["
    "{\"name\":\"a\",\"parent\":-1,\"translation\":[0,0,0]},"
    "{\"name\":\"b\",\"parent\":0,\"translation\":[0,%d,0]}]},"
    "\"clips\":[{\"name\":\"slide\",\"tracks\":[{\"joint\":\"a\","
    "\"path\":\"translation\",\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}],"
    "\"meshes\":[{\"name\":\"pair\",\"positions\":[0,0,0,0,%d,0],"
    "\"joints\":[0,0,0,0,1,0,0,0],\"weights\":[1,0,0,0,1,0,0,0]}]}";

static store_t *st;
static char line_id[2][FMT_ID_LEN + 1]; /* The two "line" skeletons. */
static char other_id[FMT_ID_LEN + 1];   /* The "other" skeleton. */
static char other_clip[FMT_ID_LEN + 1];

static void ingest(const char *name, int y, char *skeleton_id, char *clip_id) {
  char text[1024];
  snprintf(text, sizeof text, rig, name, y, y);
  fmt_error_t fe = {0};
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), NULL, &b, &fe),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &b, NULL, &res, &fe), 0);
  for (size_t k = 0; k < res.count; k++) {
    const store_asset_t *a = res.entries[k].asset;
    if (a->kind == STORE_SKELETON) memcpy(skeleton_id, a->id, FMT_ID_LEN + 1);
    if (a->kind == STORE_CLIP && clip_id != NULL)
      memcpy(clip_id, a->id, FMT_ID_LEN + 1);
  }
  store_ingest_result_free(&res);
  fmt_bundle_free(&b);
}

static void setup(void) {
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  ingest("line", 2, line_id[0], NULL);
  ingest("line", 3, line_id[1], NULL);
  ingest("other", 4, other_id, other_clip);
}

static void teardown(void) { store_close(st); }

START_TEST(test_names) {
  srv_names_t none = {0};
  ck_assert(!srv_names_given(&none));
  ck_assert_uint_eq(srv_names_count(&none), 0);
  srv_names_t csv = {.csv = "a,,bc"};
  ck_assert(srv_names_given(&csv));
  ck_assert_uint_eq(srv_names_count(&csv), 3);
  char buf[4];
  ck_assert_str_eq(srv_names_item(&csv, 0, buf, sizeof buf), "a");
  ck_assert_str_eq(srv_names_item(&csv, 1, buf, sizeof buf), "");
  ck_assert_str_eq(srv_names_item(&csv, 2, buf, sizeof buf), "bc");
  /* A name that does not fit is not cut to a shorter one. */
  srv_names_t longer = {.csv = "abcd,e"};
  ck_assert_ptr_null(srv_names_item(&longer, 0, buf, sizeof buf));
  ck_assert_str_eq(srv_names_item(&longer, 1, buf, sizeof buf), "e");
  json_t *array = json_pack("[s,s]", "x", "yz");
  srv_names_t arr = {.array = array};
  ck_assert_uint_eq(srv_names_count(&arr), 2);
  ck_assert_str_eq(srv_names_item(&arr, 1, buf, sizeof buf), "yz");
  json_decref(array);
}
END_TEST

START_TEST(test_lookup) {
  store_asset_t *a = NULL;
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  /* No name: nothing, no error. */
  ck_assert_int_eq(
      srv_lookup(st, STORE_SKELETON, "skeleton", NULL, NULL, &a, &err, &miss),
      0);
  ck_assert_ptr_null(a);
  /* By name and by id. */
  ck_assert_int_eq(srv_lookup(st, STORE_SKELETON, "skeleton", "other", NULL, &a,
                              &err, &miss),
                   0);
  ck_assert_str_eq(a->id, other_id);
  store_asset_release(a);
  ck_assert_int_eq(srv_lookup(st, STORE_SKELETON, "skeleton", line_id[1], NULL,
                              &a, &err, &miss),
                   0);
  ck_assert_str_eq(a->id, line_id[1]);
  store_asset_release(a);
  /* Shared: ambiguous, both ids listed, not a miss. */
  ck_assert_int_eq(
      srv_lookup(st, STORE_SKELETON, "skeleton", "line", NULL, &a, &err, &miss),
      -1);
  ck_assert_int_eq(err.code, SRV_ERR_AMBIGUOUS);
  ck_assert_str_eq(err.at, "skeleton");
  ck_assert_ptr_nonnull(strstr(err.message, line_id[0]));
  ck_assert_ptr_nonnull(strstr(err.message, line_id[1]));
  ck_assert(!miss.missed);
  /* Missing: not_found, and what to fetch. */
  store_asset_t *sk = NULL;
  ck_assert_int_eq(srv_lookup(st, STORE_SKELETON, "skeleton", "other", NULL,
                              &sk, &err, NULL),
                   0);
  ck_assert_int_eq(
      srv_lookup(st, STORE_CLIP, "clip", "nope", sk, &a, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_NOT_FOUND);
  ck_assert_str_eq(err.message, "no clip 'nope' on that skeleton");
  ck_assert(miss.missed);
  ck_assert_int_eq(miss.kind, STORE_CLIP);
  ck_assert_str_eq(miss.name, "nope");
  ck_assert_str_eq(miss.skeleton, other_id);
  ck_assert_str_eq(miss.at, "clip");
  /* A name too long to keep whole: not found, and nothing to fetch. */
  char longname[300];
  memset(longname, 'n', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  ck_assert_int_eq(
      srv_lookup(st, STORE_CLIP, "clip", longname, sk, &a, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_NOT_FOUND);
  ck_assert(!miss.missed);
  store_asset_release(sk);
}
END_TEST

START_TEST(test_resolve_pose) {
  srv_target_t t;
  srv_error_t err;
  srv_lookup_miss_t miss;
  /* A clip alone brings its skeleton; joints in the caller's order. */
  srv_target_query_t q = {.clip = other_clip, .joints = {.csv = "b,a,b"}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), 0);
  ck_assert_str_eq(t.skeleton->id, other_id);
  ck_assert_str_eq(t.clip->id, other_clip);
  ck_assert_uint_eq(t.mesh_count, 0);
  ck_assert_uint_eq(t.joint_count, 3);
  ck_assert_uint_eq(t.joints[0], 1);
  ck_assert_uint_eq(t.joints[1], 0);
  ck_assert_uint_eq(t.joints[2], 1);
  srv_target_release(&t);
  ck_assert_ptr_null(t.skeleton);
  /* The clip is looked up on the skeleton named: another skeleton's clip
   * is not found there. */
  q = (srv_target_query_t){.skeleton = line_id[0], .clip = other_clip};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_NOT_FOUND);
  ck_assert_str_eq(err.at, "clip");
  /* The skeleton's fault comes first. */
  q = (srv_target_query_t){.skeleton = "line", .clip = "nope"};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_AMBIGUOUS);
  /* An unknown joint, from a message's array. */
  json_t *joints = json_pack("[s,s]", "a", "zz");
  q = (srv_target_query_t){.skeleton = "other", .joints = {.array = joints}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_UNKNOWN_JOINT);
  ck_assert_str_eq(err.at, "joints[1]");
  json_decref(joints);
  /* Nothing named. */
  q = (srv_target_query_t){0};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_MISSING_PARAMETER);
}
END_TEST

START_TEST(test_resolve_meshes) {
  srv_target_t t;
  srv_error_t err;
  srv_lookup_miss_t miss;
  /* One mesh brings its skeleton; the clip is looked up on it. */
  srv_target_query_t q = {.mesh = "pair", .clip = "slide"};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_AMBIGUOUS); /* Three meshes "pair". */
  ck_assert_str_eq(err.at, "mesh");
  q = (srv_target_query_t){
      .skeleton = "other", .mesh = "pair", .clip = "slide"};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), 0);
  ck_assert_uint_eq(t.mesh_count, 1);
  ck_assert_ptr_eq(t.meshes[0]->skeleton_asset, t.skeleton);
  ck_assert_str_eq(t.clip->id, other_clip);
  srv_target_release(&t);
  /* Every mesh of a skeleton. */
  q = (srv_target_query_t){.skeleton = line_id[0], .mesh_all = true};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), 0);
  ck_assert_uint_eq(t.mesh_count, 1);
  srv_target_release(&t);
  /* A list: a query's answers at "mesh", a message's at "mesh[i]"; joints
   * are not for meshes. */
  q = (srv_target_query_t){.skeleton = "other", .meshes = {.csv = "pair,x"}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_NOT_FOUND);
  ck_assert_str_eq(err.at, "mesh");
  ck_assert(miss.missed);
  json_t *list = json_pack("[s,s]", "pair", "x");
  q = (srv_target_query_t){.skeleton = "other", .meshes = {.array = list}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_str_eq(err.at, "mesh[1]");
  json_decref(list);
  q = (srv_target_query_t){
      .skeleton = "other", .mesh = "pair", .joints = {.csv = "a"}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_BAD_VALUE);
  ck_assert_str_eq(err.at, "joints");
  /* Meshes of two skeletons in one list, by id. */
  store_asset_t **all = NULL;
  size_t n = 0;
  ck_assert_int_eq(store_list(st, &all, &n), 0);
  char ids[2 * (FMT_ID_LEN + 1)] = "";
  for (size_t k = 0; k < n; k++)
    if (all[k]->kind == STORE_MESH && strlen(ids) < 2 * FMT_ID_LEN) {
      if (ids[0] != '\0') strcat(ids, ",");
      strcat(ids, all[k]->id);
    }
  store_list_free(all, n);
  q = (srv_target_query_t){.meshes = {.csv = ids}};
  ck_assert_int_eq(srv_target_resolve(st, &q, &t, &err, &miss), -1);
  ck_assert_int_eq(err.code, SRV_ERR_SKELETON_MISMATCH);
  ck_assert_str_eq(err.at, "mesh");
}
END_TEST

Suite *request_target_suite(void) {
  Suite *s = suite_create("request_target");
  TCase *tc = tcase_create("target");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_lookup);
  tcase_add_test(tc, test_resolve_pose);
  tcase_add_test(tc, test_resolve_meshes);
  suite_add_tcase(s, tc);
  return s;
}
