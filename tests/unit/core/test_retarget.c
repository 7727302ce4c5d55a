/* Tests for the retarget job and the name map (animd/retarget.h): a
 * CMU-like skeleton built here, its clip baked onto a copy with every
 * offset scaled by 1.3 and its joints given in another order (every model
 * position 1.3 times the source's) and
 * onto itself with joint orients moved around (the same pose), the
 * validation of each field, and the name keys of the auto map. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/animd.h"

/* A CMU-like rig: hips, legs, spine, neck, head, arms. */
typedef struct rig_joint_s {
  const char *name;
  int parent;
  float x, y, z;
} rig_joint_t;

static const rig_joint_t RIG[] = {
    {"Hips", -1, 0, 0.95f, 0},
    {"LeftUpLeg", 0, 0.09f, -0.05f, 0},
    {"LeftLeg", 1, 0, -0.42f, 0.01f},
    {"LeftFoot", 2, 0, -0.41f, -0.02f},
    {"LeftToeBase", 3, 0, -0.05f, 0.12f},
    {"RightUpLeg", 0, -0.09f, -0.05f, 0},
    {"RightLeg", 5, 0, -0.42f, 0.01f},
    {"RightFoot", 6, 0, -0.41f, -0.02f},
    {"RightToeBase", 7, 0, -0.05f, 0.12f},
    {"Spine", 0, 0, 0.1f, 0},
    {"Spine1", 9, 0, 0.15f, 0.01f},
    {"Neck", 10, 0, 0.25f, 0},
    {"Head", 11, 0, 0.1f, 0.02f},
    {"LeftShoulder", 10, 0.05f, 0.2f, 0},
    {"LeftArm", 13, 0.12f, 0, 0},
    {"LeftForeArm", 14, 0.28f, 0, 0},
    {"LeftHand", 15, 0.25f, 0, 0},
    {"RightShoulder", 10, -0.05f, 0.2f, 0},
    {"RightArm", 17, -0.12f, 0, 0},
    {"RightForeArm", 18, -0.28f, 0, 0},
    {"RightHand", 19, -0.25f, 0, 0},
};
#define N (sizeof RIG / sizeof RIG[0])
#define KEYS 9

static anim_quat_t axis_angle(float x, float y, float z, float a) {
  return anim_quat_from_axis_angle(anim_vec3_normalize(anim_vec3(x, y, z)), a);
}

/* The rig with offsets times scale; with orients, each joint's rest
 * rotation is split into an orient and the rest: the same rest pose.
 * Reversed: the joints given children first, so the caller's order is
 * not the storage order. */
static anim_skeleton_t *rig_ordered(float scale, bool orients,
                                    const char *prefix, bool reversed) {
  anim_raw_joint_t j[N];
  static char names[N][40];
  for (size_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "%s%s", prefix, RIG[i].name);
    anim_quat_t rest = axis_angle(0.2f, 1, 0.1f, 0.05f * (float)i);
    anim_quat_t orient = {0, 0, 0, 0};
    if (orients && i % 3 == 1) {
      orient = axis_angle(1, 0.3f, 0, 0.7f);
      rest = anim_quat_mul(anim_quat_conjugate(orient), rest);
    }
    size_t at = reversed ? N - 1 - i : i;
    int parent = RIG[i].parent;
    if (reversed && parent >= 0) parent = (int)N - 1 - parent;
    j[at] = (anim_raw_joint_t){
        .name = names[i],
        .parent = parent,
        .rest = {.translation = anim_vec3(scale * RIG[i].x, scale * RIG[i].y,
                                          scale * RIG[i].z),
                 .rotation = rest,
                 .scale = anim_vec3(1, 1, 1)},
        .orient = orient};
  }
  anim_raw_skeleton_t raw = {.name = "rig", .joints = j, .joint_count = N};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

static anim_skeleton_t *rig(float scale, bool orients, const char *prefix) {
  return rig_ordered(scale, orients, prefix, false);
}

/* A 1 s clip: a rotation per joint and the hips moving forward and
 * bobbing, KEYS keys each. */
