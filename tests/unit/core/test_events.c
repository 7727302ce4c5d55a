/* Tests for clip events: the builder keeps them sorted by time (ties in
 * the raw order) and names every invalid one; anim_events_crossed follows
 * animd/events.h exactly: a 60 fps loop over 3.5 s crosses each event once
 * per loop in order (the one at the loop point once per loop, the one at
 * the end before the one at the start), pingpong crosses them going and
 * coming (a turning point once), reverse play crosses them backwards, a
 * pause crosses nothing, a span that starts where a seek landed crosses
 * nothing there, and cap keeps the first ones. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "animd/animd.h"

static anim_skeleton_t *one_joint(void) {
  anim_raw_joint_t j;
  memset(&j, 0, sizeof j);
  j.name = "root";
  j.parent = -1;
  j.rest.rotation.w = 1.f;
  j.rest.scale.x = j.rest.scale.y = j.rest.scale.z = 1.f;
  anim_raw_skeleton_t raw = {.joints = &j, .joint_count = 1};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

/* A clip of duration d with events (t, name) in the given order. */
static anim_clip_t *clip_with(const anim_skeleton_t *s, float d,
                              const anim_event_t *ev, size_t n) {
  anim_raw_clip_t raw = {
      .name = "c", .duration = d, .events = ev, .event_count = n};
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  anim_result r = anim_clip_build(&raw, s, NULL, &c, &err);
  ck_assert_msg(r == ANIM_OK, "build: %s", err.message);
  return c;
}

static const anim_event_t THREE[] = {
    {1.0f, "end"}, {0.0f, "start"}, {0.25f, "step"}};

/* Names crossed by one span, joined with spaces. */
static void crossed(const anim_clip_t *c, anim_wrap wrap, double from,
                    double to, bool start, char *out, size_t size) {
  uint32_t idx[64];
  anim_event_span_t span = {from, to, wrap, start};
  uint32_t n = anim_events_crossed(c, &span, idx, 64);
  out[0] = '\0';
  for (uint32_t i = 0; i < n; i++) {
    if (i) strncat(out, " ", size - strlen(out) - 1);
    strncat(out, c->events[idx[i]].name, size - strlen(out) - 1);
  }
}

START_TEST(test_build_sorts_and_copies) {
  anim_skeleton_t *s = one_joint();
  char name[] = "step";
  anim_event_t ev[] = {{1.0f, "end"}, {0.25f, name}, {0.0f, "b"}, {0.0f, "a"}};
  anim_clip_t *c = clip_with(s, 1.f, ev, 4);
  name[0] = 'X'; /* The clip holds its own copy. */
  ck_assert_uint_eq(c->event_count, 4);
  ck_assert_str_eq(c->events[0].name, "b"); /* Ties keep the raw order. */
  ck_assert_str_eq(c->events[1].name, "a");
  ck_assert_str_eq(c->events[2].name, "step");
  ck_assert_str_eq(c->events[3].name, "end");
  ck_assert_float_eq(c->events[2].t, 0.25f);
  ck_assert_float_eq(c->events[3].t, 1.0f);
  anim_clip_free(c);
  /* Events may extend to a duration given, and the clip may have no
   * tracks. */
  anim_event_t late = {3.0f, "late"};
  c = clip_with(s, 3.f, &late, 1);
  ck_assert_float_eq(c->events[0].t, 3.f);
  anim_clip_free(c);
  c = clip_with(s, 1.f, NULL, 0);
  ck_assert_uint_eq(c->event_count, 0);
  ck_assert_ptr_null(c->events);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

static void build_fails(const anim_skeleton_t *s, const anim_event_t *ev,
                        size_t n, anim_result code, int key, int component) {
  anim_raw_clip_t raw = {
      .name = "c", .duration = 1.f, .events = ev, .event_count = n};
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, &err), code);
  ck_assert_ptr_null(c);
  ck_assert_str_eq(err.field, "events");
  ck_assert_int_eq(err.key, key);
  ck_assert_int_eq(err.component, component);
  ck_assert(err.message[0] != '\0');
}

