/* Tests for the evaluation pipeline (server/request/evaluate.h) and the frame
 * answers built on it, against closed-form poses.
 *
 * The rig: joint "a" at the root slides along x from 0 to 1 over 1 s;
 * its child "b" sits at (0, 2, 0) and turns about z from 0 to 90 degrees
 * over the same second. So at time t, a's model matrix is a translation
 * by (t, 0, 0) and b's is that times a translation by (0, 2, 0) times a
 * rotation of 90 t degrees about z. The mesh has one vertex at (0, 3, 0)
 * bound to b: skinned, it is a's offset plus (0, 2, 0) plus the rotated
 * (0, 1, 0). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "formats/bundle.h"
#include "server/request/evaluate.h"
#include "server/request/frame_answer.h"

#define TOL 1e-5f
#define PI_F 3.14159265358979f

static const char rig[] =
    "{\"skeleton\":{\"name\":\"rig\",\"joints\":["
    "{\"name\":\"a\",\"parent\":-1,\"translation\":[0,0,0]},"
    "{\"name\":\"b\",\"parent\":0,\"translation\":[0,2,0]}]},"
    "\"clips\":[{\"name\":\"turn\",\"tracks\":["
    "{\"joint\":\"a\",\"path\":\"translation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,1],\"values\":[0,0,0,1,0,0]},"
    "{\"joint\":\"b\",\"path\":\"rotation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,1],\"values\":[0,0,0,1,0,0,0.70710678,0.70710678]}]}],"
    "\"meshes\":[{\"name\":\"tip\",\"positions\":[0,3,0],"
    "\"normals\":[1,0,0],\"joints\":[1,0,0,0],\"weights\":[1,0,0,0]}]}";

static fmt_bundle_t bundle;
static const anim_skeleton_t *sk;
static const anim_clip_t *clip;
static const anim_mesh_t *mesh;
static srv_eval_scratch_t scratch;

static void setup(void) {
  fmt_error_t err = {0};
  ck_assert_int_eq(
      fmt_decode_native_json(rig, sizeof rig - 1, NULL, &bundle, &err), 0);
  sk = bundle.skeletons[0];
  clip = bundle.clips[0].clip;
  mesh = bundle.meshes[0].mesh;
  memset(&scratch, 0, sizeof scratch);
}

static void teardown(void) {
  srv_eval_scratch_free(&scratch);
  fmt_bundle_free(&bundle);
}

/* The column-major model matrix of b at time t (closed form). */
static void model_b(float t, float m[16]) {
  float a = t * PI_F / 2;
  float want[16] = {cosf(a), sinf(a), 0, 0, -sinf(a), cosf(a), 0, 0,
                    0,       0,       1, 0, t,        2,       0, 1};
  memcpy(m, want, sizeof want);
}

static void assert_near(const float *got, const float *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(fabsf(got[i] - want[i]) < TOL, "[%zu]: %g, want %g", i,
                  (double)got[i], (double)want[i]);
}

START_TEST(test_model_space) {
  float out[32], sampled = -1;
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = clip,
                        .t = 0.5f,
                        .space = FMT_SPACE_MODEL,
                        .out = out,
                        .sampled = &sampled};
  ck_assert_uint_eq(srv_eval_float_count(&job), 32);
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  float a[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5f, 0, 0, 1}, b[16];
  model_b(0.5f, b);
  assert_near(out, a, 16);
  assert_near(out + 16, b, 16);
  ck_assert_float_eq(sampled, 0.5f);
}
END_TEST

START_TEST(test_skin_space_and_wrap) {
  /* Loop: 1.25 s samples 0.25 s. b's skinning matrix is its model matrix
   * times the inverse of its rest model matrix, a translation by
   * (0, -2, 0). */
  float out[32], sampled = -1;
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = clip,
                        .t = 1.25f,
                        .wrap = ANIM_WRAP_LOOP,
                        .space = FMT_SPACE_SKIN,
                        .out = out,
                        .sampled = &sampled};
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  ck_assert_float_eq_tol(sampled, 0.25f, TOL);
  float m[16];
  model_b(0.25f, m);
  for (int r = 0; r < 3; r++) m[12 + r] -= 2 * m[4 + r];
  assert_near(out + 16, m, 16);
}
END_TEST

START_TEST(test_local_space_joint_list) {
  /* Only b, in trs10: its rest translation, half of the 90-degree turn
   * (45 degrees about z) and unit scale. */
  uint32_t joints[] = {1};
  float out[10];
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = clip,
                        .t = 0.5f,
                        .space = FMT_SPACE_LOCAL,
                        .joints = joints,
                        .joint_count = 1,
                        .out = out};
  ck_assert_uint_eq(srv_eval_float_count(&job), 10);
  ck_assert_uint_eq(srv_eval_element_count(&job), 1);
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  float h = PI_F / 8;
  float want[10] = {0, 2, 0, 0, 0, sinf(h), cosf(h), 1, 1, 1};
  assert_near(out, want, 10);
  uint32_t bad[] = {2};
  job.joints = bad;
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_rest_pose) {
  float out[20], sampled = -1;
  srv_eval_job_t job = {.skeleton = sk,
                        .space = FMT_SPACE_LOCAL,
                        .out = out,
                        .sampled = &sampled};
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  float want[20] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 2, 0, 0, 0, 0, 1, 1, 1, 1};
  assert_near(out, want, 20);
  ck_assert_float_eq(sampled, 0);
}
END_TEST

