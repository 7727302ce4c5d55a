/* Tests for dual-quaternion skinning: bind pose, single-influence rigid and
 * non-rigid transforms against the closed form M p, pure translations,
 * the 90-degree twist (candy wrapper) against the closed-form rotation of
 * the normalized blend of two quaternions, and scratch validation. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animd/skinning.h"
#include "core/skinning_internal.h"

#define NJ 4

static uint32_t g_order[NJ] = {0, 1, 2, 3};
static anim_skeleton_t g_skel = {.name = "dqs",
                                 .joint_count = NJ,
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
    for (int i = 0; i < 3; i++) m.m[4 * c + i] = (float)a[i][c];
  for (int i = 0; i < 3; i++) m.m[12 + i] = (float)t[i];
  return m;
}

static anim_mesh_t *build(size_t n, const float *pos, const float *nrm,
                          uint32_t k, const uint32_t *j, const float *w) {
  anim_raw_mesh_t raw = {.vertex_count = n,
                         .positions = pos,
                         .normals = nrm,
                         .influences = k,
                         .joints = j,
                         .weights = w};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, NULL, &m, NULL), ANIM_OK);
  return m;
}

static void run(const anim_mesh_t *m, const anim_mat4_t *mats,
                anim_skin_method method, anim_skin_normals mode, float *op,
                float *on) {
  anim_skinning_job_t job = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = NJ,
                             .method = method,
                             .normals = mode,
                             .out_positions = op,
                             .out_positions_count = 3 * (size_t)m->vertex_count,
                             .out_normals = on,
                             .out_normals_count = 3 * (size_t)m->vertex_count,
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
  for (int v = 0; v < N; v++) j[v] = (uint32_t)v % NJ, w[v] = 1.0f;
  anim_mesh_t *m = build(N, pos, nrm, 1, j, w);
  for (int kind = 0; kind < 4; kind++) {
    anim_mat4_t mats[NJ];
    double a[NJ][3][3], t[NJ][3];
    for (int i = 0; i < NJ; i++) {
      double ax[3] = {urand(), urand(), urand()};
      double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
      for (int c = 0; c < 3; c++) ax[c] /= l, t[i][c] = 3 * urand();
      double r[3][3];
      axis_angle(ax, 3.0 * urand(), r);
      /* kind 0 rigid; 1 non-uniform scale; 2 shear; 3 mirror. */
      double s[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
      if (kind == 1) s[0][0] = 2.0, s[1][1] = 0.5, s[2][2] = 1.5;
      if (kind == 2) s[0][1] = 0.4, s[2][0] = -0.3;
      if (kind == 3) s[1][1] = -1.0;
      for (int r_ = 0; r_ < 3; r_++)
        for (int c = 0; c < 3; c++)
          a[i][r_][c] =
              r[r_][0] * s[0][c] + r[r_][1] * s[1][c] + r[r_][2] * s[2][c];
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
    for (int c = 0; c < 3; c++) mats[i].m[12 + c] = (float)t[i][c];
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
    axis_angle(xa, 2 * atan2(a * sin(M_PI / 4), 1 - a + a * cos(M_PI / 4)), ra);
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
    if (rl < lbs_min) lbs_min = rl;
  }
  ck_assert_double_eq_tol(lbs_min, M_SQRT1_2, 1e-5);
  anim_mesh_free(m);
}
END_TEST

/* Eight influences, all on joints carrying the same rigid transform: the
 * result is that transform, M p, computed here in closed form. */
