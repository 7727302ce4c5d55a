/* Benchmark: the retarget job (animd/retarget.h), cost per baked frame.
 *
 * A generated skeleton of J joints (J = 31, as a CMU BVH, and 67, as a
 * game humanoid; a binary tree), an 8 s clip with a rotation on every
 * joint and a root translation, keys at 120 fps (a CMU capture), baked at
 * 30 fps onto a copy with every offset scaled by 1.3, every joint mapped.
 * Also the auto map (names normalized and paired) once per skeleton pair.
 * Single thread; figures are the median of RUNS runs (the fastest run
 * beside it), thread CPU time, per baked frame and per frame and joint. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "animd/animd.h"
#include "bench_clock.h"

#define RUNS 9
#define SECONDS 8
#define SOURCE_FPS 120
#define BAKE_FPS 30.0f

static anim_skeleton_t *skeleton(uint32_t n, float scale) {
  anim_raw_joint_t *j = calloc(n, sizeof *j);
  char(*names)[16] = calloc(n, sizeof *names);
  for (uint32_t i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "j%u", i);
    j[i] = (anim_raw_joint_t){
        .name = names[i],
        .parent = i == 0 ? -1 : (int32_t)(i - 1) / 2,
        .rest = {.translation =
                     anim_vec3(scale * 0.1f * (float)(i % 3), scale * 0.2f, 0),
                 .rotation = anim_quat_identity(),
                 .scale = anim_vec3(1, 1, 1)}};
  }
  anim_raw_skeleton_t raw = {.joints = j, .joint_count = n};
  anim_skeleton_t *s = NULL;
  if (anim_skeleton_build(&raw, NULL, &s, NULL) != ANIM_OK) exit(1);
  free(j);
  free(names);
  return s;
}

static anim_clip_t *clip(const anim_skeleton_t *s) {
  uint32_t n = s->joint_count, keys = SECONDS * SOURCE_FPS + 1;
  float *times = malloc(keys * sizeof *times);
  float *rot = malloc((size_t)n * keys * 4 * sizeof *rot);
  float *tr = malloc((size_t)keys * 3 * sizeof *tr);
  anim_raw_track_t *tracks = calloc(n + 1, sizeof *tracks);
  for (uint32_t k = 0; k < keys; k++) {
    times[k] = (float)k / SOURCE_FPS;
    tr[k * 3] = 0.1f * times[k];
    tr[k * 3 + 1] = 1 + 0.03f * sinf(6 * times[k]);
    tr[k * 3 + 2] = 1.4f * times[k];
  }
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t k = 0; k < keys; k++) {
      anim_quat_t q = anim_quat_from_axis_angle(
          anim_vec3_normalize(anim_vec3(1, 0.1f * (float)i, 0.2f)),
          0.5f * sinf(3 * times[k] + (float)i));
      memcpy(rot + ((size_t)i * keys + k) * 4, &q, sizeof q);
    }
    tracks[i] = (anim_raw_track_t){.joint = i,
                                   .path = ANIM_PATH_ROTATION,
                                   .times = times,
                                   .key_count = keys,
                                   .values = rot + (size_t)i * keys * 4,
                                   .value_count = (size_t)keys * 4};
  }
  tracks[n] = (anim_raw_track_t){.joint = 0,
                                 .path = ANIM_PATH_TRANSLATION,
                                 .times = times,
                                 .key_count = keys,
                                 .values = tr,
                                 .value_count = (size_t)keys * 3};
  anim_raw_clip_t raw = {.tracks = tracks, .track_count = n + 1};
  anim_clip_t *c = NULL;
  if (anim_clip_build(&raw, s, NULL, &c, NULL) != ANIM_OK) exit(1);
  free(times);
  free(rot);
  free(tr);
  free(tracks);
  return c;
}

static void cpu_name(char *out, size_t cap) {
  snprintf(out, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *v = strchr(line, ':');
    if (v == NULL) break;
    v += 2;
    snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
    break;
  }
  fclose(f);
}

static void bench(uint32_t n) {
  anim_skeleton_t *src = skeleton(n, 1), *dst = skeleton(n, 1.3f);
  anim_clip_t *c = clip(src);
  anim_retarget_pair_t *pairs = malloc(n * sizeof *pairs);
  size_t map_bytes = ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * 2 * (size_t)n;
  char *map_scratch = malloc(map_bytes);
  double map_ns[RUNS], bake_ns[RUNS];
  size_t np = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = now_ns();
    np = anim_retarget_auto_map(src, dst, pairs, n, map_scratch, map_bytes);
    map_ns[r] = now_ns() - t0;
  }
  if (np != n) exit(1);
  uint32_t nf = anim_retarget_frame_count(c->duration, BAKE_FPS);
  size_t sb = anim_retarget_scratch_bytes(src, c, dst);
  void *scratch = malloc(sb);
  float *times = malloc(nf * sizeof *times);
  float *rot = malloc((size_t)n * nf * 4 * sizeof *rot);
  float *tr = malloc((size_t)nf * 3 * sizeof *tr);
  anim_retarget_job_t job = {
      .source = src,
      .clip = c,
      .target = dst,
      .pairs = pairs,
      .pair_count = np,
      .root_pair = (uint32_t)anim_retarget_root_pair(dst, pairs, np),
      .fps = BAKE_FPS,
      .frame_count = nf,
      .scratch = scratch,
      .scratch_bytes = sb,
      .times = times,
      .rotations = rot,
      .translations = tr};
  for (int r = 0; r < RUNS; r++) {
    double t0 = now_ns();
    if (anim_retarget_job_run(&job) != ANIM_OK) exit(1);
    bake_ns[r] = now_ns() - t0;
  }
  double best = bake_ns[0];
  for (int r = 1; r < RUNS; r++)
    if (bake_ns[r] < best) best = bake_ns[r];
  qsort(bake_ns, RUNS, sizeof(double), cmp_double);
  qsort(map_ns, RUNS, sizeof(double), cmp_double);
  double per_frame = bake_ns[RUNS / 2] / nf;
  printf("retarget J=%-3u %u frames (%d s of %d fps keys at %.0f fps): "
         "%8.0f ns/frame (best %.0f), %6.1f ns/frame/joint; auto map "
         "%.1f us\n",
         n, nf, SECONDS, SOURCE_FPS, (double)BAKE_FPS, per_frame, best / nf,
         per_frame / n, map_ns[RUNS / 2] / 1e3);
  free(scratch);
  free(times);
  free(rot);
  free(tr);
  free(pairs);
  free(map_scratch);
  anim_clip_free(c);
  anim_skeleton_free(src);
  anim_skeleton_free(dst);
}

int main(void) {
  char cpu[128];
  cpu_name(cpu, sizeof cpu);
  printf("bench_retarget on %s (one thread, median of %d runs)\n", cpu, RUNS);
  bench(31);
  bench(67);
  return 0;
}
