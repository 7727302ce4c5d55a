/* Tests for GET /v1/clips/{id}/check and GET /v1/clips/{id}/plot over
 * HTTP (the in-memory transport, the demo's "wave": 2 s, 17 joints): the
 * answers' shapes, and each refusal with its code and "at". */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

static size_t count(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what)) n++;
  return n;
}

START_TEST(test_check_answer) {
  mem_server_start();
  mem_answer_t a = mem_get("/v1/clips/wave/check");
  ck_assert_msg(a.status == 200, "%s", a.body);
  json_t *doc = json_loads(a.body, 0, NULL);
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq(json_integer_value(json_object_get(doc, "samples")), 121);
  ck_assert_double_eq(json_number_value(json_object_get(doc, "duration")), 2);
  ck_assert_double_eq(json_number_value(json_object_get(doc, "fps")), 60);
  json_t *checks = json_object_get(doc, "checks");
  ck_assert_uint_eq(json_array_size(checks), 3);
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(checks, 2), "check")),
      "stretch");
  json_decref(doc);
  mem_answer_free(&a);
  /* With feet and loop: six checks. */
  a = mem_get("/v1/clips/wave/check?feet=shin_l,shin_r&loop=1&fps=30&up=y");
  ck_assert_msg(a.status == 200, "%s", a.body);
  doc = json_loads(a.body, 0, NULL);
  ck_assert_int_eq(json_integer_value(json_object_get(doc, "samples")), 61);
  checks = json_object_get(doc, "checks");
  ck_assert_uint_eq(json_array_size(checks), 6);
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(checks, 3), "check")),
      "seam");
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(checks, 5), "check")),
      "penetration");
  json_decref(doc);
  mem_answer_free(&a);
  /* HEAD answers the head alone. */
  a = api_json("HEAD", "/v1/clips/wave/check", NULL);
  ck_assert_int_eq(a.status, 200);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_check_refusals) {
  mem_server_start();
  api_expect(mem_get("/v1/clips/wave/check?fsp=30"), 400, "unknown_parameter",
             "fsp", "typo");
  api_expect(mem_get("/v1/clips/wave/check?fps=0"), 400, "bad_parameter", "fps",
             "fps 0");
  api_expect(mem_get("/v1/clips/wave/check?up=w"), 400, "bad_parameter", "up",
             "up");
  api_expect(mem_get("/v1/clips/wave/check?loop=yes"), 400, "bad_parameter",
             "loop", "loop");
  api_expect(mem_get("/v1/clips/wave/check?feet=shin_l,toe"), 400,
             "unknown_joint", "feet", "foot");
  api_expect(mem_get("/v1/clips/wave/check?fps=1000000"), 400,
             "too_many_frames", "fps", "frames");
  api_expect(mem_get("/v1/clips/nope/check"), 404, "not_found", "id", "clip");
  mem_server_stop();
}
END_TEST

START_TEST(test_plot_answer) {
  mem_server_start();
  mem_answer_t a = mem_get("/v1/clips/wave/plot");
  ck_assert_msg(a.status == 200, "%s", a.body);
  ck_assert_ptr_nonnull(strstr(a.head, "Content-Type: image/svg+xml"));
  /* Joint 0 (hips), rotation: four lines of 61 points (30 fps over 2 s). */
  ck_assert_uint_eq(count(a.body, "<polyline "), 4);
  ck_assert_uint_eq(count(a.body, "data-joint=\"hips\""), 4);
  const char *pts = strstr(strstr(a.body, "<polyline "), "points=\"");
  ck_assert_uint_eq(count(pts, ",") - count(strstr(pts, "/>"), ","), 61);
  mem_answer_free(&a);
  a = mem_get("/v1/clips/wave/plot?joints=hand_r,hips&channel=position&"
              "from=0.5&to=1.5&fps=10");
  ck_assert_msg(a.status == 200, "%s", a.body);
  ck_assert_uint_eq(count(a.body, "<polyline "), 6);
  ck_assert_uint_eq(count(a.body, "data-joint=\"hand_r\" data-component="), 3);
  pts = strstr(strstr(a.body, "<polyline "), "points=\"");
  ck_assert_uint_eq(count(pts, ",") - count(strstr(pts, "/>"), ","), 11);
  mem_answer_free(&a);
  a = mem_get("/v1/clips/wave/plot?joints=upper_arm_r&channel=angle");
  ck_assert_uint_eq(count(a.body, "data-component=\"angle\""), 1);
  mem_answer_free(&a);
  mem_server_stop();
}
END_TEST

START_TEST(test_plot_refusals) {
  mem_server_start();
  api_expect(mem_get("/v1/clips/wave/plot?chanel=angle"), 400,
             "unknown_parameter", "chanel", "typo");
  api_expect(mem_get("/v1/clips/wave/plot?channel=speed"), 400, "bad_parameter",
             "channel", "channel");
  api_expect(mem_get("/v1/clips/wave/plot?joints=hips,toe"), 400,
             "unknown_joint", "joints[1]", "joint");
  api_expect(mem_get("/v1/clips/wave/plot?fps=-1"), 400, "bad_parameter", "fps",
             "fps");
  api_expect(mem_get("/v1/clips/wave/plot?from=1&to=0.5"), 400, "bad_parameter",
             "to", "to");
  api_expect(mem_get("/v1/clips/wave/plot?from=3"), 400, "bad_parameter",
             "from", "from past the clip");
  api_expect(mem_get("/v1/clips/wave/plot?fps=100000"), 400, "too_many_frames",
             "fps", "frames");
  api_expect(mem_get("/v1/clips/nope/plot"), 404, "not_found", "id", "clip");
  mem_server_stop();
}
END_TEST

Suite *api_clip_check_suite(void) {
  Suite *s = suite_create("api_clip_check");
  TCase *tc = tcase_create("clip_check");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_check_answer);
  tcase_add_test(tc, test_check_refusals);
  tcase_add_test(tc, test_plot_answer);
  tcase_add_test(tc, test_plot_refusals);
  suite_add_tcase(s, tc);
  return s;
}