START_TEST(test_dqs_eight_influences) {
  float pos[6] = {1, 2, 3, -1, 0.5f, 2}, nrm[6] = {0, 1, 0, 1, 0, 0};
  uint32_t j[16] = {0, 1, 2, 3, 0, 1, 2, 3, 3, 2, 1, 0, 3, 2, 1, 0};
  float w[16] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
  anim_mesh_t *m = build(2, pos, nrm, 8, j, w);
  const double ax[3] = {0, 0, 1}, t[3] = {0.5, -1, 2};
  double r[3][3];
  axis_angle(ax, M_PI / 3, r);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) mats[i] = from_rows(r, t);
  float op[6], on[6];
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_LINEAR, op, on);
  for (int v = 0; v < 2; v++)
    for (int c = 0; c < 3; c++) {
      const float *p = pos + 3 * v, *n = nrm + 3 * v;
      double e = r[c][0] * p[0] + r[c][1] * p[1] + r[c][2] * p[2] + t[c];
      double en = r[c][0] * n[0] + r[c][1] * n[1] + r[c][2] * n[2];
      ck_assert_double_eq_tol(op[3 * v + c], e, 1e-5);
      ck_assert_double_eq_tol(on[3 * v + c], en, 1e-5);
    }
  anim_mesh_free(m);
}
END_TEST

/* Sign alignment: A = 100 degrees about x and B = 170 degrees about
 * (-0.6, 0.8, 0) have unit quaternions (largest component positive, as any
 * matrix-to-quaternion conversion gives) with a negative dot product. The
 * spec blends 0.5 qA + 0.5 (-qB), normalized; the expected point is that
 * rotation applied in closed form (q p q* in double). Without alignment
 * the blend would be 0.5 (qA + qB), a different rotation. */
static void quat_of(const double ax[3], double a, double q[4]) {
  double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
  for (int i = 0; i < 3; i++) q[i] = ax[i] / l * sin(a / 2);
  q[3] = cos(a / 2);
}

/* p' = q p q* for a unit q, in double. */
static void rotate_d(const double q[4], const double p[3], double out[3]) {
  double c1[3] = {q[1] * p[2] - q[2] * p[1], q[2] * p[0] - q[0] * p[2],
                  q[0] * p[1] - q[1] * p[0]};
  double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2],
                  q[0] * c1[1] - q[1] * c1[0]};
  for (int c = 0; c < 3; c++) out[c] = p[c] + 2 * q[3] * c1[c] + 2 * c2[c];
}

START_TEST(test_dqs_sign_alignment) {
  float pos[3] = {1, 2, 3};
  uint32_t j[2] = {0, 1};
  float w[2] = {1, 1};
  anim_mesh_t *m = build(1, pos, NULL, 2, j, w);
  const double axa[3] = {1, 0, 0}, axb[3] = {-0.6, 0.8, 0}, t0[3] = {0, 0, 0};
  const double aa = 100 * M_PI / 180, ab = 170 * M_PI / 180;
  double r[3][3], qa[4], qb[4], q[4];
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  axis_angle(axa, aa, r);
  mats[0] = from_rows(r, t0);
  axis_angle(axb, ab, r);
  mats[1] = from_rows(r, t0);
  quat_of(axa, aa, qa);
  quat_of(axb, ab, qb);
  double dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
  ck_assert(dot < 0);
  double len = 0;
  for (int i = 0; i < 4; i++) q[i] = qa[i] - qb[i], len += q[i] * q[i];
  for (int i = 0; i < 4; i++) q[i] /= sqrt(len);
  /* p' = p + 2w (u x p) + 2 u x (u x p), u = vector part. */
  const double p[3] = {1, 2, 3};
  double c1[3] = {q[1] * p[2] - q[2] * p[1], q[2] * p[0] - q[0] * p[2],
                  q[0] * p[1] - q[1] * p[0]};
  double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2],
                  q[0] * c1[1] - q[1] * c1[0]};
  float op[3];
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_NONE, op, NULL);
  for (int c = 0; c < 3; c++)
    ck_assert_double_eq_tol(op[c], p[c] + 2 * q[3] * c1[c] + 2 * c2[c], 1e-5);
  anim_mesh_free(m);
}
END_TEST

