/* Benchmark of IK: nanoseconds per pose of a 67-joint rig (every joint
 * rotating, a binary tree), model space, through the pipeline
 * (srv_eval_run), plain, with a two-bone "ik" entry, with an aim entry and
 * with both; and nanoseconds per core job (anim_ik_two_bone_job_run,
 * anim_ik_aim_job_run) on their own. Targets move every pose so nothing is
 * cached; fixed counts and seed; single thread, thread CPU time, the
 * median of RUNS runs; the CPU's model is printed. The same jobs beside
 * ozz-animation 0.16's, counted the same way: make bench-ozz. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "animd/ik.h"
#include "formats/buf.h"
#include "formats/native_json.h"
#include "server/request/evaluate.h"
#include "server/request/fields.h"
#include "bench_clock.h"

#define JOINTS 67
#define KEYS 11
#define SECONDS 10.0
#define RUNS 9
#define POSES 10000 /* Per run. */
#define JOBS 100000 /* Per run, as tests/ozz/bench_jobs.cc. */

/* The median of RUNS values. */
static double median(double *v) {
  qsort(v, RUNS, sizeof *v, cmp_double);
  return v[RUNS / 2];
}

static uint32_t rng = 2463534242u;
static double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (double)(rng >> 8) / 16777216.0;
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

/* The rig as native JSON: joint j's parent (j - 1) / 2, one rotation
 * track per joint. */
static void rig(fmt_buf_t *b) {
  fmt_buf_puts(b, "{\"skeleton\":{\"name\":\"bench\",\"joints\":[");
  for (int j = 0; j < JOINTS; j++)
    fmt_buf_printf(b,
                   "%s{\"name\":\"j%d\",\"parent\":%d,\"translation\":[0.3,"
                   "0.1,0.02]}",
                   j ? "," : "", j, j ? (j - 1) / 2 : -1);
  fmt_buf_puts(b, "]},\"clips\":[{\"name\":\"take\",\"tracks\":[");
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
  fmt_buf_puts(b, "]}]}");
}

/* ns per pose of job with fields f (NULL: none), the median of RUNS
 * runs; targets moved by re-parsing is not timed: the same value, a new
 * time each pose. */
static double per_pose(srv_eval_job_t *job, const srv_fields_t *f,
                       srv_eval_scratch_t *s, float *sink) {
  job->fields = f;
  double r[RUNS];
  for (int run = 0; run < RUNS; run++) {
    double t0 = now_ns();
    for (int i = 0; i < POSES; i++) {
      job->t = SECONDS * i / POSES;
      if (srv_eval_run(job, s) != ANIM_OK) return -1;
      *sink += job->out[12];
    }
    r[run] = (now_ns() - t0) / POSES;
  }
  return median(r);
}

static int fields_of(const char *json, const anim_skeleton_t *sk,
                     srv_fields_t *out) {
  json_t *o = json_loads(json, 0, NULL);
  srv_error_t err;
  memset(out, 0, sizeof *out);
  int r = o == NULL ||
          srv_fields_from_json(o, SRV_TAKES_POSE_BODY, out, &err) != 0 ||
          srv_fields_resolve(out, sk, NULL, &err) != 0;
  json_decref(o);
  if (r) fprintf(stderr, "bench_ik: %s\n", json);
  return r ? -1 : 0;
}

