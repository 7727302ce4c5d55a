/* Tests for the process's kernel choice (animd/kernels.h): the features'
 * choice is the CPU's best level; a forced level is lowered to what the
 * CPU runs and the jobs then run it (the skinning job's output equals
 * that level's own entry point bit for bit); a measurement times every
 * level the CPU runs and none above, and keeps the fastest unless the
 * features' level is within 3%; names parse both ways. */
#include <check.h>
#include <string.h>
#include <time.h>

#include "animd/animd.h"
#include "core/cpu.h"
#include "core/skinning_internal.h"

static const char *const levels[] = {"scalar", "avx2", "avx512"};

static double thread_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

START_TEST(test_features) {
  anim_kernel_choice_t ch[ANIM_KERNEL_JOBS];
  ck_assert_int_eq(anim_kernels_set(ANIM_KERNELS_FEATURES, NULL, ch), ANIM_OK);
  static const char *const jobs[] = {"sampling", "local_to_model", "skinning"};
  for (int j = 0; j < ANIM_KERNEL_JOBS; j++) {
    ck_assert_str_eq(ch[j].job, jobs[j]);
    ck_assert_str_eq(ch[j].level, levels[anim__cpu_isa()]);
    ck_assert_int_eq(anim__job_isa((anim__job)j), anim__cpu_isa());
    for (int l = 0; l < 3; l++) ck_assert_double_eq(ch[j].ns[l], 0);
  }
  ck_assert_str_eq(anim_skinning_backend(), levels[anim__cpu_isa()]);
}
END_TEST

