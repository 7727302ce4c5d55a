/* Skinning benchmark: vertices per second, single thread, median of runs.
 *
 * A built J=67 skeleton (five chains of 13 under one root, so depth ~13)
 * posed with random rotations, its skinning matrices from local-to-model
 * and model * inverse bind, and meshes of 10,000 and 100,000 vertices with
 * 4 (or 8) influences on random joints with random weights.
 * Figures: LBS positions+normals, positions only, the inverse-transpose
 * normals mode and 8 influences on each kernel the CPU runs (AVX-512, AVX2,
 * scalar), and DQS (SIMD and scalar for rigid matrices; the non-rigid
 * path). Morph targets before LBS (the best kernel): 8 targets with
 * position and normal deltas, all weights nonzero, and 52 targets (a face
 * rig's count) of which 8 are nonzero, beside plain LBS of the same mesh.
 * Each figure is the median (and the best) of 9 runs of at least 20 ms
 * each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "animd/hierarchy.h"
#include "animd/skinning.h"
#include "core/skinning_internal.h"
#include "bench_clock.h"
#include "bench_clock.h"

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

static anim_quat_t random_quat(float max_xyz) {
  float x = max_xyz * rng_unit(), y = max_xyz * rng_unit();
  float z = max_xyz * rng_unit(), w = 1.0f;
  float l = sqrtf(x * x + y * y + z * z + w * w);
  anim_quat_t q = {x / l, y / l, z / l, w / l};
  return q;
}

/* Builds the skeleton and fills mats with skinning matrices of a random
 * pose (storage order). */
static anim_skeleton_t *make_skeleton(anim_mat4_t *mats) {
  static anim_raw_joint_t raw[JOINTS];
  static char names[JOINTS][16];
  for (int j = 0; j < JOINTS; j++) {
    snprintf(names[j], sizeof names[j], "joint%d", j);
    raw[j].name = names[j];
    raw[j].parent = j == 0 ? -1 : (j - 1) % 13 == 0 ? 0 : j - 1;
    raw[j].rest.translation = (anim_vec3_t){0.02f * rng_unit(), 0.1f, 0.0f};
    raw[j].rest.rotation = random_quat(0.2f);
    raw[j].rest.scale = (anim_vec3_t){1, 1, 1};
  }
  anim_raw_skeleton_t rs = {
      .name = "bench", .joints = raw, .joint_count = JOINTS};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t err;
  if (anim_skeleton_build(&rs, NULL, &sk, &err) != ANIM_OK) {
    fprintf(stderr, "skeleton build failed: %s\n", err.message);
    exit(1);
  }
  anim_vec3_t t[JOINTS], sc[JOINTS];
  anim_quat_t r[JOINTS];
  anim_mat4_t model[JOINTS];
  anim_pose_t pose = {t, r, sc, JOINTS};
  anim_pose_set_rest(sk, &pose);
  for (int j = 0; j < JOINTS; j++) r[j] = random_quat(0.5f);
  anim_local_to_model_job_t l2m = {
      .skeleton = sk, .input = pose, .output = model, .output_count = JOINTS};
  anim_skinning_matrices_job_t smj = {
      .skeleton = sk, .model = model, .output = mats, .output_count = JOINTS};
  if (anim_local_to_model_job_run(&l2m) != ANIM_OK ||
      anim_skinning_matrices_job_run(&smj) != ANIM_OK) {
    fprintf(stderr, "pose failed\n");
    exit(1);
  }
  return sk;
}

/* A mesh of n vertices, k influences, and targets morph targets (position
 * and normal deltas, small random offsets). */
static anim_mesh_t *make_mesh(const anim_skeleton_t *sk, size_t n, uint32_t k,
                              uint32_t targets) {
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
  float *deltas = malloc((targets ? targets : 1) * n * 3 * sizeof(float));
  for (size_t i = 0; i < targets * n * 3; i++) deltas[i] = 0.05f * rng_unit();
  anim_raw_mesh_t raw = {.vertex_count = n,
                         .positions = pos,
                         .normals = nrm,
                         .influences = k,
                         .joints = jnt,
                         .weights = wgt,
                         .target_count = targets,
                         .target_positions = targets ? deltas : NULL,
                         .target_normals = targets ? deltas : NULL};
  anim_mesh_t *mesh = NULL;
  anim_build_error_t err;
  if (anim_mesh_build(&raw, sk, NULL, &mesh, &err) != ANIM_OK) {
    fprintf(stderr, "mesh build failed: %s\n", err.message);
    exit(1);
  }
  free(deltas);
  free(pos);
  free(nrm);
  free(jnt);
  free(wgt);
  return mesh;
}

/* Times job with kernels up to isa (skipped when the CPU has less). */
static void bench(const char *label, anim_skinning_job_t job, anim__isa isa) {
  if (isa > anim__cpu_isa()) return;
  const double n = job.mesh->vertex_count;
  /* Calibrate the repeat count to about 20 ms per run. */
  int reps = 1;
  for (;;) {
    double t0 = now_s();
    for (int r = 0; r < reps; r++)
      if (anim__skinning_job_run_isa(&job, isa) != ANIM_OK) {
        fprintf(stderr, "%s: job failed\n", label);
        exit(1);
      }
    if (now_s() - t0 > 0.02 || reps > (1 << 20)) break;
    reps *= 2;
  }
  double rate[RUNS];
  for (int k = 0; k < RUNS; k++) {
    double t0 = now_s();
    for (int r = 0; r < reps; r++) anim__skinning_job_run_isa(&job, isa);
    double dt = now_s() - t0;
    rate[k] = n * reps / dt;
  }
  qsort(rate, RUNS, sizeof rate[0], cmp_double);
  printf("%-46s V=%-7.0f median %7.1f M vertices/s (%.2f ns/vertex), "
         "best %7.1f M vertices/s\n",
         label, n, rate[RUNS / 2] / 1e6, 1e9 / rate[RUNS / 2],
         rate[RUNS - 1] / 1e6);
}

