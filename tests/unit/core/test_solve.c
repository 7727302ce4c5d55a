/* Tests for the seed-000 solver: a hand-built chain with hand-computed
 * quaternions (including zero-length, anti-parallel and NaN bones), random
 * trees whose positions are generated here by forward kinematics from
 * known rotations (in double, with quaternion helpers of this file), the
 * delta rotations, a round trip through the real skeleton builder and
 * local-to-model job, and validation field by field. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/hierarchy.h"
#include "animd/solve.h"

/* ---- double quaternions (independent of the core) -------------------------
 */

typedef struct {
  double x, y, z, w;
} dq_t;

static dq_t dq_mul(dq_t a, dq_t b) {
  dq_t r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
  return r;
}
static dq_t dq_conj(dq_t a) { return (dq_t){-a.x, -a.y, -a.z, a.w}; }
static dq_t dq_axis_angle(const double ax[3], double a) {
  double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
  double s = sin(a / 2) / l;
  return (dq_t){ax[0] * s, ax[1] * s, ax[2] * s, cos(a / 2)};
}
static void dq_rotate(dq_t q, const double v[3], double out[3]) {
  dq_t p = {v[0], v[1], v[2], 0};
  dq_t r = dq_mul(dq_mul(q, p), dq_conj(q));
  out[0] = r.x, out[1] = r.y, out[2] = r.z;
}
static dq_t dq_of(anim_quat_t q) { return (dq_t){q.x, q.y, q.z, q.w}; }

/* Angle between two rotations, q and -q equal: the angle of a* b, as
 * 2 atan2(|vector part|, |w|), which stays accurate near zero. */
static double angle_between(dq_t a, dq_t b) {
  dq_t d = dq_mul(dq_conj(a), b);
  return 2 * atan2(sqrt(d.x * d.x + d.y * d.y + d.z * d.z), fabs(d.w));
}

