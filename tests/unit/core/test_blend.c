/* Tests for the blending job against hand-computed values: normalized
 * weights, per-joint masks, quaternion sign alignment, the threshold that
 * mixes in the rest pose, additive layers against a reference pose or the
 * rest pose, 2 to 6 layers against closed forms, and validate() per bad
 * field. */
#include <check.h>

#include "test_skeleton_fixtures.h"

static anim_raw_joint_t J(const char *name, int32_t parent) {
  anim_raw_joint_t j;
  memset(&j, 0, sizeof j);
  j.name = name;
  j.parent = parent;
  j.rest.rotation.w = 1.f;
  j.rest.scale.x = j.rest.scale.y = j.rest.scale.z = 1.f;
  return j;
}

/* Two joints; rest translation (10, 0, 0), scale 1, rotation identity. */
static anim_skeleton_t *skel(void) {
  anim_raw_joint_t j[2] = {J("a", -1), J("b", 0)};
  j[0].rest.translation.x = 10.f;
  j[1].rest.translation.x = 10.f;
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 2};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  return s;
}

typedef struct p2_s {
  anim_vec3_t t[2], s[2];
  anim_quat_t q[2];
} p2_t;

static anim_pose_t view(p2_t *p) {
  anim_pose_t v = {p->t, p->q, p->s, 2};
  return v;
}

static void fill(p2_t *p, anim_vec3_t t, anim_quat_t q, anim_vec3_t s) {
  for (int j = 0; j < 2; j++) {
    p->t[j] = t;
    p->q[j] = q;
    p->s[j] = s;
  }
}

static void assert_quat(anim_quat_t q, double x, double y, double z, double w) {
  double p[4] = {x, y, z, w};
  ck_assert_msg(tf_quat_dist(q, p) < 2e-6, "(%g %g %g %g)", q.x, q.y, q.z, q.w);
}

#define H ((float)M_SQRT1_2)

/* Weights 1 and 3: translation (0,0,0) and (4,8,0) -> (3,6,0); scale 1 and
 * 2 -> 1.75; rotations identity and 90 deg about z with equal weights: the
 * normalized sum (0,0,h,1+h) is the 45 deg rotation, also when the second
 * is given as its negation. */
START_TEST(test_weights_and_signs) {
  anim_skeleton_t *sk = skel();
  p2_t a, b, o;
  fill(&a, (anim_vec3_t){0, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){1, 1, 1});
  fill(&b, (anim_vec3_t){4, 8, 0}, (anim_quat_t){0, 0, -H, -H},
       (anim_vec3_t){2, 2, 2});
  anim_blend_layer_t layers[2] = {{.pose = view(&a), .weight = 1.f},
                                  {.pose = view(&b), .weight = 3.f}};
  anim_blend_job_t job = {
      .skeleton = sk, .layers = layers, .layer_count = 2, .output = view(&o)};
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, 3.f, 1e-6f);
  ck_assert_float_eq_tol(o.t[1].y, 6.f, 1e-6f);
  ck_assert_float_eq_tol(o.s[0].z, 1.75f, 1e-6f);
  /* Weights 1:3 on identity and 90 deg: (0,0,3h,1+3h) normalized. */
  double n = sqrt(9 * 0.5 + (1 + 3 * M_SQRT1_2) * (1 + 3 * M_SQRT1_2));
  assert_quat(o.q[0], 0, 0, 3 * M_SQRT1_2 / n, (1 + 3 * M_SQRT1_2) / n);
  layers[1].weight = 1.f;
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  assert_quat(o.q[1], 0, 0, sin(M_PI / 8), cos(M_PI / 8));
  ck_assert_float_eq_tol(o.t[0].x, 2.f, 1e-6f);
  anim_skeleton_free(sk);
}
END_TEST

/* Mask: layer a covers joint 0 only (mask 1, 0), layer b both with mask
 * (0.5, 1): joint 0 = (1 * a + 0.5 * b) / 1.5, joint 1 = b. */
START_TEST(test_masks) {
  anim_skeleton_t *sk = skel();
  p2_t a, b, o;
  fill(&a, (anim_vec3_t){3, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){1, 1, 1});
  fill(&b, (anim_vec3_t){6, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){1, 1, 1});
  const float ma[2] = {1.f, 0.f}, mb[2] = {0.5f, 1.f};
  anim_blend_layer_t layers[2] = {
      {.pose = view(&a), .weight = 1.f, .joint_weights = ma},
      {.pose = view(&b), .weight = 1.f, .joint_weights = mb}};
  anim_blend_job_t job = {
      .skeleton = sk, .layers = layers, .layer_count = 2, .output = view(&o)};
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, 4.f, 1e-6f); /* (3 + 3) / 1.5 */
  ck_assert_float_eq_tol(o.t[1].x, 6.f, 1e-6f);
  anim_skeleton_free(sk);
}
END_TEST