static anim_clip_t *walk(const anim_skeleton_t *s) {
  static float times[KEYS], rot[N][KEYS * 4], tr[KEYS * 3];
  anim_raw_track_t tracks[N + 1];
  for (int k = 0; k < KEYS; k++) times[k] = (float)k / (KEYS - 1);
  for (size_t i = 0; i < N; i++) {
    for (int k = 0; k < KEYS; k++) {
      float a = 0.6f * sinf(6.28f * times[k] + (float)i);
      anim_quat_t q = axis_angle(1, 0.2f * (float)i, 0.1f, a);
      memcpy(&rot[i][k * 4], &q, sizeof q);
    }
    tracks[i] = (anim_raw_track_t){.joint = (uint32_t)i,
                                   .path = ANIM_PATH_ROTATION,
                                   .times = times,
                                   .key_count = KEYS,
                                   .values = rot[i],
                                   .value_count = KEYS * 4};
  }
  for (int k = 0; k < KEYS; k++) {
    tr[k * 3] = 0.1f * times[k];
    tr[k * 3 + 1] = 0.95f + 0.03f * sinf(12.56f * times[k]);
    tr[k * 3 + 2] = 1.4f * times[k];
  }
  tracks[N] = (anim_raw_track_t){.joint = 0,
                                 .path = ANIM_PATH_TRANSLATION,
                                 .times = times,
                                 .key_count = KEYS,
                                 .values = tr,
                                 .value_count = KEYS * 3};
  anim_raw_clip_t raw = {
      .name = "walk", .tracks = tracks, .track_count = N + 1};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  return c;
}

/* Pairs joint i of src with the joint of dst named prefix + its name. */
static size_t pairs_by_name(const anim_skeleton_t *src,
                            const anim_skeleton_t *dst, const char *prefix,
                            anim_retarget_pair_t *pairs) {
  for (uint32_t i = 0; i < src->joint_count; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%s", prefix, src->names[i]);
    int32_t d = anim_skeleton_find(dst, name);
    ck_assert_int_ge(d, 0);
    pairs[i] = (anim_retarget_pair_t){i, (uint32_t)d};
  }
  return src->joint_count;
}

/* The baked outputs as a clip of dst (what the server stores). */
static anim_clip_t *bake(const anim_skeleton_t *src, const anim_clip_t *clip,
                         const anim_skeleton_t *dst,
                         const anim_retarget_pair_t *pairs, size_t np,
                         float fps, float *k) {
  uint32_t nf = anim_retarget_frame_count(clip->duration, fps);
  size_t sb = anim_retarget_scratch_bytes(src, clip, dst);
  float *times = malloc(nf * sizeof(float));
  float *rot = malloc(np * nf * 4 * sizeof(float));
  float *tr = malloc(nf * 3 * sizeof(float));
  void *scratch = malloc(sb);
  int32_t root = anim_retarget_root_pair(dst, pairs, np);
  ck_assert_int_ge(root, 0);
  anim_retarget_job_t job = {.source = src,
                             .clip = clip,
                             .target = dst,
                             .pairs = pairs,
                             .pair_count = np,
                             .root_pair = (uint32_t)root,
                             .fps = fps,
                             .frame_count = nf,
                             .scratch = scratch,
                             .scratch_bytes = sb,
                             .times = times,
                             .rotations = rot,
                             .translations = tr,
                             .scale = k};
  ck_assert_int_eq(anim_retarget_job_run(&job), ANIM_OK);
  ck_assert_float_eq(times[nf - 1], clip->duration);
  anim_raw_track_t *tracks = calloc(np + 1, sizeof *tracks);
  for (size_t i = 0; i < np; i++)
    tracks[i] = (anim_raw_track_t){.joint = dst->to_caller[pairs[i].target],
                                   .path = ANIM_PATH_ROTATION,
                                   .times = times,
                                   .key_count = nf,
                                   .values = rot + i * nf * 4,
                                   .value_count = nf * 4};
  tracks[np] = (anim_raw_track_t){.joint = dst->to_caller[pairs[root].target],
                                  .path = ANIM_PATH_TRANSLATION,
                                  .times = times,
                                  .key_count = nf,
                                  .values = tr,
                                  .value_count = nf * 3};
  anim_raw_clip_t raw = {
      .name = "baked", .tracks = tracks, .track_count = np + 1};
  anim_clip_t *out = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, dst, NULL, &out, NULL), ANIM_OK);
  free(tracks);
  free(times);
  free(rot);
  free(tr);
  free(scratch);
  return out;
}

