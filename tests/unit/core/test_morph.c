/* Tests for morph targets in the core (animd/morph.h): a two-joint mesh of
 * three vertices with two targets (position and normal deltas) morphed and
 * then skinned, against vertices computed by hand, on every kernel (scalar,
 * AVX2, AVX-512 where the CPU has them) and for a vertex range; zero
 * weights or none give plain skinning; a mesh longer than a morph step;
 * STEP weight tracks and the checks of the build and the job. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "animd/animd.h"
#include "core/skinning_internal.h"

static anim_skeleton_t *two_joints(void) {
  anim_transform_t rest = anim_transform_identity();
  anim_raw_joint_t j[2] = {{"a", -1, rest, {0, 0, 0, 0}},
                           {"b", 0, rest, {0, 0, 0, 0}}};
  anim_raw_skeleton_t raw = {.name = "s", .joints = j, .joint_count = 2};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

static const float pos[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const float nrm[9] = {0, 0, 1, 0, 0, 1, 1, 0, 0};
static const uint32_t jnt[6] = {0, 1, 1, 0, 0, 1};
static const float wts[6] = {1, 0, 1, 0, 0.5f, 0.5f};
/* Target 0 moves every vertex up y by 1; target 1 moves vertex 2 by
 * (2, 0, 0); normal deltas tilt target 0's normals by +x. */
static const float dpos[18] = {0, 1, 0, 0, 1, 0, 0, 1, 0,
                               0, 0, 0, 0, 0, 0, 2, 0, 0};
static const float dnrm[18] = {1, 0, 0, 1, 0, 0, 0, 0, 1,
                               0, 0, 0, 0, 0, 0, 0, 0, 0};

static anim_mesh_t *mesh(const anim_skeleton_t *s) {
  static const float dflt[2] = {0.5f, 0};
  anim_raw_mesh_t raw = {.name = "m",
                         .vertex_count = 3,
                         .positions = pos,
                         .normals = nrm,
                         .influences = 2,
                         .joints = jnt,
                         .weights = wts,
                         .target_count = 2,
                         .target_positions = dpos,
                         .target_normals = dnrm,
                         .default_weights = dflt};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, s, NULL, &m, NULL), ANIM_OK);
  return m;
}

/* Joint a: translate (0, 0, 2); joint b: uniform scale 2. */
static void matrices(anim_mat4_t m[2]) {
  m[0] = anim_mat4_identity();
  m[0].m[14] = 2;
  m[1] = anim_mat4_identity();
  m[1].m[0] = m[1].m[5] = m[1].m[10] = 2;
}

/* Weights (0.5, 0.25): morphed p = (1, .5, 0), (0, 1.5, 0), (.5, .5, 1);
 * vertex 0 on a: (1, .5, 2); vertex 1 on b: (0, 3, 0); vertex 2 half
 * each: .5 (p + (0,0,2)) + .5 (2p) = 1.5 p + (0, 0, 1) = (.75, .75, 2.5).
 * Normals: n + .5 dn: (.5, 0, 1), (.5, 0, 1), (1, 0, .5), normalized
 * (a and b keep directions). */
static const float want_p[9] = {1, 0.5f, 2, 0, 3, 0, 0.75f, 0.75f, 2.5f};

static void check_normal(const float *n, float x, float y, float z) {
  float l = sqrtf(x * x + y * y + z * z);
  ck_assert_float_eq_tol(n[0], x / l, 1e-6f);
  ck_assert_float_eq_tol(n[1], y / l, 1e-6f);
  ck_assert_float_eq_tol(n[2], z / l, 1e-6f);
}

