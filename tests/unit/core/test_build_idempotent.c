/* Building from a built object's own numbers changes nothing: the store
 * reloads assets from their canonical text and clients re-upload describe
 * answers, so skeleton rotations, clip rotation keys and mesh influences
 * must be fixed points of their builders, bit for bit. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/animd.h"
#include "test_math_util.h"

#define IDEM_JOINTS 64
#define IDEM_KEYS 2000

/* A chain of IDEM_JOINTS joints with random (rounded, so not exactly unit)
 * rest rotations and orients, built once, then rebuilt from the built
 * numbers in caller order. */
START_TEST(test_skeleton_rotations_fixed_point) {
  test_rng rng = {0x5eed1u};
  anim_raw_joint_t raw[IDEM_JOINTS];
  char names[IDEM_JOINTS][16];
  for (int j = 0; j < IDEM_JOINTS; j++) {
    snprintf(names[j], sizeof names[j], "j%d", j);
    raw[j] = (anim_raw_joint_t){.name = names[j], .parent = j - 1};
    raw[j].rest = anim_transform_identity();
    raw[j].rest.rotation = rng_quat(&rng);
    raw[j].orient = rng_quat(&rng);
  }
  anim_raw_skeleton_t rs = {
      .name = "idem", .joints = raw, .joint_count = IDEM_JOINTS};
  anim_skeleton_t *a = NULL, *b = NULL;
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &a, NULL), ANIM_OK);
  for (uint32_t s = 0; s < a->joint_count; s++) {
    uint32_t c = a->to_caller[s];
    raw[c].rest.rotation = a->rest[s].rotation;
    raw[c].orient = a->orient[s];
  }
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &b, NULL), ANIM_OK);
  for (uint32_t s = 0; s < a->joint_count; s++) {
    ck_assert_mem_eq(&a->rest[s].rotation, &b->rest[s].rotation,
                     sizeof(anim_quat_t));
    ck_assert_mem_eq(&a->orient[s], &b->orient[s], sizeof(anim_quat_t));
  }
  anim_skeleton_free(a);
  anim_skeleton_free(b);
}
END_TEST

/* IDEM_KEYS random rotation keys on one track: built keys rebuilt give the
 * same floats; a key that is far from unit is still normalized. */
START_TEST(test_clip_rotation_keys_fixed_point) {
  test_rng rng = {0xc11bu};
  anim_raw_joint_t joint = {.name = "root", .parent = -1};
  joint.rest = anim_transform_identity();
  anim_raw_skeleton_t rs = {.joints = &joint, .joint_count = 1};
  anim_skeleton_t *sk = NULL;
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, NULL), ANIM_OK);

  float *times = malloc(sizeof(float) * IDEM_KEYS);
  float *values = malloc(sizeof(float) * 4 * IDEM_KEYS);
  ck_assert_ptr_nonnull(times);
  ck_assert_ptr_nonnull(values);
  for (int k = 0; k < IDEM_KEYS; k++) {
    times[k] = (float)k / 30.0f;
    anim_quat_t q = rng_quat(&rng);
    memcpy(values + 4 * k, &q, sizeof q);
  }
  values[0] = 0.0f, values[1] = 0.0f, values[2] = 0.0f, values[3] = 2.0f;
  anim_raw_track_t tr = {.joint = 0,
                         .path = ANIM_PATH_ROTATION,
                         .times = times,
                         .key_count = IDEM_KEYS,
                         .values = values,
                         .value_count = 4 * IDEM_KEYS};
  anim_raw_clip_t rc = {.name = "spin", .tracks = &tr, .track_count = 1};
  anim_clip_t *a = NULL, *b = NULL;
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &a, NULL), ANIM_OK);
  ck_assert_float_eq(a->tracks[0].values[3], 1.0f); /* (0,0,0,2) -> unit. */
  tr.values = a->tracks[0].values;
  ck_assert_int_eq(anim_clip_build(&rc, sk, NULL, &b, NULL), ANIM_OK);
  ck_assert_mem_eq(a->tracks[0].values, b->tracks[0].values,
                   sizeof(float) * 4 * IDEM_KEYS);
  anim_clip_free(a);
  anim_clip_free(b);
  free(times);
  free(values);
  anim_skeleton_free(sk);
}
END_TEST

/* Tied weights (0.5/0.5, 1/3 x 3, 0.25 x 4) keep their joints and weights
 * when the built streams are built again. */
START_TEST(test_mesh_influences_fixed_point) {
  anim_raw_joint_t joints[4];
  const char *names[4] = {"a", "b", "c", "d"};
  for (int j = 0; j < 4; j++) {
    joints[j] = (anim_raw_joint_t){.name = names[j], .parent = j - 1};
    joints[j].rest = anim_transform_identity();
  }
  anim_raw_skeleton_t rs = {.joints = joints, .joint_count = 4};
  anim_skeleton_t *sk = NULL;
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, NULL), ANIM_OK);

  float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  uint32_t rj[12] = {0, 1, 0, 0, 1, 2, 3, 0, 3, 2, 1, 0};
  float rw[12] = {0.5f, 0.5f, 0, 0, 1, 1, 1, 0, 0.25f, 0.25f, 0.25f, 0.25f};
  anim_raw_mesh_t rm = {.vertex_count = 3,
                        .positions = pos,
                        .influences = 4,
                        .joints = rj,
                        .weights = rw};
  anim_mesh_t *a = NULL, *b = NULL;
  ck_assert_int_eq(anim_mesh_build(&rm, sk, NULL, &a, NULL), ANIM_OK);
  uint32_t bj[12];
  for (int i = 0; i < 12; i++) bj[i] = sk->to_caller[a->joints[i]];
  rm.joints = bj;
  rm.weights = a->weights;
  ck_assert_int_eq(anim_mesh_build(&rm, sk, NULL, &b, NULL), ANIM_OK);
  ck_assert_mem_eq(a->joints, b->joints, sizeof(uint16_t) * 12);
  ck_assert_mem_eq(a->weights, b->weights, sizeof(float) * 12);
  anim_mesh_free(a);
  anim_mesh_free(b);
  anim_skeleton_free(sk);
}
END_TEST

Suite *build_idempotent_suite(void) {
  Suite *s = suite_create("build_idempotent");
  TCase *tc = tcase_create("fixed_points");
  tcase_add_test(tc, test_skeleton_rotations_fixed_point);
  tcase_add_test(tc, test_clip_rotation_keys_fixed_point);
  tcase_add_test(tc, test_mesh_influences_fixed_point);
  suite_add_tcase(s, tc);
  return s;
}
