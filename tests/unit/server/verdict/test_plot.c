/* Tests for the clip plots (server/verdict/plot.h) on a clip built here:
 * "root" slides along x from 0 to 2 over 1 s and its child "arm" turns
 * about z from 0 to 90 degrees over the same second. At 10 fps from 0 to
 * 1 s a line has 11 points; the pixel of every value follows from the
 * chart's frame (x from 64 to 620 over the time span, y from 356 up to 28
 * over the values padded by 5% of their span). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/verdict/plot.h"

static anim_skeleton_t *sk;
static anim_clip_t *clip;

static void setup(void) {
  anim_raw_joint_t joints[2] = {
      {.name = "root", .parent = -1, .rest = anim_transform_identity()},
      {.name = "a<r>m", .parent = 0, .rest = anim_transform_identity()},
  };
  joints[1].rest.translation = (anim_vec3_t){0, 1, 0};
  anim_raw_skeleton_t rs = {.joints = joints, .joint_count = 2};
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, NULL), ANIM_OK);
  static const float times[] = {0, 1};
  static const float slide[] = {0, 0, 0, 2, 0, 0};
  const float s45 = (float)sin(M_PI / 4), c45 = (float)cos(M_PI / 4);
  const float turn[] = {0, 0, 0, 1, 0, 0, s45, c45};
  anim_raw_track_t tracks[] = {
      {.joint = 0,
       .path = ANIM_PATH_TRANSLATION,
       .times = times,
       .key_count = 2,
       .values = slide,
       .value_count = 6},
      {.joint = 1,
       .path = ANIM_PATH_ROTATION,
       .times = times,
       .key_count = 2,
       .values = turn,
       .value_count = 8},
  };
  anim_raw_clip_t rc = {.name = "turn", .tracks = tracks, .track_count = 2};
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &clip, NULL), ANIM_OK);
}

static void teardown(void) {
  anim_clip_free(clip);
  anim_skeleton_free(sk);
}

static size_t count(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what)) n++;
  return n;
}

/* The points="..." of the polyline with that joint and component. */
static char *points_of(const char *svg, const char *joint,
                       const char *component) {
  char key[128];
  snprintf(key, sizeof key, "<polyline data-joint=\"%s\" data-component=\"%s\"",
           joint, component);
  const char *p = strstr(svg, key);
  ck_assert_msg(p != NULL, "no line %s %s", joint, component);
  p = strstr(p, "points=\"") + 8;
  size_t n = strcspn(p, "\"");
  char *out = malloc(n + 1);
  memcpy(out, p, n);
  out[n] = '\0';
  return out;
}

static void plot(verdict_plot_t *p, fmt_buf_t *b) {
  srv_error_t err;
  fmt_buf_init(b);
  ck_assert_msg(verdict_plot_run(sk, clip, p, 100000, b, &err) == 0, "%s",
                err.message);
}

