/* Benchmark of POST /v1/test's and `animd test`'s work (verdict/suite.h,
 * without HTTP) on a 67-joint rig (every joint rotating, 11 keys over
 * 10 s) in a store: suites of 64 pose cases, each one model-space pose
 * through the pipeline with E expectations (half positions, half
 * rotations; all passing), timed per step: parse + resolve, run, and the
 * JSON and JUnit reports; ns per case, and the cost of one more
 * expectation (E = 16 against E = 1). Then a suite of one compare case
 * (the 67 joints over 10 s at 30 fps, 301 frames) and one of one check
 * case (the clip at 60 fps, two feet, not looping), in ns per frame
 * checked. Single thread, thread CPU time, the median of 9 runs (the
 * fastest in brackets); fixed seed and counts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/buf.h"
#include "formats/native_json.h"
#include "server/verdict/suite.h"
#include "bench_clock.h"

#define JOINTS 67
#define KEYS 11
#define SECONDS 10.0
#define CASES 64
#define RUNS 9
#define REPEATS 6 /* Suites per run of the pose cases. */
#define MAX_FRAMES 100000u

static uint32_t rng = 2463534242u;
static double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (double)(rng >> 8) / 16777216.0;
}

static void print_cpu(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      printf("bench_test on%s", v != NULL ? v + 1 : line);
      break;
    }
  if (f != NULL) fclose(f);
}

/* One clip of the rig, named name, as a native JSON member: every joint
 * rotating (about 0.5 rad around identity), the root moving. */
static void clip(fmt_buf_t *b, const char *name) {
  fmt_buf_printf(b, "{\"name\":\"%s\",\"tracks\":[", name);
  for (int j = 0; j < JOINTS; j++) {
    fmt_buf_printf(b, "%s{\"joint\":\"j%d\",\"path\":\"rotation\",\"times\":[",
                   j ? "," : "", j);
    for (int k = 0; k < KEYS; k++)
      fmt_buf_printf(b, "%s%g", k ? "," : "", SECONDS * k / (KEYS - 1));
    fmt_buf_puts(b, "],\"values\":[");
    for (int k = 0; k < KEYS; k++) {
      double x = uniform(-0.25, 0.25), y = uniform(-0.25, 0.25),
             z = uniform(-0.25, 0.25), n = sqrt(x * x + y * y + z * z + 1);
      fmt_buf_printf(b, "%s%.9g,%.9g,%.9g,%.9g", k ? "," : "", x / n, y / n,
                     z / n, 1 / n);
    }
    fmt_buf_puts(b, "]}");
  }
  fmt_buf_printf(b,
                 ",{\"joint\":\"j0\",\"path\":\"translation\",\"times\":"
                 "[0,%g],\"values\":[0,1,0,2,1,0]}]}",
                 SECONDS);
}

/* A store holding the rig "bench" (joint j's parent (j - 1) / 2) and its
 * clips "take1" and "take2". */
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
  clip(&b, "take1");
  fmt_buf_putc(&b, ',');
  clip(&b, "take2");
  fmt_buf_puts(&b, "]}");
  store_options_t o = {0};
  fmt_error_t fe = {0};
  store_t *st = NULL;
  fmt_bundle_t bundle;
  store_ingest_result_t res;
  if (store_open(&o, &st, &fe) != 0 ||
      fmt_decode_native_json(b.data, b.len, NULL, &bundle, &fe) != 0 ||
      store_ingest(st, &bundle, NULL, &res, &fe) != 0) {
    fprintf(stderr, "bench_test: rig: %s\n", fe.message);
    return NULL;
  }
  store_ingest_result_free(&res);
  fmt_bundle_free(&bundle);
  fmt_buf_free(&b);
  return st;
}

/* A suite of CASES pose cases with expectations each (joints spread over
 * the tree, tolerances wide enough that every one passes). */
