/* Benchmark of blending on a 67-joint rig (a binary tree, every joint
 * rotating, 11 keys a track): the blend job alone (anim_blend_job_run)
 * with 2 and 4 layers, in ns per pose and per joint (the same jobs
 * through ozz-animation 0.16: make bench-ozz); then poses through the
 * request pipeline (srv_eval_run, model space, as POST /v1/pose and a
 * WebSocket stream run them): one clip, 2 and 4 weighted layers, a 1D
 * blend space of 3 clips and a 2D blend space of 9 clips on a 3x3 grid
 * (the "blend_space" field: weights, synchronized times, the weighted
 * clips sampled and blended, local-to-model), in ns per frame. The
 * clips' lengths differ (10 to 14 s) so synchronizing them matters; the
 * blend-space param cycles through 8 places. Single thread, thread CPU
 * time, the median of 9 runs (the fastest in brackets); fixed seed and
 * counts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "formats/buf.h"
#include "formats/native_json.h"
#include "server/request/evaluate.h"
#include "server/request/fields.h"
#include "bench_clock.h"

#define JOINTS 67
#define KEYS 11
#define CLIPS 9
#define RUNS 9
#define BLENDS 10000 /* Blend jobs per run. */
#define FRAMES 3000  /* Pipeline frames per run. */
#define PARAMS 8

static uint32_t rng = 2463534242u;
static double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (double)(rng >> 8) / 16777216.0;
}

/* A unit quaternion about 0.5 rad around identity. */
static anim_quat_t near_identity(void) {
  double x = uniform(-0.25, 0.25), y = uniform(-0.25, 0.25),
         z = uniform(-0.25, 0.25), n = sqrt(x * x + y * y + z * z + 1);
  return (anim_quat_t){(float)(x / n), (float)(y / n), (float)(z / n),
                       (float)(1 / n)};
}

static void print_cpu(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      printf("bench_blend on%s", v != NULL ? v + 1 : line);
      break;
    }
  if (f != NULL) fclose(f);
}

/* The rig and its CLIPS clips ("c0".., clip c lasting 10 + c / 2 s) as
 * native JSON: joint j's parent (j - 1) / 2. */
static void rig(fmt_buf_t *b) {
  fmt_buf_puts(b, "{\"skeleton\":{\"name\":\"bench\",\"joints\":[");
  for (int j = 0; j < JOINTS; j++)
    fmt_buf_printf(b,
                   "%s{\"name\":\"j%d\",\"parent\":%d,\"translation\":[0.3,"
                   "0.1,0.02]}",
                   j ? "," : "", j, j ? (j - 1) / 2 : -1);
  fmt_buf_puts(b, "]},\"clips\":[");
  for (int c = 0; c < CLIPS; c++) {
    double seconds = 10 + 0.5 * c;
    fmt_buf_printf(b, "%s{\"name\":\"c%d\",\"tracks\":[", c ? "," : "", c);
    for (int j = 0; j < JOINTS; j++) {
      fmt_buf_printf(b,
                     "%s{\"joint\":\"j%d\",\"path\":\"rotation\",\"times\":[",
                     j ? "," : "", j);
      for (int k = 0; k < KEYS; k++)
        fmt_buf_printf(b, "%s%g", k ? "," : "", seconds * k / (KEYS - 1));
      fmt_buf_puts(b, "],\"values\":[");
      for (int k = 0; k < KEYS; k++) {
        anim_quat_t q = near_identity();
        fmt_buf_printf(b, "%s%.9g,%.9g,%.9g,%.9g", k ? "," : "", q.x, q.y, q.z,
                       q.w);
      }
      fmt_buf_puts(b, "]}");
    }
    fmt_buf_puts(b, "]}");
  }
  fmt_buf_puts(b, "]}");
}

/* The median and the fastest of RUNS runs of fn(arg), each returning ns
 * per item, after one unmeasured run. */
