/* animd core: the kernel level of each job for the process (animd/kernels.h,
 * core/cpu.h anim__job_isa). The choice is one relaxed atomic per job,
 * -1 until set (then the CPU's features decide). A measurement builds a
 * small fixed workload per job (a 67-joint tree, a 2 s clip of 31 keys on
 * every channel, a 1,024-vertex mesh of 4 influences with normals), runs
 * each level the CPU has in turns, seven rounds, and keeps the fastest
 * round of each; the features' level stays unless another is more than 3%
 * faster, so noise alone never moves the choice away from it. The clock
 * is the caller's (the core reads none). */
#include "animd/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/animd.h"
#include "core/clip_grid.h"
#include "core/cpu.h"
#include "core/hierarchy_simd.h"
#include "core/skinning_internal.h"

#define JOINTS 67
#define KEYS 31
#define VERTICES 1024
#define ROUNDS 7

static int chosen[ANIM_KERNEL_JOBS] = {-1, -1, -1}; /* Relaxed atomics. */

static const char *const job_names[ANIM_KERNEL_JOBS] = {
    "sampling", "local_to_model", "skinning"};
static const char *const level_names[3] = {"scalar", "avx2", "avx512"};
static const char *const value_names[] = {"features", "measured", "scalar",
                                          "avx2", "avx512"};

anim__isa anim__job_isa(anim__job job) {
  int v = __atomic_load_n(&chosen[job], __ATOMIC_RELAXED);
  return v < 0 ? anim__cpu_isa() : (anim__isa)v;
}

int anim_kernels_parse(const char *name) {
  for (int i = 0; i < (int)(sizeof value_names / sizeof *value_names); i++)
    if (name != NULL && strcmp(name, value_names[i]) == 0) return i;
  return -1;
}

/* ---- the workload ---------------------------------------------------------
 */

typedef struct workload_s {
  anim_skeleton_t *skeleton;
  anim_clip_t *clip;
  anim_mesh_t *mesh;
  anim_vec3_t translation[JOINTS], scale[JOINTS];
  anim_quat_t rotation[JOINTS];
  anim_mat4_t model[JOINTS];
  float positions[3 * VERTICES], normals[3 * VERTICES];
} workload_t;

static anim_skeleton_t *make_skeleton(void) {
  anim_raw_joint_t j[JOINTS];
  char names[JOINTS][16];
  for (int i = 0; i < JOINTS; i++) {
    snprintf(names[i], sizeof names[i], "j%d", i);
    memset(&j[i], 0, sizeof j[i]);
    j[i].name = names[i];
    /* A tree of chains of five, each hanging off an earlier joint. */
    j[i].parent = i == 0 ? -1 : (i % 5 == 0 ? (i - 1) / 3 : i - 1);
    j[i].rest.translation = (anim_vec3_t){0.f, 0.1f, 0.01f * (float)(i % 3)};
    j[i].rest.rotation.w = 1.f;
    j[i].rest.scale = (anim_vec3_t){1.f, 1.f, 1.f};
  }
  anim_raw_skeleton_t raw = {
      .name = "kernels", .joints = j, .joint_count = JOINTS};
  anim_skeleton_t *s = NULL;
  anim_build_error_t err;
  return anim_skeleton_build(&raw, NULL, &s, &err) == ANIM_OK ? s : NULL;
}