/* A rig mixing a rigid joint (60 degrees about z) and a non-rigid one
 * (A = Rx(40) diag(2, 0.5, 1): its polar rotation is Rx(40) and its
 * non-rigid part diag(2, 0.5, 1) exactly). For weights (0.3, 0.7), by the
 * definition: p_s = 0.3 p + 0.7 diag(2, 0.5, 1) p, q = normalize(0.3 q1 +
 * 0.7 q2), p' = q p_s q*; the normal is normalize(q (S_blend n) q*). */
START_TEST(test_dqs_mixed_rigid_and_scaled) {
  float pos[3] = {1, 2, 3}, nrm[3] = {0.6f, 0, 0.8f};
  uint32_t j[2] = {0, 1};
  float w[2] = {0.3f, 0.7f};
  anim_mesh_t *m = build(1, pos, nrm, 2, j, w);
  const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, t0[3] = {0, 0, 0};
  const double sd[3] = {2, 0.5, 1};
  double r1[3][3], r2[3][3], a2[3][3], q1[4], q2[4], q[4];
  axis_angle(z, M_PI / 3, r1);
  axis_angle(x, 40 * M_PI / 180, r2);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) a2[r][c] = r2[r][c] * sd[c];
  anim_mat4_t mats[NJ] = {identity4(), identity4(), identity4(), identity4()};
  mats[0] = from_rows(r1, t0);
  mats[1] = from_rows(a2, t0);
  quat_of(z, M_PI / 3, q1);
  quat_of(x, 40 * M_PI / 180, q2);
  double len = 0;
  for (int i = 0; i < 4; i++)
    q[i] = 0.3 * q1[i] + 0.7 * q2[i], len += q[i] * q[i];
  for (int i = 0; i < 4; i++) q[i] /= sqrt(len);
  double ps[3], ns[3], e[3], en[3];
  for (int c = 0; c < 3; c++) {
    ps[c] = (0.3 + 0.7 * sd[c]) * pos[c];
    ns[c] = (0.3 + 0.7 * sd[c]) * nrm[c];
  }
  rotate_d(q, ps, e);
  rotate_d(q, ns, en);
  double nl = sqrt(en[0] * en[0] + en[1] * en[1] + en[2] * en[2]);
  float op[3], on[3];
  run(m, mats, ANIM_SKIN_DQS, ANIM_NORMALS_LINEAR, op, on);
  for (int c = 0; c < 3; c++) {
    ck_assert_double_eq_tol(op[c], e[c], 1e-5);
    ck_assert_double_eq_tol(on[c], en[c] / nl, 1e-5);
  }
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
  anim_skinning_job_t job = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = NJ,
                             .method = ANIM_SKIN_DQS,
                             .first_vertex = 2,
                             .vertex_count = 2,
                             .out_positions = op,
                             .out_positions_count = 6};
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_ERR_BUFFER_TOO_SMALL);
  job.scratch = g_scratch;
  job.scratch_count = 8 * NJ - 1;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_ERR_BUFFER_TOO_SMALL);
  job.scratch_count = 8 * NJ;
  ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  const float e[6] = {2, 5, 0, 3, 0, 0};
  for (int i = 0; i < 6; i++) ck_assert_float_eq_tol(op[i], e[i], 1e-6f);
  anim_mesh_free(m);
}
END_TEST

/* The AVX2 kernel (rigid matrices) against the scalar one on random meshes,
 * 4 and 8 influences, whole meshes and ranges, with guards after the
 * outputs: equal within ANIM_EPS_SKIN and no write past the range. */