/* Threshold 0.1 (default): one layer of weight 0.05 at (0,0,0) gets the
 * rest (10,0,0) mixed in with weight 0.05: (5,0,0). Weight 0: the rest
 * pose. Threshold 0.5 with weight 0.4: (0.4 * 0 + 0.1 * 10) / 0.5 = 2. */
START_TEST(test_threshold_rest) {
  anim_skeleton_t *sk = skel();
  p2_t a, o;
  fill(&a, (anim_vec3_t){0, 0, 0}, (anim_quat_t){0, 0, H, H},
       (anim_vec3_t){3, 3, 3});
  anim_blend_layer_t layer = {.pose = view(&a), .weight = 0.05f};
  anim_blend_job_t job = {
      .skeleton = sk, .layers = &layer, .layer_count = 1, .output = view(&o)};
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, 5.f, 1e-5f);
  ck_assert_float_eq_tol(o.s[0].x, 2.f, 1e-5f);
  assert_quat(o.q[0], 0, 0, sin(M_PI / 8), cos(M_PI / 8));
  layer.weight = 0.f;
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq(o.t[1].x, 10.f);
  ck_assert_float_eq(o.q[1].w, 1.f);
  job.layer_count = 0; /* no layers at all: the rest pose */
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq(o.t[0].x, 10.f);
  job.layer_count = 1;
  layer.weight = 0.4f;
  job.threshold = 0.5f;
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, 2.f, 1e-5f);
  anim_skeleton_free(sk);
}
END_TEST

/* Additive on a base (1,0,0) / identity / scale 2:
 *   p = (3,0,0), 90 deg about z, scale 3; reference r = (1,0,0), identity,
 *   scale 1.5; weight 0.5:
 *   translation 1 + 0.5 * (3 - 1) = 2; rotation slerp(I, 90 deg, 0.5) =
 *   45 deg about z; scale 2 * (1 + (3 / 1.5 - 1) * 0.5) = 3.
 * Without a reference the rest pose (10,0,0), identity, 1 is used:
 *   translation 1 + 0.5 * (3 - 10) = -2.5, scale 2 * (1 + 2 * 0.5) = 4. */
START_TEST(test_additive) {
  anim_skeleton_t *sk = skel();
  p2_t base, p, r, o;
  fill(&base, (anim_vec3_t){1, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){2, 2, 2});
  fill(&p, (anim_vec3_t){3, 0, 0}, (anim_quat_t){0, 0, H, H},
       (anim_vec3_t){3, 3, 3});
  fill(&r, (anim_vec3_t){1, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){1.5f, 1.5f, 1.5f});
  anim_blend_layer_t layer = {.pose = view(&base), .weight = 1.f};
  anim_blend_layer_t add = {
      .pose = view(&p), .weight = 0.5f, .reference = view(&r)};
  anim_blend_job_t job = {.skeleton = sk,
                          .layers = &layer,
                          .layer_count = 1,
                          .additive_layers = &add,
                          .additive_count = 1,
                          .output = view(&o)};
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, 2.f, 1e-6f);
  assert_quat(o.q[0], 0, 0, sin(M_PI / 8), cos(M_PI / 8));
  ck_assert_float_eq_tol(o.s[1].y, 3.f, 1e-6f);
  memset(&add.reference, 0, sizeof add.reference);
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  ck_assert_float_eq_tol(o.t[0].x, -2.5f, 1e-5f);
  ck_assert_float_eq_tol(o.s[0].x, 4.f, 1e-6f);
  /* Additive rotation composes on the left: base 90 deg about x, add 90
   * deg about z with weight 1: (0,0,h,h) * (h,0,0,h) = (.5,.5,.5,.5). */
  fill(&base, (anim_vec3_t){1, 0, 0}, (anim_quat_t){H, 0, 0, H},
       (anim_vec3_t){2, 2, 2});
  add.weight = 1.f;
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  assert_quat(o.q[1], 0.5, 0.5, 0.5, 0.5);
  /* The output may be the base layer's own arrays. */
  job.output = view(&base);
  ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
  assert_quat(base.q[0], 0.5, 0.5, 0.5, 0.5);
  anim_skeleton_free(sk);
}
END_TEST

