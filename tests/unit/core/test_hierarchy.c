/* Tests for the local-to-model and skinning-matrix jobs: against a naive
 * recursive double-precision evaluation on random trees of up to 1,024
 * joints given in shuffled order (fixed-seed PRNG), with a root
 * transform, partial from/to updates, the AVX2 and AVX-512 kernels
 * against the portable one, and validate() per bad field. */
#include <check.h>

#include "core/cpu.h"
#include "core/hierarchy_simd.h"
#include "test_skeleton_fixtures.h"

typedef struct case_s {
  tf_tree_t tree;
  anim_skeleton_t *sk;
  anim_vec3_t *t, *s;
  anim_quat_t *q;
  anim_mat4_t *model;
  double *locals; /* caller order */
} case_t;

static void pose_to_locals(case_t *c) {
  for (uint32_t k = 0; k < c->sk->joint_count; k++)
    tf_mat_trs(c->locals + 16 * c->sk->to_caller[k], c->t[k], c->q[k], c->s[k]);
}

static void case_make(case_t *c, uint32_t n, uint64_t seed) {
  tf_rng_t rng = {seed};
  tf_tree_make(&c->tree, n, &rng, 1 + (int)(seed % 3));
  anim_raw_skeleton_t raw = {.joints = c->tree.joints, .joint_count = n};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &c->sk, NULL), ANIM_OK);
  c->t = malloc(n * sizeof *c->t);
  c->s = malloc(n * sizeof *c->s);
  c->q = malloc(n * sizeof *c->q);
  c->model = malloc(n * sizeof *c->model);
  c->locals = malloc(16 * n * sizeof(double));
  for (uint32_t k = 0; k < n; k++) {
    c->t[k] = (anim_vec3_t){tf_range(&rng, -1, 1), tf_range(&rng, -1, 1),
                            tf_range(&rng, -1, 1)};
    c->q[k] = tf_rand_quat(&rng);
    c->s[k] =
        (anim_vec3_t){tf_range(&rng, 0.8f, 1.2f), tf_range(&rng, 0.8f, 1.2f),
                      tf_range(&rng, 0.8f, 1.2f)};
  }
  pose_to_locals(c);
}

static void case_free(case_t *c) {
  anim_skeleton_free(c->sk);
  tf_tree_free(&c->tree);
  free(c->t);
  free(c->s);
  free(c->q);
  free(c->model);
  free(c->locals);
}

static anim_local_to_model_job_t job_of(case_t *c) {
  anim_local_to_model_job_t j = {
      .skeleton = c->sk,
      .input = {c->t, c->q, c->s, c->sk->joint_count},
      .output = c->model,
      .output_count = c->sk->joint_count};
  return j;
}

/* Largest |ours - naive| over joints [from, to], relative to the matrix
 * magnitude. */
static double compare(const case_t *c, const double *root, uint32_t from,
                      uint32_t to) {
  double worst = 0;
  for (uint32_t k = from; k <= to; k++) {
    double ref[16];
    tf_model_rec(c->tree.joints, c->locals, root, c->sk->to_caller[k], ref);
    double mag = 1;
    for (int e = 0; e < 16; e++) mag = fmax(mag, fabs(ref[e]));
    worst = fmax(worst, tf_max_diff_f(c->model[k].m, ref, 16) / mag);
  }
  return worst;
}

START_TEST(test_random_trees) {
  const uint32_t sizes[] = {1, 2, 7, 67, 200, 1024};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    case_t c;
    case_make(&c, sizes[i], 1000 + i);
    anim_local_to_model_job_t j = job_of(&c);
    ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
    double w = compare(&c, NULL, 0, sizes[i] - 1);
    ck_assert_msg(w < 1e-5, "J=%u: %g", sizes[i], w);
    case_free(&c);
  }
}
END_TEST

