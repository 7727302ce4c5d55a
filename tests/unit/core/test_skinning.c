/* Tests for meshes and linear blend skinning: bind pose, closed-form rigid
 * and blended transforms, normals under non-uniform scale, AVX2 against
 * scalar on random meshes and ranges, 8 influences, mesh build and job
 * validation field by field. Expected values come from closed-form math
 * computed here in double, never from the code under test. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animd/hierarchy.h"
#include "animd/skinning.h"
#include "core/skinning_internal.h"

/* ---- fixtures --------------------------------------------------------------
 */

#define NJ 6

/* A skeleton as mesh build and the job see it: a joint count and order maps
 * (caller index c is storage index perm[c]). */
static uint32_t g_from[NJ] = {3, 0, 5, 1, 4, 2};
static uint32_t g_to[NJ];
static anim_skeleton_t g_skel;

static void setup_skel(void) {
  for (uint32_t c = 0; c < NJ; c++) g_to[g_from[c]] = c;
  memset(&g_skel, 0, sizeof g_skel);
  g_skel.name = "test";
  g_skel.joint_count = NJ;
  g_skel.from_caller = g_from;
  g_skel.to_caller = g_to;
}

static uint64_t rng = 88172645463325252ull;
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

/* Column-major matrix from a row-major 3x4 [A | t] given in double. */
static anim_mat4_t mat_rows(const double r[3][4]) {
  anim_mat4_t m = identity4();
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 3; i++) m.m[4 * c + i] = (float)r[i][c];
  return m;
}

static void rot_z(double a, double r[3][4], double tx, double ty, double tz) {
  double c = cos(a), s = sin(a);
  double m[3][4] = {{c, -s, 0, tx}, {s, c, 0, ty}, {0, 0, 1, tz}};
  memcpy(r, m, sizeof m);
}

/* Builds a mesh (k influences) or fails the test. */
static anim_mesh_t *build(size_t n, const float *pos, const float *nrm,
                          uint32_t k, const uint32_t *j, const float *w) {
  anim_raw_mesh_t raw = {.name = "m",
                         .vertex_count = n,
                         .positions = pos,
                         .normals = nrm,
                         .influences = k,
                         .joints = j,
                         .weights = w};
  anim_mesh_t *mesh = NULL;
  anim_build_error_t err;
  anim_result r = anim_mesh_build(&raw, &g_skel, NULL, &mesh, &err);
  ck_assert_msg(r == ANIM_OK, "build: %s", r ? err.message : "");
  return mesh;
}

/* Runs LBS over the whole mesh with kernels up to isa; mats in storage
 * order. */
static void skin(const anim_mesh_t *m, const anim_mat4_t *mats,
                 anim_skin_normals mode, anim__isa isa, float *op, float *on) {
  anim_skinning_job_t job = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = NJ,
                             .normals = mode,
                             .out_positions = op,
                             .out_positions_count = 3 * (size_t)m->vertex_count,
                             .out_normals = on,
                             .out_normals_count = 3 * (size_t)m->vertex_count};
  ck_assert_int_eq(anim__skinning_job_run_isa(&job, isa), ANIM_OK);
}

static void random_mesh_data(size_t n, uint32_t k, float *pos, float *nrm,
                             uint32_t *j, float *w) {
  for (size_t i = 0; i < 3 * n; i++) {
    pos[i] = (float)(3.0 * urand());
    nrm[i] = (float)urand();
  }
  for (size_t i = 0; i < k * n; i++) {
    j[i] = (uint32_t)((urand() + 1.0) * 0.5 * NJ) % NJ;
    w[i] = (float)(urand() + 1.0);
  }
  for (size_t v = 0; v < n; v++)
    w[k * v] += 0.01f; /* Keep every sum positive. */
}

/* ---- bind pose
 * --------------------------------------------------------------- */

START_TEST(test_bind_pose_exact) {
  setup_skel();
  const size_t n = 257;
  for (uint32_t k = 1; k <= 8; k++) {
    float pos[3 * 257], nrm[3 * 257], w[8 * 257], op[3 * 257], on[3 * 257];
    uint32_t j[8 * 257];
    random_mesh_data(n, k, pos, nrm, j, w);
    anim_mesh_t *m = build(n, pos, nrm, k, j, w);
    anim_mat4_t mats[NJ];
    for (int i = 0; i < NJ; i++) mats[i] = identity4();
    for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
      skin(m, mats, ANIM_NORMALS_LINEAR, (anim__isa)path, op, on);
      for (size_t i = 0; i < 3 * n; i++)
        ck_assert_msg(op[i] == pos[i], "k=%u path=%d i=%zu: %.9g vs %.9g", k,
                      path, i, op[i], pos[i]);
      for (size_t v = 0; v < n; v++) {
        double l = sqrt((double)nrm[3 * v] * nrm[3 * v] +
                        (double)nrm[3 * v + 1] * nrm[3 * v + 1] +
                        (double)nrm[3 * v + 2] * nrm[3 * v + 2]);
        for (int c = 0; c < 3; c++)
          ck_assert_double_eq_tol(on[3 * v + c], nrm[3 * v + c] / l, 1e-6);
      }
    }
    anim_mesh_free(m);
  }
}
END_TEST