typedef double (*run_fn)(void *arg);
static void measure(const char *label, const char *unit, run_fn fn, void *arg,
                    double per_joint_div) {
  double r[RUNS];
  fn(arg);
  for (int i = 0; i < RUNS; i++) r[i] = fn(arg);
  qsort(r, RUNS, sizeof *r, cmp_double);
  printf("  %-34s %8.0f (%8.0f) %s", label, r[RUNS / 2], r[0], unit);
  if (per_joint_div > 0)
    printf("  %6.2f ns/joint", r[RUNS / 2] / per_joint_div);
  printf("\n");
}

/* ---- the blend job alone -------------------------------------------------*/

typedef struct blend_bench_s {
  const anim_skeleton_t *sk;
  anim_vec3_t t[5][JOINTS], s[5][JOINTS];
  anim_quat_t q[5][JOINTS];
  size_t layers;
  float sink;
} blend_bench_t;

static anim_pose_t pose_at(blend_bench_t *b, size_t i) {
  return (anim_pose_t){b->t[i], b->q[i], b->s[i], JOINTS};
}

static double blend_run(void *arg) {
  blend_bench_t *b = arg;
  anim_blend_layer_t l[4];
  for (size_t i = 0; i < b->layers; i++)
    l[i] = (anim_blend_layer_t){.pose = pose_at(b, i)};
  anim_blend_job_t job = {.skeleton = b->sk,
                          .layers = l,
                          .layer_count = b->layers,
                          .output = pose_at(b, 4)};
  double t0 = now_ns();
  for (int i = 0; i < BLENDS; i++) {
    /* Weights move every pose; they sum to 1. */
    float u = (float)(i & 1023) / 1024.f;
    for (size_t k = 0; k < b->layers; k++)
      l[k].weight = k == 0 ? u : (1.f - u) / (float)(b->layers - 1);
    if (anim_blend_job_run(&job) != ANIM_OK) exit(1);
    b->sink += b->q[4][JOINTS - 1].x;
  }
  return (now_ns() - t0) / BLENDS;
}

/* ---- poses through the pipeline ------------------------------------------*/

typedef struct eval_bench_s {
  srv_eval_job_t job;
  srv_eval_scratch_t scratch;
  srv_fields_t fields[PARAMS]; /* A blend space at PARAMS places, or none. */
  bool with_fields;
  float sink;
} eval_bench_t;

static double eval_run(void *arg) {
  eval_bench_t *e = arg;
  double t0 = now_ns();
  for (int i = 0; i < FRAMES; i++) {
    e->job.fields = e->with_fields ? &e->fields[i % PARAMS] : NULL;
    /* 30 fps over 10 s, then again. */
    double t = (double)(i % 300) / 30.0;
    e->job.t = t;
    srv_eval_layer_t *layers = (srv_eval_layer_t *)e->job.layers;
    for (size_t k = 0; k < e->job.layer_count; k++) layers[k].t = t;
    if (srv_eval_run(&e->job, &e->scratch) != ANIM_OK) exit(1);
    e->sink += e->job.out[12];
  }
  return (now_ns() - t0) / FRAMES;
}

/* The blend space field at PARAMS places: 1D over [0, 2] with clips at 0,
 * 1 and 2, or 2D over [-1, 1]^2 with the 9 clips on the grid. */
