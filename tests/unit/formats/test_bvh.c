/* Tests for the BVH importer: the shared captures import with the counts of
 * assets/README.md; first-frame joint positions match an independent scipy
 * forward kinematics (Rotation.from_euler in each joint's channel order,
 * degrees); hand-made files check Euler order, position channels, the unit
 * and Z-up options, line endings, and each kind of broken input with its
 * "line N". */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "import_test_util.h"

#define BVH "application/x-bvh"

typedef struct bvh_expect_s {
  const char *file;
  uint32_t joints, frames, tracks;
  float frame_time;
} bvh_expect_t;

/* README section 2: joints, frames, fps; tracks are one rotation track per
 * joint plus a translation track per joint with position channels (CMU and
 * MakeHuman: the root only; Bandai: every joint). */
static const bvh_expect_t files[] = {
    {"bvh/cmu/01_01.bvh", 31, 2752, 32, 0.0083333f},
    {"bvh/cmu/131_01.bvh", 31, 994, 32, 0.0083333f},
    {"bvh/cmu/131_03.bvh", 31, 1102, 32, 0.0083333f},
    {"bvh/makehuman/walk1.bvh", 75, 14, 76, 0.041667f},
    {"bvh/bandai-namco/dataset-1_run_normal_001.bvh", 22, 24, 44, 0.033333f},
    {"bvh/bandai-namco/dataset-1_walk-back_normal_001.bvh", 22, 31, 44,
     0.033333f},
};

START_TEST(test_sample_counts) {
  const bvh_expect_t *e = &files[_i];
  fmt_bundle_t b;
  asset_decode(e->file, BVH, NULL, &b);
  ck_assert_uint_eq(b.skeleton_count, 1);
  ck_assert_uint_eq(b.skeletons[0]->joint_count, e->joints);
  ck_assert_uint_eq(b.clip_count, 1);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->track_count, e->tracks);
  for (uint32_t i = 0; i < c->track_count; i++)
    ck_assert_uint_eq(c->tracks[i].key_count, e->frames);
  ck_assert_float_eq_tol(c->duration, (float)(e->frames - 1) * e->frame_time,
                         2e-3f);
  ck_assert_uint_eq(b.mesh_count, 0);
  fmt_bundle_free(&b);
}
END_TEST

/* World positions of every joint at frame 0 (storage order), composed from
 * the skeleton's rest and the clip's first keys. */
static void first_frame(const fmt_bundle_t *b, anim_vec3_t *wp) {
  const anim_skeleton_t *k = b->skeletons[0];
  const anim_clip_t *c = b->clips[0].clip;
  uint32_t n = k->joint_count;
  anim_quat_t *wr = malloc(n * sizeof *wr);
  for (uint32_t j = 0; j < n; j++) {
    anim_vec3_t t = k->rest[j].translation;
    anim_quat_t r = k->rest[j].rotation;
    for (uint32_t i = 0; i < c->track_count; i++) {
      const anim_track_t *tr = &c->tracks[i];
      if (tr->joint != j) continue;
      if (tr->path == ANIM_PATH_TRANSLATION)
        t = anim_vec3(tr->values[0], tr->values[1], tr->values[2]);
      if (tr->path == ANIM_PATH_ROTATION)
        r = anim_quat(tr->values[0], tr->values[1], tr->values[2],
                      tr->values[3]);
    }
    int p = k->parents[j];
    if (p < 0) {
      wp[j] = t;
      wr[j] = r;
    } else {
      wp[j] = anim_vec3_add(wp[p], anim_quat_rotate(wr[p], t));
      wr[j] = anim_quat_mul(wr[p], r);
    }
  }
  free(wr);
}

typedef struct ref_pos_s {
  const char *file, *joint;
  float x, y, z;
} ref_pos_t;

/* Printed by an independent scipy script (a separate BVH tokenizer; per
 * joint R.from_euler(order of its rotation channels, values, degrees=True),
 * world = parent_world * local) for frame 0. */