static anim_clip_t *make_clip(const anim_skeleton_t *s) {
  static const size_t per_track = KEYS * (1 + 4);
  float *mem = calloc((size_t)3 * JOINTS * per_track, sizeof *mem);
  anim_raw_track_t *tr = calloc(3 * JOINTS, sizeof *tr);
  anim_clip_t *c = NULL;
  if (mem != NULL && tr != NULL) {
    for (uint32_t i = 0; i < 3 * JOINTS; i++) {
      anim_path path = (anim_path)(i % 3);
      uint32_t comp = path == ANIM_PATH_ROTATION ? 4 : 3;
      float *times = mem + i * per_track, *values = times + KEYS;
      for (int k = 0; k < KEYS; k++) {
        double t = k / 15.0, w = 0.5 * sin(3.0 * t + 0.37 * i);
        times[k] = (float)t;
        if (path == ANIM_PATH_ROTATION) {
          anim_quat_t q = anim_quat_from_axis_angle(
              (anim_vec3_t){0.6f, 0.8f, 0.f}, (float)w);
          memcpy(values + 4 * k, &q, sizeof q);
        } else {
          for (uint32_t e = 0; e < 3; e++)
            values[3 * k + e] = (path == ANIM_PATH_SCALE ? 1.f : 0.f) +
                                0.1f * (float)w * (float)(e + 1);
        }
      }
      tr[i] = (anim_raw_track_t){i / 3, path,   ANIM_INTERP_LINEAR,  times,
                                 KEYS,  values, (size_t)KEYS * comp, NULL};
    }
    anim_raw_clip_t raw = {"kernels", tr, 3 * JOINTS, 0.f, NULL, 0, NULL, 0};
    anim_build_error_t err;
    if (anim_clip_build(&raw, s, NULL, &c, &err) != ANIM_OK) c = NULL;
  }
  free(mem);
  free(tr);
  return c;
}

static anim_mesh_t *make_mesh(const anim_skeleton_t *s) {
  float *pos = malloc(sizeof *pos * 6 * VERTICES), *nrm = pos + 3 * VERTICES;
  uint32_t *joints = malloc(sizeof *joints * 4 * VERTICES);
  float *weights = malloc(sizeof *weights * 4 * VERTICES);
  anim_mesh_t *m = NULL;
  if (pos != NULL && joints != NULL && weights != NULL) {
    for (uint32_t v = 0; v < VERTICES; v++) {
      double a = 0.1 * v, z = 2.0 * (v + 0.5) / VERTICES - 1;
      double r = sqrt(1 - z * z);
      float n[3] = {(float)(r * cos(a)), (float)(r * sin(a)), (float)z};
      for (int c = 0; c < 3; c++) {
        pos[3 * v + c] = n[c];
        nrm[3 * v + c] = n[c];
      }
      for (uint32_t k = 0; k < 4; k++) {
        joints[4 * v + k] = (v * 7 + k * 13) % JOINTS;
        weights[4 * v + k] = 0.4f - 0.1f * (float)k;
      }
    }
    anim_raw_mesh_t raw = {.name = "kernels",
                           .vertex_count = VERTICES,
                           .positions = pos,
                           .normals = nrm,
                           .influences = 4,
                           .joints = joints,
                           .weights = weights};
    anim_build_error_t err;
    if (anim_mesh_build(&raw, s, NULL, &m, &err) != ANIM_OK) m = NULL;
  }
  free(pos);
  free(joints);
  free(weights);
  return m;
}

static void workload_free(workload_t *w) {
  anim_mesh_free(w->mesh);
  anim_clip_free(w->clip);
  anim_skeleton_free(w->skeleton);
  free(w);
}

static workload_t *workload_new(void) {
  workload_t *w = calloc(1, sizeof *w);
  if (w == NULL) return NULL;
  w->skeleton = make_skeleton();
  if (w->skeleton != NULL) w->clip = make_clip(w->skeleton);
  if (w->clip != NULL) w->mesh = make_mesh(w->skeleton);
  anim_pose_t pose = {w->translation, w->rotation, w->scale, JOINTS};
  if (w->mesh == NULL || anim_pose_set_rest(w->skeleton, &pose) != ANIM_OK) {
    workload_free(w);
    return NULL;
  }
  for (int i = 0; i < JOINTS; i++) w->model[i] = anim_mat4_identity();
  return w;
}

/* ---- the measurement ------------------------------------------------------
 */