static int blend_space_fields(const anim_skeleton_t *sk, int dims,
                              srv_fields_t *out) {
  for (int p = 0; p < PARAMS; p++) {
    fmt_buf_t b;
    fmt_buf_init(&b);
    if (dims == 1)
      fmt_buf_printf(&b, "{\"blend_space\":{\"param\":[%g],\"clips\":[",
                     0.1 + 1.8 * p / (PARAMS - 1));
    else
      fmt_buf_printf(&b, "{\"blend_space\":{\"param\":[%g,%g],\"clips\":[",
                     -0.9 + 1.8 * p / (PARAMS - 1),
                     0.85 - 1.7 * ((p * 3) % PARAMS) / (PARAMS - 1));
    int n = dims == 1 ? 3 : CLIPS;
    for (int c = 0; c < n; c++) {
      if (dims == 1)
        fmt_buf_printf(&b, "%s{\"clip\":\"c%d\",\"at\":[%d]}", c ? "," : "", c,
                       c);
      else
        fmt_buf_printf(&b, "%s{\"clip\":\"c%d\",\"at\":[%d,%d]}", c ? "," : "",
                       c, c % 3 - 1, c / 3 - 1);
    }
    fmt_buf_puts(&b, "]}}");
    json_t *o = json_loadb(b.data, b.len, 0, NULL);
    srv_error_t err;
    memset(&out[p], 0, sizeof out[p]);
    int r = o == NULL ||
            srv_fields_from_json(o, SRV_TAKES_POSE_BODY, &out[p], &err) != 0 ||
            srv_fields_resolve(&out[p], sk, NULL, &err) != 0;
    json_decref(o);
    if (r) {
      fprintf(stderr, "bench_blend: %.*s: %s\n", (int)b.len, b.data,
              err.message);
      return -1;
    }
    fmt_buf_free(&b);
  }
  return 0;
}

int main(void) {
  print_cpu();
  fmt_buf_t b;
  fmt_buf_init(&b);
  rig(&b);
  fmt_bundle_t bundle;
  fmt_error_t fe = {0};
  if (fmt_decode_native_json(b.data, b.len, NULL, &bundle, &fe) != 0) {
    fprintf(stderr, "bench_blend: rig: %s\n", fe.message);
    return 1;
  }
  fmt_buf_free(&b);
  const anim_skeleton_t *sk = bundle.skeletons[0];

  static blend_bench_t bb;
  bb.sk = sk;
  for (int i = 0; i < 5; i++) {
    anim_pose_set_rest(sk, &(anim_pose_t){bb.t[i], bb.q[i], bb.s[i], JOINTS});
    for (int j = 0; j < JOINTS; j++) bb.q[i][j] = near_identity();
  }
  printf("blending, %d-joint rig, weights moving every pose:\n", JOINTS);
  bb.layers = 2;
  measure("blend job, 2 layers", "ns/pose", blend_run, &bb, JOINTS);
  bb.layers = 4;
  measure("blend job, 4 layers", "ns/pose", blend_run, &bb, JOINTS);

  static float out[16 * JOINTS];
  static eval_bench_t e;
  srv_eval_layer_t layers[CLIPS];
  for (int c = 0; c < CLIPS; c++)
    layers[c] = (srv_eval_layer_t){.clip = bundle.clips[c].clip,
                                   .wrap = ANIM_WRAP_LOOP,
                                   .weight = 1.f / (float)(c + 1)};
  e.job = (srv_eval_job_t){.skeleton = sk,
                           .clip = bundle.clips[0].clip,
                           .wrap = ANIM_WRAP_LOOP,
                           .space = FMT_SPACE_MODEL,
                           .out = out};
  printf("poses through the pipeline, model space, 30 fps:\n");
  measure("one clip", "ns/frame", eval_run, &e, 0);
  e.job.layers = layers;
  e.job.layer_count = 2;
  measure("2 layers blended", "ns/frame", eval_run, &e, 0);
  e.job.layer_count = 4;
  measure("4 layers blended", "ns/frame", eval_run, &e, 0);
  if (blend_space_fields(sk, 1, e.fields) != 0) return 1;
  e.with_fields = true;
  e.job.layer_count = 3;
  measure("1D blend space, 3 clips", "ns/frame", eval_run, &e, 0);
  for (int p = 0; p < PARAMS; p++) srv_fields_free(&e.fields[p]);
  if (blend_space_fields(sk, 2, e.fields) != 0) return 1;
  e.job.layer_count = CLIPS;
  measure("2D blend space, 9 clips", "ns/frame", eval_run, &e, 0);
  for (int p = 0; p < PARAMS; p++) srv_fields_free(&e.fields[p]);
  if (bb.sink + e.sink == 12345.678f) printf(" \n");
  srv_eval_scratch_free(&e.scratch);
  fmt_bundle_free(&bundle);
  return 0;
}