START_TEST(test_forced) {
  for (int how = ANIM_KERNELS_SCALAR; how <= ANIM_KERNELS_AVX512; how++) {
    anim_kernel_choice_t ch[ANIM_KERNEL_JOBS];
    ck_assert_int_eq(anim_kernels_set((anim_kernels)how, NULL, ch), ANIM_OK);
    anim__isa want = anim__isa_cap((anim__isa)(how - ANIM_KERNELS_SCALAR));
    for (int j = 0; j < ANIM_KERNEL_JOBS; j++) {
      ck_assert_str_eq(ch[j].level, levels[want]);
      ck_assert_int_eq(anim__job_isa((anim__job)j), want);
    }
    ck_assert_str_eq(anim_skinning_backend(), levels[want]);
  }
  ck_assert_int_eq(anim_kernels_set((anim_kernels)99, NULL, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(anim_kernels_set(ANIM_KERNELS_MEASURED, NULL, NULL),
                   ANIM_ERR_INVALID_ARGUMENT);
  anim_kernels_set(ANIM_KERNELS_FEATURES, NULL, NULL);
}
END_TEST

/* The public skinning job runs the forced level: its output equals that
 * level's entry point's, bit for bit, for every level the CPU has. */
START_TEST(test_forced_level_runs) {
  enum { V = 37, J = 3 };
  anim_raw_joint_t rj[J];
  memset(rj, 0, sizeof rj);
  const char *names[J] = {"a", "b", "c"};
  for (int i = 0; i < J; i++) {
    rj[i].name = names[i];
    rj[i].parent = i - 1;
    rj[i].rest.rotation.w = 1.f;
    rj[i].rest.scale = (anim_vec3_t){1.f, 1.f, 1.f};
  }
  anim_raw_skeleton_t rs = {.name = "k", .joints = rj, .joint_count = J};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t err;
  ck_assert_int_eq(anim_skeleton_build(&rs, NULL, &sk, &err), ANIM_OK);
  float pos[3 * V], nrm[3 * V], w[4 * V];
  uint32_t jn[4 * V];
  for (int v = 0; v < V; v++) {
    for (int c = 0; c < 3; c++) {
      pos[3 * v + c] = 0.1f * (float)(v + c);
      nrm[3 * v + c] = c == 1 ? 1.f : 0.f;
    }
    for (int k = 0; k < 4; k++) {
      jn[4 * v + k] = (uint32_t)((v + k) % J);
      w[4 * v + k] = 1.f + (float)k;
    }
  }
  anim_raw_mesh_t rm = {.vertex_count = V,
                        .positions = pos,
                        .normals = nrm,
                        .influences = 4,
                        .joints = jn,
                        .weights = w};
  anim_mesh_t *m = NULL;
  ck_assert_int_eq(anim_mesh_build(&rm, sk, NULL, &m, &err), ANIM_OK);
  anim_mat4_t mats[J];
  for (int i = 0; i < J; i++) {
    mats[i] = anim_mat4_identity();
    mats[i].m[12] = 0.5f * (float)i;
    mats[i].m[0] = 1.f + 0.25f * (float)i;
  }
  for (int isa = 0; isa <= (int)anim__cpu_isa(); isa++) {
    float a[3 * V], an[3 * V], b[3 * V], bn[3 * V];
    anim_skinning_job_t job = {.mesh = m,
                               .matrices = mats,
                               .matrix_count = J,
                               .normals = ANIM_NORMALS_LINEAR,
                               .out_positions = a,
                               .out_normals = an};
    anim_kernels_set((anim_kernels)(ANIM_KERNELS_SCALAR + isa), NULL, NULL);
    ck_assert_int_eq(anim_skinning_job_run(&job), ANIM_OK);
    job.out_positions = b;
    job.out_normals = bn;
    ck_assert_int_eq(anim__skinning_job_run_isa(&job, (anim__isa)isa), ANIM_OK);
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
    ck_assert_int_eq(memcmp(an, bn, sizeof an), 0);
  }
  anim_kernels_set(ANIM_KERNELS_FEATURES, NULL, NULL);
  anim_mesh_free(m);
  anim_skeleton_free(sk);
}
END_TEST

START_TEST(test_measured) {
  anim_kernel_choice_t ch[ANIM_KERNEL_JOBS];
  ck_assert_int_eq(anim_kernels_set(ANIM_KERNELS_MEASURED, thread_ns, ch),
                   ANIM_OK);
  anim__isa top = anim__cpu_isa();
  for (int j = 0; j < ANIM_KERNEL_JOBS; j++) {
    double fastest = 0;
    for (int l = 0; l < 3; l++) {
      if (l <= (int)top) {
        ck_assert_double_gt(ch[j].ns[l], 0);
        if (fastest == 0 || ch[j].ns[l] < fastest) fastest = ch[j].ns[l];
      } else {
        ck_assert_double_eq(ch[j].ns[l], 0);
      }
    }
    anim__isa got = anim__job_isa((anim__job)j);
    ck_assert_str_eq(ch[j].level, levels[got]);
    ck_assert_int_le(got, top);
    /* The features' level unless another is more than 3% faster. */
    if (got == top)
      ck_assert_double_le(ch[j].ns[top], fastest * 1.03 + 1e-9);
    else {
      ck_assert_double_eq(ch[j].ns[got], fastest);
      ck_assert_double_gt(ch[j].ns[top], fastest * 1.03);
    }
  }
  anim_kernels_set(ANIM_KERNELS_FEATURES, NULL, NULL);
}
END_TEST

START_TEST(test_names) {
  static const char *const names[] = {"features", "measured", "scalar", "avx2",
                                      "avx512"};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(anim_kernels_parse(names[i]), i);
  ck_assert_int_eq(anim_kernels_parse("AVX2"), -1);
  ck_assert_int_eq(anim_kernels_parse(""), -1);
  ck_assert_int_eq(anim_kernels_parse(NULL), -1);
}
END_TEST

Suite *kernels_suite(void) {
  Suite *s = suite_create("kernels");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_features);
  tcase_add_test(tc, test_forced);
  tcase_add_test(tc, test_forced_level_runs);
  tcase_add_test(tc, test_measured);
  tcase_add_test(tc, test_names);
  suite_add_tcase(s, tc);
  return s;
}