/* Model matrices of clip on s at t (storage order). */
static void model_at(const anim_skeleton_t *s, const anim_clip_t *clip,
                     double t, anim_mat4_t *out, anim_quat_t *local) {
  anim_vec3_t tr[N], sc[N];
  anim_pose_t pose = {tr, local, sc, N};
  anim_sampling_job_t sj = {
      .skeleton = s, .clip = clip, .time = t, .output = pose};
  ck_assert_int_eq(anim_sampling_job_run(&sj), ANIM_OK);
  anim_local_to_model_job_t m = {
      .skeleton = s, .input = pose, .output = out, .output_count = N};
  ck_assert_int_eq(anim_local_to_model_job_run(&m), ANIM_OK);
}

START_TEST(test_scaled_copy) {
  anim_skeleton_t *src = rig(1, false, "");
  anim_skeleton_t *dst = rig_ordered(1.3f, false, "S_", true);
  ck_assert_uint_ne(dst->to_caller[0], 0);
  anim_clip_t *clip = walk(src);
  anim_retarget_pair_t pairs[N];
  size_t np = pairs_by_name(src, dst, "S_", pairs);
  float k = 0;
  anim_clip_t *out = bake(src, clip, dst, pairs, np, 30, &k);
  ck_assert_float_eq_tol(k, 1.3f, 1e-6f);
  anim_mat4_t ms[N], md[N];
  anim_quat_t ls[N], ld[N];
  double worst = 0;
  for (int f = 0; f <= 30; f++) {
    model_at(src, clip, f / 30.0, ms, ls);
    model_at(dst, out, f / 30.0, md, ld);
    for (uint32_t i = 0; i < N; i++) {
      uint32_t d = pairs[i].target;
      for (int c = 12; c < 15; c++) {
        double want = 1.3 * ms[i].m[c];
        double e = fabs(md[d].m[c] - want) / (1.3 * 1.9);
        if (e > worst) worst = e;
      }
    }
  }
  ck_assert_msg(worst < 1e-4, "largest relative error %g", worst);
  anim_clip_free(out);
  anim_clip_free(clip);
  anim_skeleton_free(src);
  anim_skeleton_free(dst);
}
END_TEST

START_TEST(test_onto_itself) {
  /* The target has orients where the source has none: same rest pose,
   * other stored rotations. */
  anim_skeleton_t *src = rig(1, false, ""), *dst = rig(1, true, "");
  ck_assert(dst->has_orient);
  anim_clip_t *clip = walk(src);
  anim_retarget_pair_t pairs[N];
  size_t np = pairs_by_name(src, dst, "", pairs);
  float k = 0;
  anim_clip_t *out = bake(src, clip, dst, pairs, np, 8, &k);
  ck_assert_float_eq_tol(k, 1.0f, 1e-6f);
  anim_mat4_t ms[N], md[N];
  anim_quat_t ls[N], ld[N];
  for (int f = 0; f < KEYS; f++) {
    double t = f / 8.0;
    model_at(src, clip, t, ms, ls);
    model_at(dst, out, t, md, ld);
    for (uint32_t i = 0; i < N; i++) {
      float dot = fabsf(anim_quat_dot(ls[i], ld[i]));
      ck_assert_msg(dot > 1 - 1e-5f, "joint %u at %g: dot %g", i, t, dot);
      for (int c = 0; c < 16; c++)
        ck_assert_msg(fabsf(ms[i].m[c] - md[i].m[c]) <= 1e-5f,
                      "joint %u at %g: m[%d] %g vs %g", i, t, c, ms[i].m[c],
                      md[i].m[c]);
    }
  }
  anim_clip_free(out);
  anim_clip_free(clip);
  anim_skeleton_free(src);
  anim_skeleton_free(dst);
}
END_TEST