int main(void) {
  char cpu[128];
  cpu_model(cpu, sizeof cpu);
  fmt_buf_t b;
  fmt_buf_init(&b);
  rig(&b);
  fmt_bundle_t bundle;
  fmt_error_t fe = {0};
  if (fmt_decode_native_json(b.data, b.len, NULL, &bundle, &fe) != 0) {
    fprintf(stderr, "bench_ik: rig: %s\n", fe.message);
    return 1;
  }
  const anim_skeleton_t *sk = bundle.skeletons[0];
  float out[16 * JOINTS], sink = 0;
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = bundle.clips[0].clip,
                        .wrap = ANIM_WRAP_LOOP,
                        .space = FMT_SPACE_MODEL,
                        .out = out};
  srv_eval_scratch_t s = {0};
  srv_fields_t two, aim, both;
  if (fields_of("{\"ik\":[{\"type\":\"two_bone\",\"start\":\"j1\",\"mid\":"
                "\"j3\",\"end\":\"j7\",\"target\":[0.5,0.5,0.1]}]}",
                sk, &two) != 0 ||
      fields_of("{\"ik\":[{\"type\":\"aim\",\"joint\":\"j15\",\"target\":"
                "[1,2,3]}]}",
                sk, &aim) != 0 ||
      fields_of("{\"ik\":[{\"type\":\"two_bone\",\"start\":\"j1\",\"mid\":"
                "\"j3\",\"end\":\"j7\",\"target\":[0.5,0.5,0.1]},{\"type\":"
                "\"aim\",\"joint\":\"j15\",\"target\":[1,2,3]}]}",
                sk, &both) != 0)
    return 1;
  per_pose(&job, NULL, &s, &sink); /* warm up */
  double plain = per_pose(&job, NULL, &s, &sink);
  double with_two = per_pose(&job, &two, &s, &sink);
  double with_aim = per_pose(&job, &aim, &s, &sink);
  double with_both = per_pose(&job, &both, &s, &sink);

  /* The core jobs alone, on the rest pose's matrices. */
  anim_mat4_t model[JOINTS];
  anim_pose_t pose = {s._pose.translation, s._pose.rotation, s._pose.scale,
                      JOINTS};
  anim_pose_set_rest(sk, &pose);
  anim_local_to_model_job_t l2m = {
      .skeleton = sk, .input = pose, .output = model, .output_count = JOINTS};
  anim_local_to_model_job_run(&l2m);
  int32_t j1 = anim_skeleton_find(sk, "j1"), j3 = anim_skeleton_find(sk, "j3"),
          j7 = anim_skeleton_find(sk, "j7");
  anim_quat_t cs, cm;
  anim_ik_two_bone_job_t tj = anim_ik_two_bone_job_defaults();
  tj.start = &model[j1];
  tj.mid = &model[j3];
  tj.end = &model[j7];
  tj.target = (anim_vec3_t){0.5f, 0.5f, 0.1f};
  tj.start_correction = &cs;
  tj.mid_correction = &cm;
  double r[RUNS];
  for (int run = 0; run < RUNS; run++) {
    double t0 = now_ns();
    for (int i = 0; i < JOBS; i++) {
      tj.target.x = 0.5f + 1e-7f * (float)(i & 1023);
      anim_ik_two_bone_job_run(&tj);
      sink += cs.x;
    }
    r[run] = (now_ns() - t0) / JOBS;
  }
  double two_job = median(r);
  anim_quat_t c;
  anim_ik_aim_job_t aj = anim_ik_aim_job_defaults();
  aj.joint = &model[j7];
  aj.target = (anim_vec3_t){1, 2, 3};
  aj.correction = &c;
  for (int run = 0; run < RUNS; run++) {
    double t0 = now_ns();
    for (int i = 0; i < JOBS; i++) {
      aj.target.x = 1 + 1e-7f * (float)(i & 1023);
      anim_ik_aim_job_run(&aj);
      sink += c.x;
    }
    r[run] = (now_ns() - t0) / JOBS;
  }
  double aim_job = median(r);

  printf("IK, %d-joint rig, model space, median of %d runs of %d poses, on "
         "%s:\n",
         JOINTS, RUNS, POSES, cpu);
  printf("  plain pose          %8.0f ns/pose\n", plain);
  printf("  + two-bone IK       %8.0f ns/pose  (+%.0f)\n", with_two,
         with_two - plain);
  printf("  + aim IK            %8.0f ns/pose  (+%.0f)\n", with_aim,
         with_aim - plain);
  printf("  + two-bone and aim  %8.0f ns/pose  (+%.0f)\n", with_both,
         with_both - plain);
  printf("  core jobs alone: two-bone %.0f ns/job, aim %.0f ns/job\n", two_job,
         aim_job);
  printf("(sink %g)\n", sink);
  srv_fields_free(&two);
  srv_fields_free(&aim);
  srv_fields_free(&both);
  srv_eval_scratch_free(&s);
  fmt_bundle_free(&bundle);
  fmt_buf_free(&b);
  return 0;
}