static void pose_suite(fmt_buf_t *b, int expectations) {
  fmt_buf_puts(b, "{\"name\":\"bench\",\"cases\":[");
  for (int c = 0; c < CASES; c++) {
    fmt_buf_printf(b,
                   "%s{\"name\":\"pose%d\",\"pose\":{\"skeleton\":\"bench\","
                   "\"layers\":[{\"clip\":\"take1\",\"t\":%g}]},\"expect\":[",
                   c ? "," : "", c, SECONDS * c / CASES);
    for (int e = 0; e < expectations; e++)
      fmt_buf_printf(
          b,
          e % 2
              ? "%s{\"joint\":\"j%d\",\"rotation\":[0,0,0,1],"
                "\"tolerance_deg\":180}"
              : "%s{\"joint\":\"j%d\",\"position\":[0,1,0],\"tolerance\":1e6}",
          e ? "," : "", (e * 13 + c) % JOINTS);
    fmt_buf_puts(b, "]}");
  }
  fmt_buf_puts(b, "]}");
}

typedef struct steps_s {
  double parse, run, json, junit; /* ns per case, medians */
  double parse_min, run_min, json_min, junit_min;
} steps_t;

static int parsed(const fmt_buf_t *text, store_t *st, verdict_suite_t *s) {
  srv_error_t err;
  if (verdict_suite_parse(text->data, text->len, NULL, 1000, s, &err) != 0)
    goto fail;
  if (verdict_suite_resolve(st, s, &err, NULL) != 0) {
    verdict_suite_free(s);
    goto fail;
  }
  return 0;
fail:
  fprintf(stderr, "bench_test: %s at %s\n", err.message, err.at);
  return -1;
}

/* Each step of text's suite, repeated suites times per run, in ns per case
 * (the suite has cases cases). */
static int time_steps(const fmt_buf_t *text, store_t *st, int suites, int cases,
                      steps_t *out, size_t *report_bytes) {
  double p[RUNS], r[RUNS], j[RUNS], u[RUNS];
  for (int run = -1; run < RUNS; run++) { /* run -1 warms up */
    double tp = 0, tr = 0, tj = 0, tu = 0;
    for (int i = 0; i < suites; i++) {
      verdict_suite_t s;
      verdict_suite_result_t res;
      fmt_buf_t rep;
      fmt_buf_init(&rep);
      double t0 = now_ns();
      if (parsed(text, st, &s) != 0) return -1;
      double t1 = now_ns();
      if (verdict_suite_run(&s, MAX_FRAMES, false, &res) != 0) return -1;
      double t2 = now_ns();
      verdict_report_write(&rep, VERDICT_REPORT_JSON, &res);
      double t3 = now_ns();
      *report_bytes = rep.len;
      rep.len = 0;
      verdict_report_write(&rep, VERDICT_REPORT_JUNIT, &res);
      double t4 = now_ns();
      if (res.failed != 0) {
        fprintf(stderr, "bench_test: %zu cases failed: %s\n", res.failed,
                res.cases[0].message);
        return -1;
      }
      tp += t1 - t0;
      tr += t2 - t1;
      tj += t3 - t2;
      tu += t4 - t3;
      verdict_suite_result_free(&res);
      verdict_suite_free(&s);
      fmt_buf_free(&rep);
    }
    if (run < 0) continue;
    double n = (double)suites * cases;
    p[run] = tp / n;
    r[run] = tr / n;
    j[run] = tj / n;
    u[run] = tu / n;
  }
  qsort(p, RUNS, sizeof *p, cmp_double);
  qsort(r, RUNS, sizeof *r, cmp_double);
  qsort(j, RUNS, sizeof *j, cmp_double);
  qsort(u, RUNS, sizeof *u, cmp_double);
  *out = (steps_t){p[RUNS / 2], r[RUNS / 2], j[RUNS / 2], u[RUNS / 2],
                   p[0],        r[0],        j[0],        u[0]};
  return 0;
}

/* The frames the one case of text's suite evaluates (as the suite counts
 * them against max_frames), or -1. */
