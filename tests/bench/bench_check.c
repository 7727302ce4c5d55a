/* Benchmark: GET /v1/clips/{id}/check's work (verdict_check_run) on a
 * 23 s BVH (CMU 01_01, 31 joints, from the shared test assets) at 60 fps
 * with every check on (feet LeftFoot and RightFoot, loop=1): 1,381
 * samples, each a local and a model-space pose through the evaluation
 * pipeline. Single thread, thread CPU time; the median of several runs
 * (the fastest beside it), in ms per check, samples (frames) per ms and
 * ns per frame.
 * Skipped with a message when the assets are missing (ANIMD_SHARED, else
 * ../shared). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/bundle.h"
#include "server/verdict/check.h"
#include "bench_clock.h"

#define RUNS 9

static void print_cpu(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      printf("cpu:%s", v != NULL ? v + 1 : line);
      break;
    }
  if (f != NULL) fclose(f);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n > 0 ? malloc((size_t)n) : NULL;
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(void) {
  const char *shared = getenv("ANIMD_SHARED");
  char path[1024];
  snprintf(path, sizeof path, "%s/assets/bvh/cmu/01_01.bvh",
           shared != NULL ? shared : "../shared");
  size_t len;
  char *bvh = read_file(path, &len);
  if (bvh == NULL) {
    printf("bench_check: skipped, needs the shared test assets (%s; set "
           "ANIMD_SHARED)\n",
           path);
    return 0;
  }
  fmt_bundle_t bundle = {0};
  fmt_error_t ferr = {0};
  if (fmt_decode_bvh(bvh, len, NULL, &bundle, &ferr) != 0 ||
      bundle.clip_count == 0) {
    fprintf(stderr, "bench_check: %s: %s\n", path, ferr.message);
    return 1;
  }
  free(bvh);
  const anim_skeleton_t *sk = bundle.skeletons[0];
  const anim_clip_t *clip = bundle.clips[0].clip;
  verdict_check_params_t p;
  verdict_check_params_defaults(&p);
  srv_error_t err;
  if (verdict_check_param_set(&p, "feet", "LeftFoot,RightFoot", &err) != 0 ||
      verdict_check_param_set(&p, "loop", "1", &err) != 0 ||
      verdict_check_param_set(&p, "contact_height", "5", &err) != 0 ||
      verdict_check_param_set(&p, "skate_speed", "50", &err) != 0) {
    fprintf(stderr, "bench_check: %s\n", err.message);
    return 1;
  }
  print_cpu();
  double ms[RUNS];
  uint32_t samples = 0;
  verdict_check_report_t r;
  for (int i = 0; i < RUNS + 1; i++) {
    double t0 = now_ns();
    if (verdict_check_run(sk, clip, &p, 1000000, &r, &err) != 0) {
      fprintf(stderr, "bench_check: %s\n", err.message);
      return 1;
    }
    double t1 = now_ns();
    samples = r.samples;
    verdict_check_report_free(&r);
    if (i > 0) ms[i - 1] = (t1 - t0) / 1e6; /* The first run warms up. */
  }
  qsort(ms, RUNS, sizeof ms[0], cmp_double);
  printf("check of %s: %.2f s, %u joints, %u samples at 60 fps, 6 checks\n",
         path, (double)clip->duration, sk->joint_count, samples);
  printf("  %.3f ms per check (fastest %.3f), %.1f frames per ms, %.0f "
         "ns/frame\n",
         ms[RUNS / 2], ms[0], samples / ms[RUNS / 2],
         ms[RUNS / 2] * 1e6 / samples);
  verdict_check_params_free(&p);
  fmt_bundle_free(&bundle);
  return 0;
}