START_TEST(test_root_transform) {
  case_t c;
  case_make(&c, 300, 42);
  /* Root: translate (1,2,3) * rotate 90 deg about y * scale 2. */
  const float h = (float)M_SQRT1_2;
  double root[16];
  tf_mat_trs(root, (anim_vec3_t){1, 2, 3}, (anim_quat_t){0, h, 0, h},
             (anim_vec3_t){2, 2, 2});
  anim_mat4_t rootf;
  for (int e = 0; e < 16; e++) rootf.m[e] = (float)root[e];
  anim_local_to_model_job_t j = job_of(&c);
  j.root = &rootf;
  ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
  double w = compare(&c, root, 0, 299);
  ck_assert_msg(w < 1e-5, "%g", w);
  case_free(&c);
}
END_TEST

/* Partial updates: change the pose of joints in [from, to] only, run over
 * [from, to]; those joints match the naive evaluation of the new pose and
 * every joint outside the range is left exactly as it was. */
START_TEST(test_partial_range) {
  case_t c;
  case_make(&c, 500, 7);
  anim_local_to_model_job_t j = job_of(&c);
  ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
  const uint32_t ranges[][2] = {
      {120, 499}, {0, 0}, {10, 200}, {499, 499}, {1, 1}};
  tf_rng_t rng = {3};
  anim_mat4_t *before = malloc(500 * sizeof *before);
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    uint32_t from = ranges[r][0], to = ranges[r][1];
    bool all = from == 0 && to == 0;
    uint32_t lo = from, hi = all ? 499 : to;
    memcpy(before, c.model, 500 * sizeof *before);
    for (uint32_t k = lo; k <= hi; k++) c.q[k] = tf_rand_quat(&rng);
    pose_to_locals(&c);
    j.from = from;
    j.to = to;
    ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
    double w = compare(&c, NULL, lo, hi);
    ck_assert_msg(w < 1e-5, "[%u, %u]: %g", from, to, w);
    for (uint32_t k = 0; k < 500; k++)
      if (k < lo || k > hi)
        ck_assert(memcmp(&before[k], &c.model[k], sizeof before[k]) == 0);
  }
  free(before);
  case_free(&c);
}
END_TEST

/* Every kernel the CPU has (portable, AVX2, AVX-512) agrees with the
 * portable one within a few ulps of the magnitude (FMA rounds once per
 * step), with and without a root transform, over whole skeletons whose
 * sizes are not multiples of the SIMD blocks and over partial ranges
 * (parents outside the range read from the output). */
typedef void (*l2m_kernel_fn)(const anim_skeleton_t *, const anim_pose_t *,
                              const anim_mat4_t *, uint32_t, uint32_t,
                              anim_mat4_t *);

static void check_close(const anim_mat4_t *a, const anim_mat4_t *b, uint32_t n,
                        int isa) {
  for (uint32_t k = 0; k < n; k++)
    for (int e = 0; e < 16; e++)
      ck_assert_msg(fabsf(a[k].m[e] - b[k].m[e]) <=
                        1e-5f * (1.f + fabsf(a[k].m[e])),
                    "isa %d joint %u entry %d: %.9g vs %.9g", isa, k, e,
                    (double)a[k].m[e], (double)b[k].m[e]);
}