START_TEST(test_validate) {
  anim_skeleton_t *src = rig(1, false, ""), *dst = rig(1, false, "");
  anim_clip_t *clip = walk(src);
  anim_retarget_pair_t pairs[2] = {{0, 0}, {1, 1}};
  size_t sb = anim_retarget_scratch_bytes(src, clip, dst);
  void *scratch = malloc(sb);
  float times[31], rot[2 * 31 * 4], tr[31 * 3];
  anim_retarget_job_t ok = {.source = src,
                            .clip = clip,
                            .target = dst,
                            .pairs = pairs,
                            .pair_count = 2,
                            .fps = 30,
                            .frame_count = 31,
                            .scratch = scratch,
                            .scratch_bytes = sb,
                            .times = times,
                            .rotations = rot,
                            .translations = tr};
  ck_assert_uint_eq(anim_retarget_frame_count(1, 30), 31);
  ck_assert_uint_eq(anim_retarget_frame_count(0, 30), 1);
  ck_assert_uint_eq(anim_retarget_frame_count(1, 0), 0);
  ck_assert_int_eq(anim_retarget_job_validate(&ok), ANIM_OK);
  ck_assert_int_eq(anim_retarget_job_validate(NULL), ANIM_ERR_INVALID_ARGUMENT);
  anim_retarget_job_t j = ok;
  j.pairs = NULL;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_ERR_INVALID_ARGUMENT);
  j = ok;
  j.fps = 0;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_ERR_INVALID_ARGUMENT);
  j = ok;
  j.root_pair = 2;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_ERR_INVALID_ARGUMENT);
  j = ok;
  j.frame_count = 30;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_ERR_MISMATCH);
  j = ok;
  j.scratch_bytes = sb - 1;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_ERR_BUFFER_TOO_SMALL);
  j = ok;
  anim_retarget_pair_t twice[2] = {{0, 0}, {1, 0}};
  j.pairs = twice;
  ck_assert_int_eq(anim_retarget_job_validate(&j), ANIM_OK);
  ck_assert_int_eq(anim_retarget_job_run(&j), ANIM_ERR_INVALID_ARGUMENT);
  /* One source joint may drive two target joints. */
  anim_retarget_pair_t shared[2] = {{0, 0}, {0, 1}};
  j.pairs = shared;
  ck_assert_int_eq(anim_retarget_job_run(&j), ANIM_OK);
  anim_retarget_pair_t far[2] = {{0, 0}, {1, N}};
  j.pairs = far;
  ck_assert_int_eq(anim_retarget_job_run(&j), ANIM_ERR_INVALID_ARGUMENT);
  /* The root pair is the one nearest the top. */
  anim_retarget_pair_t legs[3] = {{2, 2}, {1, 1}, {3, 3}};
  ck_assert_int_eq(anim_retarget_root_pair(dst, legs, 3), 1);
  ck_assert_int_eq(anim_retarget_root_pair(dst, legs, 0), -1);
  free(scratch);
  anim_clip_free(clip);
  anim_skeleton_free(src);
  anim_skeleton_free(dst);
}
END_TEST

static void expect_key(const char *name, const char *key, const char *canon) {
  char k[ANIM_RETARGET_KEY_MAX], c[ANIM_RETARGET_KEY_MAX];
  anim_retarget_name_key(name, k, c);
  ck_assert_msg(strcmp(k, key) == 0, "%s: key '%s', want '%s'", name, k, key);
  ck_assert_msg(strcmp(c, canon) == 0, "%s: canon '%s', want '%s'", name, c,
                canon);
}

START_TEST(test_name_keys) {
  expect_key("Hips", "hips", "hips");
  expect_key("mixamorig:LeftUpLeg", "l.upleg", "l.thigh");
  expect_key("Bip01 L Thigh", "l.thigh", "l.thigh");
  expect_key("DEF-upper_arm.L", "l.upperarm", "l.upperarm");
  expect_key("UpperArm.R", "r.upperarm", "r.upperarm");
  expect_key("L_Calf", "l.calf", "l.shin");
  expect_key("thigh_r", "r.thigh", "r.thigh");
  expect_key("LeftLeg", "l.leg", "l.shin");
  expect_key("LeftForeArm", "l.forearm", "l.forearm");
  expect_key("lowerarm_l", "l.lowerarm", "l.forearm");
  expect_key("LeftToeBase", "l.toebase", "l.toe");
  expect_key("RightShoulder", "r.shoulder", "r.shoulder");
  expect_key("clavicle_l", "l.clavicle", "l.shoulder");
  expect_key("lhand", "l.hand", "l.hand");
  expect_key("LeftHip", "l.hip", "l.thigh");
  expect_key("pelvis", "pelvis", "hips");
  expect_key("spine_01", "spine01", "spine");
  expect_key("Spine1", "spine1", "spine");
  expect_key("LHipJoint", "l.hipjoint", "");
  expect_key("LThumb", "l.thumb", "");
  expect_key("leg", "leg", "shin");
  expect_key("Bip01", "bip01", "");
  expect_key("", "", "");
}
END_TEST

