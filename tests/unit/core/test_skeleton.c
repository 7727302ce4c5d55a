/* Tests for skeleton building: validation errors per field (joint and
 * field named), the parents-first order and its maps, name lookup,
 * inverse bind matrices (given and computed, checked against a naive
 * double-precision model evaluation), joint orient and the pose helpers. */
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

/* Caller order: hand(2), root, arm(1), head(1), root2. */
static void five(anim_raw_joint_t *j) {
  j[0] = J("hand", 2);
  j[1] = J("root", -1);
  j[2] = J("arm", 1);
  j[3] = J("head", 1);
  j[4] = J("root2", -1);
}

static anim_result build5(anim_raw_joint_t *j, anim_build_error_t *err) {
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 5};
  anim_skeleton_t *s = NULL;
  anim_result r = anim_skeleton_build(&raw, NULL, &s, err);
  if (r == ANIM_OK)
    anim_skeleton_free(s);
  else
    ck_assert_ptr_null(s);
  return r;
}

START_TEST(test_order_and_maps) {
  anim_raw_joint_t j[5];
  five(j);
  anim_raw_skeleton_t raw = {.name = "rig", .joints = j, .joint_count = 5};
  anim_skeleton_t *s = NULL;
  anim_build_error_t err;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, &err), ANIM_OK);
  ck_assert_str_eq(s->name, "rig");
  ck_assert_uint_eq(s->joint_count, 5);
  /* Depth-first from the roots in caller order, children in caller order:
   * root, arm, hand, head, root2. */
  const uint32_t to_caller[5] = {1, 2, 0, 3, 4};
  const int16_t parents[5] = {-1, 0, 1, 0, -1};
  const uint32_t from_caller[5] = {2, 0, 1, 3, 4};
  const char *names[5] = {"root", "arm", "hand", "head", "root2"};
  for (int k = 0; k < 5; k++) {
    ck_assert_uint_eq(s->to_caller[k], to_caller[k]);
    ck_assert_int_eq(s->parents[k], parents[k]);
    ck_assert_uint_eq(s->from_caller[k], from_caller[k]);
    ck_assert_str_eq(s->names[k], names[k]);
    ck_assert_int_eq(anim_skeleton_find(s, names[k]), k);
  }
  ck_assert_int_eq(anim_skeleton_find(s, "nope"), -1);
  ck_assert_int_eq(anim_skeleton_find(s, ""), -1);
  ck_assert_int_eq(anim_skeleton_find(s, NULL), -1);
  ck_assert(!s->has_orient);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_random_tree_order) {
  tf_rng_t rng = {0x1234567u};
  tf_tree_t t;
  tf_tree_make(&t, 1024, &rng, 3);
  anim_raw_skeleton_t raw = {.joints = t.joints, .joint_count = t.n};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  for (uint32_t k = 0; k < t.n; k++) {
    ck_assert_int_lt(s->parents[k], (int)k);
    ck_assert_uint_eq(s->from_caller[s->to_caller[k]], k);
    const anim_raw_joint_t *rj = &t.joints[s->to_caller[k]];
    if (rj->parent < 0)
      ck_assert_int_eq(s->parents[k], -1);
    else
      ck_assert_uint_eq(s->to_caller[s->parents[k]], (uint32_t)rj->parent);
    ck_assert_str_eq(s->names[k], rj->name);
    ck_assert_int_eq(anim_skeleton_find(s, rj->name), (int)k);
    /* Depth-first: a joint's subtree is contiguous, so the joint right
     * after k is k's child, or a child of one of k's ancestors, or a root. */
    if (k + 1 < t.n && s->parents[k + 1] >= 0) {
      int a = (int)k;
      while (a >= 0 && a != s->parents[k + 1]) a = s->parents[a];
      ck_assert_int_eq(a, s->parents[k + 1]);
    }
  }
  anim_skeleton_free(s);
  tf_tree_free(&t);
}
END_TEST

typedef struct bad_case_s {
  const char *what;
  void (*mutate)(anim_raw_joint_t *j);
  anim_result code;
  int joint;
  const char *field;
  int component;
} bad_case_t;