START_TEST(test_rotation_lines) {
  uint32_t joints[2] = {0, 1};
  verdict_plot_t p = {.channel = SRV_PLOT_ROTATION,
                      .joints = joints,
                      .joint_count = 2,
                      .from = 0,
                      .to = 1,
                      .fps = 10,
                      .title = "turn & rotation"};
  ck_assert_double_eq(verdict_plot_frame_count(&p), 11);
  fmt_buf_t b;
  plot(&p, &b);
  const char *svg = fmt_buf_cstr(&b);
  ck_assert(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
  ck_assert_uint_eq(count(svg, "<polyline "), 8);
  ck_assert_ptr_nonnull(strstr(svg, "<title>turn &amp; rotation</title>"));
  /* The joint's name is escaped, in the line and in the legend. */
  char *w = points_of(svg, "a&lt;r&gt;m", "w");
  ck_assert_uint_eq(count(w, ","), 11);
  ck_assert_uint_eq(count(w, " "), 10);
  free(w);
  ck_assert_ptr_nonnull(strstr(svg, ">a&lt;r&gt;m w</text>"));
  /* Key times at 0 and 1 s: two marks. */
  const char *keys = strstr(svg, "<g class=\"keys\"");
  ck_assert_ptr_nonnull(keys);
  ck_assert_uint_eq(count(keys, "<line") - count(strstr(keys, "</g>"), "<line"),
                    2);
  ck_assert(strcmp(svg + strlen(svg) - 6, "</svg>") == 0);
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_angle_values) {
  uint32_t arm = 1;
  verdict_plot_t p = {.channel = SRV_PLOT_ANGLE,
                      .joints = &arm,
                      .joint_count = 1,
                      .from = 0,
                      .to = 1,
                      .fps = 10};
  fmt_buf_t b;
  plot(&p, &b);
  ck_assert_uint_eq(count(fmt_buf_cstr(&b), "<polyline "), 1);
  char *pts = points_of(fmt_buf_cstr(&b), "a&lt;r&gt;m", "angle");
  /* Values 0 to 90 padded to -4.5 .. 94.5: y = 356 - (v + 4.5) / 99 * 328;
   * at 0.5 s the angle is 45 degrees. */
  ck_assert_msg(strncmp(pts, "64.00,341.09 119.60,", 20) == 0, "%s", pts);
  ck_assert_ptr_nonnull(strstr(pts, " 342.00,"));
  char want[32];
  snprintf(want, sizeof want, "342.00,%.2f ", 356 - 49.5 / 99 * 328);
  ck_assert_msg(strstr(pts, want) != NULL, "%s", pts);
  ck_assert_msg(strstr(pts, " 620.00,42.91") != NULL, "%s", pts);
  free(pts);
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_position_and_default_joint) {
  verdict_plot_t p = {
      .channel = SRV_PLOT_POSITION, .from = 0, .to = 0.5, .fps = 4};
  fmt_buf_t b;
  plot(&p, &b);
  /* Joint 0 alone: x y z of root, 3 points each (0, 0.25, 0.5 s). */
  ck_assert_uint_eq(count(fmt_buf_cstr(&b), "<polyline "), 3);
  ck_assert_uint_eq(count(fmt_buf_cstr(&b), "data-joint=\"root\""), 3);
  char *x = points_of(fmt_buf_cstr(&b), "root", "x");
  ck_assert_uint_eq(count(x, ","), 3);
  /* x goes 0, 0.5, 1: padded to -0.05 .. 1.05. */
  char want[64];
  snprintf(want, sizeof want, "64.00,%.2f", 356 - 0.05 / 1.1 * 328);
  ck_assert_msg(strncmp(x, want, strlen(want)) == 0, "%s", x);
  free(x);
  fmt_buf_free(&b);
}
END_TEST

START_TEST(test_bounded) {
  uint32_t joints[2] = {0, 1};
  verdict_plot_t p = {.channel = SRV_PLOT_ROTATION,
                      .joints = joints,
                      .joint_count = 2,
                      .from = 0,
                      .to = 1,
                      .fps = 10};
  fmt_buf_t b;
  fmt_buf_init(&b);
  srv_error_t err;
  /* 11 frames of 8 lines: 88 points. */
  ck_assert_int_eq(verdict_plot_run(sk, clip, &p, 87, &b, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_TOO_MANY_FRAMES);
  ck_assert_str_eq(err.at, "fps");
  ck_assert_int_eq(verdict_plot_run(sk, clip, &p, 88, &b, &err), 0);
  fmt_buf_free(&b);
}
END_TEST

Suite *server_verdict_plot_suite(void) {
  Suite *s = suite_create("server_verdict_plot");
  TCase *tc = tcase_create("plot");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_rotation_lines);
  tcase_add_test(tc, test_angle_values);
  tcase_add_test(tc, test_position_and_default_joint);
  tcase_add_test(tc, test_bounded);
  suite_add_tcase(s, tc);
  return s;
}
