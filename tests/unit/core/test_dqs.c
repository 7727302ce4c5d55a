/* Tests for dual-quaternion skinning: bind pose, single-influence rigid and
 * non-rigid transforms against the closed form M p, pure translations,
 * the 90-degree twist (candy wrapper) against the closed-form rotation of
 * the normalized blend of two quaternions, and scratch validation. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animd/skinning.h"

#define NJ 4

static uint32_t g_order[NJ] = {0, 1, 2, 3};
static anim_skeleton_t g_skel = {.name = "dqs", .joint_count = NJ,
                                 .to_caller = g_order,
                                 .from_caller = g_order};
static float g_scratch[8 * NJ];

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void) { /* [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static anim_mat4_t identity4(void) {
  anim_mat4_t m = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  return m;
}

/* Rotation by angle about a unit axis (Rodrigues), row-major, in double. */
static void axis_angle(const double ax[3], double a, double r[3][3]) {
  double c = cos(a), s = sin(a), t = 1 - c;
  double x = ax[0], y = ax[1], z = ax[2];
  double m[3][3] = {{t * x * x + c, t * x * y - s * z, t * x * z + s * y},
                    {t * x * y + s * z, t * y * y + c, t * y * z - s * x},
                    {t * x * z - s * y, t * y * z + s * x, t * z * z + c}};
  memcpy(r, m, sizeof m);
}

static anim_mat4_t from_rows(const double a[3][3], const double t[3]) {
  anim_mat4_t m = identity4();
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      m.m[4 * c + i] = (float)a[i][c];
  for (int i = 0; i < 3; i++)
    m.m[12 + i] = (float)t[i];
  return m;
}

static anim_mesh_t *build(size_t n, const float *pos, const float *nrm,
                          uint32_t k, const uint32_t *j, const float *w) {
  anim_raw_mesh_t raw = {.vertex_count = n, .positions = pos, .normals = nrm,
                         .influences = k, .joints = j, .weights = w};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, NULL, &m, NULL), ANIM_OK);
  return m;
}

static void run(const anim_mesh_t *m, const anim_mat4_t *mats,
                anim_skin_method method, anim_skin_normals mode, float *op,
                float *on) {
  anim_skinning_job_t job = {.mesh = m, .matrices = mats, .matrix_count = NJ,
                             .method = method, .normals = mode,
                             .out_positions = op, .out_normals = on,
                             .scratch = g_scratch,
                             .scratch_count = 8 * NJ};
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
}

START_TEST(test_dqs_bind_pose) {
  enum { N = 50 };
  float pos[3 * N], nrm[3 * N], w[4 * N], op[3 * N], on[3 * N];
  uint32_t j[4 * N];
  for (int i = 0; i < 3 * N; i++)
    pos[i] = (float)(5 * urand()), nrm[i] = (float)urand();
  for (int i = 0; i < 4 * N; i++)
    j[i] = (uint32_t)i % NJ, w[i] = (float)(1.1 + urand());
  anim_mesh_t *m = build(N, pos, nrm, 4, j, w);
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_LINEAR, op, on);
  for (int i = 0; i < 3 * N; i++) {
    ck_assert(op[i] == pos[i]);
    ck_assert_double_eq_tol(on[i], m->normals[i], 1e-6);
  }
  anim_mesh_free(m);
}
END_TEST

/* One influence per vertex: DQS must equal M p and LBS, for rigid and for
 * scaled, sheared and mirrored matrices, in both normal modes. */