/* Through the real pipeline: a built skeleton's rest pose, local-to-model
 * and skinning matrices (model * inverse bind, computed by the builder)
 * give matrices within float rounding of the identity, so LBS and DQS
 * return the rest mesh within 1e-5. */
START_TEST(test_bind_pose_through_pipeline) {
  enum { J = 5, N = 64 };
  anim_raw_joint_t raw[J];
  const char *names[J] = {"hand", "hips", "spine", "arm", "head"};
  const int32_t parents[J] = {3, -1, 1, 2, 2};
  memset(raw, 0, sizeof raw);
  for (int c = 0; c < J; c++) {
    raw[c].name = names[c];
    raw[c].parent = parents[c];
    raw[c].rest.translation =
        (anim_vec3_t){(float)urand(), 1.0f, (float)urand()};
    float x = (float)urand(), y = (float)urand(), z = (float)urand(), w = 1.5f;
    float l = sqrtf(x * x + y * y + z * z + w * w);
    raw[c].rest.rotation = (anim_quat_t){x / l, y / l, z / l, w / l};
    raw[c].rest.scale = (anim_vec3_t){1.0f, 0.5f + c * 0.25f, 1.0f};
  }
  anim_raw_skeleton_t rs = {.joints = raw, .joint_count = J};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t err;
  ck_assert_msg(anim_skeleton_build(&rs, NULL, &sk, &err) == ANIM_OK, "%s",
                err.message);
  anim_vec3_t t[J], sc[J];
  anim_quat_t r[J];
  anim_mat4_t model[J], skinm[J];
  anim_pose_t pose = {t, r, sc, J};
  ck_assert_int_eq(anim_pose_set_rest(sk, &pose), ANIM_OK);
  anim_local_to_model_job_t l2m = {
      .skeleton = sk, .input = pose, .output = model, .output_count = J};
  ck_assert_int_eq(anim_local_to_model_job_run(&l2m), ANIM_OK);
  anim_skinning_matrices_job_t smj = {
      .skeleton = sk, .model = model, .output = skinm, .output_count = J};
  ck_assert_int_eq(anim_skinning_matrices_job_run(&smj), ANIM_OK);
  float pos[3 * N], nrm[3 * N], w[4 * N], op[3 * N], on[3 * N];
  uint32_t j[4 * N];
  for (int i = 0; i < 3 * N; i++)
    pos[i] = (float)(2 * urand()), nrm[i] = (float)urand();
  for (int i = 0; i < 4 * N; i++)
    j[i] = (uint32_t)i % J, w[i] = (float)(1.01 + urand());
  anim_raw_mesh_t rm = {.vertex_count = N,
                        .positions = pos,
                        .normals = nrm,
                        .influences = 4,
                        .joints = j,
                        .weights = w};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&rm, sk, NULL, &m, &err), ANIM_OK);
  float scratch[8 * J];
  for (int method = ANIM_SKIN_LBS; method <= ANIM_SKIN_DQS; method++) {
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = skinm,
                               .matrix_count = J,
                               .method = (anim_skin_method)method,
                               .normals = ANIM_NORMALS_INVERSE_TRANSPOSE,
                               .out_positions = op,
                               .out_positions_count = 3 * N,
                               .out_normals = on,
                               .out_normals_count = 3 * N,
                               .scratch = scratch,
                               .scratch_count = 8 * J};
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
    for (int i = 0; i < 3 * N; i++) {
      ck_assert_double_eq_tol(op[i], pos[i], 1e-5);
      ck_assert_double_eq_tol(on[i], m->normals[i], 1e-5);
    }
  }
  anim_mesh_free(m);
  anim_skeleton_free(sk);
}
END_TEST

/* ---- closed forms
 * ------------------------------------------------------------ */

START_TEST(test_single_joint_rigid) {
  setup_skel();
  const size_t n = 19;
  float pos[3 * 19], nrm[3 * 19], w[19], op[3 * 19], on[3 * 19];
  uint32_t j[19];
  for (size_t v = 0; v < n; v++) {
    for (int c = 0; c < 3; c++) {
      pos[3 * v + c] = (float)(2.0 * urand());
      nrm[3 * v + c] = (float)urand();
    }
    j[v] = 4; /* caller joint 4 = storage joint g_from[4] */
    w[v] = 0.3f;
  }
  anim_mesh_t *m = build(n, pos, nrm, 1, j, w);
  const double a = 0.7, t[3] = {1.5, -2.0, 0.25};
  double r[3][4];
  rot_z(a, r, t[0], t[1], t[2]);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) mats[i] = identity4();
  mats[g_from[4]] = mat_rows(r);
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++)
    for (int mode = ANIM_NORMALS_LINEAR; mode <= ANIM_NORMALS_INVERSE_TRANSPOSE;
         mode++) {
      skin(m, mats, (anim_skin_normals)mode, (anim__isa)path, op, on);
      for (size_t v = 0; v < n; v++) {
        const float *p = pos + 3 * v, *q = nrm + 3 * v;
        double ex = cos(a) * p[0] - sin(a) * p[1] + t[0];
        double ey = sin(a) * p[0] + cos(a) * p[1] + t[1];
        double ez = p[2] + t[2];
        ck_assert_double_eq_tol(op[3 * v], ex, 1e-5);
        ck_assert_double_eq_tol(op[3 * v + 1], ey, 1e-5);
        ck_assert_double_eq_tol(op[3 * v + 2], ez, 1e-5);
        double nl = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
                         (double)q[2] * q[2]);
        double nx = (cos(a) * q[0] - sin(a) * q[1]) / nl;
        double ny = (sin(a) * q[0] + cos(a) * q[1]) / nl;
        ck_assert_double_eq_tol(on[3 * v], nx, 1e-5);
        ck_assert_double_eq_tol(on[3 * v + 1], ny, 1e-5);
        ck_assert_double_eq_tol(on[3 * v + 2], q[2] / nl, 1e-5);
      }
    }
  anim_mesh_free(m);
}
END_TEST

