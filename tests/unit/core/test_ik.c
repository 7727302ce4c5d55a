/* Tests for the IK jobs (animd/ik.h): 10,000 random two-bone chains
 * (bones 0.1 to 2 long, random joint rotations and bends) reach random
 * reachable targets within 1e-4 with the mid joint on the pole's side;
 * unreachable targets leave the chain straight toward them with reached
 * false; weight 0 changes nothing; soften < 1 stops short by the amount
 * ik.h documents; aim points forward (cast from offset) at the target
 * within 1e-5 rad with up in the pole's plane; validation and degenerate
 * inputs (never a NaN). Chains are put together here with the core's
 * matrix helpers, the corrections applied as the pipeline does
 * (rotation = rotation * correction). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "animd/ik.h"
#include "animd/math.h"

/* ---- random numbers (a fixed sequence) ----------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float rnd(float lo, float hi) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 11) * (1.0 / 9007199254740992.0));
}
static anim_vec3_t rnd_dir(void) {
  for (;;) {
    anim_vec3_t v = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
    float l = anim_vec3_length(v);
    if (l > 0.1f && l <= 1) return anim_vec3_scale(v, 1 / l);
  }
}
static anim_quat_t rnd_quat(void) {
  for (;;) {
    anim_quat_t q = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
    float l = anim_quat_length(q);
    if (l > 0.1f && l <= 1) return anim_quat_normalize(q);
  }
}

static anim_vec3_t origin(const anim_mat4_t *m) {
  return (anim_vec3_t){m->m[12], m->m[13], m->m[14]};
}
static float dist(anim_vec3_t a, anim_vec3_t b) {
  return anim_vec3_length(anim_vec3_sub(a, b));
}
static bool finite_quat(anim_quat_t q) {
  return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* ---- a chain: start (a root), mid, end ------------------------------------
 */

typedef struct chain_s {
  anim_transform_t ls, lm, le; /* Local transforms. */
  anim_mat4_t s, m, e;         /* Model matrices. */
  float l1, l2;
  anim_vec3_t mid_axis; /* Opens the chain (mid space). */
} chain_t;

/* Model matrices from the local transforms, corrections applied. */
static void fk(chain_t *c, anim_quat_t cs, anim_quat_t cm) {
  anim_transform_t s = c->ls, m = c->lm;
  s.rotation = anim_quat_mul(s.rotation, cs);
  m.rotation = anim_quat_mul(m.rotation, cm);
  anim_mat4_t ms = anim_mat4_from_transform(&s);
  anim_mat4_t mm = anim_mat4_from_transform(&m);
  anim_mat4_t me = anim_mat4_from_transform(&c->le);
  c->s = ms;
  c->m = anim_mat4_mul(&ms, &mm);
  c->e = anim_mat4_mul(&c->m, &me);
}

/* A random chain bent by at least a few degrees. */
static void random_chain(chain_t *c) {
  for (;;) {
    c->l1 = rnd(0.1f, 2.0f);
    c->l2 = rnd(0.1f, 2.0f);
    c->ls = (anim_transform_t){
        {rnd(-3, 3), rnd(-3, 3), rnd(-3, 3)}, rnd_quat(), {1, 1, 1}};
    c->lm = (anim_transform_t){
        anim_vec3_scale(rnd_dir(), c->l1), rnd_quat(), {1, 1, 1}};
    c->le = (anim_transform_t){
        anim_vec3_scale(rnd_dir(), c->l2), rnd_quat(), {1, 1, 1}};
    fk(c, anim_quat_identity(), anim_quat_identity());
    anim_mat4_t inv;
    ck_assert_int_eq(anim_mat4_affine_inverse(&c->m, &inv), ANIM_OK);
    anim_vec3_t start_mid =
        anim_vec3_scale(anim_mat4_transform_point(&inv, origin(&c->s)), -1.0f);
    anim_vec3_t mid_end = c->le.translation;
    anim_vec3_t axis = anim_vec3_cross(mid_end, start_mid);
    float l = anim_vec3_length(axis);
    if (l < 0.05f * c->l1 * c->l2) continue;
    c->mid_axis = anim_vec3_scale(axis, 1 / l);
    return;
  }
}

static anim_ik_two_bone_job_t chain_job(chain_t *c, anim_vec3_t target,
                                        anim_quat_t *cs, anim_quat_t *cm,
                                        bool *reached) {
  anim_ik_two_bone_job_t job = anim_ik_two_bone_job_defaults();
  job.start = &c->s;
  job.mid = &c->m;
  job.end = &c->e;
  job.target = target;
  job.mid_axis = c->mid_axis;
  job.start_correction = cs;
  job.mid_correction = cm;
  job.reached = reached;
  return job;
}