START_TEST(test_simd_matches_portable) {
  const l2m_kernel_fn kernels[3] = {anim__local_to_model_portable,
                                    anim__local_to_model_avx2,
                                    anim__local_to_model_avx512};
  const uint32_t sizes[] = {1, 2, 15, 16, 17, 33, 1000};
  const anim_mat4_t root = {
      {1, 0, 0, 0, 0, 0.5f, 0.3f, 0, 0, -0.3f, 0.5f, 0, 4, 5, 6, 1}};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    const uint32_t n = sizes[z];
    case_t c;
    case_make(&c, n, 99 + z);
    anim_mat4_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    anim_pose_t in = {c.t, c.q, c.s, n};
    for (int with_root = 0; with_root < 2; with_root++) {
      const anim_mat4_t *r = with_root ? &root : NULL;
      anim__local_to_model_portable(c.sk, &in, r, 0, n - 1, a);
      for (int isa = ANIM__ISA_AVX2; isa <= (int)anim__cpu_isa(); isa++) {
        memset(b, 0, n * sizeof *b);
        kernels[isa](c.sk, &in, r, 0, n - 1, b);
        check_close(a, b, n, isa);
        /* A partial range over the portable result: the same again. */
        if (n > 4) {
          memcpy(b, a, n * sizeof *b);
          for (uint32_t k = n / 3; k <= n - 2; k++)
            memset(&b[k], 0, sizeof b[k]);
          kernels[isa](c.sk, &in, r, n / 3, n - 2, b);
          check_close(a, b, n, isa);
        }
      }
    }
    if (n == 1000 && anim__cpu_isa() >= ANIM__ISA_AVX2) {
      anim_mat4_t *sa = malloc(n * sizeof *sa), *sb = malloc(n * sizeof *sb);
      anim__skinning_matrices_portable(a, c.sk->inverse_bind, n, sa);
      anim__skinning_matrices_avx2(a, c.sk->inverse_bind, n, sb);
      check_close(sa, sb, n, ANIM__ISA_AVX2);
      free(sa);
      free(sb);
    }
    free(a);
    free(b);
    case_free(&c);
  }
}
END_TEST

/* The AVX2 kernel (and AVX-512 where the CPU has it) against the portable
 * one on every skeleton size from 1 to 300 joints (so every remainder of
 * the eight- and sixteen-joint blocks, with and without a root transform,
 * over the whole skeleton and over a partial range): random trees, and
 * single chains (each joint the child of the one before, the deepest
 * hierarchy there is), with scales from 0.5 to 1.5 on random trees and
 * non-normalised quaternions (lengths 0.5 to 2, same formulas in every
 * kernel). Chains keep scales near 1 so the products stay in range. */
static void make_chain(case_t *c, uint32_t n, tf_rng_t *rng) {
  c->tree.n = n;
  c->tree.joints = calloc(n, sizeof *c->tree.joints);
  c->tree.names = calloc(n, sizeof *c->tree.names);
  for (uint32_t k = 0; k < n; k++) {
    anim_raw_joint_t *j = &c->tree.joints[k];
    snprintf(c->tree.names[k], 16, "c%u", k);
    j->name = c->tree.names[k];
    j->parent = (int32_t)k - 1;
    j->rest.rotation = tf_rand_quat(rng);
    j->rest.scale = (anim_vec3_t){1, 1, 1};
  }
  anim_raw_skeleton_t raw = {.joints = c->tree.joints, .joint_count = n};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &c->sk, NULL), ANIM_OK);
}

/* As check_close, with each matrix's error bound by its largest entry
 * (a product of unnormalised rotations sums large terms into small ones,
 * so an entry's own size does not bound its rounding). */
static void check_close_to_norm(const anim_mat4_t *a, const anim_mat4_t *b,
                                uint32_t n, int isa, uint32_t size, int chain) {
  for (uint32_t k = 0; k < n; k++) {
    float big = 0;
    for (int e = 0; e < 16; e++) big = fmaxf(big, fabsf(a[k].m[e]));
    /* Check's assertion records its place on every pass: tested here
     * first, it runs only for an entry out of bounds. */
    for (int e = 0; e < 16; e++)
      if (!(fabsf(a[k].m[e] - b[k].m[e]) <= 1e-5f * (1.f + big)))
        ck_abort_msg("isa %d size %u chain %d joint %u entry %d: %.9g vs %.9g",
                     isa, size, chain, k, e, (double)a[k].m[e],
                     (double)b[k].m[e]);
  }
}

