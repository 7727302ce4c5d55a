/* Benchmark: root motion and a 2D blend space per pose, beside the plain
 * pose, on a 67-joint tree with keys at 30 fps on every joint's
 * translation, rotation and scale (2 s clips). Single thread, thread CPU
 * time, the median of 9 runs (the fastest in brackets), ns per pose.
 *
 *   plain pose:           sample + local-to-model
 *   + root motion:        the same, the root's motion taken out (xz, yaw,
 *                         reference skeleton) and accumulated over loops
 *                         (t up to 20 s, so ~10 loops)
 *   blend-space weights:  2D weights alone, 9 points on a 3x3 grid,
 *                         triangulated once (as a request's blend space
 *                         is), and triangulated on each call
 *   2D blend space pose:  weights, synchronized times, the (at most 3)
 *                         weighted clips sampled, blended, local-to-model
 *   + root motion:        the blend space pose with root motion: each
 *                         weighted layer's motion measured, blended (ozz
 *                         MotionBlendingJob), taken out of the pose */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "animd/animd.h"
#include "bench_clock.h"

#define RUNS 9
#define FPS 30
#define KEYS 61
#define JOINTS 67
#define POSES 20000
#define CLIPS 9

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) /
         9007199254740992.0;
}

static anim_skeleton_t *tree(void) {
  anim_raw_joint_t j[JOINTS];
  char names[JOINTS][16];
  for (int i = 0; i < JOINTS; i++) {
    memset(&j[i], 0, sizeof j[i]);
    snprintf(names[i], sizeof names[i], "j%d", i);
    j[i].name = names[i];
    /* A few chains off the root, as limbs. */
    j[i].parent = i == 0 ? -1 : (i % 5 == 1 ? 0 : i - 1);
    j[i].rest.translation = anim_vec3(0, 0.1f, 0);
    j[i].rest.rotation.w = 1;
    j[i].rest.scale = anim_vec3(1, 1, 1);
  }
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = JOINTS};
  anim_skeleton_t *s = NULL;
  if (anim_skeleton_build(&raw, NULL, &s, NULL) != ANIM_OK) exit(1);
  return s;
}

/* A clip where the root walks speed m/s along x. */
static anim_clip_t *clip_for(const anim_skeleton_t *s, float speed) {
  uint32_t n = s->joint_count;
  anim_raw_track_t *tr = calloc(3 * n, sizeof *tr);
  float *m = calloc((size_t)3 * n * KEYS * 5, sizeof(float)), *mem = m;
  for (uint32_t i = 0; i < 3 * n; i++) {
    anim_path path = (anim_path)(i % 3);
    uint32_t comp = path == ANIM_PATH_ROTATION ? 4 : 3;
    float *times = m, *values = m + KEYS;
    m += KEYS * (1 + comp);
    double ph = rnd() * 6.28, amp = 0.2 + rnd();
    anim_vec3_t axis = {(float)rnd() - 0.5f, (float)rnd() - 0.5f,
                        (float)rnd() - 0.5f};
    for (int k = 0; k < KEYS; k++) {
      double t = (double)k / FPS, w = amp * sin(3.0 * t + ph);
      times[k] = (float)t;
      if (path == ANIM_PATH_ROTATION) {
        anim_quat_t q = anim_quat_from_axis_angle(axis, (float)w);
        memcpy(values + 4 * k, &q, sizeof q);
      } else {
        float base = path == ANIM_PATH_SCALE ? 1.f : 0.f;
        for (uint32_t e = 0; e < 3; e++)
          values[3 * k + e] = base + 0.1f * (float)w * (float)(e + 1);
        if (path == ANIM_PATH_TRANSLATION && i / 3 == 0)
          values[3 * k] = speed * (float)t;
      }
    }
    tr[i] = (anim_raw_track_t){i / 3, path,   ANIM_INTERP_LINEAR,  times,
                               KEYS,  values, (size_t)KEYS * comp, NULL};
  }
  anim_raw_clip_t raw = {.name = "bench", .tracks = tr, .track_count = 3 * n};
  anim_clip_t *c = NULL;
  if (anim_clip_build(&raw, s, NULL, &c, NULL) != ANIM_OK) exit(1);
  free(tr);
  free(mem);
  return c;
}