START_TEST(test_two_joint_half_blend) {
  setup_skel();
  /* Joint A (caller 0) fixed, joint B (caller 1) turned 90 degrees about z
   * and moved by (0, 0, 2). Vertex (1, 0, 0), normal (1, 0, 0), weights
   * 0.5 / 0.5: by hand, p' = 0.5 (1,0,0) + 0.5 ((0,1,0) + (0,0,2))
   * = (0.5, 0.5, 1); n' = normalize(0.5 (1,0,0) + 0.5 (0,1,0)). */
  float pos[3] = {1, 0, 0}, nrm[3] = {1, 0, 0}, w[2] = {2.0f, 2.0f};
  uint32_t j[2] = {0, 1};
  anim_mesh_t *m = build(1, pos, nrm, 2, j, w);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) mats[i] = identity4();
  double r[3][4];
  rot_z(M_PI / 2, r, 0, 0, 2);
  mats[g_from[1]] = mat_rows(r);
  float op[3], on[3];
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
    skin(m, mats, ANIM_NORMALS_LINEAR, (anim__isa)path, op, on);
    ck_assert_double_eq_tol(op[0], 0.5, 1e-6);
    ck_assert_double_eq_tol(op[1], 0.5, 1e-6);
    ck_assert_double_eq_tol(op[2], 1.0, 1e-6);
    ck_assert_double_eq_tol(on[0], M_SQRT1_2, 1e-6);
    ck_assert_double_eq_tol(on[1], M_SQRT1_2, 1e-6);
    ck_assert_double_eq_tol(on[2], 0.0, 1e-6);
  }
  anim_mesh_free(m);
}
END_TEST

START_TEST(test_normals_nonuniform_scale) {
  setup_skel();
  /* M = diag(2, 1, 1). Surface x + y = 0 with normal n = (1,1,0)/sqrt2 and
   * tangent (1,-1,0)/sqrt2 -> M t = (2,-1,0)/sqrt2.
   * Linear: normalize(M n) = (2,1,0)/sqrt5.
   * Inverse-transpose: normalize(M^-T n) = normalize(0.5, 1, 0)
   * = (1,2,0)/sqrt5, perpendicular to M t. */
  float pos[3] = {0.5f, -0.5f, 3.0f};
  float nrm[3] = {1.0f, 1.0f, 0.0f};
  float w[1] = {1};
  uint32_t j[1] = {2};
  anim_mesh_t *m = build(1, pos, nrm, 1, j, w);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) mats[i] = identity4();
  mats[g_from[2]].m[0] = 2.0f;
  float op[3], on[3];
  const double s5 = sqrt(5.0);
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
    skin(m, mats, ANIM_NORMALS_LINEAR, (anim__isa)path, op, on);
    ck_assert_double_eq_tol(op[0], 1.0, 1e-6);
    ck_assert_double_eq_tol(op[1], -0.5, 1e-6);
    ck_assert_double_eq_tol(op[2], 3.0, 1e-6);
    ck_assert_double_eq_tol(on[0], 2 / s5, 1e-6);
    ck_assert_double_eq_tol(on[1], 1 / s5, 1e-6);
    ck_assert_double_eq_tol(on[2], 0.0, 1e-6);
    skin(m, mats, ANIM_NORMALS_INVERSE_TRANSPOSE, (anim__isa)path, op, on);
    ck_assert_double_eq_tol(on[0], 1 / s5, 1e-6);
    ck_assert_double_eq_tol(on[1], 2 / s5, 1e-6);
    ck_assert_double_eq_tol(on[2], 0.0, 1e-6);
    ck_assert_double_eq_tol(on[0] * 2.0 - on[1] * 1.0, 0.0, 1e-6);
  }
  /* A mirror, diag(-1, 1, 1): the inverse-transpose of the normal (1,0,0)
   * is (-1, 0, 0), whatever the sign of the cofactor matrix. */
  float pos2[3] = {0, 0, 0}, nrm2[3] = {1, 0, 0};
  anim_mesh_free(m);
  m = build(1, pos2, nrm2, 1, j, w);
  mats[g_from[2]].m[0] = -1.0f;
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
    skin(m, mats, ANIM_NORMALS_INVERSE_TRANSPOSE, (anim__isa)path, op, on);
    ck_assert_double_eq_tol(on[0], -1.0, 1e-6);
    ck_assert_double_eq_tol(on[1], 0.0, 1e-6);
    ck_assert_double_eq_tol(on[2], 0.0, 1e-6);
  }
  anim_mesh_free(m);
}
END_TEST