/* ---- two-bone ---------------------------------------------------------------
 */

START_TEST(test_two_bone_reaches_random_targets) {
  int pole_checked = 0;
  for (int i = 0; i < 10000; i++) {
    chain_t c;
    random_chain(&c);
    float lo = fabsf(c.l1 - c.l2), hi = c.l1 + c.l2;
    float d = rnd(lo + 0.01f * hi, hi * 0.99f);
    anim_vec3_t dir = rnd_dir();
    anim_vec3_t target = anim_vec3_add(origin(&c.s), anim_vec3_scale(dir, d));
    anim_quat_t cs, cm;
    bool reached = false;
    anim_ik_two_bone_job_t job = chain_job(&c, target, &cs, &cm, &reached);
    job.pole = rnd_dir();
    job.twist = i % 4 == 0 ? rnd(-3, 3) : 0.0f;
    ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
    ck_assert_msg(reached, "chain %d: reachable", i);
    fk(&c, cs, cm);
    float err = dist(origin(&c.e), target);
    ck_assert_msg(err < 1e-4f, "chain %d: %g from the target", i, err);
    /* Without twist the mid joint lies on the pole's side of the
     * start->target line (where the pole is off that line). */
    if (job.twist != 0.0f) continue;
    anim_vec3_t pole_perp = anim_vec3_sub(
        job.pole, anim_vec3_scale(dir, anim_vec3_dot(job.pole, dir)));
    if (anim_vec3_length(pole_perp) < 0.1f) continue;
    anim_vec3_t sm = anim_vec3_sub(origin(&c.m), origin(&c.s));
    anim_vec3_t mid_perp =
        anim_vec3_sub(sm, anim_vec3_scale(dir, anim_vec3_dot(sm, dir)));
    if (anim_vec3_length(mid_perp) < 1e-3f) continue; /* Nearly straight. */
    ck_assert_msg(anim_vec3_dot(mid_perp, pole_perp) > 0,
                  "chain %d: mid joint on the far side of the pole", i);
    /* And in the plane of the line and the pole (float precision). */
    anim_vec3_t n = anim_vec3_normalize(anim_vec3_cross(dir, pole_perp));
    ck_assert_float_le(fabsf(anim_vec3_dot(sm, n)), 1e-3f);
    pole_checked++;
  }
  ck_assert_int_gt(pole_checked, 5000);
}
END_TEST

START_TEST(test_two_bone_unreachable_straight) {
  for (int i = 0; i < 2000; i++) {
    chain_t c;
    random_chain(&c);
    float d = (c.l1 + c.l2) * rnd(1.01f, 3.0f);
    anim_vec3_t dir = rnd_dir();
    anim_vec3_t target = anim_vec3_add(origin(&c.s), anim_vec3_scale(dir, d));
    anim_quat_t cs, cm;
    bool reached = true;
    anim_ik_two_bone_job_t job = chain_job(&c, target, &cs, &cm, &reached);
    ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
    ck_assert(!reached);
    fk(&c, cs, cm);
    anim_vec3_t a =
        anim_vec3_normalize(anim_vec3_sub(origin(&c.m), origin(&c.s)));
    anim_vec3_t b =
        anim_vec3_normalize(anim_vec3_sub(origin(&c.e), origin(&c.m)));
    ck_assert_msg(anim_vec3_dot(a, dir) > 1 - 1e-5f, "chain %d: %g", i,
                  anim_vec3_dot(a, dir));
    ck_assert_msg(anim_vec3_dot(b, dir) > 1 - 1e-5f, "chain %d: %g", i,
                  anim_vec3_dot(b, dir));
    ck_assert_float_eq_tol(dist(origin(&c.e), target), d - c.l1 - c.l2, 1e-4f);
  }
  /* Closer than |l1 - l2|: not reached either. */
  chain_t c;
  random_chain(&c);
  c.lm.translation = anim_vec3_scale(anim_vec3_normalize(c.lm.translation), 2);
  c.le.translation =
      anim_vec3_scale(anim_vec3_normalize(c.le.translation), 0.5f);
  fk(&c, anim_quat_identity(), anim_quat_identity());
  anim_quat_t cs, cm;
  bool reached = true;
  anim_ik_two_bone_job_t job =
      chain_job(&c, anim_vec3_add(origin(&c.s), (anim_vec3_t){0.5f, 0, 0}), &cs,
                &cm, &reached);
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(!reached);
}
END_TEST