typedef struct world_s {
  const anim_skeleton_t *sk;
  anim_clip_t *clips[CLIPS];
  float grid[2 * CLIPS];
  uint8_t tris[3 * (2 * CLIPS + 1)];
  uint32_t tri_count;
  float params[2 * POSES];
  double times[POSES];
  anim_vec3_t t[CLIPS + 1][JOINTS], s[CLIPS + 1][JOINTS];
  anim_quat_t q[CLIPS + 1][JOINTS];
  anim_mat4_t model[JOINTS];
  double sink;
} world_t;

enum {
  PLAIN,
  PLAIN_MOTION,
  WEIGHTS,
  WEIGHTS_TRIANGULATING,
  SPACE,
  SPACE_MOTION
};

static anim_motion_settings_t settings(void) {
  anim_motion_settings_t m = {.joint = 0,
                              .translation = ANIM_MOTION_X | ANIM_MOTION_Z,
                              .rotation = ANIM_MOTION_YAW,
                              .up = ANIM_AXIS_Y,
                              .reference = ANIM_MOTION_REF_SKELETON};
  return m;
}

static anim_pose_t pose_of(world_t *w, int i) {
  anim_pose_t p = {w->t[i], w->q[i], w->s[i], JOINTS};
  return p;
}

static void to_model(world_t *w, anim_pose_t p) {
  anim_local_to_model_job_t l2m = {.skeleton = w->sk,
                                   .input = p,
                                   .output = w->model,
                                   .output_count = JOINTS};
  if (anim_local_to_model_job_run(&l2m) != ANIM_OK) exit(1);
}

static void one(world_t *w, int i, int what) {
  anim_pose_t out = pose_of(w, CLIPS);
  anim_motion_t m = {{0, 0, 0}, {0, 0, 0, 1}};
  if (what == PLAIN || what == PLAIN_MOTION) {
    anim_sampling_job_t sj = {.skeleton = w->sk,
                              .clip = w->clips[0],
                              .time = w->times[i],
                              .wrap = ANIM_WRAP_LOOP,
                              .output = out};
    if (anim_sampling_job_run(&sj) != ANIM_OK) exit(1);
    if (what == PLAIN_MOTION) {
      anim_motion_extract_job_t mj = {.skeleton = w->sk,
                                      .clip = w->clips[0],
                                      .time = w->times[i],
                                      .wrap = ANIM_WRAP_LOOP,
                                      .settings = settings(),
                                      .pose = out,
                                      .output = &m};
      if (anim_motion_extract_job_run(&mj) != ANIM_OK) exit(1);
    }
    to_model(w, out);
    w->sink += m.translation.x + w->model[JOINTS - 1].m[12];
    return;
  }
  float weights[CLIPS];
  anim_blend_space_job_t bs = {.dimensions = 2,
                               .points = w->grid,
                               .point_count = CLIPS,
                               .param = &w->params[2 * i],
                               .weights = weights,
                               .triangles = w->tris,
                               .triangle_count = w->tri_count};
  if (what == WEIGHTS_TRIANGULATING) bs.triangles = NULL;
  if (anim_blend_space_job_run(&bs) != ANIM_OK) exit(1);
  if (what == WEIGHTS || what == WEIGHTS_TRIANGULATING) {
    w->sink += weights[4];
    return;
  }
  float durations[CLIPS];
  double times[CLIPS];
  for (int c = 0; c < CLIPS; c++) durations[c] = w->clips[c]->duration;
  anim_blend_space_times(durations, weights, CLIPS, w->times[i], true, times);
  anim_blend_layer_t layers[CLIPS];
  anim_motion_t motions[CLIPS], now[CLIPS];
  float lw[CLIPS];
  size_t n = 0;
  for (int c = 0; c < CLIPS; c++) {
    if (!(weights[c] > 0)) continue;
    anim_pose_t p = pose_of(w, (int)n);
    anim_sampling_job_t sj = {.skeleton = w->sk,
                              .clip = w->clips[c],
                              .time = times[c],
                              .wrap = ANIM_WRAP_LOOP,
                              .output = p};
    if (anim_sampling_job_run(&sj) != ANIM_OK) exit(1);
    if (what == SPACE_MOTION) {
      anim_motion_extract_job_t mj = {.skeleton = w->sk,
                                      .clip = w->clips[c],
                                      .time = times[c],
                                      .wrap = ANIM_WRAP_LOOP,
                                      .settings = settings(),
                                      .pose = p,
                                      .output = &motions[n],
                                      .current = &now[n],
                                      .keep_pose = true};
      if (anim_motion_extract_job_run(&mj) != ANIM_OK) exit(1);
    }
    lw[n] = weights[c];
    layers[n++] = (anim_blend_layer_t){.pose = p, .weight = weights[c]};
  }
  anim_blend_job_t bj = {
      .skeleton = w->sk, .layers = layers, .layer_count = n, .output = out};
  if (anim_blend_job_run(&bj) != ANIM_OK) exit(1);
  if (what == SPACE_MOTION) {
    anim_motion_t cur;
    anim_motion_blend_job_t mb = {
        .motions = now, .weights = lw, .count = n, .output = &cur};
    anim_motion_blend_job_run(&mb);
    anim_motion_remove(&out, 0, cur);
    mb.motions = motions;
    mb.output = &m;
    anim_motion_blend_job_run(&mb);
  }
  to_model(w, out);
  w->sink += m.translation.x + w->model[JOINTS - 1].m[12];
}