START_TEST(test_simd_sizes_chains_unnormalised) {
  const l2m_kernel_fn kernels[3] = {anim__local_to_model_portable,
                                    anim__local_to_model_avx2,
                                    anim__local_to_model_avx512};
  const anim_mat4_t root = {
      {0, 1, 0, 0, -0.8f, 0, 0.6f, 0, 0.6f, 0, 0.8f, 0, -2, 3, 0.5f, 1}};
  int compared = 0;
  for (uint32_t n = 1; n <= 300; n++) {
    for (int chain = 0; chain < 2; chain++) {
      tf_rng_t rng = {0x9e3779b97f4a7c15ull + 7919u * n + (uint64_t)chain};
      case_t c = {0};
      if (chain)
        make_chain(&c, n, &rng);
      else {
        tf_tree_make(&c.tree, n, &rng, 1 + (int)(n % 3));
        anim_raw_skeleton_t raw = {.joints = c.tree.joints, .joint_count = n};
        ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &c.sk, NULL), ANIM_OK);
      }
      anim_vec3_t *t = malloc(n * sizeof *t), *s = malloc(n * sizeof *s);
      anim_quat_t *q = malloc(n * sizeof *q);
      const float lo = chain ? 0.98f : 0.5f, hi = chain ? 1.02f : 1.5f;
      for (uint32_t k = 0; k < n; k++) {
        t[k] = (anim_vec3_t){tf_range(&rng, -1, 1), tf_range(&rng, -1, 1),
                             tf_range(&rng, -1, 1)};
        const anim_quat_t u = tf_rand_quat(&rng);
        const float len = chain ? 1.f : tf_range(&rng, 0.5f, 2.f);
        q[k] = (anim_quat_t){u.x * len, u.y * len, u.z * len, u.w * len};
        s[k] = (anim_vec3_t){tf_range(&rng, lo, hi), tf_range(&rng, lo, hi),
                             tf_range(&rng, lo, hi)};
      }
      /* Non-normalised quaternions scale a matrix by up to len^2 per
       * level: only on random trees, whose depth stays small. */
      anim_pose_t in = {t, q, s, n};
      anim_mat4_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
      for (int with_root = 0; with_root < 2; with_root++) {
        const anim_mat4_t *r = with_root ? &root : NULL;
        anim__local_to_model_portable(c.sk, &in, r, 0, n - 1, a);
        for (int isa = ANIM__ISA_AVX2; isa <= (int)anim__cpu_isa(); isa++) {
          memset(b, 0, n * sizeof *b);
          kernels[isa](c.sk, &in, r, 0, n - 1, b);
          check_close_to_norm(a, b, n, isa, n, chain);
          const uint32_t from = n / 4, to = n - 1 - n / 5;
          memcpy(b, a, n * sizeof *b);
          for (uint32_t k = from; k <= to; k++) memset(&b[k], 0, sizeof b[k]);
          kernels[isa](c.sk, &in, r, from, to, b);
          check_close_to_norm(a, b, n, isa, n, chain);
          compared++;
        }
      }
      free(a);
      free(b);
      free(t);
      free(s);
      free(q);
      anim_skeleton_free(c.sk);
      tf_tree_free(&c.tree);
    }
  }
  /* Every size and shape ran on at least the AVX2 kernel where it exists. */
  ck_assert_int_eq(compared, anim__cpu_isa() >= ANIM__ISA_AVX2
                                 ? 1200 * (int)anim__cpu_isa()
                                 : 0);
}
END_TEST

/* Skinning matrices: at the rest pose they are the identity (model rest *
 * inverse of model rest); for a random pose, model * inverseBind in
 * double. */