START_TEST(test_two_bone_weight_zero) {
  chain_t c;
  random_chain(&c);
  anim_quat_t cs = {1, 2, 3, 4}, cm = {1, 2, 3, 4};
  bool reached = true;
  anim_ik_two_bone_job_t job =
      chain_job(&c, (anim_vec3_t){0.3f, 0.2f, 0.1f}, &cs, &cm, &reached);
  job.weight = 0;
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(!reached);
  ck_assert(cs.x == 0 && cs.y == 0 && cs.z == 0 && cs.w == 1);
  ck_assert(cm.x == 0 && cm.y == 0 && cm.z == 0 && cm.w == 1);
  /* Half a weight: half way, a rotation still. */
  job.weight = 0.5f;
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(!reached);
  ck_assert_float_eq_tol(anim_quat_length(cs), 1, 1e-6f);
}
END_TEST

START_TEST(test_two_bone_soften) {
  for (int i = 0; i < 2000; i++) {
    chain_t c;
    random_chain(&c);
    float chain = c.l1 + c.l2, soften = rnd(0.5f, 0.95f);
    float da = soften * chain, ds = chain - da;
    /* Targets between da and twice the chain. */
    float d = rnd(da + 0.01f * ds, 2 * chain);
    anim_vec3_t dir = rnd_dir();
    anim_vec3_t target = anim_vec3_add(origin(&c.s), anim_vec3_scale(dir, d));
    anim_quat_t cs, cm;
    bool reached = true;
    anim_ik_two_bone_job_t job = chain_job(&c, target, &cs, &cm, &reached);
    job.soften = soften;
    ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
    ck_assert(!reached);
    fk(&c, cs, cm);
    double a = (d - da) / ds, k = (a + 3) * (a + 3);
    double want = da + ds * (1 - 81 / (k * k));
    /* Softened nearer than |l1 - l2| the chain cannot fold that far. */
    if (want < fabsf(c.l1 - c.l2) + 1e-3) continue;
    anim_vec3_t se = anim_vec3_sub(origin(&c.e), origin(&c.s));
    ck_assert_msg(fabs(anim_vec3_length(se) - want) < 1e-4, "chain %d: %g %g",
                  i, anim_vec3_length(se), want);
    ck_assert_float_gt(anim_vec3_dot(anim_vec3_normalize(se), dir), 1 - 1e-5f);
  }
}
END_TEST