static const ref_pos_t refs[] = {
    {"bvh/cmu/01_01.bvh", "Hips", 9.37220f, 17.86930f, -17.31980f},
    {"bvh/cmu/01_01.bvh", "LeftToeBase", 11.52606f, 0.98530f, -14.15796f},
    {"bvh/cmu/01_01.bvh", "LeftShoulder", 9.45719f, 21.95374f, -17.55593f},
    {"bvh/cmu/01_01.bvh", "LThumb", 21.25394f, 22.41672f, -17.86714f},
    {"bvh/cmu/01_01.bvh", "RFingers", -2.95259f, 22.51649f, -17.96058f},
    {"bvh/cmu/131_01.bvh", "LeftToe", 8.85480f, 1.33211f, -33.49421f},
    {"bvh/cmu/131_01.bvh", "LeftCollar", 5.34906f, 20.82181f, -33.25640f},
    {"bvh/cmu/131_01.bvh", "LThumb", 7.62888f, 17.55466f, -32.65511f},
    {"bvh/cmu/131_01.bvh", "RFingers", 2.52966f, 13.85028f, -32.39511f},
    {"bvh/makehuman/walk1.bvh", "Head", -0.10869f, -0.86857f, 5.51744f},
    {"bvh/makehuman/walk1.bvh", "Thumb2_L", 2.19658f, -2.32676f, 0.02132f},
    {"bvh/makehuman/walk1.bvh", "Ring3_R", -2.77226f, -0.20150f, -1.80610f},
    {"bvh/makehuman/walk1.bvh", "UpLeg_R", -0.99158f, -0.38074f, -0.59247f},
    {"bvh/bandai-namco/dataset-1_run_normal_001.bvh", "joint_Root", 0, 0,
     -0.00015f},
    {"bvh/bandai-namco/dataset-1_run_normal_001.bvh", "Head", -0.07427f,
     132.78086f, 7.93517f},
    {"bvh/bandai-namco/dataset-1_run_normal_001.bvh", "UpperArm_R", -10.31924f,
     123.06696f, 4.34076f},
    {"bvh/bandai-namco/dataset-1_run_normal_001.bvh", "Toes_L", 1.94327f,
     4.15381f, -4.52160f},
};

START_TEST(test_first_frame_positions) {
  const ref_pos_t *r = &refs[_i];
  fmt_bundle_t b;
  asset_decode(r->file, BVH, NULL, &b);
  anim_vec3_t *wp = malloc(b.skeletons[0]->joint_count * sizeof *wp);
  first_frame(&b, wp);
  int32_t j = anim_skeleton_find(b.skeletons[0], r->joint);
  ck_assert_int_ge(j, 0);
  /* Positions span up to ~130 units; float keys give ~1e-5 relative. */
  ck_assert_float_eq_tol(wp[j].x, r->x, 2e-3f);
  ck_assert_float_eq_tol(wp[j].y, r->y, 2e-3f);
  ck_assert_float_eq_tol(wp[j].z, r->z, 2e-3f);
  free(wp);
  fmt_bundle_free(&b);
}
END_TEST

/* ---- hand-made files ----------------------------------------------------- */

static const char *tiny =
    "HIERARCHY\n"
    "ROOT hips\n"
    "{\n"
    "\tOFFSET 1 2 3\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "\tJOINT arm\n"
    "\t{\n"
    "\t\tOFFSET 0 0 1\n"
    "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\tEnd Site\n"
    "\t\t{\n"
    "\t\t\tOFFSET 0 1 0\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    "MOTION\n"
    "Frames: 2\n"
    "Frame Time: .5\n"
    "4 5 6 90 90 0 30 -45 60\n"
    "4 5 6 0 0 0 0 0 0\n";

/* printf '%s' "$tiny" | sha256sum | cut -c1-8, prefixed with "motion-". */
static const char *tiny_name = "motion-d6611128";

static void decode_text(const char *s, const fmt_decode_options_t *o,
                        fmt_bundle_t *b) {
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  int rc = fmt_decode(BVH, s, strlen(s), o, b, &e);
  ck_assert_msg(rc == 0, "%s at %s: %s", fmt_error_name(e.code), e.at,
                e.message);
}

static const anim_track_t *track(const fmt_bundle_t *b, const char *joint,
                                 anim_path path) {
  int32_t j = anim_skeleton_find(b->skeletons[0], joint);
  ck_assert_int_ge(j, 0);
  const anim_clip_t *c = b->clips[0].clip;
  for (uint32_t i = 0; i < c->track_count; i++)
    if (c->tracks[i].joint == (uint32_t)j && c->tracks[i].path == path)
      return &c->tracks[i];
  ck_abort_msg("no track for %s", joint);
  return NULL;
}

static void ck_quat(const float *v, float x, float y, float z, float w) {
  /* Up to sign: q and -q are the same rotation. */
  float s = (v[0] * x + v[1] * y + v[2] * z + v[3] * w) < 0 ? -1.0f : 1.0f;
  ck_assert_float_eq_tol(s * v[0], x, 1e-5f);
  ck_assert_float_eq_tol(s * v[1], y, 1e-5f);
  ck_assert_float_eq_tol(s * v[2], z, 1e-5f);
  ck_assert_float_eq_tol(s * v[3], w, 1e-5f);
}