static void compare_dqs_paths(size_t n, uint32_t k, uint32_t first,
                              uint32_t count) {
  float *pos = malloc(3 * n * sizeof(float));
  float *nrm = malloc(3 * n * sizeof(float));
  float *w = malloc(k * n * sizeof(float));
  uint32_t *j = malloc(k * n * sizeof(uint32_t));
  for (size_t i = 0; i < 3 * n; i++)
    pos[i] = (float)(3 * urand()), nrm[i] = (float)urand();
  for (size_t i = 0; i < k * n; i++)
    j[i] = (uint32_t)((urand() + 1) * 0.5 * NJ) % NJ,
    w[i] = (float)(urand() + 1.01);
  anim_mesh_t *m = build(n, pos, nrm, k, j, w);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) {
    const double ax[3] = {urand(), urand(), urand() + 0.01};
    const double t[3] = {urand(), urand(), urand()};
    double r[3][3];
    axis_angle(ax, 3.1 * urand(), r);
    mats[i] = from_rows(r, t);
  }
  const uint32_t span = count ? count : (uint32_t)n - first;
  const size_t sz = 3 * (size_t)span + 4;
  float *a_p = malloc(sz * 4), *a_n = malloc(sz * 4);
  float *s_p = malloc(sz * 4), *s_n = malloc(sz * 4);
  for (int mode = ANIM_NORMALS_NONE; mode <= ANIM_NORMALS_INVERSE_TRANSPOSE;
       mode++) {
    for (size_t i = 0; i < sz; i++) a_p[i] = a_n[i] = s_p[i] = s_n[i] = 777.0f;
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = mats,
                               .matrix_count = NJ,
                               .method = ANIM_SKIN_DQS,
                               .normals = (anim_skin_normals)mode,
                               .first_vertex = first,
                               .vertex_count = count,
                               .out_positions = a_p,
                               .out_positions_count = 3 * (size_t)span,
                               .out_normals = a_n,
                               .out_normals_count = 3 * (size_t)span,
                               .scratch = g_scratch,
                               .scratch_count = 8 * NJ};
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
    job.out_positions = s_p;
    job.out_normals = s_n;
    ck_assert_int_eq(anim__skinning_job_run_isa(&job, ANIM__ISA_SCALAR),
                     ANIM_OK);
    for (size_t i = 0; i < 3 * (size_t)span; i++) {
      size_t b = i - i % 3;
      float mag = fabsf(s_p[b]) + fabsf(s_p[b + 1]) + fabsf(s_p[b + 2]) + 1;
      ck_assert_msg(fabsf(a_p[i] - s_p[i]) <= ANIM_EPS_SKIN * mag,
                    "n=%zu i=%zu %.9g vs %.9g", n, i, a_p[i], s_p[i]);
      if (mode != ANIM_NORMALS_NONE)
        ck_assert_msg(fabsf(a_n[i] - s_n[i]) <= ANIM_EPS_SKIN,
                      "n=%zu i=%zu %.9g vs %.9g", n, i, a_n[i], s_n[i]);
    }
    for (size_t i = 3 * (size_t)span; i < sz; i++)
      ck_assert(a_p[i] == 777.0f && a_n[i] == 777.0f && s_p[i] == 777.0f &&
                s_n[i] == 777.0f);
  }
  free(a_p), free(a_n), free(s_p), free(s_n);
  free(pos), free(nrm), free(w), free(j);
  anim_mesh_free(m);
}

START_TEST(test_dqs_simd_matches_scalar) {
  const size_t sizes[] = {1, 2, 3, 7, 8, 9, 17, 500};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    compare_dqs_paths(sizes[i], 4, 0, 0);
    compare_dqs_paths(sizes[i], 8, 0, 0);
  }
  compare_dqs_paths(500, 4, 3, 7);
  compare_dqs_paths(500, 8, 499, 0);
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
  tcase_add_test(tc, test_dqs_eight_influences);
  tcase_add_test(tc, test_dqs_sign_alignment);
  tcase_add_test(tc, test_dqs_mixed_rigid_and_scaled);
  tcase_add_test(tc, test_dqs_scratch_and_range);
  tcase_add_test(tc, test_dqs_simd_matches_scalar);
  suite_add_tcase(s, tc);
  return s;
}
