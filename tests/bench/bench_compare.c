/* Benchmark of POST /v1/compare's work (verdict/compare.h, without HTTP):
 * two clips of a 67-joint skeleton (every joint rotating, the root
 * moving, 11 keys over 10 s; the second clip's keys nudged) compared over
 * 10 s at 30 fps (301 frames: both poses evaluated in model space through
 * the one pipeline, then the shell error of the 67 joints), in ms per
 * comparison, frames per ms and ns per frame, on the CPU named. Single
 * thread, thread CPU time, the median of RUNS runs (the fastest beside
 * it). Fixed seed, fixed count; the max error is printed so nothing is
 * optimized away. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "formats/buf.h"
#include "formats/native_json.h"
#include "server/verdict/compare.h"
#include "bench_clock.h"

#define JOINTS 67
#define KEYS 11
#define SECONDS 10.0
#define RUNS 15

static uint32_t rng = 2463534242u;
static double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (double)(rng >> 8) / 16777216.0;
}

/* A unit quaternion near identity (about 0.5 rad), nudged by nudge. */
static void quat(double nudge, double q[4]) {
  double x = uniform(-0.25, 0.25) + nudge, y = uniform(-0.25, 0.25),
         z = uniform(-0.25, 0.25);
  double n = sqrt(x * x + y * y + z * z + 1);
  q[0] = x / n;
  q[1] = y / n;
  q[2] = z / n;
  q[3] = 1 / n;
}

/* One clip of the rig, named name, as a native JSON member. */
static void clip(fmt_buf_t *b, const char *name, double nudge) {
  fmt_buf_printf(b, "{\"name\":\"%s\",\"tracks\":[", name);
  for (int j = 0; j < JOINTS; j++) {
    fmt_buf_printf(b, "%s{\"joint\":\"j%d\",\"path\":\"rotation\",\"times\":[",
                   j ? "," : "", j);
    for (int k = 0; k < KEYS; k++)
      fmt_buf_printf(b, "%s%g", k ? "," : "", SECONDS * k / (KEYS - 1));
    fmt_buf_puts(b, "],\"values\":[");
    for (int k = 0; k < KEYS; k++) {
      double q[4];
      quat(k % 3 == 1 ? nudge : 0, q);
      fmt_buf_printf(b, "%s%.9g,%.9g,%.9g,%.9g", k ? "," : "", q[0], q[1], q[2],
                     q[3]);
    }
    fmt_buf_puts(b, "]}");
  }
  fmt_buf_printf(b,
                 ",{\"joint\":\"j0\",\"path\":\"translation\",\"times\":"
                 "[0,%g],\"values\":[0,1,0,%g,1,0]}]}",
                 SECONDS, 2 + nudge);
}

static store_t *rig_store(void) {
  fmt_buf_t b;
  fmt_buf_init(&b);
  fmt_buf_puts(&b, "{\"skeleton\":{\"name\":\"bench\",\"joints\":[");
  for (int j = 0; j < JOINTS; j++)
    fmt_buf_printf(&b,
                   "%s{\"name\":\"j%d\",\"parent\":%d,\"translation\":[0,"
                   "0.1,0.02]}",
                   j ? "," : "", j, j ? (j - 1) / 2 : -1);
  fmt_buf_puts(&b, "]},\"clips\":[");
  clip(&b, "take1", 0);
  fmt_buf_putc(&b, ',');
  rng = 2463534242u; /* the same keys, some nudged */
  clip(&b, "take2", 0.01);
  fmt_buf_puts(&b, "]}");
  store_options_t o = {0};
  fmt_error_t fe = {0};
  store_t *st = NULL;
  fmt_bundle_t bundle;
  store_ingest_result_t res;
  if (store_open(&o, &st, &fe) != 0 ||
      fmt_decode_native_json(b.data, b.len, NULL, &bundle, &fe) != 0) {
    fprintf(stderr, "bench_compare: rig: %s\n", fe.message);
    return NULL;
  }
  if (store_ingest(st, &bundle, NULL, &res, &fe) != 0) {
    fprintf(stderr, "bench_compare: ingest: %s\n", fe.message);
    return NULL;
  }
  store_ingest_result_free(&res);
  fmt_bundle_free(&bundle);
  fmt_buf_free(&b);
  return st;
}

static void cpu_model(char *out, size_t cap) {
  snprintf(out, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      if (v != NULL) {
        v += strspn(v, ": \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, cap, "%s", v);
      }
      break;
    }
  fclose(f);
}

int main(void) {
  store_t *st = rig_store();
  if (st == NULL) return 1;
  json_t *body =
      json_pack("{s:{s:s},s:{s:s},s:f,s:f,s:f}", "a", "clip", "take1", "b",
                "clip", "take2", "from", 0.0, "to", SECONDS, "fps", 30.0);
  verdict_compare_t c;
  srv_error_t err;
  if (verdict_compare_parse(body, "", &c, &err) != 0 ||
      verdict_compare_resolve(st, &c, &err, NULL) != 0) {
    fprintf(stderr, "bench_compare: %s at %s\n", err.message, err.at);
    return 1;
  }
  json_decref(body);
  verdict_compare_result_t r;
  double runs[RUNS], max = 0;
  uint32_t frames = 0;
  for (int i = 0; i < RUNS + 1; i++) {
    double t0 = now_ns();
    if (verdict_compare_run(&c, 100000, &r, &err) != 0) {
      fprintf(stderr, "bench_compare: %s\n", err.message);
      return 1;
    }
    double ms = (now_ns() - t0) / 1e6;
    frames = r.frames;
    max += r.max_error;
    verdict_compare_result_free(&r);
    if (i > 0) runs[i - 1] = ms; /* The first run warms up. */
  }
  qsort(runs, RUNS, sizeof *runs, cmp_double);
  char cpu[128];
  cpu_model(cpu, sizeof cpu);
  double median = runs[RUNS / 2], best = runs[0];
  printf("compare, 2 clips x %d joints, %.0f s at 30 fps (%u frames): "
         "%.3f ms/compare (best %.3f), %.1f frames/ms, %.0f ns/frame  (max "
         "error sum %.4g; %s)\n",
         JOINTS, SECONDS, frames, median, best, frames / median,
         median * 1e6 / frames, max, cpu);
  verdict_compare_free(&c);
  store_close(st);
  return 0;
}