/* Random affine matrices with scale and shear: inverse-transpose normals
 * stay perpendicular to skinned tangents (LBS with one influence). */
START_TEST(test_inverse_transpose_perpendicular) {
  setup_skel();
  enum { N = 64 };
  float pos[3 * N], nrm[3 * N], w[N], op[3 * N], on[3 * N];
  uint32_t j[N];
  double tan_[N][3];
  for (size_t v = 0; v < N; v++) {
    double a[3] = {urand(), urand(), urand()},
           b[3] = {urand(), urand(), urand()};
    /* n = a x b, tangent = a (perpendicular to n). */
    double n3[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0]};
    for (int c = 0; c < 3; c++) {
      nrm[3 * v + c] = (float)n3[c];
      pos[3 * v + c] = (float)urand();
      tan_[v][c] = a[c];
    }
    j[v] = v % NJ;
    w[v] = 1.0f;
  }
  anim_mesh_t *m = build(N, pos, nrm, 1, j, w);
  anim_mat4_t mats[NJ];
  double rows[NJ][3][4];
  for (int i = 0; i < NJ; i++) {
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 4; c++)
        rows[i][r][c] = (r == c ? 1.5 : 0.0) + urand();
    mats[i] = mat_rows(rows[i]);
  }
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
    skin(m, mats, ANIM_NORMALS_INVERSE_TRANSPOSE, (anim__isa)path, op, on);
    for (size_t v = 0; v < N; v++) {
      /* caller joint v % NJ lives at storage g_from[v % NJ] */
      double(*r)[4] = rows[g_from[v % NJ]];
      double lt[3], dot = 0, len = 0;
      for (int i = 0; i < 3; i++) {
        lt[i] =
            r[i][0] * tan_[v][0] + r[i][1] * tan_[v][1] + r[i][2] * tan_[v][2];
        len += lt[i] * lt[i];
      }
      for (int i = 0; i < 3; i++) dot += lt[i] * on[3 * v + i];
      ck_assert_double_eq_tol(dot / sqrt(len), 0.0, 1e-5);
    }
  }
  anim_mesh_free(m);
}
END_TEST

START_TEST(test_eight_influences_closed_form) {
  setup_skel();
  /* Eight influences over six joints (two repeat); pure translations:
   * p' = p + sum_i w_i t_i / sum w. */
  float pos[3] = {0.25f, -1.0f, 2.0f}, nrm[3] = {0, 0, 1};
  uint32_t j[8] = {0, 1, 2, 3, 4, 5, 0, 2};
  float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  anim_mesh_t *m = build(1, pos, nrm, 8, j, w);
  ck_assert_uint_eq(m->influences, 8);
  anim_mat4_t mats[NJ];
  double t[NJ][3];
  for (int c = 0; c < NJ; c++) {
    mats[g_from[c]] = identity4();
    for (int i = 0; i < 3; i++) {
      t[c][i] = urand();
      mats[g_from[c]].m[12 + i] = (float)t[c][i];
    }
  }
  double e[3] = {pos[0], pos[1], pos[2]};
  for (int i = 0; i < 8; i++)
    for (int c = 0; c < 3; c++) e[c] += w[i] / 36.0 * t[j[i]][c];
  float op[3], on[3];
  for (int path = ANIM__ISA_SCALAR; path <= ANIM__ISA_AVX512; path++) {
    skin(m, mats, ANIM_NORMALS_LINEAR, (anim__isa)path, op, on);
    for (int c = 0; c < 3; c++) ck_assert_double_eq_tol(op[c], e[c], 1e-6);
    ck_assert_double_eq_tol(on[2], 1.0, 1e-6);
  }
  anim_mesh_free(m);
}
END_TEST

/* ---- AVX2 and AVX-512 against scalar
 * ------------------------------------------------------ */

/* shift: bytes from a 64-byte boundary to the palette (the SIMD kernels
 * copy a misaligned palette to an aligned one for long ranges). zeros:
 * about a third of the weights after slot 0 are zero, and every seventh
 * normal is the zero vector. */