static void m_name_empty(anim_raw_joint_t *j) { j[3].name = ""; }
static void m_name_null(anim_raw_joint_t *j) { j[2].name = NULL; }
static void m_parent_high(anim_raw_joint_t *j) { j[4].parent = 5; }
static void m_parent_low(anim_raw_joint_t *j) { j[0].parent = -2; }
static void m_self(anim_raw_joint_t *j) { j[3].parent = 3; }
static void m_cycle(anim_raw_joint_t *j) {
  j[4].parent = 0; /* root2 -> hand -> arm -> root: fine */
  j[1].parent = 4; /* root -> root2 closes root, root2, hand, arm */
}
static void m_dup(anim_raw_joint_t *j) { j[4].name = "arm"; }
static void m_dup_early(anim_raw_joint_t *j) {
  j[3].name = "hand";
  j[4].name = "root";
}
static void m_t_nan(anim_raw_joint_t *j) { j[1].rest.translation.y = NAN; }
static void m_r_inf(anim_raw_joint_t *j) { j[2].rest.rotation.w = INFINITY; }
static void m_s_inf(anim_raw_joint_t *j) { j[0].rest.scale.z = -INFINITY; }
static void m_o_nan(anim_raw_joint_t *j) { j[3].orient.x = NAN; }
static void m_r_zero(anim_raw_joint_t *j) { j[2].rest.rotation.w = 0.f; }
static void m_o_zero(anim_raw_joint_t *j) { j[4].orient.z = 1e-9f; }
static void m_singular(anim_raw_joint_t *j) { j[3].rest.scale.y = 0.f; }

static const bad_case_t bad_cases[] = {
    {"empty name", m_name_empty, ANIM_ERR_NAME_EMPTY, 3, "name", -1},
    {"NULL name", m_name_null, ANIM_ERR_NAME_EMPTY, 2, "name", -1},
    {"parent too high", m_parent_high, ANIM_ERR_PARENT_RANGE, 4, "parent", -1},
    {"parent below -1", m_parent_low, ANIM_ERR_PARENT_RANGE, 0, "parent", -1},
    {"own parent", m_self, ANIM_ERR_CYCLE, 3, "parent", -1},
    {"cycle", m_cycle, ANIM_ERR_CYCLE, 0, "parent", -1},
    {"duplicate", m_dup, ANIM_ERR_NAME_DUPLICATE, 4, "name", -1},
    {"duplicates", m_dup_early, ANIM_ERR_NAME_DUPLICATE, 3, "name", -1},
    {"translation NaN", m_t_nan, ANIM_ERR_NOT_FINITE, 1, "translation", 1},
    {"rotation inf", m_r_inf, ANIM_ERR_NOT_FINITE, 2, "rotation", 3},
    {"scale -inf", m_s_inf, ANIM_ERR_NOT_FINITE, 0, "scale", 2},
    {"orient NaN", m_o_nan, ANIM_ERR_NOT_FINITE, 3, "orient", 0},
    {"rotation zero", m_r_zero, ANIM_ERR_ZERO_QUATERNION, 2, "rotation", -1},
    {"orient zero", m_o_zero, ANIM_ERR_ZERO_QUATERNION, 4, "orient", -1},
    {"singular rest", m_singular, ANIM_ERR_SINGULAR, 3, "scale", -1},
};

START_TEST(test_bad_field) {
  const bad_case_t *c = &bad_cases[_i];
  anim_raw_joint_t j[5];
  five(j);
  c->mutate(j);
  anim_build_error_t err;
  anim_result r = build5(j, &err);
  ck_assert_msg(r == c->code, "%s: got %s", c->what, anim_result_str(r));
  ck_assert_int_eq(err.code, c->code);
  ck_assert_msg(err.joint == c->joint, "%s: joint %d", c->what, err.joint);
  ck_assert_str_eq(err.field, c->field);
  ck_assert_int_eq(err.component, c->component);
  ck_assert_int_eq(err.track, -1);
  ck_assert(strlen(err.message) > 0);
}
END_TEST

START_TEST(test_bad_counts) {
  anim_raw_joint_t j[5];
  five(j);
  anim_skeleton_t *s = (anim_skeleton_t *)&j; /* must be reset to NULL */
  anim_build_error_t err;
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 0};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(s);
  ck_assert_str_eq(err.field, "joints");
  raw.joint_count = ANIM_MAX_JOINTS + 1;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, &err),
                   ANIM_ERR_TOO_MANY_JOINTS);
  raw.joints = NULL;
  raw.joint_count = 5;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_skeleton_build(NULL, NULL, &s, &err),
                   ANIM_ERR_INVALID_ARGUMENT);
  raw.joints = j;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, NULL, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  /* A non-finite inverse bind element names joint and element. */
  float ib[80];
  for (int i = 0; i < 80; i++) ib[i] = (i % 5 == 0) ? 1.f : 0.f;
  ib[16 * 2 + 5] = NAN;
  raw.inverse_bind = ib;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, &err),
                   ANIM_ERR_NOT_FINITE);
  ck_assert_int_eq(err.joint, 2);
  ck_assert_str_eq(err.field, "inverse_bind");
  ck_assert_int_eq(err.component, 5);
}
END_TEST

