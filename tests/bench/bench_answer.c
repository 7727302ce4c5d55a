/* Benchmark of answer printing: nanoseconds per float of the shortest
 * round-tripping printer, one float at a time (fmt_float_str) and as a
 * comma-separated list (fmt_float_list: AVX-512 or AVX2 where the CPU has
 * it, beside the portable loop it replaces), on random floats of three
 * ranges, against the printf method both must equal, and microseconds per
 * JSON pose
 * answer (J=67, model space: 1,072 floats, rotation-like matrices; 64
 * different poses in turn, so that branch predictors cannot learn the
 * values as they would from one pose printed again and again). Fixed
 * counts and a fixed seed; the printed lengths are summed so nothing is
 * optimized away. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "animd/base.h"
#include "formats/answer.h"
#include "formats/buf.h"
#include "formats/float_list.h"
#include "bench_clock.h"

#define FLOATS 1000000
#define PRINTF_FLOATS 100000
#define ANSWERS 4000
#define JOINTS 67
#define POSES 64

static float values[FLOATS];

static uint32_t rng = 2463534242u;
static float uniform(float lo, float hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static void bench_floats(const char *name, float lo, float hi) {
  for (int i = 0; i < FLOATS; i++) values[i] = uniform(lo, hi);
  char out[FMT_FLOAT_MAX];
  size_t sum = 0;
  static char list[FLOATS * (FMT_FLOAT_MAX + 1)];
  memset(list, 0, sizeof list); /* its pages, before the clock */
  double t0 = now_ns();
  for (int i = 0; i < FLOATS; i++) sum += fmt_float_str(out, values[i]);
  double t1 = now_ns();
  sum += fmt_float_list(list, values, FLOATS);
  double t2 = now_ns();
  for (int i = 0; i < PRINTF_FLOATS; i++)
    sum += fmt_float_str_printf(out, values[i]);
  double t3 = now_ns();
  sum += fmt__float_list_scalar(list, values, FLOATS);
  double t4 = now_ns();
  printf("%-34s %7.2f ns/float   list %5.2f ns/float (portable loop %5.2f)"
         "   printf method %7.1f ns/float  (chars %zu)\n",
         name, (t1 - t0) / FLOATS, (t2 - t1) / FLOATS, (t4 - t3) / FLOATS,
         (t3 - t2) / PRINTF_FLOATS, sum);
}

int main(void) {
  anim_simd level = anim_simd_level();
  printf("fmt_float_list path: %s\n", level == ANIM_SIMD_AVX512 ? "avx512"
                                      : level == ANIM_SIMD_AVX2 ? "avx2"
                                                                : "portable");
  bench_floats("fmt_float_str, uniform [-1, 1]", -1.0f, 1.0f);
  bench_floats("fmt_float_str, uniform [-100, 100]", -100.0f, 100.0f);
  bench_floats("fmt_float_str, uniform [-1e-3, 1e-3]", -1e-3f, 1e-3f);

  /* Model-space poses: rotation-like columns in [-1, 1], a translation
   * in [-2, 2], the last row 0 0 0 1. */
  static float matrices[POSES * 16 * JOINTS];
  for (int j = 0; j < POSES * JOINTS; j++) {
    float *m = matrices + 16 * j;
    for (int c = 0; c < 3; c++) {
      for (int r = 0; r < 3; r++) m[4 * c + r] = uniform(-1.0f, 1.0f);
      m[4 * c + 3] = 0.0f;
    }
    for (int r = 0; r < 3; r++) m[12 + r] = uniform(-2.0f, 2.0f);
    m[15] = 1.0f;
  }
  fmt_pose_answer_t answer = {.skeleton = "bench67",
                              .clip = "run",
                              .t = 0.5f,
                              .frame = -1,
                              .joint_count = JOINTS,
                              .space = FMT_SPACE_MODEL,
                              .data = matrices};
  fmt_buf_t b = FMT_BUF_INIT;
  size_t bytes = 0;
  double t0 = now_ns();
  for (int i = 0; i < ANSWERS; i++) {
    fmt_buf_reset(&b);
    answer.data = matrices + (size_t)(i % POSES) * 16 * JOINTS;
    if (fmt_answer_pose_json(&b, &answer) != 0) return 1;
    bytes += b.len;
  }
  double t1 = now_ns();
  printf("%-34s %7.2f us/answer  (%zu bytes each)\n",
         "JSON pose answer, J=67 model", (t1 - t0) / ANSWERS / 1e3,
         bytes / ANSWERS);
  fmt_buf_free(&b);
  return 0;
}