static void compare_paths_with(size_t n, uint32_t k, uint32_t first,
                               uint32_t count, size_t shift, bool zeros) {
  float *pos = malloc(3 * n * sizeof(float));
  float *nrm = malloc(3 * n * sizeof(float));
  float *w = malloc(k * n * sizeof(float));
  uint32_t *j = malloc(k * n * sizeof(uint32_t));
  random_mesh_data(n, k, pos, nrm, j, w);
  if (zeros)
    for (size_t v = 0; v < n; v++) {
      for (uint32_t i = 1; i < k; i++)
        if (urand() < -0.33) w[k * v + i] = 0.0f;
      if (v % 7 == 3) nrm[3 * v] = nrm[3 * v + 1] = nrm[3 * v + 2] = 0.0f;
    }
  anim_mesh_t *m = build(n, pos, nrm, k, j, w);
  _Alignas(64) unsigned char palette[(NJ + 1) * sizeof(anim_mat4_t)];
  anim_mat4_t *mats = (anim_mat4_t *)(void *)(palette + shift);
  for (int i = 0; i < NJ; i++) {
    double r[3][4];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 4; b++)
        r[a][b] = (a == b ? 1.0 : 0.0) + 0.6 * urand();
    mats[i] = mat_rows(r);
  }
  const uint32_t span = count ? count : (uint32_t)n - first;
  /* Exactly sized outputs plus a guard: the SIMD path must not write past
   * the range. */
  const size_t sz = 3 * (size_t)span + 4;
  float *a_p = malloc(sz * sizeof(float)), *a_n = malloc(sz * sizeof(float));
  float *s_p = malloc(sz * sizeof(float)), *s_n = malloc(sz * sizeof(float));
  for (int mode = ANIM_NORMALS_NONE; mode <= ANIM_NORMALS_INVERSE_TRANSPOSE;
       mode++) {
    for (size_t i = 0; i < sz; i++) s_p[i] = s_n[i] = 12345.0f;
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = mats,
                               .matrix_count = NJ,
                               .normals = (anim_skin_normals)mode,
                               .first_vertex = first,
                               .vertex_count = count,
                               .out_positions = s_p,
                               .out_positions_count = 3 * (size_t)span,
                               .out_normals = s_n,
                               .out_normals_count = 3 * (size_t)span};
    ck_assert_int_eq(anim__skinning_job_run_isa(&job, ANIM__ISA_SCALAR),
                     ANIM_OK);
    /* Each SIMD kernel the CPU has against the scalar one. */
    for (int isa = ANIM__ISA_AVX2; isa <= (int)anim__cpu_isa(); isa++) {
      for (size_t i = 0; i < sz; i++) a_p[i] = a_n[i] = 12345.0f;
      job.out_positions = a_p;
      job.out_normals = a_n;
      ck_assert_int_eq(anim__skinning_job_run_isa(&job, (anim__isa)isa),
                       ANIM_OK);
      for (size_t i = 0; i < 3 * (size_t)span; i++) {
        float mag = fabsf(s_p[i - i % 3]) + fabsf(s_p[i - i % 3 + 1]) +
                    fabsf(s_p[i - i % 3 + 2]) + 1.0f;
        ck_assert_msg(fabsf(a_p[i] - s_p[i]) <= ANIM_EPS_SKIN * mag,
                      "isa %d n=%zu i=%zu %.9g vs %.9g", isa, n, i, a_p[i],
                      s_p[i]);
        if (mode != ANIM_NORMALS_NONE)
          ck_assert_msg(fabsf(a_n[i] - s_n[i]) <= ANIM_EPS_SKIN,
                        "isa %d mode %d n=%zu i=%zu %.9g vs %.9g", isa, mode, n,
                        i, a_n[i], s_n[i]);
      }
      for (size_t i = 3 * (size_t)span; i < sz; i++)
        ck_assert(a_p[i] == 12345.0f && a_n[i] == 12345.0f);
    }
    for (size_t i = 3 * (size_t)span; i < sz; i++)
      ck_assert(s_p[i] == 12345.0f && s_n[i] == 12345.0f);
  }
  free(a_p), free(a_n), free(s_p), free(s_n);
  free(pos), free(nrm), free(w), free(j);
  anim_mesh_free(m);
}

static void compare_paths_at(size_t n, uint32_t k, uint32_t first,
                             uint32_t count, size_t shift) {
  compare_paths_with(n, k, first, count, shift, false);
}

static void compare_paths(size_t n, uint32_t k, uint32_t first,
                          uint32_t count) {
  compare_paths_at(n, k, first, count, 0);
}

START_TEST(test_simd_matches_scalar) {
  setup_skel();
  const size_t sizes[] = {1, 2,  3,  4,  5,  6,  7,  8,
                          9, 11, 12, 13, 15, 16, 17, 1001};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    compare_paths(sizes[s], 4, 0, 0);
    compare_paths(sizes[s], 8, 0, 0);
    compare_paths(sizes[s], 3, 0, 0);
  }
  compare_paths(1001, 4, 3, 5);
  compare_paths(1001, 4, 17, 0);
  compare_paths(1001, 8, 1000, 1);
  compare_paths(1001, 4, 500, 333);
  /* Palettes 16 and 48 bytes off a cache line, long and short ranges. */
  compare_paths_at(1001, 4, 0, 0, 16);
  compare_paths_at(1001, 8, 3, 700, 48);
  compare_paths_at(300, 4, 0, 100, 16);
}
END_TEST

/* Every mesh size from 1 to 40 (whole blocks of eight vertices and every
 * tail length) with 1 to 8 influences, zero weights and zero normals, and
 * short ranges starting at odd vertices. */
START_TEST(test_simd_matches_scalar_sizes) {
  setup_skel();
  for (size_t n = 1; n <= 40; n++)
    for (uint32_t k = 1; k <= 8; k++) compare_paths_with(n, k, 0, 0, 0, true);
  static const uint32_t firsts[] = {1, 3, 7, 9};
  for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++)
    for (uint32_t count = 1; count <= 17; count++) {
      compare_paths_with(40, 4, firsts[f], count, 0, true);
      compare_paths_with(40, 8, firsts[f], count, 16, true);
    }
}
END_TEST