START_TEST(test_dqs_single_influence_equals_lbs) {
  enum { N = 40 };
  float pos[3 * N], nrm[3 * N], w[N];
  uint32_t j[N];
  for (int i = 0; i < 3 * N; i++)
    pos[i] = (float)(2 * urand()), nrm[i] = (float)urand();
  for (int v = 0; v < N; v++)
    j[v] = (uint32_t)v % NJ, w[v] = 1.0f;
  anim_mesh_t *m = build(N, pos, nrm, 1, j, w);
  for (int kind = 0; kind < 4; kind++) {
    anim_mat4_t mats[NJ];
    double a[NJ][3][3], t[NJ][3];
    for (int i = 0; i < NJ; i++) {
      double ax[3] = {urand(), urand(), urand()};
      double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
      for (int c = 0; c < 3; c++)
        ax[c] /= l, t[i][c] = 3 * urand();
      double r[3][3];
      axis_angle(ax, 3.0 * urand(), r);
      /* kind 0 rigid; 1 non-uniform scale; 2 shear; 3 mirror. */
      double s[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
      if (kind == 1)
        s[0][0] = 2.0, s[1][1] = 0.5, s[2][2] = 1.5;
      if (kind == 2)
        s[0][1] = 0.4, s[2][0] = -0.3;
      if (kind == 3)
        s[1][1] = -1.0;
      for (int r_ = 0; r_ < 3; r_++)
        for (int c = 0; c < 3; c++)
          a[i][r_][c] = r[r_][0] * s[0][c] + r[r_][1] * s[1][c] +
                        r[r_][2] * s[2][c];
      mats[i] = from_rows(a[i], t[i]);
    }
    for (int mode = ANIM_NORMALS_LINEAR; mode <= ANIM_NORMALS_INVERSE_TRANSPOSE;
         mode++) {
      float dp[3 * N], dn[3 * N], lp[3 * N], ln[3 * N];
      run(m, mats, ANIM_SKIN_DQS, (anim_skin_normals)mode, dp, dn);
      run(m, mats, ANIM_SKIN_LBS, (anim_skin_normals)mode, lp, ln);
      for (int v = 0; v < N; v++) {
        const double(*A)[3] = a[v % NJ];
        const float *p = pos + 3 * v;
        for (int r_ = 0; r_ < 3; r_++) {
          double e = A[r_][0] * p[0] + A[r_][1] * p[1] + A[r_][2] * p[2] +
                     t[v % NJ][r_];
          ck_assert_msg(fabs(dp[3 * v + r_] - e) < 2e-5,
                        "kind %d v %d: %.7g vs %.7g", kind, v, dp[3 * v + r_],
                        e);
          ck_assert_double_eq_tol(dn[3 * v + r_], ln[3 * v + r_], 2e-5);
        }
      }
    }
  }
  anim_mesh_free(m);
}
END_TEST

START_TEST(test_dqs_translations_blend_linearly) {
  float pos[3] = {1, 2, 3};
  uint32_t j[3] = {0, 1, 2};
  float w[3] = {0.2f, 0.3f, 0.5f};
  anim_mesh_t *m = build(1, pos, NULL, 3, j, w);
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  const double t[3][3] = {{1, 0, 0}, {0, -2, 0}, {0.5, 0.5, 4}};
  for (int i = 0; i < 3; i++)
    for (int c = 0; c < 3; c++)
      mats[i].m[12 + c] = (float)t[i][c];
  float op[3];
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_NONE, op, NULL);
  ck_assert_double_eq_tol(op[0], 1 + 0.2 + 0.25, 1e-6);
  ck_assert_double_eq_tol(op[1], 2 - 0.6 + 0.25, 1e-6);
  ck_assert_double_eq_tol(op[2], 3 + 2.0, 1e-6);
  anim_mesh_free(m);
}
END_TEST

/* Candy wrapper: a tube of radius 1 along x; joint 1 twists 90 degrees
 * about the x axis. A vertex with weights (1 - a, a) is, under DQS, the
 * rest vertex turned about x by the angle of the normalized quaternion
 * blend (1 - a) (0,0,0,1) + a (sin 45, 0, 0, cos 45), which is
 * 2 atan2(a sin 45, 1 - a + a cos 45) (45 degrees at a = 0.5), so its
 * distance from the axis stays 1; LBS shrinks it to |(1-a) + a e^{i90}|,
 * sqrt(0.5) at a = 0.5. */
