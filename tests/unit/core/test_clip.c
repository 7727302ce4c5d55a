/* Tests for clip building: every validation error names its track, key,
 * component and field; keys are copied and rotations normalized; tracks
 * are sorted by storage joint; fixed-rate tracks are detected; duration
 * and wrap modes follow DESIGN.md. */
#include <check.h>

#include "test_skeleton_fixtures.h"

static anim_raw_joint_t J(const char *name, int32_t parent) {
  anim_raw_joint_t j;
  memset(&j, 0, sizeof j);
  j.name = name;
  j.parent = parent;
  j.rest.rotation.w = 1.f;
  j.rest.scale.x = j.rest.scale.y = j.rest.scale.z = 1.f;
  return j;
}

/* Caller order hand(2), root, arm(1), head(1), root2: storage root, arm,
 * hand, head, root2. */
static anim_skeleton_t *skel5(void) {
  static anim_raw_joint_t j[5];
  j[0] = J("hand", 2);
  j[1] = J("root", -1);
  j[2] = J("arm", 1);
  j[3] = J("head", 1);
  j[4] = J("root2", -1);
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 5};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

/* A valid raw clip with owned, mutable arrays. */
typedef struct fixture_s {
  float t0[3], v0[9];        /* root translation LINEAR */
  float t1[2], v1[24];       /* arm rotation CUBICSPLINE */
  float t2[2], v2[6], b2[8]; /* hand scale BEZIER */
  float t3[3], v3[12];       /* head rotation SQUAD */
  float t4[2], v4[6];        /* spare: root translation again */
  anim_raw_track_t tracks[5];
  anim_raw_clip_t clip;
} fixture_t;

static void fixture_init(fixture_t *f) {
  memset(f, 0, sizeof *f);
  const float t0[3] = {0, 1, 2}, v0[9] = {0, 0, 0, 1, 2, 3, 2, 4, 6};
  memcpy(f->t0, t0, sizeof t0);
  memcpy(f->v0, v0, sizeof v0);
  f->t1[0] = 0.f;
  f->t1[1] = 0.5f;
  f->v1[4 + 3] = 2.f;  /* key 0 value (0,0,0,2): normalized to identity */
  f->v1[16 + 2] = 1.f; /* key 1 value (0,0,1,0) */
  f->t2[0] = 0.f;
  f->t2[1] = 1.f;
  for (int i = 0; i < 6; i++) f->v2[i] = 1.f + (float)(i / 3);
  const float b2[8] = {0.25f, 0.1f, 0.25f, 1.f, 0, 0, 1, 1};
  memcpy(f->b2, b2, sizeof b2);
  const float t3[3] = {0, 1, 2};
  memcpy(f->t3, t3, sizeof t3);
  for (int k = 0; k < 3; k++) f->v3[4 * k + 3] = 1.f;
  f->t4[0] = 0.f;
  f->t4[1] = 1.f;
  f->tracks[0] = (anim_raw_track_t){
      1, ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR, f->t0, 3, f->v0, 9, NULL};
  f->tracks[1] = (anim_raw_track_t){
      2,   ANIM_PATH_ROTATION, ANIM_INTERP_CUBICSPLINE, f->t1, 2, f->v1, 24,
      NULL};
  f->tracks[2] = (anim_raw_track_t){
      0, ANIM_PATH_SCALE, ANIM_INTERP_BEZIER, f->t2, 2, f->v2, 6, f->b2};
  f->tracks[3] = (anim_raw_track_t){
      3, ANIM_PATH_ROTATION, ANIM_INTERP_SQUAD, f->t3, 3, f->v3, 12, NULL};
  f->tracks[4] = (anim_raw_track_t){
      1, ANIM_PATH_TRANSLATION, ANIM_INTERP_STEP, f->t4, 2, f->v4, 6, NULL};
  f->clip = (anim_raw_clip_t){"walk", f->tracks, 4, 0.f, NULL, 0, NULL, 0};
}