START_TEST(test_validate) {
  anim_skeleton_t *sk = skel();
  p2_t a, r, o;
  fill(&a, (anim_vec3_t){0, 0, 0}, (anim_quat_t){0, 0, 0, 1},
       (anim_vec3_t){1, 1, 1});
  r = a;
  anim_blend_layer_t layer = {.pose = view(&a), .weight = 1.f};
  anim_blend_layer_t add = {
      .pose = view(&a), .weight = 1.f, .reference = view(&r)};
  const anim_blend_job_t good = {.skeleton = sk,
                                 .layers = &layer,
                                 .layer_count = 1,
                                 .additive_layers = &add,
                                 .additive_count = 1,
                                 .output = view(&o)};
  ck_assert_int_eq(anim_blend_job_validate(&good), ANIM_OK);
  ck_assert_int_eq(anim_blend_job_validate(NULL), ANIM_ERR_INVALID_ARGUMENT);
  anim_blend_job_t j;
  anim_blend_layer_t l2, a2;
#define BAD(mutation, code)                                                    \
  do {                                                                         \
    j = good;                                                                  \
    l2 = layer;                                                                \
    a2 = add;                                                                  \
    j.layers = &l2;                                                            \
    j.additive_layers = &a2;                                                   \
    mutation;                                                                  \
    ck_assert_int_eq(anim_blend_job_validate(&j), code);                       \
    ck_assert_int_eq(anim_blend_job_run(&j), code);                            \
  } while (0)
  BAD(j.skeleton = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.layers = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.additive_layers = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.threshold = -1.f, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.threshold = NAN, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.translation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.rotation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.scale = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output.joint_count = 1, ANIM_ERR_BUFFER_TOO_SMALL);
  BAD(l2.weight = -0.5f, ANIM_ERR_INVALID_ARGUMENT);
  BAD(l2.weight = INFINITY, ANIM_ERR_INVALID_ARGUMENT);
  BAD(l2.pose.rotation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(l2.pose.joint_count = 1, ANIM_ERR_BUFFER_TOO_SMALL);
  BAD(a2.weight = NAN, ANIM_ERR_INVALID_ARGUMENT);
  BAD(a2.pose.scale = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(a2.reference.scale = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(a2.reference.joint_count = 1, ANIM_ERR_BUFFER_TOO_SMALL);
#undef BAD
  anim_skeleton_free(sk);
}
END_TEST

/* 2 to 6 layers above the threshold (the job then sums them two a pass
 * where it can: first pair, last pair, single ones between): layer i
 * (1-based) has weight i, translation (i, 0, 0), scale 1 + i and the
 * rotation by 0.1 i rad about z, given negated for even i. Closed forms
 * in double: translation sum(i^2) / sum(i), scale 1 + that, rotation the
 * normalized sum of i (0, 0, sin(0.05 i), cos(0.05 i)). */
START_TEST(test_many_layers) {
  anim_skeleton_t *sk = skel();
  p2_t p[6], out;
  anim_blend_layer_t l[6];
  memset(l, 0, sizeof l);
  for (int i = 0; i < 6; i++) {
    double k = i + 1, half = 0.05 * k, sg = (i + 1) % 2 ? 1 : -1;
    anim_quat_t q = {0.f, 0.f, (float)(sg * sin(half)),
                     (float)(sg * cos(half))};
    fill(&p[i], (anim_vec3_t){(float)k, 0.f, 0.f}, q,
         (anim_vec3_t){(float)(1 + k), (float)(1 + k), (float)(1 + k)});
    l[i].pose = view(&p[i]);
    l[i].weight = (float)k;
  }
  for (int count = 2; count <= 6; count++) {
    anim_blend_job_t job = {.skeleton = sk,
                            .layers = l,
                            .layer_count = (size_t)count,
                            .output = view(&out)};
    ck_assert_int_eq(anim_blend_job_run(&job), ANIM_OK);
    double sw = 0, st = 0, z = 0, w = 0;
    for (int i = 1; i <= count; i++) {
      sw += i;
      st += (double)i * i;
      z += i * sin(0.05 * i);
      w += i * cos(0.05 * i);
    }
    double t = st / sw, n = sqrt(z * z + w * w);
    for (int j = 0; j < 2; j++) {
      ck_assert_float_eq_tol(out.t[j].x, t, 1e-5);
      ck_assert_float_eq_tol(out.t[j].y, 0, 1e-7);
      ck_assert_float_eq_tol(out.s[j].x, 1 + t, 1e-5);
      ck_assert_float_eq_tol(out.s[j].z, 1 + t, 1e-5);
      assert_quat(out.q[j], 0, 0, z / n, w / n);
    }
  }
  anim_skeleton_free(sk);
}
END_TEST

Suite *blend_suite(void) {
  Suite *s = suite_create("blend");
  TCase *tc = tcase_create("job");
  tcase_add_test(tc, test_weights_and_signs);
  tcase_add_test(tc, test_masks);
  tcase_add_test(tc, test_threshold_rest);
  tcase_add_test(tc, test_additive);
  tcase_add_test(tc, test_validate);
  tcase_add_test(tc, test_many_layers);
  suite_add_tcase(s, tc);
  return s;
}