static double frames_of(const fmt_buf_t *text, store_t *st) {
  verdict_suite_t s;
  if (parsed(text, st, &s) != 0) return -1;
  const verdict_case_t *c = &s.cases[0];
  double n = c->kind == VERDICT_CASE_COMPARE
                 ? verdict_compare_frames(&c->compare)
                 : verdict_check_sample_count(c->check_asset->clip->duration,
                                              c->check.fps);
  verdict_suite_free(&s);
  return n;
}

int main(void) {
  store_t *st = rig_store();
  if (st == NULL) return 1;
  print_cpu();
  fmt_buf_t one, many;
  fmt_buf_init(&one);
  fmt_buf_init(&many);
  pose_suite(&one, 1);
  pose_suite(&many, 16);
  steps_t s1, s16;
  size_t bytes1, bytes16;
  if (time_steps(&one, st, REPEATS, CASES, &s1, &bytes1) != 0 ||
      time_steps(&many, st, REPEATS, CASES, &s16, &bytes16) != 0)
    return 1;
  printf("test suites of %d pose cases, %d-joint rig, model space:\n", CASES,
         JOINTS);
  const struct {
    const char *label;
    const steps_t *s;
    size_t bytes;
  } rows[] = {{"1 expectation a case", &s1, bytes1},
              {"16 expectations a case", &s16, bytes16}};
  for (int i = 0; i < 2; i++) {
    const steps_t *s = rows[i].s;
    printf("  %s:\n", rows[i].label);
    printf("    parse + resolve       %8.0f (%8.0f) ns/case\n", s->parse,
           s->parse_min);
    printf("    run (pose + expect)   %8.0f (%8.0f) ns/case\n", s->run,
           s->run_min);
    printf("    JSON report           %8.0f (%8.0f) ns/case  (%zu bytes)\n",
           s->json, s->json_min, rows[i].bytes);
    printf("    JUnit report          %8.0f (%8.0f) ns/case\n", s->junit,
           s->junit_min);
  }
  printf("  one more expectation: run %.0f ns, parse + resolve %.0f ns, "
         "JSON %.0f ns\n",
         (s16.run - s1.run) / 15, (s16.parse - s1.parse) / 15,
         (s16.json - s1.json) / 15);

  /* Frame-based cases: one compare case, one check case. */
  fmt_buf_t cmp, chk;
  fmt_buf_init(&cmp);
  fmt_buf_init(&chk);
  fmt_buf_printf(&cmp,
                 "{\"name\":\"bench\",\"cases\":[{\"name\":\"c\",\"compare\":"
                 "{\"a\":{\"clip\":\"take1\"},\"b\":{\"clip\":\"take2\"},"
                 "\"from\":0,\"to\":%g,\"fps\":30,\"tolerance\":1e6}}]}",
                 SECONDS);
  fmt_buf_puts(&chk, "{\"name\":\"bench\",\"cases\":[{\"name\":\"k\",\"check\":"
                     "{\"clip\":\"take1\",\"fps\":60,\"feet\":[\"j63\","
                     "\"j64\"],\"loop\":false}}]}");
  steps_t sc, sk;
  size_t bc, bk;
  /* ns per case of a one-case suite: ns per frame below. */
  if (time_steps(&cmp, st, 1, 1, &sc, &bc) != 0 ||
      time_steps(&chk, st, 1, 1, &sk, &bk) != 0)
    return 1;
  double compare_frames = frames_of(&cmp, st),
         check_frames = frames_of(&chk, st);
  if (compare_frames <= 0 || check_frames <= 0) return 1;
  printf("  compare case, 2 clips, %.0f frames: run %8.0f (%8.0f) ns/frame\n",
         compare_frames, sc.run / compare_frames, sc.run_min / compare_frames);
  printf("  check case, 2 feet, %.0f frames:      run %8.0f (%8.0f) ns/frame\n",
         check_frames, sk.run / check_frames, sk.run_min / check_frames);
  fmt_buf_free(&one);
  fmt_buf_free(&many);
  fmt_buf_free(&cmp);
  fmt_buf_free(&chk);
  store_close(st);
  return 0;
}