START_TEST(test_build_refuses) {
  anim_skeleton_t *s = one_joint();
  char long_name[ANIM_EVENT_NAME_MAX + 2];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  anim_event_t e[2] = {{0.5f, "ok"}, {NAN, "nan"}};
  build_fails(s, e, 2, ANIM_ERR_NOT_FINITE, 1, 0);
  e[1] = (anim_event_t){INFINITY, "inf"};
  build_fails(s, e, 2, ANIM_ERR_NOT_FINITE, 1, 0);
  e[1] = (anim_event_t){-0.001f, "early"};
  build_fails(s, e, 2, ANIM_ERR_INVALID_ARGUMENT, 1, 0);
  e[1] = (anim_event_t){1.001f, "late"};
  build_fails(s, e, 2, ANIM_ERR_INVALID_ARGUMENT, 1, 0);
  e[1] = (anim_event_t){0.5f, ""};
  build_fails(s, e, 2, ANIM_ERR_INVALID_ARGUMENT, 1, 1);
  e[1] = (anim_event_t){0.5f, NULL};
  build_fails(s, e, 2, ANIM_ERR_INVALID_ARGUMENT, 1, 1);
  e[1] = (anim_event_t){0.5f, long_name};
  build_fails(s, e, 2, ANIM_ERR_INVALID_ARGUMENT, 1, 1);
  long_name[ANIM_EVENT_NAME_MAX] = '\0'; /* Exactly the limit: accepted. */
  anim_clip_free(clip_with(s, 1.f, e, 2));
  static anim_event_t many[ANIM_EVENT_MAX + 1];
  for (size_t i = 0; i <= ANIM_EVENT_MAX; i++)
    many[i] = (anim_event_t){0.f, "a"};
  build_fails(s, many, ANIM_EVENT_MAX + 1, ANIM_ERR_INVALID_ARGUMENT, -1, -1);
  anim_clip_t *c = clip_with(s, 1.f, many, ANIM_EVENT_MAX);
  ck_assert_uint_eq(c->event_count, ANIM_EVENT_MAX);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_loop_60fps_three_and_a_half_seconds) {
  anim_skeleton_t *s = one_joint();
  anim_clip_t *c = clip_with(s, 1.f, THREE, 3);
  char all[1024] = "", one[256];
  int counts[3] = {0, 0, 0}; /* start, step, end */
  for (int n = 0; n <= 210; n++) {
    crossed(c, ANIM_WRAP_LOOP, (n - 1) / 60.0, n / 60.0, n == 0, one,
            sizeof one);
    if (one[0] == '\0') continue;
    if (n == 0) ck_assert_str_eq(one, "start");
    if (n % 60 == 0 && n > 0) ck_assert_str_eq(one, "end start");
    if (n % 60 == 15) ck_assert_str_eq(one, "step");
    ck_assert_msg(n % 60 == 0 || n % 60 == 15, "frame %d crossed %s", n, one);
    if (all[0]) strcat(all, " ");
    strcat(all, one);
  }
  ck_assert_str_eq(all, "start step end start step end start step end start "
                        "step");
  for (char *p = strtok(all, " "); p; p = strtok(NULL, " "))
    counts[strcmp(p, "start") == 0 ? 0 : strcmp(p, "step") == 0 ? 1 : 2]++;
  ck_assert_int_eq(counts[0], 4); /* Loops 0..3 start. */
  ck_assert_int_eq(counts[1], 4);
  ck_assert_int_eq(counts[2], 3); /* Loops 0..2 end; loop 3 is half done. */
  /* A span over several loops at once (a late frame) crosses them all. */
  crossed(c, ANIM_WRAP_LOOP, 0.5, 2.5, false, one, sizeof one);
  ck_assert_str_eq(one, "end start step end start step");
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_loop_point_once) {
  anim_skeleton_t *s = one_joint();
  anim_event_t at0 = {0.f, "zero"};
  anim_clip_t *c = clip_with(s, 1.f, &at0, 1);
  char one[256];
  int count = 0;
  /* Frames that straddle the loop point, and frames that land on it. */
  for (int n = 1; n <= 70; n++) {
    crossed(c, ANIM_WRAP_LOOP, (n - 1) * 0.07, n * 0.07, false, one,
            sizeof one);
    count += one[0] != '\0';
  }
  ck_assert_int_eq(count, 4); /* u = 1, 2, 3, 4 within (0, 4.9]. */
  for (int n = 1; n <= 40; n++) {
    crossed(c, ANIM_WRAP_LOOP, (n - 1) * 0.25, n * 0.25, false, one,
            sizeof one);
    ck_assert_str_eq(one, n % 4 == 0 ? "zero" : "");
  }
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_pingpong_both_directions) {
  anim_skeleton_t *s = one_joint();
  anim_clip_t *c = clip_with(s, 1.f, THREE, 3);
  char all[1024] = "", one[256];
  for (int n = 0; n <= 80; n++) { /* 4 s at 20 fps: two round trips. */
    crossed(c, ANIM_WRAP_PINGPONG, (n - 1) / 20.0, n / 20.0, n == 0, one,
            sizeof one);
    if (one[0] == '\0') continue;
    if (all[0]) strcat(all, " ");
    strcat(all, one);
  }
  /* Going: start step end; coming back: step start (the turns once). */
  ck_assert_str_eq(all, "start step end step start step end step start");
  /* At the turning point d, the first frame crosses the end event. */
  crossed(c, ANIM_WRAP_PINGPONG, 0, 1.0, true, one, sizeof one);
  ck_assert_str_eq(one, "end");
  crossed(c, ANIM_WRAP_PINGPONG, 0.9, 1.1, false, one, sizeof one);
  ck_assert_str_eq(one, "end");
  crossed(c, ANIM_WRAP_PINGPONG, 1.7, 2.3, false, one, sizeof one);
  ck_assert_str_eq(one, "step start step");
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_reverse_play) {
  anim_skeleton_t *s = one_joint();
  anim_clip_t *c = clip_with(s, 1.f, THREE, 3);
  char one[256];
  /* Backwards through a loop point: [to, from) in decreasing u. */
  crossed(c, ANIM_WRAP_LOOP, 1.5, 0.1, false, one, sizeof one);
  ck_assert_str_eq(one, "step start end step");
  crossed(c, ANIM_WRAP_LOOP, 0.25, 0.2, false, one, sizeof one);
  ck_assert_str_eq(one, ""); /* from itself is not crossed again... */
  crossed(c, ANIM_WRAP_LOOP, 0.3, 0.25, false, one, sizeof one);
  ck_assert_str_eq(one, "step"); /* ...the time reached is. */
  crossed(c, ANIM_WRAP_CLAMP, 2.0, -1.0, false, one, sizeof one);
  ck_assert_str_eq(one, "end step start");
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_pause_seek_start_clamp) {
  anim_skeleton_t *s = one_joint();
  anim_clip_t *c = clip_with(s, 1.f, THREE, 3);
  char one[256];
  /* A pause: frames at the same time cross nothing. */
  crossed(c, ANIM_WRAP_LOOP, 0.25, 0.25, false, one, sizeof one);
  ck_assert_str_eq(one, "");
  /* After a seek onto 0.25 the next span starts there: not crossed. */
  crossed(c, ANIM_WRAP_LOOP, 0.25, 0.25 + 1 / 60.0, false, one, sizeof one);
  ck_assert_str_eq(one, "");
  /* A first frame crosses what lies exactly at its clip time. */
  crossed(c, ANIM_WRAP_LOOP, 0, 2.25, true, one, sizeof one);
  ck_assert_str_eq(one, "step");
  crossed(c, ANIM_WRAP_LOOP, 0, 3.0, true, one, sizeof one);
  ck_assert_str_eq(one, "start"); /* Loop: u = 3 samples 0, not d. */
  crossed(c, ANIM_WRAP_CLAMP, 0, 5.0, true, one, sizeof one);
  ck_assert_str_eq(one, "end"); /* Clamp: samples d. */
  crossed(c, ANIM_WRAP_LOOP, 0, 0.5, true, one, sizeof one);
  ck_assert_str_eq(one, "");
  /* Clamp: each event once, playing past the end crosses nothing. */
  crossed(c, ANIM_WRAP_CLAMP, -1, 10, false, one, sizeof one);
  ck_assert_str_eq(one, "start step end");
  crossed(c, ANIM_WRAP_CLAMP, 1.0, 10, false, one, sizeof one);
  ck_assert_str_eq(one, "");
  /* Non-finite times and a NULL clip cross nothing. */
  crossed(c, ANIM_WRAP_LOOP, NAN, 1, false, one, sizeof one);
  ck_assert_str_eq(one, "");
  uint32_t idx[4];
  anim_event_span_t span = {0, 1, ANIM_WRAP_LOOP, false};
  ck_assert_uint_eq(anim_events_crossed(NULL, &span, idx, 4), 0);
  /* cap keeps the first ones, in order. */
  span = (anim_event_span_t){0.5, 100.5, ANIM_WRAP_LOOP, false};
  ck_assert_uint_eq(anim_events_crossed(c, &span, idx, 4), 4);
  ck_assert_str_eq(c->events[idx[0]].name, "end");
  ck_assert_str_eq(c->events[idx[1]].name, "start");
  ck_assert_str_eq(c->events[idx[2]].name, "step");
  ck_assert_str_eq(c->events[idx[3]].name, "end");
  /* A huge span with a small cap stays bounded (the walk stops at cap). */
  span = (anim_event_span_t){0, 1e12, ANIM_WRAP_PINGPONG, false};
  ck_assert_uint_eq(anim_events_crossed(c, &span, idx, 4), 4);
  anim_clip_free(c);
  /* A clip of duration 0: the first frame crosses every event, no later
   * frame any. */
  anim_event_t z[2] = {{0.f, "a"}, {0.f, "b"}};
  c = clip_with(s, 0.f, z, 2);
  crossed(c, ANIM_WRAP_LOOP, 0, 7, true, one, sizeof one);
  ck_assert_str_eq(one, "a b");
  crossed(c, ANIM_WRAP_LOOP, 0, 7, false, one, sizeof one);
  ck_assert_str_eq(one, "");
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

Suite *events_suite(void);
Suite *events_suite(void) {
  Suite *s = suite_create("events");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_build_sorts_and_copies);
  tcase_add_test(tc, test_build_refuses);
  tcase_add_test(tc, test_loop_60fps_three_and_a_half_seconds);
  tcase_add_test(tc, test_loop_point_once);
  tcase_add_test(tc, test_pingpong_both_directions);
  tcase_add_test(tc, test_reverse_play);
  tcase_add_test(tc, test_pause_seek_start_clamp);
  suite_add_tcase(s, tc);
  return s;
}