START_TEST(test_blend_layers) {
  /* 0.25 of the pose at 1 s and 0.75 of the pose at 0 s: a at x = 0.25;
   * b's rotation the normalized weighted sum of 90 degrees about z and
   * the identity. A mask leaving a out of the first layer gives a all of
   * the second (x = 0). */
  srv_eval_layer_t layers[2] = {
      {.clip = clip, .t = 1, .weight = 0.25f},
      {.clip = clip, .t = 0, .weight = 0.75f},
  };
  float out[20], sampled = -1;
  srv_eval_job_t job = {.skeleton = sk,
                        .layers = layers,
                        .layer_count = 2,
                        .space = FMT_SPACE_LOCAL,
                        .out = out,
                        .sampled = &sampled};
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  ck_assert_float_eq(sampled, 1);
  float z = 0.25f * 0.70710678f, w = 0.25f * 0.70710678f + 0.75f;
  float len = sqrtf(z * z + w * w);
  float want_a[3] = {0.25f, 0, 0}, want_rb[4] = {0, 0, z / len, w / len};
  assert_near(out, want_a, 3);
  assert_near(out + 13, want_rb, 4);
  float mask[2] = {0, 1};
  layers[0].mask = mask;
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  ck_assert_float_eq_tol(out[0], 0, TOL);
}
END_TEST

START_TEST(test_skinned_mesh) {
  /* (0, 3, 0) on b at 0.5 s: (0.5, 2, 0) + R(45 deg) (0, 1, 0); its normal
   * (1, 0, 0) turns with b. LBS and DQS agree for one rigid influence. */
  float out[6];
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = clip,
                        .t = 0.5f,
                        .mesh = mesh,
                        .normals = ANIM_NORMALS_LINEAR,
                        .out = out};
  ck_assert_uint_eq(srv_eval_float_count(&job), 6);
  ck_assert_uint_eq(srv_eval_element_count(&job), 1);
  float s = sinf(PI_F / 4), c = cosf(PI_F / 4);
  float want[6] = {0.5f - s, 2 + c, 0, c, s, 0};
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  assert_near(out, want, 6);
  job.method = ANIM_SKIN_DQS;
  ck_assert_int_eq(srv_eval_run(&job, &scratch), ANIM_OK);
  assert_near(out, want, 6);
}
END_TEST

START_TEST(test_frame_answers) {
  /* A whole JSON answer, a JSON range line and a binary range frame of
   * the same evaluation carry the same numbers. */
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  ck_assert_ptr_nonnull(s);
  srv_eval_job_t job = {
      .skeleton = sk, .clip = clip, .t = 0.5f, .space = FMT_SPACE_LOCAL};
  srv_frame_names_t names = {.owner = "S", .clip = "C"};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(srv_frame_answer(&b, &job, &names, false, -1, s), ANIM_OK);
  ck_assert(fmt_buf_cstr(&b) != NULL);
  ck_assert_ptr_nonnull(strstr(b.data, "{\"skeleton\":\"S\",\"clip\":\"C\","
                                       "\"t\":0.5,\"joints\":2,"
                                       "\"translation\":[0.5,0,0,0,2,0]"));
  ck_assert_int_eq(b.data[b.len - 1], '\n');
  fmt_buf_reset(&b);
  ck_assert_int_eq(srv_frame_answer(&b, &job, &names, false, 7, s), ANIM_OK);
  ck_assert(fmt_buf_cstr(&b) != NULL);
  ck_assert_ptr_nonnull(strstr(b.data, "\"joints\":2,\"frame\":7,"));
  fmt_buf_reset(&b);
  ck_assert_int_eq(srv_frame_answer(&b, &job, &names, true, 3, s), ANIM_OK);
  ck_assert_uint_eq(b.len, 16 + 20 * 4);
  uint32_t head[2];
  double t;
  float first;
  memcpy(head, b.data, 8);
  memcpy(&t, b.data + 8, 8);
  memcpy(&first, b.data + 16, 4);
  ck_assert_uint_eq(head[0], 3);
  ck_assert_uint_eq(head[1], 20);
  ck_assert(t == 0.5);
  ck_assert_float_eq(first, 0.5f);
  fmt_buf_free(&b);
}
END_TEST

Suite *server_api_evaluate_suite(void) {
  Suite *s = suite_create("server_api_evaluate");
  TCase *tc = tcase_create("pipeline");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_model_space);
  tcase_add_test(tc, test_skin_space_and_wrap);
  tcase_add_test(tc, test_local_space_joint_list);
  tcase_add_test(tc, test_rest_pose);
  tcase_add_test(tc, test_blend_layers);
  tcase_add_test(tc, test_skinned_mesh);
  tcase_add_test(tc, test_frame_answers);
  suite_add_tcase(s, tc);
  return s;
}