START_TEST(test_two_bone_degenerate_and_invalid) {
  chain_t c;
  random_chain(&c);
  anim_quat_t cs, cm;
  bool reached = true;
  anim_ik_two_bone_job_t job = chain_job(&c, origin(&c.s), &cs, &cm, &reached);
  /* A target on the start joint: a finite answer, not reached. */
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(finite_quat(cs) && finite_quat(cm));
  ck_assert(!reached);
  /* A zero-length bone: identity. */
  chain_t z = c;
  z.le.translation = (anim_vec3_t){0, 0, 0};
  fk(&z, anim_quat_identity(), anim_quat_identity());
  job = chain_job(&z, (anim_vec3_t){1, 1, 1}, &cs, &cm, &reached);
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(cs.w == 1 && cm.w == 1 && !reached);
  /* A pole along the target line: finite. */
  job = chain_job(&c, anim_vec3_add(origin(&c.s), (anim_vec3_t){0, 1, 0}), &cs,
                  &cm, &reached);
  job.pole = (anim_vec3_t){0, 1, 0};
  ck_assert_int_eq(anim_ik_two_bone_job_run(&job), ANIM_OK);
  ck_assert(finite_quat(cs) && finite_quat(cm));
  /* Validation, field by field. */
  job = chain_job(&c, (anim_vec3_t){1, 0, 0}, &cs, &cm, NULL);
  ck_assert_int_eq(anim_ik_two_bone_job_validate(&job), ANIM_OK);
  anim_ik_two_bone_job_t bad = job;
  bad.start = NULL;
  ck_assert_int_eq(anim_ik_two_bone_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  bad = job;
  bad.mid_correction = NULL;
  ck_assert_int_eq(anim_ik_two_bone_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  bad = job;
  bad.mid_axis = (anim_vec3_t){0, 0, 2};
  ck_assert_int_eq(anim_ik_two_bone_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  bad = job;
  bad.target.x = NAN;
  ck_assert_int_eq(anim_ik_two_bone_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_ik_two_bone_job_run(NULL), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- aim ----------------------------------------------------------------- */

START_TEST(test_aim_points_at_target) {
  for (int i = 0; i < 10000; i++) {
    anim_transform_t t = {
        {rnd(-3, 3), rnd(-3, 3), rnd(-3, 3)}, rnd_quat(), {1, 1, 1}};
    anim_mat4_t m = anim_mat4_from_transform(&t);
    anim_ik_aim_job_t job = anim_ik_aim_job_defaults();
    anim_quat_t corr;
    bool reached = false;
    float d = rnd(0.5f, 5.0f);
    job.joint = &m;
    job.target = anim_vec3_add(origin(&m), anim_vec3_scale(rnd_dir(), d));
    job.forward = rnd_dir();
    job.up = rnd_dir();
    job.pole = rnd_dir();
    job.offset = i % 2 ? anim_vec3_scale(rnd_dir(), rnd(0, 0.3f * d))
                       : (anim_vec3_t){0, 0, 0};
    job.correction = &corr;
    job.reached = &reached;
    ck_assert_int_eq(anim_ik_aim_job_run(&job), ANIM_OK);
    ck_assert(reached);
    t.rotation = anim_quat_mul(t.rotation, corr);
    anim_mat4_t after = anim_mat4_from_transform(&t);
    anim_vec3_t f = anim_mat4_transform_vector(&after, job.forward);
    anim_vec3_t to = anim_vec3_sub(
        job.target, anim_mat4_transform_point(&after, job.offset));
    float angle =
        atan2f(anim_vec3_length(anim_vec3_cross(f, to)), anim_vec3_dot(f, to));
    ck_assert_msg(angle < 1e-5f, "aim %d: %g rad", i, angle);
    /* Up in the plane of the target direction and the pole, on its side,
     * when forward and up are not nearly parallel and neither is the pole
     * to the target. */
    anim_vec3_t dir =
        anim_vec3_normalize(anim_vec3_sub(job.target, origin(&after)));
    anim_vec3_t n = anim_vec3_cross(dir, job.pole);
    if (i % 2 == 1 || anim_vec3_length(n) < 0.2f ||
        anim_vec3_length(anim_vec3_cross(job.forward, job.up)) < 0.2f)
      continue;
    anim_vec3_t up = anim_mat4_transform_vector(&after, job.up);
    ck_assert_msg(fabsf(anim_vec3_dot(up, anim_vec3_normalize(n))) < 1e-3f,
                  "aim %d: up off the pole's plane", i);
  }
}
END_TEST

START_TEST(test_aim_unreachable_and_weight) {
  anim_mat4_t m = anim_mat4_identity();
  anim_quat_t corr;
  bool reached = true;
  anim_ik_aim_job_t job = anim_ik_aim_job_defaults();
  job.joint = &m;
  job.correction = &corr;
  job.reached = &reached;
  /* The offset 2 off the forward line, the target 1 away: unreachable. */
  job.offset = (anim_vec3_t){0, 2, 0};
  job.target = (anim_vec3_t){0, 0, 1};
  ck_assert_int_eq(anim_ik_aim_job_run(&job), ANIM_OK);
  ck_assert(!reached);
  ck_assert(corr.w == 1);
  /* A target on the joint: identity. */
  job.offset = (anim_vec3_t){0, 0, 0};
  job.target = (anim_vec3_t){0, 0, 0};
  ck_assert_int_eq(anim_ik_aim_job_run(&job), ANIM_OK);
  ck_assert(corr.w == 1);
  /* weight 0: identity; weight 1 turns x onto z: a quarter turn. */
  job.target = (anim_vec3_t){0, 0, 3};
  job.weight = 0;
  ck_assert_int_eq(anim_ik_aim_job_run(&job), ANIM_OK);
  ck_assert(corr.x == 0 && corr.y == 0 && corr.z == 0 && corr.w == 1);
  job.weight = 1;
  ck_assert_int_eq(anim_ik_aim_job_run(&job), ANIM_OK);
  anim_vec3_t f = anim_quat_rotate(corr, (anim_vec3_t){1, 0, 0});
  ck_assert_float_eq_tol(f.z, 1, 1e-6f);
  /* Validation. */
  anim_ik_aim_job_t bad = job;
  bad.forward = (anim_vec3_t){0.5f, 0, 0};
  ck_assert_int_eq(anim_ik_aim_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  bad = job;
  bad.joint = NULL;
  ck_assert_int_eq(anim_ik_aim_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
  bad = job;
  bad.weight = INFINITY;
  ck_assert_int_eq(anim_ik_aim_job_run(&bad), ANIM_ERR_INVALID_ARGUMENT);
}
END_TEST

Suite *core_ik_suite(void) {
  Suite *s = suite_create("core_ik");
  TCase *tc = tcase_create("ik");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_two_bone_reaches_random_targets);
  tcase_add_test(tc, test_two_bone_unreachable_straight);
  tcase_add_test(tc, test_two_bone_weight_zero);
  tcase_add_test(tc, test_two_bone_soften);
  tcase_add_test(tc, test_two_bone_degenerate_and_invalid);
  tcase_add_test(tc, test_aim_points_at_target);
  tcase_add_test(tc, test_aim_unreachable_and_weight);
  suite_add_tcase(s, tc);
  return s;
}