static uint64_t rng = 0x853c49e6748fea9bull;
static double urand(void) { /* [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* ---- a hand-built skeleton --------------------------------------------------
 */

#define MAXJ 40

typedef struct fixture_s {
  anim_skeleton_t sk;
  int16_t parents[MAXJ];
  anim_transform_t rest[MAXJ];
  anim_quat_t orient[MAXJ];
  uint32_t to_caller[MAXJ], from_caller[MAXJ];
} fixture_t;

/* parents[] in storage order; from_caller[c] = storage index of caller c. */
static void fixture_init(fixture_t *f, uint32_t n, const int16_t *parents,
                         const uint32_t *from_caller) {
  memset(f, 0, sizeof *f);
  for (uint32_t j = 0; j < n; j++) {
    f->parents[j] = parents[j];
    f->rest[j].rotation = (anim_quat_t){0, 0, 0, 1};
    f->rest[j].scale = (anim_vec3_t){1, 1, 1};
    f->orient[j] = (anim_quat_t){0, 0, 0, 1};
    f->from_caller[j] = from_caller[j];
    f->to_caller[from_caller[j]] = j;
  }
  f->sk.name = "solve";
  f->sk.joint_count = n;
  f->sk.parents = f->parents;
  f->sk.rest = f->rest;
  f->sk.orient = f->orient;
  f->sk.to_caller = f->to_caller;
  f->sk.from_caller = f->from_caller;
}

static anim_result solve(const fixture_t *f, const float *pos, size_t frames,
                         anim_quat_t *local, anim_quat_t *delta) {
  float scratch[ANIM_SOLVE_SCRATCH_PER_JOINT * MAXJ];
  anim_solve_job_t job = {.skeleton = &f->sk,
                          .positions = pos,
                          .position_count = frames * f->sk.joint_count * 3,
                          .frame_count = frames,
                          .local_rotations = local,
                          .delta_rotations = delta,
                          .output_count = frames * f->sk.joint_count,
                          .scratch = scratch,
                          .scratch_count = sizeof scratch / sizeof *scratch};
  return anim_solve_job_run(&job);
}

static void assert_quat(anim_quat_t q, double x, double y, double z, double w,
                        const char *what) {
  ck_assert_msg(fabs(q.x - x) < 1e-6 && fabs(q.y - y) < 1e-6 &&
                    fabs(q.z - z) < 1e-6 && fabs(q.w - w) < 1e-6,
                "%s: got (%.7f %.7f %.7f %.7f) want (%.7f %.7f %.7f %.7f)",
                what, q.x, q.y, q.z, q.w, x, y, z, w);
}

static bool quat_finite(anim_quat_t q) {
  return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* ---- hand-built chain
 * -------------------------------------------------------- */

/* Chain root -> a -> b, rest offsets (0,1,0), identity rest rotations.
 * Caller order: b, root, a (storage: root 0, a 1, b 2).
 * Frame 1 (by hand): root turned 90 degrees about z sends the bone to a
 * along (-1,0,0): L_root = (0,0,s,s), s = sqrt(1/2). a then aims its bone
 * at (0,0,1): in model space the swing is 90 degrees about y, which in the
 * parent's frame (turned by Rz90) is 90 degrees about x: L_a = (s,0,0,s).
 * b is a leaf: identity. */
START_TEST(test_solve_hand_chain) {
  const int16_t par[3] = {-1, 0, 1};
  const uint32_t from[3] = {2, 0, 1}; /* caller 0 = b, 1 = root, 2 = a */
  fixture_t f;
  fixture_init(&f, 3, par, from);
  f.rest[1].translation = (anim_vec3_t){0, 1, 0};
  f.rest[2].translation = (anim_vec3_t){0, 1, 0};
  enum { F = 6 };
  /* Positions per frame in caller order (b, root, a). */
  const float nanf_ = NAN;
  const float pos[F][9] = {
      {0, 2, 0, 0, 0, 0, 0, 1, 0},      /* rest */
      {-1, 0, 1, 0, 0, 0, -1, 0, 0},    /* frame 1 */
      {0, 0, 1, 0, 0, 0, 0, 0, 0},      /* root bone zero length */
      {0, -1, 1, 0, 0, 0, 0, -1, 0},    /* root bone anti-parallel */
      {nanf_, 0, 1, 0, 0, 0, -1, 0, 0}, /* b not a number */
      {5, 5, 5, 5, 5, 5, 5, 5, 5},      /* everything collapsed */
  };
  anim_quat_t local[F * 3], delta[F * 3];
  ck_assert_int_eq(solve(&f, &pos[0][0], F, local, delta), ANIM_OK);
  const double s = M_SQRT1_2;
  enum { B = 0, ROOT = 1, A = 2 };
  for (int j = 0; j < 3; j++) {
    assert_quat(local[j], 0, 0, 0, 1, "frame 0");
    assert_quat(delta[j], 0, 0, 0, 1, "delta 0");
  }
  for (int fr = 1; fr < F; fr++) {
    char what[32];
    snprintf(what, sizeof what, "frame %d root", fr);
    assert_quat(local[3 * fr + ROOT], 0, 0, s, s, what);
    snprintf(what, sizeof what, "frame %d a", fr);
    assert_quat(local[3 * fr + A], s, 0, 0, s, what);
    snprintf(what, sizeof what, "frame %d b", fr);
    assert_quat(local[3 * fr + B], 0, 0, 0, 1, what);
  }
  /* delta[1] = inverse(identity) * L1 = L1; later frames do not move. */
  assert_quat(delta[3 + ROOT], 0, 0, s, s, "delta 1 root");
  assert_quat(delta[3 + A], s, 0, 0, s, "delta 1 a");
  for (int i = 6; i < 3 * F; i++) {
    ck_assert(quat_finite(local[i]) && quat_finite(delta[i]));
    assert_quat(delta[i], 0, 0, 0, 1, "delta 2..5");
  }
}
END_TEST

/* The first child in caller order aims its parent; a child with a zero
 * rest offset is skipped. Root has children c1 (offset 0), c2 (1,0,0) and
 * c3 (0,0,1); c2 comes first in caller order among those with an offset.
 * Observed: c2 at (0,1,0) -> L_root = 90 degrees about z whatever c3 does. */
START_TEST(test_solve_aim_child_rule) {
  const int16_t par[4] = {-1, 0, 0, 0};
  const uint32_t from[4] = {1, 3, 2, 0}; /* caller: c1, c3, c2, root */
  fixture_t f;
  fixture_init(&f, 4, par, from);
  f.rest[2].translation = (anim_vec3_t){1, 0, 0}; /* c2 */
  f.rest[3].translation = (anim_vec3_t){0, 0, 1}; /* c3 */
  /* caller order: c1, c3, c2, root */
  const float pos[12] = {0, 0, 0, 3, 3, 3, 0, 1, 0, 0, 0, 0};
  anim_quat_t local[4], delta[4];
  /* c3 comes before c2 in caller order here: it is the aim child. Its
   * observed offset (3,3,3) from rest (0,0,1): swing axis z x (1,1,1). */
  ck_assert_int_eq(solve(&f, pos, 1, local, delta), ANIM_OK);
  const double ax[3] = {-1, 1, 0};
  dq_t e = dq_axis_angle(ax, acos(1 / sqrt(3.0)));
  ck_assert_double_lt(angle_between(dq_of(local[3]), e), 1e-5);
  /* Swap caller order so c2 comes first: then c2 aims the root. */
  const uint32_t from2[4] = {1, 2, 3, 0}; /* caller: c1, c2, c3, root */
  fixture_init(&f, 4, par, from2);
  f.rest[2].translation = (anim_vec3_t){1, 0, 0};
  f.rest[3].translation = (anim_vec3_t){0, 0, 1};
  const float pos2[12] = {0, 0, 0, 0, 1, 0, 3, 3, 3, 0, 0, 0};
  ck_assert_int_eq(solve(&f, pos2, 1, local, delta), ANIM_OK);
  const double z[3] = {0, 0, 1};
  ck_assert_double_lt(
      angle_between(dq_of(local[3]), dq_axis_angle(z, M_PI / 2)), 1e-5);
}
END_TEST

/* ---- random trees
 * -------------------------------------------------------------- */

START_TEST(test_solve_random_trees) {
  for (int trial = 0; trial < 8; trial++) {
    const uint32_t n = 10 + (uint32_t)(trial * 4);
    int16_t par[MAXJ];
    uint32_t from[MAXJ];
    for (uint32_t j = 0; j < n; j++) {
      /* Parents first in storage; joint 5 is a second root. */
      par[j] = (j == 0 || j == 5) ? -1 : (int16_t)((urand() + 1) / 2 * j);
      from[j] = j;
    }
    for (uint32_t j = n - 1; j > 0; j--) { /* random caller order */
      uint32_t k = (uint32_t)((urand() + 1) / 2 * (j + 1)) % (j + 1);
      uint32_t t = from[j];
      from[j] = from[k];
      from[k] = t;
    }
    fixture_t f;
    fixture_init(&f, n, par, from);
    double sigma[MAXJ];
    for (uint32_t j = 0; j < n; j++) {
      double t[3];
      do {
        for (int c = 0; c < 3; c++) t[c] = urand();
      } while (sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) < 0.3);
      f.rest[j].translation =
          (anim_vec3_t){(float)t[0], (float)t[1], (float)t[2]};
      const double ax[3] = {urand(), urand(), urand() + 0.01};
      dq_t r = dq_axis_angle(ax, 3 * urand());
      f.rest[j].rotation =
          (anim_quat_t){(float)r.x, (float)r.y, (float)r.z, (float)r.w};
      if (j % 3 == 1) {
        const double ox[3] = {urand() + 0.01, urand(), urand()};
        dq_t o = dq_axis_angle(ox, urand());
        f.orient[j] =
            (anim_quat_t){(float)o.x, (float)o.y, (float)o.z, (float)o.w};
      }
      sigma[j] = 1.25 + 0.75 * urand(); /* uniform scale in [0.5, 2) */
      f.rest[j].scale =
          (anim_vec3_t){(float)sigma[j], (float)sigma[j], (float)sigma[j]};
    }
    /* Aim child by the rule, computed independently here. */
    int aim[MAXJ];
    for (uint32_t j = 0; j < n; j++) aim[j] = -1;
    for (uint32_t c = 0; c < n; c++) {
      uint32_t s = from[c];
      if (par[s] >= 0 && aim[par[s]] < 0) aim[par[s]] = (int)s;
    }
    enum { F = 4 };
    float pos[F * MAXJ * 3];
    dq_t expect[F][MAXJ];
    for (int fr = 0; fr < F; fr++) {
      dq_t g[MAXJ];
      double x[MAXJ][3], scale[MAXJ];
      for (uint32_t j = 0; j < n; j++) {
        dq_t gp = par[j] < 0 ? (dq_t){0, 0, 0, 1} : g[par[j]];
        dq_t r0 = dq_mul(dq_of(f.orient[j]), dq_of(f.rest[j].rotation));
        dq_t cand = dq_mul(gp, r0);
        dq_t l = r0;
        if (aim[j] >= 0 && fr > 0) {
          const anim_vec3_t t = f.rest[aim[j]].translation;
          double o[3] = {sigma[j] * t.x, sigma[j] * t.y, sigma[j] * t.z}, u[3];
          dq_rotate(cand, o, u);
          double rnd[3] = {urand(), urand(), urand()};
          double axis[3] = {u[1] * rnd[2] - u[2] * rnd[1],
                            u[2] * rnd[0] - u[0] * rnd[2],
                            u[0] * rnd[1] - u[1] * rnd[0]};
          dq_t sw = dq_axis_angle(axis, 2.5 * urand());
          l = dq_mul(dq_conj(gp), dq_mul(sw, cand));
        }
        g[j] = dq_mul(gp, l);
        expect[fr][j] = l;
        /* Forward kinematics: x_j = x_p + scale_p * G_p t_j. */
        if (par[j] < 0) {
          for (int c = 0; c < 3; c++) x[j][c] = 2 * urand();
          scale[j] = sigma[j];
        } else {
          const anim_vec3_t t = f.rest[j].translation;
          double tv[3] = {t.x, t.y, t.z}, r[3];
          dq_rotate(g[par[j]], tv, r);
          for (int c = 0; c < 3; c++)
            x[j][c] = x[par[j]][c] + scale[par[j]] * r[c];
          scale[j] = scale[par[j]] * sigma[j];
        }
      }
      for (uint32_t c = 0; c < n; c++)
        for (int k = 0; k < 3; k++)
          pos[(fr * n + c) * 3 + k] = (float)x[from[c]][k];
    }
    anim_quat_t local[F * MAXJ], delta[F * MAXJ];
    ck_assert_int_eq(solve(&f, pos, F, local, delta), ANIM_OK);
    for (int fr = 0; fr < F; fr++)
      for (uint32_t c = 0; c < n; c++) {
        anim_quat_t q = local[fr * n + c];
        double err = angle_between(dq_of(q), expect[fr][from[c]]);
        ck_assert_msg(err < 2e-4, "trial %d frame %d joint %u: %g rad", trial,
                      fr, c, err);
        double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
        ck_assert_double_eq_tol(len, 1.0, 1e-5);
        if (fr == 0) {
          ck_assert(q.w >= 0.0f);
          assert_quat(delta[c], 0, 0, 0, 1, "delta 0");
          continue;
        }
        /* delta = inverse(L[f-1]) * L[f], sign-continuous (w >= 0). */
        anim_quat_t p = local[(fr - 1) * n + c], d = delta[fr * n + c];
        ck_assert(p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w >= 0.0f);
        dq_t e = dq_mul(dq_conj(dq_of(p)), dq_of(q));
        assert_quat(d, e.x, e.y, e.z, e.w, "delta");
        ck_assert(d.w >= 0.0f);
      }
  }
}
END_TEST

/* ---- round trip through the skeleton builder and local-to-model -----------
 */

/* Model positions (caller order) of a pose through anim_local_to_model. */
static void model_positions(const anim_skeleton_t *sk, const anim_quat_t *rot,
                            float *out) {
  const uint32_t n = sk->joint_count;
  anim_vec3_t t[16], sc[16];
  anim_quat_t r[16];
  anim_mat4_t model[16];
  anim_pose_t pose = {t, r, sc, n};
  ck_assert_int_eq(anim_pose_set_rest(sk, &pose), ANIM_OK);
  memcpy(r, rot, n * sizeof *r);
  anim_local_to_model_job_t job = {
      .skeleton = sk, .input = pose, .output = model, .output_count = n};
  ck_assert_int_eq(anim_local_to_model_job_run(&job), ANIM_OK);
  for (uint32_t c = 0; c < n; c++)
    for (int k = 0; k < 3; k++)
      out[3 * c + k] = model[sk->from_caller[c]].m[12 + k];
}

/* Two chains (every joint has at most one child), joints listed children
 * first so the builder reorders them. Positions made by local-to-model from
 * random rotations (twist included) are solved, and the solved rotations
 * put back through local-to-model give the same positions: on a chain every
 * bone is an aim bone, so the solver's rotations must reproduce it. */
START_TEST(test_solve_round_trip_local_to_model) {
  enum { N = 12, F = 5 };
  anim_raw_joint_t raw[N];
  char names[N][16];
  memset(raw, 0, sizeof raw);
  for (int c = 0; c < N; c++) {
    /* Caller c's parent is c + 1 within each chain of 6; 5 and 11 are
     * roots. */
    snprintf(names[c], sizeof names[c], "j%d", c);
    raw[c].name = names[c];
    raw[c].parent = (c % 6 == 5) ? -1 : c + 1;
    raw[c].rest.translation =
        (anim_vec3_t){(float)urand(), 0.5f, (float)urand()};
    const double ax[3] = {urand(), urand(), urand() + 0.01};
    dq_t q = dq_axis_angle(ax, 2 * urand());
    raw[c].rest.rotation =
        (anim_quat_t){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
    raw[c].rest.scale = (anim_vec3_t){1.2f, 1.2f, 1.2f};
    if (c % 4 == 0)
      raw[c].orient = (anim_quat_t){0.0f, 0.0f, 0.38268343f, 0.92387953f};
  }
  anim_raw_skeleton_t rs = {.name = "chains", .joints = raw, .joint_count = N};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t err;
  ck_assert_msg(anim_skeleton_build(&rs, NULL, &sk, &err) == ANIM_OK, "%s",
                err.message);
  float pos[F * N * 3], again[N * 3];
  anim_quat_t truth[N];
  for (int fr = 0; fr < F; fr++) {
    for (int j = 0; j < N; j++) {
      const double ax[3] = {urand(), urand(), urand() + 0.01};
      dq_t q = dq_axis_angle(ax, 3 * urand());
      truth[j] = (anim_quat_t){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
    }
    model_positions(sk, truth, pos + fr * N * 3);
  }
  anim_quat_t local[F * N], delta[F * N];
  float scratch[ANIM_SOLVE_SCRATCH_PER_JOINT * N];
  anim_solve_job_t job = {.skeleton = sk,
                          .positions = pos,
                          .position_count = sizeof pos / sizeof *pos,
                          .frame_count = F,
                          .local_rotations = local,
                          .delta_rotations = delta,
                          .output_count = F * N,
                          .scratch = scratch,
                          .scratch_count = 5 * N};
  ck_assert_int_eq(anim_solve_job_run(&job), ANIM_OK);
  for (int fr = 0; fr < F; fr++) {
    anim_quat_t storage[N];
    for (uint32_t s = 0; s < N; s++)
      storage[s] = local[fr * N + sk->to_caller[s]];
    model_positions(sk, storage, again);
    for (int i = 0; i < N * 3; i++)
      ck_assert_msg(fabsf(again[i] - pos[fr * N * 3 + i]) < 1e-4f,
                    "frame %d float %d: %.6f vs %.6f", fr, i, again[i],
                    pos[fr * N * 3 + i]);
  }
  anim_skeleton_free(sk);
}
END_TEST

/* ---- validation
 * ------------------------------------------------------------------ */

START_TEST(test_solve_validate_rejects) {
  const int16_t par[2] = {-1, 0};
  const uint32_t from[2] = {0, 1};
  fixture_t f;
  fixture_init(&f, 2, par, from);
  f.rest[1].translation = (anim_vec3_t){0, 1, 0};
  float pos[12] = {0};
  anim_quat_t local[4], delta[4];
  float scratch[10];
  const anim_solve_job_t good = {.skeleton = &f.sk,
                                 .positions = pos,
                                 .position_count = 12,
                                 .frame_count = 2,
                                 .local_rotations = local,
                                 .delta_rotations = delta,
                                 .output_count = 4,
                                 .scratch = scratch,
                                 .scratch_count = 10};
  ck_assert_int_eq(anim_solve_job_validate(&good), ANIM_OK);
  ck_assert_int_eq(anim_solve_job_run(&good), ANIM_OK);
  ck_assert_int_eq(anim_solve_job_validate(NULL), ANIM_ERR_INVALID_ARGUMENT);
  anim_solve_job_t j;
#define REJECT(code, stmt)                                                     \
  do {                                                                         \
    j = good;                                                                  \
    stmt;                                                                      \
    ck_assert_int_eq(anim_solve_job_validate(&j), code);                       \
    ck_assert_int_eq(anim_solve_job_run(&j), code);                            \
  } while (0)
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.skeleton = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.positions = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.local_rotations = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.delta_rotations = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.scratch = NULL);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.frame_count = 0);
  REJECT(ANIM_ERR_INVALID_ARGUMENT, j.frame_count = SIZE_MAX / 2);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, j.output_count = 3);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, j.position_count = 11);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, j.scratch_count = 9);
  REJECT(ANIM_ERR_BUFFER_TOO_SMALL, j.frame_count = 3);
#undef REJECT
  /* position_count 0: the caller vouches for the size. */
  j = good;
  j.position_count = 0;
  ck_assert_int_eq(anim_solve_job_run(&j), ANIM_OK);
}
END_TEST

Suite *solve_suite(void) {
  Suite *s = suite_create("solve");
  TCase *tc = tcase_create("solve");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_solve_hand_chain);
  tcase_add_test(tc, test_solve_aim_child_rule);
  tcase_add_test(tc, test_solve_random_trees);
  tcase_add_test(tc, test_solve_round_trip_local_to_model);
  tcase_add_test(tc, test_solve_validate_rejects);
  suite_add_tcase(s, tc);
  return s;
}
