/* Tests for re-exports over HTTP, against a real server through the
 * in-memory transport, with the exact answers: a new export of a rig is
 * 409 name_conflict at the clashing entry, ?replace=1 moves the names and
 * lists them under "replaced" (empty when nothing moved; absent without
 * ?replace=), the name then finds the new clip and the old one answers by
 * id; ?prefix= qualifies every name; bad values of both are 400
 * bad_parameter at their name, and ?clip= on a JSON upload says what to
 * use instead. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

/* A one-joint rig "rig" with one clip "walk" moving by dx. */
static const char rig[] =
    "{\"skeleton\":{\"name\":\"rig\",\"joints\":[{\"name\":\"root\","
    "\"parent\":-1}]},\"clips\":[{\"name\":\"walk\",\"tracks\":[{\"joint\":"
    "\"root\",\"path\":\"translation\",\"times\":[0,1],"
    "\"values\":[0,0,0,%d,0,0]}]}]}";

static mem_answer_t upload(const char *target, int dx) {
  char body[512];
  snprintf(body, sizeof body, rig, dx);
  return api_json("POST", target, body);
}

/* The upload answer of the rig: skeleton sk, clip clip named prefix+walk,
 * then `tail` (the "replaced" member, or ""). */
static void rig_answer(char *out, size_t cap, const char *sk, const char *clip,
                       const char *prefix, const char *tail) {
  snprintf(out, cap,
           "{\"skeletons\":[{\"id\":\"%s\",\"name\":\"%srig\",\"joints\":1}],"
           "\"clips\":[{\"id\":\"%s\",\"name\":\"%swalk\",\"skeleton\":\"%s\","
           "\"duration\":1}],\"meshes\":[]%s}\n",
           sk, prefix, clip, prefix, sk, tail);
}

static void expect_body(mem_answer_t a, int status, const char *want) {
  ck_assert_msg(a.status == status, "status %d: %s", a.status, a.body);
  ck_assert_str_eq(a.body, want);
  mem_answer_free(&a);
}

START_TEST(test_replace_over_http) {
  mem_server_start();
  mem_answer_t a = upload("/v1/assets", 1);
  ck_assert_int_eq(a.status, 201);
  char sk[65], c1[65], c2[65], want[1024], tail[512];
  api_id_after(a.body, "\"skeletons\"", sk);
  api_id_after(a.body, "\"clips\"", c1);
  rig_answer(want, sizeof want, sk, c1, "", "");
  expect_body(a, 201, want);

  /* The new export: refused where it clashes. */
  snprintf(want, sizeof want,
           "{\"error\":{\"code\":\"name_conflict\",\"message\":\"its "
           "skeleton has a clip named \\\"walk\\\" already (%s): upload with "
           "?replace=1 to move the name, or ?prefix= to keep both\",\"at\":"
           "\"clips[0].name\"}}\n",
           c1);
  expect_body(upload("/v1/assets", 2), 409, want);

  /* With ?replace=1 the name moves and the answer says so. */
  a = upload("/v1/assets?replace=1", 2);
  api_id_after(a.body, "\"clips\"", c2);
  ck_assert_str_ne(c1, c2);
  snprintf(tail, sizeof tail,
           ",\"replaced\":[{\"kind\":\"clip\",\"name\":\"walk\",\"old\":"
           "\"%s\",\"new\":\"%s\"}]",
           c1, c2);
  rig_answer(want, sizeof want, sk, c2, "", tail);
  expect_body(a, 201, want);
  a = mem_get("/v1/pose?skeleton=rig&clip=walk&t=1&space=local");
  ck_assert_int_eq(a.status, 200);
  char clip_key[80];
  snprintf(clip_key, sizeof clip_key, "\"clip\":\"%s\"", c2);
  ck_assert_msg(strstr(a.body, clip_key) != NULL, "%s", a.body);
  mem_answer_free(&a);
  /* The old clip by its id, and the name still the new one's after. */
  char target[128];
  snprintf(target, sizeof target, "/v1/clips/%s", c1);
  api_expect(mem_get(target), 200, NULL, NULL, "old clip by id");
  a = mem_get("/v1/clips/walk");
  ck_assert_int_eq(a.status, 200);
  ck_assert_msg(strstr(a.body, c2) != NULL, "%s", a.body);
  mem_answer_free(&a);

  /* Again: nothing moved, nothing new. */
  rig_answer(want, sizeof want, sk, c2, "", ",\"replaced\":[]");
  expect_body(upload("/v1/assets?replace=true", 2), 200, want);
  /* ?replace=0 is a plain upload: no "replaced" member. */
  rig_answer(want, sizeof want, sk, c2, "", "");
  expect_body(upload("/v1/assets?replace=0", 2), 200, want);
  mem_server_stop();
}
END_TEST

START_TEST(test_prefix_over_http) {
  mem_server_start();
  api_expect(upload("/v1/assets", 1), 201, NULL, NULL, "first export");
  mem_answer_t a = upload("/v1/assets?prefix=prev/", 2);
  char sk[65], clip[65], want[1024];
  api_id_after(a.body, "\"skeletons\"", sk);
  api_id_after(a.body, "\"clips\"", clip);
  rig_answer(want, sizeof want, sk, clip, "prev/", "");
  expect_body(a, 201, want);
  a = mem_get("/v1/pose?skeleton=prev/rig&clip=prev/walk&t=0");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, clip));
  mem_answer_free(&a);
  /* Bad values. */
  api_expect(upload("/v1/assets?prefix=a%20b/", 2), 400, "bad_parameter",
             "prefix", "a space");
  api_expect(upload("/v1/assets?prefix=", 2), 400, "bad_parameter", "prefix",
             "empty");
  char target[256];
  snprintf(target, sizeof target, "/v1/assets?prefix=%065d", 7);
  api_expect(upload(target, 2), 400, "bad_parameter", "prefix", "65 bytes");
  api_expect(upload("/v1/assets?replace=2", 2), 400, "bad_parameter", "replace",
             "replace=2");
  /* ?clip= names BVH and md5anim clips only, and says what to use. */
  expect_body(
      upload("/v1/assets?clip=walk2", 2), 400,
      "{\"error\":{\"code\":\"bad_parameter\",\"message\":\"?clip= names the "
      "clip of a BVH or md5anim upload; glTF and JSON files name their clips "
      "themselves: upload a new export with ?replace=1 to move the names to "
      "it, or with ?prefix= to keep both\",\"at\":\"clip\"}}\n");
  mem_server_stop();
}
END_TEST

Suite *api_reexport_suite(void) {
  Suite *s = suite_create("api_reexport");
  TCase *tc = tcase_create("reexport");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_replace_over_http);
  tcase_add_test(tc, test_prefix_over_http);
  suite_add_tcase(s, tc);
  return s;
}