/* One round of job at level: n runs; ns per run by clock. */
static double round_ns(workload_t *w, anim__job job, anim__isa isa, int n,
                       double (*clock_ns)(void)) {
  anim_pose_t pose = {w->translation, w->rotation, w->scale, JOINTS};
  double t0 = clock_ns();
  for (int i = 0; i < n; i++) {
    if (job == ANIM__JOB_SAMPLING) {
      anim_sampling_job_t s = {.skeleton = w->skeleton,
                               .clip = w->clip,
                               .time = 0.013 * i,
                               .output = pose};
      anim__sampling_job_run_isa(&s, isa);
    } else if (job == ANIM__JOB_LOCAL_TO_MODEL) {
      if (isa >= ANIM__ISA_AVX512)
        anim__local_to_model_avx512(w->skeleton, &pose, NULL, 0, JOINTS - 1,
                                    w->model);
      else if (isa >= ANIM__ISA_AVX2)
        anim__local_to_model_avx2(w->skeleton, &pose, NULL, 0, JOINTS - 1,
                                  w->model);
      else
        anim__local_to_model_portable(w->skeleton, &pose, NULL, 0, JOINTS - 1,
                                      w->model);
    } else {
      anim_skinning_job_t s = {.mesh = w->mesh,
                               .matrices = w->model,
                               .matrix_count = JOINTS,
                               .normals = ANIM_NORMALS_LINEAR,
                               .out_positions = w->positions,
                               .out_normals = w->normals};
      anim__skinning_job_run_isa(&s, isa);
    }
  }
  return (clock_ns() - t0) / n;
}

static anim__isa measure(workload_t *w, anim__job job, double ns[3],
                         double (*clock_ns)(void)) {
  static const int runs[ANIM_KERNEL_JOBS] = {200, 400, 10};
  anim__isa top = anim__cpu_isa();
  for (int l = 0; l < 3; l++) ns[l] = 0;
  for (int r = 0; r < ROUNDS; r++)
    for (int l = 0; l <= (int)top; l++) {
      double t = round_ns(w, job, (anim__isa)l, runs[job], clock_ns);
      if (ns[l] == 0 || t < ns[l]) ns[l] = t;
    }
  anim__isa fastest = top;
  for (int l = 0; l <= (int)top; l++)
    if (ns[l] < ns[fastest]) fastest = (anim__isa)l;
  return ns[top] <= ns[fastest] * 1.03 ? top : fastest;
}

anim_result anim_kernels_set(anim_kernels how, double (*clock_ns)(void),
                             anim_kernel_choice_t out[ANIM_KERNEL_JOBS]) {
  if ((int)how < 0 || how > ANIM_KERNELS_AVX512 ||
      (how == ANIM_KERNELS_MEASURED && clock_ns == NULL))
    return ANIM_ERR_INVALID_ARGUMENT;
  double ns[ANIM_KERNEL_JOBS][3] = {{0}};
  int level[ANIM_KERNEL_JOBS];
  anim_result r = ANIM_OK;
  workload_t *w = how == ANIM_KERNELS_MEASURED ? workload_new() : NULL;
  if (how == ANIM_KERNELS_MEASURED && w == NULL) r = ANIM_ERR_OUT_OF_MEMORY;
  for (int j = 0; j < ANIM_KERNEL_JOBS; j++) {
    if (how == ANIM_KERNELS_FEATURES || r != ANIM_OK)
      level[j] = -1;
    else if (how == ANIM_KERNELS_MEASURED)
      level[j] = (int)measure(w, (anim__job)j, ns[j], clock_ns);
    else
      level[j] = (int)anim__isa_cap((anim__isa)(how - ANIM_KERNELS_SCALAR));
    __atomic_store_n(&chosen[j], level[j], __ATOMIC_RELAXED);
  }
  if (w != NULL) workload_free(w);
  if (out != NULL)
    for (int j = 0; j < ANIM_KERNEL_JOBS; j++) {
      out[j].job = job_names[j];
      out[j].level = level_names[anim__job_isa((anim__job)j)];
      memcpy(out[j].ns, ns[j], sizeof ns[j]);
    }
  return r;
}