START_TEST(test_tiny_channels) {
  fmt_bundle_t b;
  decode_text(tiny, NULL, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  ck_assert_uint_eq(k->joint_count, 2); /* The End Site is not a joint. */
  ck_assert_int_eq(joint_parent(k, 1), 0);
  ck_assert_float_eq_tol(b.clips[0].clip->duration, 0.5f, 1e-6f);
  /* BVH names no clip: "motion-" and 8 hex digits of the body's SHA-256
   * (printf HIERARCHY... | sha256sum gives the same first 8 digits). */
  ck_assert_str_eq(b.clips[0].clip->name, tiny_name);
  /* Rest translations are the offsets. */
  ck_assert_float_eq_tol(k->rest[anim_skeleton_find(k, "hips")].translation.z,
                         3, 1e-6f);
  /* Position channels replace the offset: (4, 5, 6). */
  const anim_track_t *t = track(&b, "hips", ANIM_PATH_TRANSLATION);
  ck_assert_float_eq(t->values[0], 4);
  ck_assert_float_eq(t->values[1], 5);
  ck_assert_float_eq(t->values[2], 6);
  /* ZXY (90, 90, 0): Rz(90) * Rx(90) = (0,0,s,s) * (s,0,0,s), s = 1/sqrt2:
   * w = s*s = 0.5, x = s*s = 0.5, y = s*s = 0.5, z = s*s = 0.5.
   * scipy: from_euler('ZXY', [90, 90, 0], degrees=True) = (.5,.5,.5,.5). */
  ck_quat(track(&b, "hips", ANIM_PATH_ROTATION)->values, 0.5f, 0.5f, 0.5f,
          0.5f);
  /* scipy: from_euler('ZXY', [30, -45, 60], degrees=True).as_quat() =
   * (-0.43967974, 0.36042341, 0.02226003, 0.82236317). */
  ck_quat(track(&b, "arm", ANIM_PATH_ROTATION)->values, -0.43967974f,
          0.36042341f, 0.02226003f, 0.82236317f);
  /* Frame 1 is all zero: identity. */
  ck_quat(track(&b, "arm", ANIM_PATH_ROTATION)->values + 4, 0, 0, 0, 1);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_tiny_options) {
  /* unit_scale 0.01 and Z-up: offsets (x, y, z) -> 0.01 * (x, z, -y). */
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.unit_scale = 0.01f;
  o.z_up = true;
  fmt_bundle_t b;
  decode_text(tiny, &o, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  anim_vec3_t arm = k->rest[anim_skeleton_find(k, "arm")].translation;
  ck_assert_float_eq_tol(arm.x, 0, 1e-6f);
  ck_assert_float_eq_tol(arm.y, 0.01f, 1e-6f);
  ck_assert_float_eq_tol(arm.z, 0, 1e-6f);
  const anim_track_t *t = track(&b, "hips", ANIM_PATH_TRANSLATION);
  ck_assert_float_eq_tol(t->values[0], 0.04f, 1e-6f);
  ck_assert_float_eq_tol(t->values[1], 0.06f, 1e-6f);
  ck_assert_float_eq_tol(t->values[2], -0.05f, 1e-6f);
  /* Frame 1's identity stays the identity under the change of axes. */
  ck_quat(track(&b, "arm", ANIM_PATH_ROTATION)->values + 4, 0, 0, 0, 1);
  fmt_bundle_free(&b);
}
END_TEST

/* tiny with every LF turned into CRLF, or with a mix. */
START_TEST(test_line_endings) {
  size_t n = strlen(tiny);
  char *crlf = malloc(2 * n + 1), *mixed = malloc(2 * n + 1);
  size_t a = 0, m = 0, line = 0;
  for (size_t i = 0; i < n; i++) {
    if (tiny[i] == '\n') {
      crlf[a++] = '\r';
      if (line++ % 2 == 0) mixed[m++] = '\r';
    }
    crlf[a++] = tiny[i];
    mixed[m++] = tiny[i];
  }
  crlf[a] = mixed[m] = '\0';
  fmt_bundle_t b;
  decode_text(crlf, NULL, &b);
  ck_assert_uint_eq(b.clips[0].clip->tracks[0].key_count, 2);
  fmt_bundle_free(&b);
  decode_text(mixed, NULL, &b);
  ck_assert_uint_eq(b.skeletons[0]->joint_count, 2);
  fmt_bundle_free(&b);
  free(crlf);
  free(mixed);
}
END_TEST

/* Replaces the first occurrence of from by to in tiny. */
static char *tiny_with(const char *from, const char *to) {
  const char *p = strstr(tiny, from);
  ck_assert_ptr_nonnull(p);
  size_t n = strlen(tiny) - strlen(from) + strlen(to);
  char *s = malloc(n + 1);
  size_t k = (size_t)(p - tiny);
  memcpy(s, tiny, k);
  strcpy(s + k, to);
  strcat(s, p + strlen(from));
  return s;
}

static const struct {
  const char *from, *to, *at;
} broken[] = {
    /* Row 1 short of one value: the next row's first value is on line 20. */
    {"30 -45 60\n", "30 -45\n", "line 19"},
    {"30 -45 60\n", "30 -45 60 7\n", "line 19"},
    {"4 5 6 0 0 0 0 0 0\n", "", "line 20"}, /* truncated */
    {"4 5 6 0 0 0 0 0 0\n", "4 5 6 0 0 0 0 0 0\n1\n", "line 21"},
    {"90 90 0", "90 9x0 0", "line 19"}, /* bad number */
    {"90 90 0", "90 nan 0", "line 19"},
    {"CHANNELS 3", "CHANNELS 7", "line 9"},
    {"CHANNELS 3 Zrotation", "CHANNELS 3 Wrotation", "line 9"},
    {"CHANNELS 3 Zrotation Xrotation", "CHANNELS 3 Zrotation Zrotation",
     "line 9"},
    {"Frames: 2", "Frames: -2", "line 17"},
    {"Frame Time: .5", "Frame Time: 0", "line 18"},
    {"\t}\n}\n", "\t}\n", "line 15"},      /* missing brace */
    {"JOINT arm", "JOINT hips", "line 6"}, /* duplicate name */
    {"OFFSET 0 0 1", "OFFSET 0 0", "line 9"},
};

START_TEST(test_broken) {
  char *s = tiny_with(broken[_i].from, broken[_i].to);
  ck_decode_fails(BVH, s, strlen(s), NULL, 400, broken[_i].at);
  free(s);
}
END_TEST

START_TEST(test_onto_existing_skeleton) {
  /* With opts->skeleton the motion targets that rig by joint name: no new
   * skeleton, the clip refers to the external one. */
  fmt_bundle_t rig, b;
  decode_text(tiny, NULL, &rig);
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.skeleton = rig.skeletons[0];
  decode_text(tiny, &o, &b);
  ck_assert_uint_eq(b.skeleton_count, 0);
  ck_assert_uint_eq(b.clip_count, 1);
  ck_assert_uint_eq(b.clips[0].skeleton, FMT_EXTERNAL_SKELETON);
  ck_assert_uint_eq(b.clips[0].clip->track_count, 3);
  fmt_bundle_free(&b);
  /* A joint the rig does not have: refused at its line. */
  char *s = tiny_with("JOINT arm", "JOINT leg");
  ck_decode_fails(BVH, s, strlen(s), &o, 400, "line 6");
  free(s);
  fmt_bundle_free(&rig);
}
END_TEST

START_TEST(test_empty_and_garbage) {
  ck_decode_fails(BVH, "", 0, NULL, 400, "line 1");
  ck_decode_fails(BVH, "HIERARCHY\nROOT", 14, NULL, 400, "line 2");
  ck_decode_fails(BVH, "\x01\x02", 2, NULL, 400, "line 1");
  /* A cut in the middle of the CMU file. */
  size_t len;
  char *body = asset_read("bvh/cmu/01_01.bvh", &len);
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(BVH, body, len / 2, NULL, &b, &e), -1);
  ck_assert_int_eq(fmt_error_status(e.code), 400);
  ck_assert_str_eq(fmt_error_name(e.code), "truncated");
  ck_assert_int_eq(strncmp(e.at, "line ", 5), 0);
  free(body);
}
END_TEST

START_TEST(test_mutations) {
  mutate_decode("bvh/makehuman/walk1.bvh", BVH, NULL, 300);
  mutate_decode("bvh/bandai-namco/dataset-1_run_normal_001.bvh", BVH, NULL,
                100);
}
END_TEST

Suite *bvh_suite(void) {
  Suite *s = suite_create("bvh");
  TCase *tc;
  if (shared_assets_present("bvh: the CMU and Bandai Namco files")) {
    tc = tcase_create("samples");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_sample_counts, 0,
                        (int)(sizeof files / sizeof files[0]));
    tcase_add_loop_test(tc, test_first_frame_positions, 0,
                        (int)(sizeof refs / sizeof refs[0]));
    tcase_add_test(tc, test_empty_and_garbage);
    tcase_add_test(tc, test_mutations);
    suite_add_tcase(s, tc);
  }
  tc = tcase_create("text");
  tcase_add_test(tc, test_tiny_channels);
  tcase_add_test(tc, test_tiny_options);
  tcase_add_test(tc, test_line_endings);
  tcase_add_loop_test(tc, test_broken, 0,
                      (int)(sizeof broken / sizeof broken[0]));
  tcase_add_test(tc, test_onto_existing_skeleton);
  suite_add_tcase(s, tc);
  return s;
}
