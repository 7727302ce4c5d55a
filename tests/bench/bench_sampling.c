/* Benchmark: clip sampling and local-to-model on generated humanoid-like
 * skeletons (J = 67, 200 and 1000, depth 13), keys at 30 fps on
 * translation, rotation and scale of every joint, 2 s clips. Single
 * thread; each figure is the median of several runs, in nanoseconds per
 * pose and per joint.
 *
 *   sequential: t += 1/60 s with a sampling context, sample + local-to-model
 *   random:     t uniform in [0, 2] each call, no context, the same work
 *
 * All tracks share one key grid (as BVH and MD5 clips and most exports
 * do), so they are sampled from the clip's key-major rows. It also prints
 * sampling and local-to-model alone on each kernel the CPU runs (AVX-512,
 * AVX2, scalar), and random queries on the same clip off its grid (every
 * track sampled on its own, located once per run of equal key times, by
 * the fixed-rate guess, or by binary search). Times are thread CPU time;
 * the fastest run is printed next to the median. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "animd/animd.h"
#include "core/clip_grid.h"
#include "core/hierarchy_simd.h"
#include "bench_clock.h"

#define RUNS 9
#define FPS 30
#define KEYS 61 /* 2 s at 30 fps, both ends included */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) /
         9007199254740992.0;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

/* A humanoid-like tree: hips, 4 spine joints, neck, head; two arms of
 * clavicle, upper, lower, hand with five 4-joint fingers; two legs of 4;
 * the remaining joints hang off the head (face) or the spine (twists).
 * The deepest finger tip is at depth 13. */
static int add(anim_raw_joint_t *j, char (*names)[24], int *n, int parent) {
  int i = (*n)++;
  snprintf(names[i], 24, "j%d", i);
  memset(&j[i], 0, sizeof j[i]);
  j[i].name = names[i];
  j[i].parent = parent;
  j[i].rest.translation = (anim_vec3_t){0.f, 0.1f, 0.f};
  j[i].rest.rotation.w = 1.f;
  j[i].rest.scale = (anim_vec3_t){1.f, 1.f, 1.f};
  return i;
}

static anim_skeleton_t *humanoid(int count) {
  anim_raw_joint_t *j = calloc((size_t)count, sizeof *j);
  char(*names)[24] = calloc((size_t)count, sizeof *names);
  int n = 0;
  int hips = add(j, names, &n, -1);
  int s1 = add(j, names, &n, hips), s2 = add(j, names, &n, s1);
  int s3 = add(j, names, &n, s2), s4 = add(j, names, &n, s3);
  int neck = add(j, names, &n, s4), head = add(j, names, &n, neck);
  for (int side = 0; side < 2; side++) {
    int c = add(j, names, &n, s4), u = add(j, names, &n, c);
    int l = add(j, names, &n, u), h = add(j, names, &n, l);
    for (int f = 0; f < 5; f++) {
      int p = h;
      for (int k = 0; k < 4; k++) p = add(j, names, &n, p);
    }
    int p = hips;
    for (int k = 0; k < 4; k++) p = add(j, names, &n, p);
  }
  while (n < count) add(j, names, &n, (n % 3 == 0) ? s2 : head);
  anim_raw_skeleton_t raw = {
      .name = "humanoid", .joints = j, .joint_count = (size_t)count};
  anim_skeleton_t *s = NULL;
  anim_build_error_t err;
  if (anim_skeleton_build(&raw, NULL, &s, &err) != ANIM_OK) {
    fprintf(stderr, "skeleton: %s\n", err.message);
    exit(1);
  }
  free(j);
  free(names);
  return s;
}