START_TEST(test_build_valid) {
  anim_skeleton_t *s = skel5();
  fixture_t f;
  fixture_init(&f);
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  anim_result r = anim_clip_build(&f.clip, s, NULL, &c, &err);
  ck_assert_msg(r == ANIM_OK, "%s", err.message);
  ck_assert_str_eq(c->name, "walk");
  ck_assert_float_eq(c->duration, 2.f);
  ck_assert_uint_eq(c->track_count, 4);
  ck_assert_uint_eq(c->joint_count, 5);
  /* Sorted by storage joint: root(0) T, arm(1) R, hand(2) S, head(3) R. */
  const uint32_t joints[4] = {0, 1, 2, 3};
  const uint8_t paths[4] = {ANIM_PATH_TRANSLATION, ANIM_PATH_ROTATION,
                            ANIM_PATH_SCALE, ANIM_PATH_ROTATION};
  for (int i = 0; i < 4; i++) {
    ck_assert_uint_eq(c->tracks[i].joint, joints[i]);
    ck_assert_uint_eq(c->tracks[i].path, paths[i]);
  }
  ck_assert_uint_eq(c->tracks[1].components, 4);
  ck_assert_uint_eq(c->tracks[0].components, 3);
  /* Copied, and the cubic value (0,0,0,2) normalized, tangents kept. */
  ck_assert_ptr_ne(c->tracks[0].times, f.t0);
  ck_assert_float_eq(c->tracks[0].values[8], 6.f);
  ck_assert_float_eq(c->tracks[1].values[7], 1.f);
  ck_assert_float_eq(c->tracks[1].values[3], 0.f);
  ck_assert_ptr_nonnull(c->tracks[3].squad_controls);
  ck_assert_ptr_null(c->tracks[0].squad_controls);
  ck_assert_float_eq(c->tracks[2].bezier[1], 0.1f);
  f.t0[0] = 99.f; /* the clip owns its copy */
  ck_assert_float_eq(c->tracks[0].times[0], 0.f);
  f.t0[0] = 0.f;
  anim_clip_free(c);

  /* A larger raw duration extends the clip; no tracks is allowed. */
  f.clip.duration = 3.5f;
  ck_assert_int_eq(anim_clip_build(&f.clip, s, NULL, &c, &err), ANIM_OK);
  ck_assert_float_eq(c->duration, 3.5f);
  anim_clip_free(c);
  anim_raw_clip_t empty = {NULL, NULL, 0, 0.f, NULL, 0, NULL, 0};
  ck_assert_int_eq(anim_clip_build(&empty, s, NULL, &c, &err), ANIM_OK);
  ck_assert_float_eq(c->duration, 0.f);
  ck_assert_str_eq(c->name, "");
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

typedef struct bad_s {
  const char *what;
  void (*mutate)(fixture_t *f);
  anim_result code;
  int track, joint, key, component;
  const char *field;
} bad_t;

static void m_joint(fixture_t *f) { f->tracks[2].joint = 5; }
static void m_path(fixture_t *f) { f->tracks[1].path = (anim_path)7; }
static void m_interp(fixture_t *f) {
  f->tracks[3].interpolation = ANIM_INTERP_COUNT_;
}
static void m_nokeys(fixture_t *f) { f->tracks[0].key_count = 0; }
static void m_notimes(fixture_t *f) { f->tracks[2].times = NULL; }
static void m_time_nan(fixture_t *f) { f->t0[1] = NAN; }
static void m_time_neg(fixture_t *f) { f->t3[0] = -0.5f; }
static void m_time_order(fixture_t *f) { f->t0[2] = 1.f; }
static void m_time_back(fixture_t *f) { f->t3[2] = 0.5f; }
static void m_count(fixture_t *f) { f->tracks[0].value_count = 8; }
static void m_count_cubic(fixture_t *f) { f->tracks[1].value_count = 8; }
static void m_novalues(fixture_t *f) { f->tracks[3].values = NULL; }
static void m_value_nan(fixture_t *f) { f->v1[12 + 6] = NAN; }
static void m_value_inf(fixture_t *f) { f->v0[7] = INFINITY; }
static void m_zero_quat_cubic(fixture_t *f) { f->v1[16 + 2] = 0.f; }
static void m_zero_quat(fixture_t *f) { f->v3[8 + 3] = 0.f; }
static void m_bez_null(fixture_t *f) { f->tracks[2].bezier = NULL; }
static void m_bez_high(fixture_t *f) { f->b2[4 + 2] = 1.5f; }
static void m_bez_low(fixture_t *f) { f->b2[1] = -0.1f; }
static void m_bez_nan(fixture_t *f) { f->b2[3] = NAN; }
static void m_dup(fixture_t *f) { f->clip.track_count = 5; }
static void m_dur_short(fixture_t *f) { f->clip.duration = 1.f; }
static void m_dur_nan(fixture_t *f) { f->clip.duration = NAN; }
static void m_dur_neg(fixture_t *f) { f->clip.duration = -1.f; }
static void m_tracks_null(fixture_t *f) { f->clip.tracks = NULL; }

static const bad_t bads[] = {
    {"joint range", m_joint, ANIM_ERR_JOINT_RANGE, 2, -1, -1, -1, "joint"},
    {"path", m_path, ANIM_ERR_INVALID_ARGUMENT, 1, 2, -1, -1, "path"},
    {"interpolation", m_interp, ANIM_ERR_INVALID_ARGUMENT, 3, 3, -1, -1,
     "interpolation"},
    {"no keys", m_nokeys, ANIM_ERR_NO_KEYS, 0, 1, -1, -1, "times"},
    {"no times", m_notimes, ANIM_ERR_INVALID_ARGUMENT, 2, 0, -1, -1, "times"},
    {"time NaN", m_time_nan, ANIM_ERR_NOT_FINITE, 0, 1, 1, -1, "times"},
    {"time negative", m_time_neg, ANIM_ERR_TIME_NEGATIVE, 3, 3, 0, -1, "times"},
    {"time equal", m_time_order, ANIM_ERR_TIMES_ORDER, 0, 1, 2, -1, "times"},
    {"time back", m_time_back, ANIM_ERR_TIMES_ORDER, 3, 3, 2, -1, "times"},
    {"value count", m_count, ANIM_ERR_VALUE_COUNT, 0, 1, -1, -1, "values"},
    {"cubic x3", m_count_cubic, ANIM_ERR_VALUE_COUNT, 1, 2, -1, -1, "values"},
    {"no values", m_novalues, ANIM_ERR_VALUE_COUNT, 3, 3, -1, -1, "values"},
    {"value NaN", m_value_nan, ANIM_ERR_NOT_FINITE, 1, 2, 1, 6, "values"},
    {"value inf", m_value_inf, ANIM_ERR_NOT_FINITE, 0, 1, 2, 1, "values"},
    {"zero quat cubic", m_zero_quat_cubic, ANIM_ERR_ZERO_QUATERNION, 1, 2, 1, 4,
     "values"},
    {"zero quat", m_zero_quat, ANIM_ERR_ZERO_QUATERNION, 3, 3, 2, 0, "values"},
    {"bezier NULL", m_bez_null, ANIM_ERR_INVALID_ARGUMENT, 2, 0, -1, -1,
     "bezier"},
    {"bezier high", m_bez_high, ANIM_ERR_BEZIER_RANGE, 2, 0, 1, 2, "bezier"},
    {"bezier low", m_bez_low, ANIM_ERR_BEZIER_RANGE, 2, 0, 0, 1, "bezier"},
    {"bezier NaN", m_bez_nan, ANIM_ERR_NOT_FINITE, 2, 0, 0, 3, "bezier"},
    {"duplicate", m_dup, ANIM_ERR_DUPLICATE_TRACK, 4, 1, -1, -1, "path"},
    {"duration short", m_dur_short, ANIM_ERR_INVALID_ARGUMENT, -1, -1, -1, -1,
     "duration"},
    {"duration NaN", m_dur_nan, ANIM_ERR_NOT_FINITE, -1, -1, -1, -1,
     "duration"},
    {"duration negative", m_dur_neg, ANIM_ERR_INVALID_ARGUMENT, -1, -1, -1, -1,
     "duration"},
    {"tracks NULL", m_tracks_null, ANIM_ERR_INVALID_ARGUMENT, -1, -1, -1, -1,
     "tracks"},
};

START_TEST(test_bad_field) {
  const bad_t *b = &bads[_i];
  anim_skeleton_t *s = skel5();
  fixture_t f;
  fixture_init(&f);
  b->mutate(&f);
  anim_clip_t *c = (anim_clip_t *)&f; /* must come back NULL */
  anim_build_error_t err;
  anim_result r = anim_clip_build(&f.clip, s, NULL, &c, &err);
  ck_assert_msg(r == b->code, "%s: got %s (%s)", b->what, anim_result_str(r),
                err.message);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(err.code, b->code);
  ck_assert_msg(err.track == b->track, "%s: track %d", b->what, err.track);
  ck_assert_msg(err.joint == b->joint, "%s: joint %d", b->what, err.joint);
  ck_assert_msg(err.key == b->key, "%s: key %d", b->what, err.key);
  ck_assert_msg(err.component == b->component, "%s: component %d", b->what,
                err.component);
  ck_assert_str_eq(err.field, b->field);
  ck_assert(strlen(err.message) > 0);
  anim_skeleton_free(s);
}
END_TEST

static void free_hook_unused(void *p, void *ud) {
  (void)ud;
  ck_abort_msg("free hook called with %p", p);
}

START_TEST(test_bad_arguments) {
  anim_skeleton_t *s = skel5();
  fixture_t f;
  fixture_init(&f);
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(NULL, s, NULL, &c, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_clip_build(&f.clip, NULL, NULL, &c, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_clip_build(&f.clip, s, NULL, NULL, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  /* An allocator with one hook of two is refused, as by every builder. */
  const anim_allocator_t half = {NULL, free_hook_unused, NULL};
  anim_build_error_t err;
  ck_assert_int_eq(anim_clip_build(&f.clip, s, &half, &c, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err.field, "allocator");
  ck_assert_ptr_null(c);
  anim_clip_free(NULL);
  anim_skeleton_free(s);
}
END_TEST

/* Keys on i/30 are fixed-rate; one key off the grid by 5% of a frame is
 * not; a single key is not. */
START_TEST(test_fixed_rate_detection) {
  anim_skeleton_t *s = skel5();
  float times[61], values[61 * 3];
  for (int i = 0; i < 61; i++) {
    times[i] = (float)i / 30.f;
    values[3 * i] = values[3 * i + 1] = values[3 * i + 2] = (float)i;
  }
  anim_raw_track_t tr = {
      0,   ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR, times, 61, values, 183,
      NULL};
  anim_raw_clip_t raw = {"grid", &tr, 1, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  ck_assert_uint_eq(c->tracks[0].fixed_rate, 1);
  ck_assert_float_eq_tol(c->tracks[0].rate, 30.f, 1e-3f);
  ck_assert_float_eq_tol(c->duration, 2.f, 1e-6f);
  anim_clip_free(c);
  times[17] += 0.05f / 30.f;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  ck_assert_uint_eq(c->tracks[0].fixed_rate, 0);
  anim_clip_free(c);
  tr.key_count = 1;
  tr.value_count = 3;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  ck_assert_uint_eq(c->tracks[0].fixed_rate, 0);
  anim_clip_free(c);
  anim_skeleton_free(s);
}
END_TEST

/* d = 2: clamp, loop (t - d floor(t/d)), pingpong (period 4). */
START_TEST(test_wrap_time) {
  const struct {
    float t;
    float clamp, loop, ping;
  } c[] = {
      {0.f, 0.f, 0.f, 0.f},      {0.5f, 0.5f, 0.5f, 0.5f},
      {2.f, 2.f, 0.f, 2.f},      {2.5f, 2.f, 0.5f, 1.5f},
      {4.f, 2.f, 0.f, 0.f},      {5.f, 2.f, 1.f, 1.f},
      {-0.5f, 0.f, 1.5f, 0.5f},  {-2.f, 0.f, 0.f, 2.f},
      {-3.f, 0.f, 1.f, 1.f},     {7.f, 2.f, 1.f, 1.f},
      {101.5f, 2.f, 1.5f, 1.5f},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    ck_assert_float_eq_tol(anim_wrap_time(c[i].t, 2.f, ANIM_WRAP_CLAMP),
                           c[i].clamp, 1e-6f);
    ck_assert_float_eq_tol(anim_wrap_time(c[i].t, 2.f, ANIM_WRAP_LOOP),
                           c[i].loop, 1e-5f);
    ck_assert_float_eq_tol(anim_wrap_time(c[i].t, 2.f, ANIM_WRAP_PINGPONG),
                           c[i].ping, 1e-5f);
  }
  for (int w = 0; w < ANIM_WRAP_COUNT_; w++) {
    ck_assert_float_eq(anim_wrap_time(NAN, 2.f, (anim_wrap)w), 0.f);
    ck_assert_float_eq(anim_wrap_time(INFINITY, 2.f, (anim_wrap)w), 0.f);
    ck_assert_float_eq(anim_wrap_time(-INFINITY, 2.f, (anim_wrap)w), 0.f);
    ck_assert_float_eq(anim_wrap_time(1.f, 0.f, (anim_wrap)w), 0.f);
    /* The loop result always lies in [0, d). */
    float r = anim_wrap_time(-1e-8f, 2.f, (anim_wrap)w);
    ck_assert(r >= 0.f && r <= 2.f);
  }
  ck_assert(anim_wrap_time(-1e-8f, 2.f, ANIM_WRAP_LOOP) < 2.f);
}
END_TEST

Suite *clip_suite(void) {
  Suite *s = suite_create("clip");
  TCase *tc = tcase_create("build");
  tcase_add_test(tc, test_build_valid);
  tcase_add_loop_test(tc, test_bad_field, 0,
                      (int)(sizeof bads / sizeof bads[0]));
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_fixed_rate_detection);
  tcase_add_test(tc, test_wrap_time);
  suite_add_tcase(s, tc);
  return s;
}