START_TEST(test_inverse_bind_given_remapped) {
  anim_raw_joint_t j[5];
  five(j);
  float ib[80];
  for (int i = 0; i < 80; i++)
    ib[i] = (float)i; /* element e of caller joint c is 16 c + e */
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 5, .inverse_bind = ib};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  for (uint32_t k = 0; k < 5; k++)
    for (int e = 0; e < 16; e++)
      ck_assert_float_eq(s->inverse_bind[k].m[e],
                         (float)(16 * s->to_caller[k] + e));
  anim_skeleton_free(s);
}
END_TEST

/* Computed inverse bind: M_model(rest) * inverseBind = I for every joint,
 * with M_model from the naive recursive evaluation in double of
 * T * (orient * R) * S. */
START_TEST(test_inverse_bind_computed) {
  tf_rng_t rng = {0xfeedu};
  tf_tree_t t;
  tf_tree_make(&t, 300, &rng, 2);
  for (uint32_t i = 0; i < t.n; i += 3) t.joints[i].orient = tf_rand_quat(&rng);
  anim_raw_skeleton_t raw = {.joints = t.joints, .joint_count = t.n};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  ck_assert(s->has_orient);
  double *locals = malloc(16 * sizeof(double) * t.n);
  for (uint32_t i = 0; i < t.n; i++) {
    const anim_raw_joint_t *rj = &t.joints[i];
    double o[4] = {rj->orient.x, rj->orient.y, rj->orient.z, rj->orient.w};
    if (o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0) o[3] = 1;
    double on = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
    for (int k = 0; k < 4; k++) o[k] /= on;
    double r[4] = {rj->rest.rotation.x, rj->rest.rotation.y,
                   rj->rest.rotation.z, rj->rest.rotation.w},
           q[4];
    tf_quat_mul(q, o, r);
    anim_quat_t qf = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    tf_mat_trs(locals + 16 * i, rj->rest.translation, qf, rj->rest.scale);
  }
  double worst = 0;
  for (uint32_t i = 0; i < t.n; i++) {
    double m[16], ibd[16], p[16];
    tf_model_rec(t.joints, locals, NULL, i, m);
    for (int e = 0; e < 16; e++)
      ibd[e] = s->inverse_bind[s->from_caller[i]].m[e];
    tf_mat_mul(p, m, ibd);
    for (int e = 0; e < 16; e++) {
      double d = fabs(p[e] - ((e % 5 == 0) ? 1.0 : 0.0));
      /* Scale the bound by the size of the model matrix. */
      double mag = 1;
      for (int k = 0; k < 16; k++) mag = fmax(mag, fabs(m[k]));
      if (d / mag > worst) worst = d / mag;
    }
  }
  ck_assert_msg(worst < 2e-4, "worst relative error %g", worst);
  free(locals);
  anim_skeleton_free(s);
  tf_tree_free(&t);
}
END_TEST

/* Orient: the stored rest rotation excludes it, the rest pose includes
 * it: orient (90 deg about z) * rest (90 deg about x). */
START_TEST(test_orient_rest_pose) {
  anim_raw_joint_t j[2] = {J("a", -1), J("b", 0)};
  const float h = (float)M_SQRT1_2;
  j[1].rest.rotation = (anim_quat_t){h, 0, 0, h};
  j[1].orient = (anim_quat_t){0, 0, 2 * h, 2 * h}; /* normalized on build */
  j[1].rest.translation = (anim_vec3_t){1, 2, 3};
  j[1].rest.scale = (anim_vec3_t){2, 2, 2};
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 2};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  ck_assert(s->has_orient);
  ck_assert_float_eq_tol(s->rest[1].rotation.x, h, 1e-6f);
  ck_assert_float_eq_tol(s->orient[1].z, h, 1e-6f);
  ck_assert_float_eq_tol(s->orient[1].w, h, 1e-6f);
  anim_vec3_t t[2], sc[2];
  anim_quat_t q[2];
  anim_pose_t pose = {t, q, sc, 2};
  ck_assert_int_eq(anim_pose_set_rest(s, &pose), ANIM_OK);
  /* (0,0,h,h) * (h,0,0,h) = (h*h, h*h, h*h, h*h) = (.5, .5, .5, .5). */
  ck_assert_float_eq_tol(q[1].x, 0.5f, 1e-6f);
  ck_assert_float_eq_tol(q[1].y, 0.5f, 1e-6f);
  ck_assert_float_eq_tol(q[1].z, 0.5f, 1e-6f);
  ck_assert_float_eq_tol(q[1].w, 0.5f, 1e-6f);
  ck_assert_float_eq(t[1].y, 2.f);
  ck_assert_float_eq(sc[1].z, 2.f);
  ck_assert_float_eq(q[0].w, 1.f);
  pose.joint_count = 1;
  ck_assert_int_eq(anim_pose_set_rest(s, &pose), ANIM_ERR_BUFFER_TOO_SMALL);
  pose.rotation = NULL;
  ck_assert_int_eq(anim_pose_set_rest(s, &pose), ANIM_ERR_INVALID_ARGUMENT);
  anim_skeleton_free(s);
}
END_TEST

