/* Skinning benchmark: vertices per second, single thread, median of runs.
 *
 * A J=67 skeleton with random rigid skinning matrices and meshes of 10,000
 * and 100,000 vertices with 4 (or 8) random influences of random weights.
 * Figures: LBS positions+normals and positions only on the AVX2 path and
 * the scalar path, the inverse-transpose normals mode, 8 influences, and
 * DQS. Each figure is the median of 9 runs of at least 20 ms each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "animd/skinning.h"

#define JOINTS 67
#define RUNS 9

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng_u32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}

static float rng_unit(void) { return (float)rng_u32() / 2097152.0f - 1.0f; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A random rotation (from a random unit quaternion) and translation. */
static anim_mat4_t random_rigid(void) {
  float x = rng_unit(), y = rng_unit(), z = rng_unit(), w = rng_unit();
  float l = sqrtf(x * x + y * y + z * z + w * w);
  x /= l, y /= l, z /= l, w /= l;
  anim_mat4_t m = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w),
                    2 * (x * z - y * w), 0, 2 * (x * y - z * w),
                    1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
                    2 * (x * z + y * w), 2 * (y * z - x * w),
                    1 - 2 * (x * x + y * y), 0, rng_unit(), rng_unit(),
                    rng_unit(), 1}};
  return m;
}

static anim_mesh_t *make_mesh(const anim_skeleton_t *sk, size_t n,
                              uint32_t k) {
  float *pos = malloc(n * 3 * sizeof(float));
  float *nrm = malloc(n * 3 * sizeof(float));
  uint32_t *jnt = malloc(n * k * sizeof(uint32_t));
  float *wgt = malloc(n * k * sizeof(float));
  for (size_t i = 0; i < n * 3; i++) {
    pos[i] = rng_unit();
    nrm[i] = rng_unit();
  }
  for (size_t i = 0; i < n * k; i++) {
    jnt[i] = rng_u32() % JOINTS;
    wgt[i] = 0.05f + (rng_unit() + 1.0f);
  }
  anim_raw_mesh_t raw = {.vertex_count = n, .positions = pos, .normals = nrm,
                         .influences = k, .joints = jnt, .weights = wgt};
  anim_mesh_t *mesh = NULL;
  anim_build_error_t err;
  if (anim_mesh_build(&raw, sk, NULL, &mesh, &err) != ANIM_OK) {
    fprintf(stderr, "mesh build failed: %s\n", err.message);
    exit(1);
  }
  free(pos);
  free(nrm);
  free(jnt);
  free(wgt);
  return mesh;
}

static void bench(const char *label, anim_skinning_job_t job) {
  const double n = job.mesh->vertex_count;
  /* Calibrate the repeat count to about 20 ms per run. */
  int reps = 1;
  for (;;) {
    double t0 = now_s();
    for (int r = 0; r < reps; r++)
      if (anim_skinning_job_run(&job) != ANIM_OK) {
        fprintf(stderr, "%s: job failed\n", label);
        exit(1);
      }
    if (now_s() - t0 > 0.02 || reps > (1 << 20))
      break;
    reps *= 2;
  }
  double rate[RUNS];
  for (int k = 0; k < RUNS; k++) {
    double t0 = now_s();
    for (int r = 0; r < reps; r++)
      anim_skinning_job_run(&job);
    double dt = now_s() - t0;
    rate[k] = n * reps / dt;
  }
  qsort(rate, RUNS, sizeof rate[0], cmp_double);
  printf("%-46s V=%-7.0f %8.1f M vertices/s  (%.2f ns/vertex)\n", label, n,
         rate[RUNS / 2] / 1e6, 1e9 / rate[RUNS / 2]);
}

int main(void) {
  /* Only what mesh build and the jobs read of a skeleton: a joint count
   * and the caller-to-storage map (identity here). */
  uint32_t order[JOINTS];
  for (uint32_t j = 0; j < JOINTS; j++)
    order[j] = j;
  anim_skeleton_t sk = {.name = "bench", .joint_count = JOINTS,
                        .to_caller = order, .from_caller = order};
  anim_mat4_t mats[JOINTS];
  for (int j = 0; j < JOINTS; j++)
    mats[j] = random_rigid();
  static float scratch[JOINTS * ANIM_DQS_SCRATCH_PER_MATRIX];

  printf("skinning backend: %s, J=%d, single thread, median of %d runs\n",
         anim_skinning_backend(), JOINTS, RUNS);
  const size_t sizes[2] = {10000, 100000};
  for (int si = 0; si < 2; si++) {
    size_t n = sizes[si];
    anim_mesh_t *m4 = make_mesh(&sk, n, 4);
    anim_mesh_t *m8 = make_mesh(&sk, n, 8);
    float *op = malloc(n * 3 * sizeof(float));
    float *on = malloc(n * 3 * sizeof(float));
    anim_skinning_job_t base = {.mesh = m4, .matrices = mats,
                                .matrix_count = JOINTS, .out_positions = op,
                                .out_normals = on, .scratch = scratch,
                                .scratch_count = sizeof scratch / 4};
    anim_skinning_job_t j = base;
    j.normals = ANIM_NORMALS_LINEAR;
    bench("LBS 4 infl positions+normals (default)", j);
    j.normals = ANIM_NORMALS_NONE;
    bench("LBS 4 infl positions only", j);
    j.normals = ANIM_NORMALS_INVERSE_TRANSPOSE;
    bench("LBS 4 infl positions+normals inverse-transp.", j);
    j = base;
    j.force_scalar = true;
    j.normals = ANIM_NORMALS_LINEAR;
    bench("LBS 4 infl positions+normals, scalar path", j);
    j.normals = ANIM_NORMALS_NONE;
    bench("LBS 4 infl positions only, scalar path", j);
    j = base;
    j.mesh = m8;
    j.normals = ANIM_NORMALS_LINEAR;
    bench("LBS 8 infl positions+normals", j);
    j.force_scalar = true;
    bench("LBS 8 infl positions+normals, scalar path", j);
    j = base;
    j.method = ANIM_SKIN_DQS;
    j.normals = ANIM_NORMALS_LINEAR;
    bench("DQS 4 infl positions+normals (scalar)", j);
    j.normals = ANIM_NORMALS_NONE;
    bench("DQS 4 infl positions only (scalar)", j);
    free(op);
    free(on);
    anim_mesh_free(m4);
    anim_mesh_free(m8);
  }
  return 0;
}