START_TEST(test_auto_map) {
  /* CMU names onto Blender-style names: vocabulary pairs. */
  anim_skeleton_t *src = rig(1, false, "");
  static const char *const blender[N] = {
      "pelvis",     "thigh.L", "calf.L",     "foot.L",     "toe.L",
      "thigh.R",    "calf.R",  "foot.R",     "toe.R",      "spine_01",
      "spine_02",   "neck_01", "head",       "clavicle.L", "upperarm.L",
      "lowerarm.L", "hand.L",  "clavicle.R", "upperarm.R", "lowerarm.R",
      "hand.R"};
  anim_raw_joint_t j[N];
  for (size_t i = 0; i < N; i++)
    j[i] = (anim_raw_joint_t){
        .name = blender[i],
        .parent = RIG[i].parent,
        .rest = {.translation = anim_vec3(RIG[i].x, RIG[i].y, RIG[i].z),
                 .rotation = anim_quat_identity(),
                 .scale = anim_vec3(1, 1, 1)}};
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = N};
  anim_skeleton_t *dst = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &dst, NULL), ANIM_OK);
  size_t bytes = ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * 2 * N;
  char *scratch = malloc(bytes);
  anim_retarget_pair_t pairs[N];
  size_t n = anim_retarget_auto_map(src, dst, pairs, N, scratch, bytes);
  /* Every joint: Spine and Spine1 both name a spine, and pair in order
   * with spine_01 and spine_02. */
  ck_assert_uint_eq(n, N);
  for (size_t i = 0; i < n; i++) {
    const char *s = src->names[pairs[i].source];
    const char *d = dst->names[pairs[i].target];
    size_t c = 0;
    while (c < N && strcmp(RIG[c].name, s) != 0) c++;
    ck_assert_msg(c < N && strcmp(blender[c], d) == 0, "%s -> %s", s, d);
    if (i > 0) ck_assert_uint_lt(pairs[i - 1].target, pairs[i].target);
  }
  /* Too little scratch: nothing. */
  ck_assert_uint_eq(anim_retarget_auto_map(src, dst, pairs, N, scratch, 8), 0);
  /* Onto itself: every joint by its key. */
  ck_assert_uint_eq(anim_retarget_auto_map(src, src, pairs, N, scratch, bytes),
                    N);
  anim_skeleton_free(dst);
  /* A rig whose legs and spine hang off "Root": Root takes the hips. */
  static const char *const girl[] = {"Root",       "LowerSpine", "UpperLeg.L",
                                     "LowerLeg.L", "UpperLeg.R", "LowerLeg.R"};
  static const int girl_parent[] = {-1, 0, 0, 2, 0, 4};
  anim_raw_joint_t g[6];
  for (size_t i = 0; i < 6; i++)
    g[i] = (anim_raw_joint_t){.name = girl[i],
                              .parent = girl_parent[i],
                              .rest = {.translation = anim_vec3(0, -0.4f, 0),
                                       .rotation = anim_quat_identity(),
                                       .scale = anim_vec3(1, 1, 1)}};
  raw = (anim_raw_skeleton_t){.joints = g, .joint_count = 6};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &dst, NULL), ANIM_OK);
  n = anim_retarget_auto_map(src, dst, pairs, N, scratch, bytes);
  ck_assert_uint_eq(n, 6);
  ck_assert_str_eq(src->names[pairs[0].source], "Hips");
  ck_assert_str_eq(dst->names[pairs[0].target], "Root");
  free(scratch);
  anim_skeleton_free(src);
  anim_skeleton_free(dst);
}
END_TEST

Suite *retarget_suite(void) {
  Suite *s = suite_create("retarget");
  TCase *tc = tcase_create("retarget");
  tcase_add_test(tc, test_scaled_copy);
  tcase_add_test(tc, test_onto_itself);
  tcase_add_test(tc, test_validate);
  tcase_add_test(tc, test_name_keys);
  tcase_add_test(tc, test_auto_map);
  suite_add_tcase(s, tc);
  return s;
}
