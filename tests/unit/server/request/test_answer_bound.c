/* Tests for the bound on an answer's bytes (server/request/answer_bound.h):
 * binary sizes against the closed form (4 bytes a float, 3 floats a
 * position, 3 a normal, 16 a matrix, a 16-byte header per range frame or
 * block) and against the bytes srv_frame_answer writes; JSON sizes never
 * below the bytes written; the refusal's code and spot. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "server/request/answer_bound.h"
#include "server/request/frame_answer.h"

#define VERTICES 1000

static store_t *st;
static store_asset_t *skel, *mesh;

static void setup(void) {
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  /* A two-joint rig and a mesh of VERTICES vertices with normals, at
   * positions whose printed floats are long (1/3 and its multiples). */
  size_t cap = 256 + (size_t)VERTICES * 200;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  int n = snprintf(text, cap,
                   "{\"skeleton\":{\"name\":\"rig\",\"joints\":["
                   "{\"name\":\"a\",\"parent\":-1,\"translation\":[0,0,0]},"
                   "{\"name\":\"b\",\"parent\":0,\"translation\":[0,2,0]}]},"
                   "\"meshes\":[{\"name\":\"m\",\"positions\":[");
  for (int i = 0; i < VERTICES; i++)
    n += snprintf(text + n, cap - (size_t)n, "%s%.9g,%.9g,%.9g", i ? "," : "",
                  i / 3.0 + 1e-7, -i / 7.0, 1.0 / (i + 3));
  n += snprintf(text + n, cap - (size_t)n, "],\"normals\":[");
  for (int i = 0; i < VERTICES; i++)
    n += snprintf(text + n, cap - (size_t)n, "%s0,1,0", i ? "," : "");
  n += snprintf(text + n, cap - (size_t)n, "],\"joints\":[");
  for (int i = 0; i < VERTICES; i++)
    n += snprintf(text + n, cap - (size_t)n, "%s0,1,0,0", i ? "," : "");
  n += snprintf(text + n, cap - (size_t)n, "],\"weights\":[");
  for (int i = 0; i < VERTICES; i++)
    n += snprintf(text + n, cap - (size_t)n, "%s0.5,0.5,0,0", i ? "," : "");
  n += snprintf(text + n, cap - (size_t)n, "]}]}");
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(text, (size_t)n, NULL, &b, &fe), 0);
  free(text);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &b, NULL, &res, &fe), 0);
  for (size_t k = 0; k < res.count; k++) {
    store_asset_t *a = (store_asset_t *)res.entries[k].asset;
    store_asset_retain(a);
    if (a->kind == STORE_SKELETON)
      skel = a;
    else if (a->kind == STORE_MESH)
      mesh = a;
    else
      store_asset_release(a);
  }
  store_ingest_result_free(&res);
  fmt_bundle_free(&b);
  ck_assert_ptr_nonnull(skel);
  ck_assert_ptr_nonnull(mesh);
}

static void teardown(void) {
  store_asset_release(skel);
  store_asset_release(mesh);
  skel = mesh = NULL;
  store_close(st);
}

/* The bytes srv_frame_answer writes for job. */
static size_t written(const srv_eval_job_t *job, bool binary, int64_t frame) {
  srv_eval_scratch_t s = {0};
  fmt_buf_t b = FMT_BUF_INIT;
  srv_frame_names_t names = srv_frame_names(job->mesh ? mesh : skel, NULL);
  ck_assert_int_eq(srv_frame_answer(&b, job, &names, binary, frame, &s),
                   ANIM_OK);
  size_t n = b.len;
  fmt_buf_free(&b);
  srv_eval_scratch_free(&s);
  return n;
}