START_TEST(test_pose_to_caller) {
  anim_raw_joint_t j[5];
  five(j);
  for (int i = 0; i < 5; i++)
    j[i].rest.translation.x = (float)(10 * i); /* caller index marker */
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 5};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &s, NULL), ANIM_OK);
  anim_vec3_t t[5], sc[5];
  anim_quat_t q[5];
  anim_pose_t pose = {t, q, sc, 5};
  ck_assert_int_eq(anim_pose_set_rest(s, &pose), ANIM_OK);
  float out[50];
  ck_assert_int_eq(anim_pose_to_caller_trs10(s, &pose, out, 49),
                   ANIM_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(anim_pose_to_caller_trs10(s, &pose, NULL, 50),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_pose_to_caller_trs10(s, &pose, out, 50), ANIM_OK);
  for (int i = 0; i < 5; i++) {
    ck_assert_float_eq(out[10 * i], (float)(10 * i));
    ck_assert_float_eq(out[10 * i + 6], 1.f);
    ck_assert_float_eq(out[10 * i + 9], 1.f);
  }
  anim_mat4_t m[5];
  for (int k = 0; k < 5; k++)
    for (int e = 0; e < 16; e++) m[k].m[e] = (float)(100 * k + e);
  float mo[80];
  ck_assert_int_eq(anim_mat4_to_caller(s, m, mo, 79),
                   ANIM_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(anim_mat4_to_caller(s, NULL, mo, 80),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_mat4_to_caller(s, m, mo, 80), ANIM_OK);
  for (int c = 0; c < 5; c++)
    for (int e = 0; e < 16; e++)
      ck_assert_float_eq(mo[16 * c + e], (float)(100 * s->from_caller[c] + e));
  anim_skeleton_free(s);
}
END_TEST

/* Allocation goes through the hooks, and a failing allocator gives
 * ANIM_ERR_OUT_OF_MEMORY with nothing leaked. */
typedef struct counting_s {
  int live;
  int budget;
} counting_t;

static void *c_alloc(size_t n, void *ud) {
  counting_t *c = ud;
  if (c->budget-- <= 0) return NULL;
  c->live++;
  return malloc(n);
}

static void c_free(void *p, void *ud) {
  counting_t *c = ud;
  c->live--;
  free(p);
}

START_TEST(test_allocator_hooks) {
  anim_raw_joint_t j[5];
  five(j);
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = 5};
  for (int budget = 0; budget < 4; budget++) {
    counting_t c = {0, budget};
    anim_allocator_t a = {c_alloc, c_free, &c};
    anim_skeleton_t *s = NULL;
    anim_build_error_t err;
    anim_result r = anim_skeleton_build(&raw, &a, &s, &err);
    if (budget < 2) {
      ck_assert_int_eq(r, ANIM_ERR_OUT_OF_MEMORY);
      ck_assert_ptr_null(s);
    } else {
      ck_assert_int_eq(r, ANIM_OK);
      ck_assert_int_eq(c.live, 1);
      anim_skeleton_free(s);
    }
    ck_assert_int_eq(c.live, 0);
  }
  /* One hook without the other is refused before anything is allocated
   * (the rule every core builder shares). */
  counting_t c = {0, 100};
  const anim_allocator_t halves[2] = {{c_alloc, NULL, &c}, {NULL, c_free, &c}};
  for (int h = 0; h < 2; h++) {
    anim_skeleton_t *s = NULL;
    anim_build_error_t err;
    ck_assert_int_eq(anim_skeleton_build(&raw, &halves[h], &s, &err),
                     ANIM_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(err.field, "allocator");
    ck_assert_ptr_null(s);
    ck_assert_int_eq(c.budget, 100);
  }
}
END_TEST

Suite *skeleton_suite(void) {
  Suite *s = suite_create("skeleton");
  TCase *tc = tcase_create("build");
  tcase_add_test(tc, test_order_and_maps);
  tcase_add_test(tc, test_random_tree_order);
  tcase_add_loop_test(tc, test_bad_field, 0,
                      (int)(sizeof bad_cases / sizeof bad_cases[0]));
  tcase_add_test(tc, test_bad_counts);
  tcase_add_test(tc, test_inverse_bind_given_remapped);
  tcase_add_test(tc, test_inverse_bind_computed);
  tcase_add_test(tc, test_orient_rest_pose);
  tcase_add_test(tc, test_pose_to_caller);
  tcase_add_test(tc, test_allocator_hooks);
  suite_add_tcase(s, tc);
  return s;
}
