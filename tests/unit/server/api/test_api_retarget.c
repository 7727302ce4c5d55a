/* Tests for POST /v1/retarget over HTTP (the in-memory transport, the
 * demo's "wave" on "demo-humanoid"): the answer's shape (the upload answer
 * plus "retarget"), 201 then 200 for the same bake, the stored clip
 * playable, and each refusal with its code and "at". */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

static mem_answer_t retarget(const char *body) {
  return api_json("POST", "/v1/retarget", body);
}

START_TEST(test_retarget_answer) {
  mem_server_start();
  const char *body = "{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                     "\"auto\",\"name\":\"wave2\",\"fps\":20}";
  mem_answer_t a = retarget(body);
  ck_assert_msg(a.status == 201, "%s", a.body);
  json_t *doc = json_loads(a.body, 0, NULL);
  ck_assert_ptr_nonnull(doc);
  json_t *clips = json_object_get(doc, "clips");
  ck_assert_uint_eq(json_array_size(clips), 1);
  json_t *clip = json_array_get(clips, 0);
  ck_assert_str_eq(json_string_value(json_object_get(clip, "name")), "wave2");
  ck_assert_double_eq_tol(json_number_value(json_object_get(clip, "duration")),
                          2, 1e-6);
  ck_assert_uint_eq(json_array_size(json_object_get(doc, "skeletons")), 0);
  json_t *rt = json_object_get(doc, "retarget");
  /* Onto itself: all 17 joints by name, scale 1. */
  ck_assert_uint_eq(json_array_size(json_object_get(rt, "mapped")), 17);
  json_t *first = json_array_get(json_object_get(rt, "mapped"), 0);
  ck_assert_str_eq(json_string_value(json_array_get(first, 0)), "hips");
  ck_assert_str_eq(json_string_value(json_array_get(first, 1)), "hips");
  ck_assert_uint_eq(json_array_size(json_object_get(rt, "unmapped_source")), 0);
  ck_assert_uint_eq(json_array_size(json_object_get(rt, "unmapped_target")), 0);
  ck_assert_double_eq_tol(json_number_value(json_object_get(rt, "scale")), 1,
                          1e-6);
  json_decref(doc);
  mem_answer_free(&a);
  /* The same bake again: stored already. */
  a = retarget(body);
  ck_assert_msg(a.status == 200, "%s", a.body);
  mem_answer_free(&a);
  /* The stored clip plays. */
  a = mem_get("/v1/pose?clip=wave2&t=0.5");
  ck_assert_msg(a.status == 200, "%s", a.body);
  mem_answer_free(&a);
  /* A map and an explicit root: two pairs, the rest unmapped. */
  a = retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
               "{\"spine\":\"spine\"},\"root\":{\"source\":\"hips\","
               "\"target\":\"hips\"},\"name\":\"two\"}");
  ck_assert_msg(a.status == 201, "%s", a.body);
  doc = json_loads(a.body, 0, NULL);
  rt = json_object_get(doc, "retarget");
  ck_assert_uint_eq(json_array_size(json_object_get(rt, "mapped")), 2);
  ck_assert_uint_eq(json_array_size(json_object_get(rt, "unmapped_target")),
                    15);
  json_decref(doc);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_retarget_refusals) {
  mem_server_start();
  api_expect(retarget("{\"to\":\"demo-humanoid\",\"map\":\"auto\"}"), 400,
             "missing_field", "clip", "no clip");
  api_expect(retarget("{\"clip\":\"wave\",\"map\":\"auto\"}"), 400,
             "missing_field", "to", "no target");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\"}"), 400,
             "missing_field", "map", "no map");
  api_expect(
      retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":\"all\"}"),
      400, "wrong_type", "map", "map word");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"fsp\":30}"),
             400, "unknown_field", "fsp", "typo");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"fps\":0}"),
             400, "bad_value", "fps", "fps");
  api_expect(retarget("{\"clip\":\"nope\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\"}"),
             404, "not_found", "clip", "unknown clip");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"nope\",\"map\":\"auto\"}"),
             404, "not_found", "to", "unknown target");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "{\"pelvis\":\"hips\"}}"),
             400, "unknown_joint", "map.pelvis", "unknown source joint");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "{\"hips\":\"pelvis\"}}"),
             400, "unknown_joint", "map.hips", "unknown target joint");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "{\"hips\":\"hips\",\"spine\":\"hips\"}}"),
             400, "bad_value", "map.spine", "target twice");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"root\":{\"source\":\"hips\"}}"),
             400, "missing_field", "root.target", "root half");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"root\":{\"source\":\"hips\",\"target\":"
                      "\"root\"}}"),
             400, "unknown_joint", "root.target", "root joint");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"root\":{\"source\":\"hips\",\"target\":"
                      "\"spine\"}}"),
             400, "bad_value", "root", "root mapped otherwise");
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"name\":\"idle\"}"),
             409, "name_conflict", "name", "name taken");
  api_expect(api_json("POST", "/v1/retarget?x=1",
                      "{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\"}"),
             400, "unknown_parameter", "x", "query");
  mem_server_stop();
}
END_TEST

START_TEST(test_retarget_bounds) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.max_frames = 40;
  mem_server_start_cfg(&cfg);
  /* 2 s at 20 fps: 41 keys, one more than max_frames. */
  api_expect(retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\",\"map\":"
                      "\"auto\",\"fps\":20}"),
             400, "too_many_frames", "fps", "frames");
  mem_answer_t a = retarget("{\"clip\":\"wave\",\"to\":\"demo-humanoid\","
                            "\"map\":\"auto\",\"fps\":19.5}");
  ck_assert_msg(a.status == 201, "%s", a.body);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

Suite *api_retarget_suite(void) {
  Suite *s = suite_create("api_retarget");
  TCase *tc = tcase_create("retarget");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_retarget_answer);
  tcase_add_test(tc, test_retarget_refusals);
  tcase_add_test(tc, test_retarget_bounds);
  suite_add_tcase(s, tc);
  return s;
}