/* Morph + LBS (4 influences, best kernel) beside plain LBS of the mesh. */
static void morph_benches(const anim_skeleton_t *sk, const anim_mat4_t *mats,
                          size_t n, float *op, float *on) {
  static const uint32_t counts[2] = {8, 52};
  float *scratch = malloc(n * 6 * sizeof(float));
  float w[52];
  for (int c = 0; c < 2; c++) {
    if (counts[c] == 52 && n > 10000) continue; /* 52 x 24 B per vertex */
    anim_mesh_t *m = make_mesh(sk, n, 4, counts[c]);
    for (uint32_t i = 0; i < counts[c]; i++)
      w[i] = counts[c] == 8 || i % 6 == 0 ? 0.1f + 0.05f * (float)(i % 7) : 0;
    anim_skinning_job_t j = {.mesh = m,
                             .matrices = mats,
                             .matrix_count = JOINTS,
                             .normals = ANIM_NORMALS_LINEAR,
                             .out_positions = op,
                             .out_positions_count = n * 3,
                             .out_normals = on,
                             .out_normals_count = n * 3,
                             .morph_scratch = scratch,
                             .morph_scratch_count = n * 6};
    bench("LBS 4 infl positions+normals, no morph", j, anim__cpu_isa());
    j.morph_weights = w;
    char label[64];
    snprintf(label, sizeof label, "morph %u targets (%u nonzero) + LBS p+n",
             counts[c], counts[c] == 8 ? 8u : 9u);
    bench(label, j, anim__cpu_isa());
    j.normals = ANIM_NORMALS_NONE;
    snprintf(label, sizeof label, "morph %u targets (%u nonzero) + LBS pos",
             counts[c], counts[c] == 8 ? 8u : 9u);
    bench(label, j, anim__cpu_isa());
    anim_mesh_free(m);
  }
  free(scratch);
}

int main(void) {
  anim_mat4_t mats[JOINTS];
  anim_skeleton_t *sk = make_skeleton(mats);
  static float scratch[JOINTS * ANIM_DQS_SCRATCH_PER_MATRIX];

  printf("skinning backend: %s, J=%d, single thread, median of %d runs\n",
         anim_skinning_backend(), JOINTS, RUNS);
  const size_t sizes[2] = {10000, 100000};
  for (int si = 0; si < 2; si++) {
    size_t n = sizes[si];
    anim_mesh_t *m4 = make_mesh(sk, n, 4, 0);
    anim_mesh_t *m8 = make_mesh(sk, n, 8, 0);
    float *op = malloc(n * 3 * sizeof(float));
    float *on = malloc(n * 3 * sizeof(float));
    anim_skinning_job_t base = {.mesh = m4,
                                .matrices = mats,
                                .matrix_count = JOINTS,
                                .out_positions = op,
                                .out_positions_count = n * 3,
                                .out_normals = on,
                                .out_normals_count = n * 3,
                                .scratch = scratch,
                                .scratch_count = sizeof scratch / 4};
    static const char *const isa_names[3] = {"scalar", "AVX2", "AVX-512"};
    anim_skinning_job_t j = base;
    char label[64];
    for (int isa = ANIM__ISA_AVX512; isa >= ANIM__ISA_SCALAR; isa--) {
      const char *in = isa_names[isa];
      j = base;
      j.normals = ANIM_NORMALS_LINEAR;
      snprintf(label, sizeof label, "LBS 4 infl positions+normals, %s", in);
      bench(label, j, (anim__isa)isa);
      j.normals = ANIM_NORMALS_NONE;
      snprintf(label, sizeof label, "LBS 4 infl positions only, %s", in);
      bench(label, j, (anim__isa)isa);
      j.normals = ANIM_NORMALS_INVERSE_TRANSPOSE;
      snprintf(label, sizeof label, "LBS 4 infl pos+inverse-transp., %s", in);
      bench(label, j, (anim__isa)isa);
      j = base;
      j.mesh = m8;
      j.normals = ANIM_NORMALS_LINEAR;
      snprintf(label, sizeof label, "LBS 8 infl positions+normals, %s", in);
      bench(label, j, (anim__isa)isa);
    }
    j = base;
    j.method = ANIM_SKIN_DQS;
    j.normals = ANIM_NORMALS_LINEAR;
    bench("DQS 4 infl positions+normals", j, anim__cpu_isa());
    j.normals = ANIM_NORMALS_NONE;
    bench("DQS 4 infl positions only", j, anim__cpu_isa());
    j.normals = ANIM_NORMALS_LINEAR;
    bench("DQS 4 infl positions+normals, scalar path", j, ANIM__ISA_SCALAR);
    /* A uniform scale of 1.5 on every matrix: the non-rigid path. */
    anim_mat4_t scaled[JOINTS];
    for (int k = 0; k < JOINTS; k++) {
      scaled[k] = mats[k];
      for (int e = 0; e < 12; e++) scaled[k].m[e] *= 1.5f;
    }
    j.matrices = scaled;
    bench("DQS 4 infl positions+normals, scaled matrices", j, anim__cpu_isa());
    morph_benches(sk, mats, n, op, on);
    free(op);
    free(on);
    anim_mesh_free(m4);
    anim_mesh_free(m8);
  }
  anim_skeleton_free(sk);
  return 0;
}