static double run(world_t *w, int what) {
  double t0 = now_ns();
  for (int i = 0; i < POSES; i++) one(w, i, what);
  return (now_ns() - t0) / POSES;
}

static void measure(world_t *w, const char *label, int what) {
  double r[RUNS];
  run(w, what);
  for (int i = 0; i < RUNS; i++) r[i] = run(w, what);
  qsort(r, RUNS, sizeof *r, cmp_double);
  printf("  %-28s %8.0f (%8.0f) ns/pose\n", label, r[RUNS / 2], r[0]);
}

int main(void) {
  static world_t w;
  w.sk = tree();
  for (int c = 0; c < CLIPS; c++) {
    w.clips[c] = clip_for(w.sk, 1.f + (float)c * 0.5f);
    w.grid[2 * c] = (float)(c % 3) - 1;
    w.grid[2 * c + 1] = (float)(c / 3) - 1;
  }
  w.tri_count =
      anim_blend_space_triangulate(w.grid, CLIPS, w.tris, 2 * CLIPS + 1);
  for (int i = 0; i < POSES; i++) {
    w.times[i] = 20.0 * rnd();
    w.params[2 * i] = (float)(2.4 * rnd() - 1.2);
    w.params[2 * i + 1] = (float)(2.4 * rnd() - 1.2);
  }
  printf("bench_motion: %d joints, %d keys per track, %d poses per run\n",
         JOINTS, KEYS, POSES);
  measure(&w, "plain pose", PLAIN);
  measure(&w, "plain pose + root motion", PLAIN_MOTION);
  measure(&w, "2D blend-space weights", WEIGHTS);
  measure(&w, "  triangulating each call", WEIGHTS_TRIANGULATING);
  measure(&w, "2D blend space pose", SPACE);
  measure(&w, "2D blend space + root motion", SPACE_MOTION);
  if (w.sink == 12345.678) printf(" \n");
  for (int c = 0; c < CLIPS; c++) anim_clip_free(w.clips[c]);
  anim_skeleton_free((anim_skeleton_t *)w.sk);
  return 0;
}