START_TEST(test_skinning_matrices) {
  case_t c;
  case_make(&c, 200, 5);
  anim_pose_t rest = {c.t, c.q, c.s, 200};
  ck_assert_int_eq(anim_pose_set_rest(c.sk, &rest), ANIM_OK);
  anim_local_to_model_job_t j = job_of(&c);
  ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
  anim_mat4_t *skin = malloc(200 * sizeof *skin);
  anim_skinning_matrices_job_t sj = {
      .skeleton = c.sk, .model = c.model, .output = skin, .output_count = 200};
  ck_assert_int_eq(anim_skinning_matrices_job_run(&sj), ANIM_OK);
  for (uint32_t k = 0; k < 200; k++)
    for (int e = 0; e < 16; e++)
      ck_assert_float_eq_tol(skin[k].m[e], (e % 5 == 0) ? 1.f : 0.f, 1e-4f);

  tf_rng_t rng = {11};
  for (uint32_t k = 0; k < 200; k++) c.q[k] = tf_rand_quat(&rng);
  ck_assert_int_eq(anim_local_to_model_job_run(&j), ANIM_OK);
  ck_assert_int_eq(anim_skinning_matrices_job_run(&sj), ANIM_OK);
  for (uint32_t k = 0; k < 200; k++) {
    double m[16], ib[16], ref[16];
    for (int e = 0; e < 16; e++) {
      m[e] = c.model[k].m[e];
      ib[e] = c.sk->inverse_bind[k].m[e];
    }
    tf_mat_mul(ref, m, ib);
    double mag = 1;
    for (int e = 0; e < 16; e++) mag = fmax(mag, fabs(ref[e]));
    ck_assert(tf_max_diff_f(skin[k].m, ref, 16) < 1e-5 * mag);
  }
  free(skin);
  case_free(&c);
}
END_TEST

START_TEST(test_validate) {
  case_t c;
  case_make(&c, 10, 1);
  const anim_local_to_model_job_t good = job_of(&c);
  ck_assert_int_eq(anim_local_to_model_job_validate(&good), ANIM_OK);
  ck_assert_int_eq(anim_local_to_model_job_validate(NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  anim_local_to_model_job_t j;
#define BAD(mutation, code)                                                    \
  do {                                                                         \
    j = good;                                                                  \
    mutation;                                                                  \
    ck_assert_int_eq(anim_local_to_model_job_validate(&j), code);              \
    ck_assert_int_eq(anim_local_to_model_job_run(&j), code);                   \
  } while (0)
  BAD(j.skeleton = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.output = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.input.translation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.input.rotation = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.input.scale = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(j.input.joint_count = 9, ANIM_ERR_BUFFER_TOO_SMALL);
  BAD(j.output_count = 9, ANIM_ERR_BUFFER_TOO_SMALL);
  BAD((j.from = 5, j.to = 4), ANIM_ERR_INVALID_ARGUMENT);
  BAD((j.from = 0, j.to = 10), ANIM_ERR_INVALID_ARGUMENT);
  BAD((j.from = 10, j.to = 0), ANIM_ERR_INVALID_ARGUMENT);
#undef BAD
  anim_mat4_t skin[10];
  const anim_skinning_matrices_job_t sg = {
      .skeleton = c.sk, .model = c.model, .output = skin, .output_count = 10};
  ck_assert_int_eq(anim_skinning_matrices_job_validate(&sg), ANIM_OK);
  ck_assert_int_eq(anim_skinning_matrices_job_validate(NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  anim_skinning_matrices_job_t s;
#define BAD(mutation, code)                                                    \
  do {                                                                         \
    s = sg;                                                                    \
    mutation;                                                                  \
    ck_assert_int_eq(anim_skinning_matrices_job_validate(&s), code);           \
    ck_assert_int_eq(anim_skinning_matrices_job_run(&s), code);                \
  } while (0)
  BAD(s.skeleton = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(s.model = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(s.output = NULL, ANIM_ERR_INVALID_ARGUMENT);
  BAD(s.output_count = 9, ANIM_ERR_BUFFER_TOO_SMALL);
#undef BAD
  case_free(&c);
}
END_TEST

Suite *hierarchy_suite(void) {
  Suite *s = suite_create("hierarchy");
  TCase *tc = tcase_create("jobs");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_random_trees);
  tcase_add_test(tc, test_root_transform);
  tcase_add_test(tc, test_partial_range);
  tcase_add_test(tc, test_simd_matches_portable);
  tcase_add_test(tc, test_simd_sizes_chains_unnormalised);
  tcase_add_test(tc, test_skinning_matrices);
  tcase_add_test(tc, test_validate);
  suite_add_tcase(s, tc);
  return s;
}