START_TEST(test_morph_then_skin) {
  anim_skeleton_t *s = two_joints();
  anim_mesh_t *m = mesh(s);
  anim_mat4_t mats[2];
  matrices(mats);
  const float w[2] = {0.5f, 0.25f};
  for (int isa = ANIM__ISA_SCALAR; isa <= ANIM__ISA_AVX512; isa++) {
    float op[9], on[9], scratch[18];
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = mats,
                               .matrix_count = 2,
                               .normals = ANIM_NORMALS_LINEAR,
                               .out_positions = op,
                               .out_positions_count = 9,
                               .out_normals = on,
                               .out_normals_count = 9,
                               .morph_weights = w,
                               .morph_scratch = scratch,
                               .morph_scratch_count = 18};
    ck_assert_int_eq(anim__skinning_job_run_isa(&job, (anim__isa)isa), ANIM_OK);
    for (int i = 0; i < 9; i++) ck_assert_float_eq_tol(op[i], want_p[i], 1e-6f);
    check_normal(on, 0.5f, 0, 1);
    check_normal(on + 3, 0.5f, 0, 1);
    check_normal(on + 6, 1, 0, 0.5f);
  }
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_range_and_plain) {
  anim_skeleton_t *s = two_joints();
  anim_mesh_t *m = mesh(s);
  anim_mat4_t mats[2];
  matrices(mats);
  const float w[2] = {0.5f, 0.25f};
  float op[9], scratch[9];
  /* Vertices 1..2 only, positions only: 3 floats of scratch per vertex. */
  anim_skinning_job_t job = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = 2,
                             .first_vertex = 1,
                             .out_positions = op,
                             .out_positions_count = 6,
                             .morph_weights = w,
                             .morph_scratch = scratch,
                             .morph_scratch_count = 6};
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  for (int i = 0; i < 6; i++)
    ck_assert_float_eq_tol(op[i], want_p[3 + i], 1e-6f);
  /* Too little scratch. */
  job.morph_scratch_count = 5;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_ERR_BUFFER_TOO_SMALL);
  /* No weights: the bind pose skinned, as without targets. */
  job.first_vertex = 0;
  job.out_positions_count = 9;
  job.morph_weights = NULL;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  const float plain[9] = {1, 0, 2, 0, 2, 0, 0, 0, 2.5f};
  for (int i = 0; i < 9; i++) ck_assert_float_eq_tol(op[i], plain[i], 1e-6f);
  /* Zero weights: the same floats. */
  const float zero[2] = {0, 0};
  float again[9], big[18];
  job.out_positions = again;
  job.morph_weights = zero;
  job.morph_scratch = big;
  job.morph_scratch_count = 18;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  ck_assert_mem_eq(again, op, sizeof op);
  ck_assert_float_eq(m->default_weights[0], 0.5f);
  ck_assert_float_eq(m->default_weights[1], 0.f);
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_step_track_and_checks) {
  anim_skeleton_t *s = two_joints();
  const float times[3] = {0, 1, 2};
  const float values[6] = {0, 1, 2, 3, 4, 5};
  anim_raw_weight_track_t wt = {.mesh = "m",
                                .interpolation = ANIM_INTERP_STEP,
                                .target_count = 2,
                                .times = times,
                                .key_count = 3,
                                .values = values,
                                .value_count = 6};
  anim_raw_clip_t raw = {
      .name = "c", .weight_tracks = &wt, .weight_track_count = 1};
  anim_clip_t *c = NULL;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, NULL), ANIM_OK);
  ck_assert_float_eq(c->duration, 2.f);
  ck_assert_ptr_null(anim_clip_weight_track(c, "other"));
  const anim_weight_track_t *t = anim_clip_weight_track(c, "m");
  float out[2];
  anim_weight_track_sample(t, 0.99f, out);
  ck_assert_float_eq(out[0], 0.f);
  anim_weight_track_sample(t, 1.f, out);
  ck_assert_float_eq(out[1], 3.f);
  anim_weight_track_sample(t, 1.5f, out);
  ck_assert_float_eq(out[0], 2.f);
  anim_clip_free(c);
  /* A value count that is not keys x targets. */
  anim_build_error_t err;
  wt.value_count = 5;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err.field, "weight_tracks");
  /* Two tracks for one mesh. */
  anim_raw_weight_track_t two[2] = {wt, wt};
  two[0].value_count = two[1].value_count = 6;
  raw.weight_tracks = two;
  raw.weight_track_count = 2;
  ck_assert_int_eq(anim_clip_build(&raw, s, NULL, &c, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(err.track, 1);
  /* Target normals on a mesh without normals. */
  anim_raw_mesh_t rm = {.vertex_count = 3,
                        .positions = pos,
                        .influences = 2,
                        .joints = jnt,
                        .weights = wts,
                        .target_count = 2,
                        .target_positions = dpos,
                        .target_normals = dnrm};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&rm, s, NULL, &m, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err.field, "targets");
  anim_skeleton_free(s);
}
END_TEST