START_TEST(test_range_matches_whole) {
  setup_skel();
  enum { N = 100 };
  float pos[3 * N], nrm[3 * N], w[4 * N];
  uint32_t j[4 * N];
  random_mesh_data(N, 4, pos, nrm, j, w);
  anim_mesh_t *m = build(N, pos, nrm, 4, j, w);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) {
    double r[3][4];
    rot_z(urand() * 3, r, urand(), urand(), urand());
    mats[i] = mat_rows(r);
  }
  float all_p[3 * N], all_n[3 * N], part_p[3 * N], part_n[3 * N];
  skin(m, mats, ANIM_NORMALS_LINEAR, anim__cpu_isa(), all_p, all_n);
  /* Three workers: [0, 33), [33, 66), [66, 100). */
  const uint32_t cuts[4] = {0, 33, 66, N};
  for (int k = 0; k < 3; k++) {
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = mats,
                               .matrix_count = NJ,
                               .normals = ANIM_NORMALS_LINEAR,
                               .first_vertex = cuts[k],
                               .vertex_count =
                                   k == 2 ? 0 : cuts[k + 1] - cuts[k],
                               .out_positions = part_p + 3 * cuts[k],
                               .out_positions_count = 3 * (N - cuts[k]),
                               .out_normals = part_n + 3 * cuts[k],
                               .out_normals_count = 3 * (N - cuts[k])};
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
  }
  ck_assert_mem_eq(all_p, part_p, sizeof all_p);
  ck_assert_mem_eq(all_n, part_n, sizeof all_n);
  anim_mesh_free(m);
}
END_TEST

/* ---- mesh build
 * --------------------------------------------------------------- */

START_TEST(test_mesh_build_remaps_and_pads) {
  setup_skel();
  float pos[6] = {1, 2, 3, 4, 5, 6}, nrm[6] = {0, 0, 2, 3, 0, 4};
  uint32_t j[4] = {1, 4, 5, 2};
  float w[4] = {1, 3, 0, 0.5f};
  uint32_t idx[3] = {0, 1, 1};
  anim_raw_mesh_t raw = {.name = "body",
                         .vertex_count = 2,
                         .positions = pos,
                         .normals = nrm,
                         .influences = 2,
                         .joints = j,
                         .weights = w,
                         .indices = idx,
                         .index_count = 3};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, NULL, &m, NULL), ANIM_OK);
  ck_assert_str_eq(m->name, "body");
  ck_assert_uint_eq(m->vertex_count, 2);
  ck_assert_uint_eq(m->influences, 4);
  ck_assert_uint_eq(m->joint_count, NJ);
  ck_assert_uint_eq(m->index_count, 3);
  ck_assert_uint_eq(m->indices[2], 1);
  ck_assert_mem_eq(m->positions, pos, sizeof pos);
  /* Normals normalized: (0,0,1) and (0.6, 0, 0.8). */
  ck_assert_float_eq_tol(m->normals[2], 1.0f, 1e-7f);
  ck_assert_float_eq_tol(m->normals[3], 0.6f, 1e-7f);
  ck_assert_float_eq_tol(m->normals[5], 0.8f, 1e-7f);
  /* Vertex 0: caller joints 1 (w 1/4) and 4 (w 3/4), padded; the largest
   * weight sits in the last slot. Sum of slots in order is exactly 1. */
  double seen[NJ] = {0};
  for (int v = 0; v < 2; v++) {
    float sum = 0.0f;
    for (int i = 0; i < 4; i++) sum += m->weights[4 * v + i];
    ck_assert(sum == 1.0f);
    ck_assert(m->weights[4 * v + 3] >= m->weights[4 * v + 0]);
  }
  for (int i = 0; i < 4; i++) seen[m->joints[i]] += m->weights[i];
  ck_assert_double_eq_tol(seen[g_from[1]], 0.25, 1e-7);
  ck_assert_double_eq_tol(seen[g_from[4]], 0.75, 1e-7);
  /* Vertex 1: caller joint 5 weight 0, joint 2 weight 1. */
  memset(seen, 0, sizeof seen);
  for (int i = 4; i < 8; i++) seen[m->joints[i]] += m->weights[i];
  ck_assert(seen[g_from[2]] == 1.0);
  anim_mesh_free(m);
}
END_TEST

typedef struct bad_case_s {
  const char *what;
  anim_result code;
  const char *field;
  int32_t key, component;
} bad_case_t;

static void expect_bad(const anim_raw_mesh_t *raw, bad_case_t c) {
  anim_mesh_t *m = (anim_mesh_t *)&c; /* Must be reset to NULL. */
  anim_build_error_t err;
  memset(&err, 0, sizeof err);
  anim_result r = anim_mesh_build(raw, &g_skel, NULL, &m, &err);
  ck_assert_msg(r == c.code, "%s: got %s", c.what, anim_result_str(r));
  ck_assert_ptr_null(m);
  ck_assert_int_eq(err.code, c.code);
  ck_assert_str_eq(err.field, c.field);
  ck_assert_msg(err.key == c.key, "%s: key %d", c.what, err.key);
  ck_assert_msg(err.component == c.component, "%s: component %d", c.what,
                err.component);
  ck_assert(err.message[0] != '\0');
}