START_TEST(test_binary_closed_form) {
  srv_eval_job_t job = {.skeleton = skel->skeleton, .mesh = mesh->mesh};
  srv_answer_shape_t a = {.job = &job, .binary = true, .frames = 1};
  ck_assert_uint_eq(srv_answer_bytes(&a), 12u * VERTICES);
  ck_assert_uint_eq(srv_answer_bytes(&a), written(&job, true, -1));
  job.normals = ANIM_NORMALS_LINEAR;
  ck_assert_uint_eq(srv_answer_bytes(&a), 24u * VERTICES);
  ck_assert_uint_eq(srv_answer_bytes(&a), written(&job, true, -1));
  /* A range frame: its 16-byte header. */
  a.range = true;
  ck_assert_uint_eq(srv_answer_bytes(&a), 16u + 24u * VERTICES);
  ck_assert_uint_eq(srv_answer_bytes(&a), written(&job, true, 3));
  /* 300 meshes (the same one listed 300 times), each block with its
   * header, over 5 frames held. */
  store_asset_t *list[300];
  for (size_t k = 0; k < 300; k++) list[k] = mesh;
  srv_answer_shape_t m = {.job = &job,
                          .meshes = list,
                          .mesh_count = 300,
                          .binary = true,
                          .frames = 5};
  ck_assert_uint_eq(srv_answer_bytes(&m), 5u * 300u * (16u + 24u * VERTICES));
  /* A pose: 16 floats a joint in model space, 10 in local. */
  srv_eval_job_t pose = {.skeleton = skel->skeleton, .space = FMT_SPACE_MODEL};
  srv_answer_shape_t p = {.job = &pose, .binary = true, .frames = 1};
  ck_assert_uint_eq(srv_answer_bytes(&p), 2u * 16u * 4u);
  ck_assert_uint_eq(srv_answer_bytes(&p), written(&pose, true, -1));
  pose.space = FMT_SPACE_LOCAL;
  ck_assert_uint_eq(srv_answer_bytes(&p), 2u * 10u * 4u);
}
END_TEST

START_TEST(test_json_upper_bound) {
  srv_eval_job_t job = {.skeleton = skel->skeleton,
                        .mesh = mesh->mesh,
                        .normals = ANIM_NORMALS_LINEAR};
  srv_answer_shape_t a = {.job = &job, .frames = 1};
  size_t got = written(&job, false, -1);
  ck_assert_uint_ge(srv_answer_bytes(&a), got);
  /* Not far above: 16 bytes a float against 6 to 10 printed here. */
  ck_assert_uint_le(srv_answer_bytes(&a), 3 * got + 8192);
  a.range = true;
  ck_assert_uint_ge(srv_answer_bytes(&a), written(&job, false, 7));
  srv_eval_job_t pose = {.skeleton = skel->skeleton};
  srv_answer_shape_t p = {.job = &pose, .frames = 1};
  ck_assert_uint_ge(srv_answer_bytes(&p), written(&pose, false, -1));
}
END_TEST

START_TEST(test_check) {
  srv_eval_job_t job = {.skeleton = skel->skeleton, .mesh = mesh->mesh};
  srv_answer_shape_t a = {.job = &job, .binary = true, .frames = 1};
  srv_error_t err;
  ck_assert_int_eq(srv_answer_check(&a, 12u * VERTICES, "mesh", &err), 0);
  ck_assert_int_eq(srv_answer_check(&a, 0, "mesh", &err), 0); /* No limit. */
  ck_assert_int_eq(srv_answer_check(&a, 12u * VERTICES - 1, "mesh", &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_TOO_LARGE);
  ck_assert_int_eq(srv_error_status(err.code), 413);
  ck_assert_str_eq(err.at, "mesh");
  char want[128];
  snprintf(want, sizeof want,
           "the answer would take %u bytes, over max_answer_bytes (%u)",
           12u * VERTICES, 12u * VERTICES - 1);
  ck_assert_str_eq(err.message, want);
  /* Frames beyond any size saturate rather than wrap. */
  a.frames = UINT64_MAX;
  ck_assert_uint_eq(srv_answer_bytes(&a), UINT64_MAX);
  ck_assert_int_eq(srv_answer_check(&a, SIZE_MAX - 1, "mesh", &err), -1);
}
END_TEST

Suite *server_request_answer_bound_suite(void) {
  Suite *s = suite_create("server_request_answer_bound");
  TCase *tc = tcase_create("bound");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_binary_closed_form);
  tcase_add_test(tc, test_json_upper_bound);
  tcase_add_test(tc, test_check);
  suite_add_tcase(s, tc);
  return s;
}