START_TEST(test_dqs_twist_keeps_volume) {
  enum { RINGS = 11, SEG = 16, N = RINGS * SEG };
  float pos[3 * N], nrm[3 * N], w[2 * N];
  uint32_t j[2 * N];
  double alpha[N];
  for (int r = 0; r < RINGS; r++)
    for (int s = 0; s < SEG; s++) {
      int v = r * SEG + s;
      double th = 2 * M_PI * s / SEG, x = 2.0 * r / (RINGS - 1);
      pos[3 * v] = (float)x;
      pos[3 * v + 1] = (float)cos(th);
      pos[3 * v + 2] = (float)sin(th);
      nrm[3 * v] = 0;
      nrm[3 * v + 1] = (float)cos(th);
      nrm[3 * v + 2] = (float)sin(th);
      alpha[v] = (double)r / (RINGS - 1);
      j[2 * v] = 0;
      j[2 * v + 1] = 1;
      w[2 * v] = (float)(1 - alpha[v]);
      w[2 * v + 1] = (float)alpha[v];
    }
  anim_mesh_t *m = build(N, pos, nrm, 2, j, w);
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  const double xa[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
  double r90[3][3];
  axis_angle(xa, M_PI / 2, r90);
  mats[1] = from_rows(r90, zero);
  float dp[3 * N], dn[3 * N], lp[3 * N], ln[3 * N];
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_LINEAR, dp, dn);
  run(m, mats, ANIM_SKIN_LBS, ANIM_NORMALS_LINEAR, lp, ln);
  double lbs_min = 10;
  for (int v = 0; v < N; v++) {
    double ra[3][3];
    const double a = alpha[v];
    axis_angle(xa,
               2 * atan2(a * sin(M_PI / 4), 1 - a + a * cos(M_PI / 4)), ra);
    const float *p = pos + 3 * v;
    for (int c = 0; c < 3; c++) {
      double e = ra[c][0] * p[0] + ra[c][1] * p[1] + ra[c][2] * p[2];
      ck_assert_msg(fabs(dp[3 * v + c] - e) < 1e-5, "v %d c %d: %.7g vs %.7g",
                    v, c, dp[3 * v + c], e);
      double en = ra[c][1] * nrm[3 * v + 1] + ra[c][2] * nrm[3 * v + 2];
      ck_assert_double_eq_tol(dn[3 * v + c], en, 1e-5);
    }
    double rd = hypot(dp[3 * v + 1], dp[3 * v + 2]);
    double rl = hypot(lp[3 * v + 1], lp[3 * v + 2]);
    ck_assert_double_eq_tol(rd, 1.0, 1e-5);
    ck_assert_double_eq_tol(dp[3 * v], pos[3 * v], 1e-6);
    ck_assert_double_eq_tol(rl, sqrt((1 - a) * (1 - a) + a * a), 1e-5);
    if (rl < lbs_min)
      lbs_min = rl;
  }
  ck_assert_double_eq_tol(lbs_min, M_SQRT1_2, 1e-5);
  anim_mesh_free(m);
}
END_TEST

START_TEST(test_dqs_scratch_and_range) {
  float pos[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
  uint32_t j[4] = {0, 1, 2, 3};
  float w[4] = {1, 1, 1, 1};
  anim_mesh_t *m = build(4, pos, NULL, 1, j, w);
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  mats[2].m[13] = 5.0f;
  float op[6];
  anim_skinning_job_t job = {.mesh = m, .matrices = mats, .matrix_count = NJ,
                             .method = ANIM_SKIN_DQS, .first_vertex = 2,
                             .vertex_count = 2, .out_positions = op,
                             .out_positions_count = 6};
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_ERR_BUFFER_TOO_SMALL);
  job.scratch = g_scratch;
  job.scratch_count = 8 * NJ - 1;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_ERR_BUFFER_TOO_SMALL);
  job.scratch_count = 8 * NJ;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  const float e[6] = {2, 5, 0, 3, 0, 0};
  for (int i = 0; i < 6; i++)
    ck_assert_float_eq_tol(op[i], e[i], 1e-6f);
  anim_mesh_free(m);
}
END_TEST

Suite *dqs_suite(void) {
  Suite *s = suite_create("dqs");
  TCase *tc = tcase_create("dqs");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_dqs_bind_pose);
  tcase_add_test(tc, test_dqs_single_influence_equals_lbs);
  tcase_add_test(tc, test_dqs_translations_blend_linearly);
  tcase_add_test(tc, test_dqs_twist_keeps_volume);
  tcase_add_test(tc, test_dqs_scratch_and_range);
  suite_add_tcase(s, tc);
  return s;
}