START_TEST(test_mesh_build_rejects) {
  setup_skel();
  float pos[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
  uint32_t j[6] = {0, 1, 2, 3, 4, 5};
  float w[6] = {1, 1, 1, 1, 1, 1};
  uint32_t idx[3] = {0, 1, 2};
  const anim_raw_mesh_t good = {.vertex_count = 3,
                                .positions = pos,
                                .normals = nrm,
                                .influences = 2,
                                .joints = j,
                                .weights = w,
                                .indices = idx,
                                .index_count = 3};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&good, &g_skel, NULL, &m, NULL), ANIM_OK);
  anim_mesh_free(m);
  anim_raw_mesh_t r;

  r = good, r.vertex_count = 0;
  expect_bad(&r, (bad_case_t){"no vertices", ANIM_ERR_INVALID_ARGUMENT,
                              "positions", -1, -1});
  r = good, r.positions = NULL;
  expect_bad(&r, (bad_case_t){"no positions", ANIM_ERR_INVALID_ARGUMENT,
                              "positions", -1, -1});
  r = good, r.influences = 9;
  expect_bad(&r, (bad_case_t){"9 influences", ANIM_ERR_INFLUENCES, "influences",
                              -1, -1});
  r = good, r.joints = NULL;
  expect_bad(&r, (bad_case_t){"no joints", ANIM_ERR_INVALID_ARGUMENT, "joints",
                              -1, -1});
  r = good, r.weights = NULL;
  expect_bad(&r, (bad_case_t){"no weights", ANIM_ERR_INVALID_ARGUMENT,
                              "weights", -1, -1});
  r = good, r.indices = NULL;
  expect_bad(&r, (bad_case_t){"no indices", ANIM_ERR_INVALID_ARGUMENT,
                              "indices", -1, -1});

  float bad_pos[9];
  memcpy(bad_pos, pos, sizeof pos);
  bad_pos[5] = NAN;
  r = good, r.positions = bad_pos;
  expect_bad(
      &r, (bad_case_t){"NaN position", ANIM_ERR_NOT_FINITE, "positions", 1, 2});
  float bad_nrm[9];
  memcpy(bad_nrm, nrm, sizeof nrm);
  bad_nrm[6] = INFINITY;
  r = good, r.normals = bad_nrm;
  expect_bad(&r,
             (bad_case_t){"Inf normal", ANIM_ERR_NOT_FINITE, "normals", 2, 0});
  uint32_t bad_j[6] = {0, 1, 2, NJ, 4, 5};
  r = good, r.joints = bad_j;
  expect_bad(&r,
             (bad_case_t){"joint range", ANIM_ERR_JOINT_RANGE, "joints", 1, 1});
  float neg_w[6] = {1, 1, 1, 1, 1, -0.5f};
  r = good, r.weights = neg_w;
  expect_bad(&r,
             (bad_case_t){"negative weight", ANIM_ERR_WEIGHT, "weights", 2, 1});
  float nan_w[6] = {1, NAN, 1, 1, 1, 1};
  r = good, r.weights = nan_w;
  expect_bad(&r,
             (bad_case_t){"NaN weight", ANIM_ERR_NOT_FINITE, "weights", 0, 1});
  float zero_w[6] = {1, 1, 0, 0, 1, 1};
  r = good, r.weights = zero_w;
  expect_bad(&r, (bad_case_t){"zero sum", ANIM_ERR_WEIGHT, "weights", 1, -1});
  uint32_t bad_idx[3] = {0, 3, 1};
  r = good, r.indices = bad_idx;
  expect_bad(&r, (bad_case_t){"index range", ANIM_ERR_INVALID_ARGUMENT,
                              "indices", 1, -1});
  r = good, r.index_count = 2;
  expect_bad(&r, (bad_case_t){"index count", ANIM_ERR_INVALID_ARGUMENT,
                              "indices", -1, -1});
  anim_build_error_t err;
  ck_assert_int_eq(anim_mesh_build(NULL, &g_skel, NULL, &m, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_mesh_build(&good, NULL, NULL, &m, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_mesh_build(&good, &g_skel, NULL, NULL, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

static int g_allocs, g_frees, g_fail_at;
static void *count_alloc(size_t size, void *ud) {
  ck_assert_ptr_eq(ud, &g_allocs);
  if (g_fail_at >= 0 && g_allocs == g_fail_at) return NULL;
  g_allocs++;
  return malloc(size);
}
static void count_free(void *p, void *ud) {
  ck_assert_ptr_eq(ud, &g_allocs);
  g_frees++;
  free(p);
}

START_TEST(test_mesh_build_allocator) {
  setup_skel();
  float pos[3] = {1, 2, 3};
  uint32_t j[1] = {0};
  float w[1] = {1};
  anim_raw_mesh_t raw = {.vertex_count = 1,
                         .positions = pos,
                         .influences = 1,
                         .joints = j,
                         .weights = w};
  anim_allocator_t a = {count_alloc, count_free, &g_allocs};
  anim_mesh_t *m = NULL;
  g_allocs = g_frees = 0;
  g_fail_at = 0;
  anim_build_error_t err;
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, &a, &m, &err),
                   ANIM_ERR_OUT_OF_MEMORY);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(g_allocs, 0);
  g_fail_at = -1;
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, &a, &m, &err), ANIM_OK);
  ck_assert_int_eq(g_allocs, 1);
  ck_assert_ptr_null(m->normals);
  anim_mesh_free(m);
  ck_assert_int_eq(g_frees, 1);
  anim_mesh_free(NULL);
  anim_allocator_t half = {count_alloc, NULL, &g_allocs};
  ck_assert_int_eq(anim_mesh_build(&raw, &g_skel, &half, &m, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err.field, "allocator");
}
END_TEST

/* ---- job validation
 * ------------------------------------------------------------- */

START_TEST(test_job_validate_rejects) {
  setup_skel();
  float pos[12] = {0}, nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  uint32_t j[4] = {0, 1, 2, 3};
  float w[4] = {1, 1, 1, 1};
  anim_mesh_t *m = build(4, pos, nrm, 1, j, w);
  anim_mesh_t *bare = build(4, pos, NULL, 1, j, w);
  anim_mat4_t mats[NJ];
  for (int i = 0; i < NJ; i++) mats[i] = identity4();
  float op[12], on[12], scratch[8 * NJ];
  const anim_skinning_job_t good = {.mesh = m,
                                    .matrices = mats,
                                    .matrix_count = NJ,
                                    .normals = ANIM_NORMALS_LINEAR,
                                    .out_positions = op,
                                    .out_positions_count = 12,
                                    .out_normals = on,
                                    .out_normals_count = 12,
                                    .scratch = scratch,
                                    .scratch_count = 8 * NJ};
  ck_assert_int_eq(anim_skinning_job_validate(&good), ANIM_OK);
  anim_skinning_job_t jb;
#define REJECT(code, stmt)                                                     \
  do {                                                                         \
    jb = good;                                                                 \
    stmt;                                                                      \
    ck_assert_int_eq(anim_skinning_job_validate(&jb), code);                   \
    ck_assert_int_eq(anim_skinning_job_run(&jb), code);                        \
  } while (0)
  ck_assert_int_eq(anim_skinning_job_validate(NULL), ANIM_ERR_INVALID_ARGUMENT);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.mesh = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.matrices = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.out_positions = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.out_normals = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.mesh = bare);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.method = (anim_skin_method)7);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.normals = (anim_skin_normals)7);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, jb.first_vertex = 5);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, (jb.first_vertex = 2, jb.vertex_count = 3));
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, jb.matrix_count = NJ - 1);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, jb.out_positions_count = 11);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, jb.out_normals_count = 11);
  /* A count of 0: the caller vouches for the size (the job's first form,
   * which outside callers still use); the job runs. */
  jb = good;
  jb.out_positions_count = 0;
  jb.out_normals_count = 0;
  ck_assert_int_eq(anim_skinning_job_validate(&jb), ANIM_OK);
  ck_assert_int_eq(anim_skinning_job_run(&jb), ANIM_OK);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL,
         (jb.first_vertex = 1, jb.out_positions_count = 8));
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL,
         (jb.method = ANIM_SKIN_DQS, jb.scratch = NULL));
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL,
         (jb.method = ANIM_SKIN_DQS, jb.scratch_count = 8 * NJ - 1));