/* A mesh of more vertices than a morph step (ANIM_MORPH_CHUNK) morphed
 * and skinned in steps, from vertex 7 on, with LBS and with DQS, equals
 * the mesh morphed whole (anim_morph_vertices) and built again without
 * targets, then skinned. */
START_TEST(test_chunks) {
  enum { N = 1100 };
  anim_skeleton_t *s = two_joints();
  static float p[3 * N], n[3 * N], d[2 * 3 * N], w[2 * N];
  static uint32_t j[2 * N];
  for (size_t i = 0; i < 3 * N; i++) {
    p[i] = (float)(i % 17) * 0.1f;
    n[i] = i % 3 == 2 ? 1.f : 0.f;
    d[i] = (float)(i % 5) * 0.01f;
    d[3 * N + i] = (float)(i % 7) * -0.02f;
  }
  for (size_t i = 0; i < 2 * N; i++) {
    j[i] = (uint32_t)(i % 2);
    w[i] = 0.25f + (float)(i % 3);
  }
  anim_raw_mesh_t raw = {.vertex_count = N,
                         .positions = p,
                         .normals = n,
                         .influences = 2,
                         .joints = j,
                         .weights = w,
                         .target_count = 2,
                         .target_positions = d,
                         .target_normals = d};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, s, NULL, &m, NULL), ANIM_OK);
  const float mw[2] = {0.7f, -0.3f};
  static float mp[3 * N], mn[3 * N];
  anim_morph_vertices(m, mw, 0, N, mp, mn);
  raw.positions = mp;
  raw.normals = mn;
  raw.target_count = 0;
  anim_mesh_t *flat = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, s, NULL, &flat, NULL), ANIM_OK);
  anim_mat4_t mats[2];
  matrices(mats);
  static float op[3 * N], on[3 * N], fp[3 * N], fn[3 * N];
  static float scratch[6 * ANIM_MORPH_CHUNK];
  anim_skinning_job_t job = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = 2,
                             .normals = ANIM_NORMALS_LINEAR,
                             .first_vertex = 7,
                             .out_positions = op,
                             .out_normals = on,
                             .morph_weights = mw,
                             .morph_scratch = scratch,
                             .morph_scratch_count = 6 * ANIM_MORPH_CHUNK};
  static float dqs[2 * ANIM_DQS_SCRATCH_PER_MATRIX];
  for (int method = ANIM_SKIN_LBS; method <= ANIM_SKIN_DQS; method++) {
    job.method = (anim_skin_method)method;
    job.scratch = dqs;
    job.scratch_count = 2 * ANIM_DQS_SCRATCH_PER_MATRIX;
    job.mesh = m;
    job.morph_weights = mw;
    job.out_positions = op;
    job.out_normals = on;
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
    job.mesh = flat;
    job.morph_weights = NULL;
    job.out_positions = fp;
    job.out_normals = fn;
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
    for (size_t i = 0; i < 3 * (N - 7); i++) {
      ck_assert_float_eq_tol(op[i], fp[i], 1e-6f);
      ck_assert_float_eq_tol(on[i], fn[i], 1e-6f);
    }
  }
  anim_mesh_free(flat);
  anim_mesh_free(m);
  anim_skeleton_free(s);
}
END_TEST

Suite *morph_suite(void);
Suite *morph_suite(void) {
  Suite *s = suite_create("morph");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_morph_then_skin);
  tcase_add_test(tc, test_range_and_plain);
  tcase_add_test(tc, test_step_track_and_checks);
  tcase_add_test(tc, test_chunks);
  suite_add_tcase(s, tc);
  return s;
}