static anim_clip_t *clip_for(const anim_skeleton_t *s, float **mem) {
  uint32_t n = s->joint_count;
  anim_raw_track_t *tr = calloc(3 * n, sizeof *tr);
  float *m = *mem = calloc((size_t)3 * n * KEYS * 5, sizeof(float));
  for (uint32_t i = 0; i < 3 * n; i++) {
    anim_path path = (anim_path)(i % 3);
    uint32_t comp = path == ANIM_PATH_ROTATION ? 4 : 3;
    float *times = m, *values = m + KEYS;
    m += KEYS * (1 + comp);
    double ph = rnd() * 6.28, amp = 0.2 + rnd();
    anim_vec3_t axis = {(float)rnd() - 0.5f, (float)rnd() - 0.5f,
                        (float)rnd() - 0.5f};
    for (int k = 0; k < KEYS; k++) {
      double t = (double)k / FPS;
      times[k] = (float)t;
      double w = amp * sin(3.0 * t + ph);
      if (path == ANIM_PATH_ROTATION) {
        anim_quat_t q = anim_quat_from_axis_angle(axis, (float)w);
        memcpy(values + 4 * k, &q, sizeof q);
      } else {
        float base = path == ANIM_PATH_SCALE ? 1.f : 0.f;
        for (uint32_t e = 0; e < 3; e++)
          values[3 * k + e] = base + 0.1f * (float)w * (float)(e + 1);
      }
    }
    tr[i] = (anim_raw_track_t){i / 3, path,   ANIM_INTERP_LINEAR,  times,
                               KEYS,  values, (size_t)KEYS * comp, NULL};
  }
  anim_raw_clip_t raw = {"bench", tr, 3 * n, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  if (anim_clip_build(&raw, s, NULL, &c, &err) != ANIM_OK) {
    fprintf(stderr, "clip: %s\n", err.message);
    exit(1);
  }
  free(tr);
  return c;
}

typedef struct world_s {
  const anim_skeleton_t *sk;
  const anim_clip_t *clip;
  anim_sampling_context_t *ctx;
  anim_vec3_t *t, *s;
  anim_quat_t *q;
  anim_mat4_t *model;
  float *times;
  anim__isa isa; /* Kernels no wider than this. */
  double sink;
} world_t;

enum { SAMPLE = 1, L2M = 2 };

/* ns per pose over n poses at w->times: sampling, local-to-model or both
 * (what). */
static double run(world_t *w, int n, int what) {
  uint32_t J = w->sk->joint_count;
  anim_sampling_job_t sj = {.skeleton = w->sk,
                            .clip = w->clip,
                            .context = w->ctx,
                            .output = {w->t, w->q, w->s, J}};
  anim_pose_t pose = {w->t, w->q, w->s, J};
  double t0 = now_ns();
  for (int i = 0; i < n; i++) {
    sj.time = w->times[i];
    if ((what & SAMPLE) && anim__sampling_job_run_isa(&sj, w->isa) != ANIM_OK)
      exit(1);
    if (!(what & L2M)) continue;
    if (w->isa >= ANIM__ISA_AVX512)
      anim__local_to_model_avx512(w->sk, &pose, NULL, 0, J - 1, w->model);
    else if (w->isa >= ANIM__ISA_AVX2)
      anim__local_to_model_avx2(w->sk, &pose, NULL, 0, J - 1, w->model);
    else
      anim__local_to_model_portable(w->sk, &pose, NULL, 0, J - 1, w->model);
  }
  double dt = now_ns() - t0;
  w->sink += (what & L2M) ? w->model[J - 1].m[12] : w->q[J - 1].w;
  return dt / n;
}

typedef struct fig_s {
  double median, best;
} fig_t;

static fig_t measure(world_t *w, int n, int what) {
  double r[RUNS];
  run(w, n, what); /* warm up */
  for (int i = 0; i < RUNS; i++) r[i] = run(w, n, what);
  fig_t f = {median(r, RUNS), r[0]};
  return f;
}

static void print_fig(const char *label, fig_t f, uint32_t J) {
  printf("  %-34s %8.0f (%8.0f) ns/pose  %6.2f ns/joint\n", label, f.median,
         f.best, f.median / J);
}

int main(void) {
  const int sizes[3] = {67, 200, 1000};
  const int N = 4000;
  static const char *const isa_names[3] = {"scalar", "AVX2", "AVX-512"};
  double sink = 0;
  printf("sampling + local-to-model, LINEAR keys at %d fps on T/R/S, "
         "2 s clip, median (best) of %d runs; this CPU runs %s\n",
         FPS, RUNS, isa_names[anim__cpu_isa()]);
  for (int si = 0; si < 3; si++) {
    anim_skeleton_t *sk = humanoid(sizes[si]);
    int depth = 0;
    for (uint32_t k = 0; k < sk->joint_count; k++) {
      int d = 1;
      for (int p = sk->parents[k]; p >= 0; p = sk->parents[p]) d++;
      depth = d > depth ? d : depth;
    }
    float *mem;
    anim_clip_t *clip = clip_for(sk, &mem);
    uint32_t J = sk->joint_count;
    uint32_t *cur = calloc(clip->track_count, sizeof *cur);
    anim_sampling_context_t ctx;
    anim_sampling_context_init(&ctx, clip, cur, clip->track_count);
    world_t w = {sk,
                 clip,
                 &ctx,
                 malloc(J * sizeof(anim_vec3_t)),
                 malloc(J * sizeof(anim_vec3_t)),
                 malloc(J * sizeof(anim_quat_t)),
                 malloc(J * sizeof(anim_mat4_t)),
                 malloc(N * sizeof(float)),
                 anim__cpu_isa(),
                 0};
    printf("J=%u (depth %d, %u tracks):\n", J, depth, clip->track_count);
    for (int i = 0; i < N; i++)
      w.times[i] = fmodf((float)i / 60.f, clip->duration);
    print_fig("sequential, sample + l2m", measure(&w, N, SAMPLE | L2M), J);
    for (int isa = (int)anim__cpu_isa(); isa >= ANIM__ISA_SCALAR; isa--) {
      char label[64];
      w.isa = (anim__isa)isa;
      snprintf(label, sizeof label, "sequential, sample only, %s",
               isa_names[isa]);
      print_fig(label, measure(&w, N, SAMPLE), J);
      snprintf(label, sizeof label, "local-to-model only, %s", isa_names[isa]);
      print_fig(label, measure(&w, N, L2M), J);
    }
    w.isa = anim__cpu_isa();
    for (int i = 0; i < N; i++) w.times[i] = (float)(rnd() * clip->duration);
    w.ctx = NULL;
    print_fig("random, sample + l2m", measure(&w, N, SAMPLE | L2M), J);
    print_fig("random, sample only", measure(&w, N, SAMPLE), J);
    /* The same clip off its key grid: every track sampled on its own
     * (locating the segment once for the run of equal key times), then
     * each track located by the fixed-rate guess, then by binary search. */
    anim_clip_t copy = *clip;
    anim_track_t *tracks = malloc(clip->track_count * sizeof *tracks);
    uint32_t *all = malloc(clip->track_count * sizeof *all);
    memcpy(tracks, clip->tracks, clip->track_count * sizeof *tracks);
    for (uint32_t i = 0; i < clip->track_count; i++) {
      tracks[i]._same_times = i > 0;
      all[i] = i;
    }
    copy.tracks = tracks;
    copy._grid = NULL;
    copy._others = all;
    copy._other_count = clip->track_count;
    w.clip = &copy;
    print_fig("random, sample only, off the grid", measure(&w, N, SAMPLE), J);
    for (uint32_t i = 0; i < clip->track_count; i++) tracks[i]._same_times = 0;
    print_fig("  each track located (grid guess)", measure(&w, N, SAMPLE), J);
    for (uint32_t i = 0; i < clip->track_count; i++) tracks[i].fixed_rate = 0;
    print_fig("  each track by binary search", measure(&w, N, SAMPLE), J);
    sink += w.sink;
    free(tracks);
    free(all);
    free(w.t);
    free(w.s);
    free(w.q);
    free(w.model);
    free(w.times);
    free(cur);
    free(mem);
    anim_clip_free(clip);
    anim_skeleton_free(sk);
  }
  printf("(checksum %g)\n", sink);
  return 0;
}