#undef REJECT
  /* Accepted edge cases: no normals without out_normals, an empty range at
   * the end, a range given with exactly sized outputs. */
  jb = good;
  jb.normals = ANIM_NORMALS_NONE;
  jb.out_normals = NULL;
  jb.mesh = bare;
  ck_assert_int_eq(anim_skinning_job_run(&jb), ANIM_OK);
  jb.first_vertex = 4;
  ck_assert_int_eq(anim_skinning_job_run(&jb), ANIM_OK);
  jb.first_vertex = 1;
  jb.vertex_count = 3;
  jb.out_positions_count = 9;
  ck_assert_int_eq(anim_skinning_job_run(&jb), ANIM_OK);
  /* An empty range needs no output room. */
  jb.first_vertex = 4;
  jb.vertex_count = 0;
  jb.out_positions_count = 0;
  ck_assert_int_eq(anim_skinning_job_run(&jb), ANIM_OK);
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw");
  ck_assert_str_eq(anim_skinning_backend(), avx512 ? "avx512"
                                            : avx2 ? "avx2"
                                                   : "scalar");
  anim_mesh_free(m);
  anim_mesh_free(bare);
}
END_TEST

Suite *skinning_suite(void) {
  Suite *s = suite_create("skinning");
  TCase *tc = tcase_create("lbs");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_bind_pose_exact);
  tcase_add_test(tc, test_bind_pose_through_pipeline);
  tcase_add_test(tc, test_single_joint_rigid);
  tcase_add_test(tc, test_two_joint_half_blend);
  tcase_add_test(tc, test_normals_nonuniform_scale);
  tcase_add_test(tc, test_inverse_transpose_perpendicular);
  tcase_add_test(tc, test_eight_influences_closed_form);
  tcase_add_test(tc, test_simd_matches_scalar);
  tcase_add_test(tc, test_simd_matches_scalar_sizes);
  tcase_add_test(tc, test_range_matches_whole);
  suite_add_tcase(s, tc);
  TCase *tb = tcase_create("build_validate");
  tcase_set_timeout(tb, 30);
  tcase_add_test(tb, test_mesh_build_remaps_and_pads);
  tcase_add_test(tb, test_mesh_build_rejects);
  tcase_add_test(tb, test_mesh_build_allocator);
  tcase_add_test(tb, test_job_validate_rejects);
  suite_add_tcase(s, tb);
  return s;
}
