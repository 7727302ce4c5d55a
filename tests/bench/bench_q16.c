/* q16 and gzip benchmark: what a 10,000-vertex skinned frame costs to
 * encode, and what deflate (zlib level 1, as the daemon's gzip) does to
 * its float32 and q16 bytes.
 *
 * The frame: 10,000 positions on a 2 m cylinder and their unit normals,
 * plus a little noise. Figures per frame: q16 encoding (positions only,
 * and with normals), and deflate of float32 and q16 frames with the bytes
 * it keeps. Each time is the median (and the best) of 9 runs of at least
 * 20 ms each. Single thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "formats/q16.h"
#include "bench_clock.h"
#include "bench_clock.h"

#define V 10000
#define RUNS 9

typedef void (*run_fn)(void *arg);

/* Median and best microseconds per call of fn. */
static void measure(const char *what, run_fn fn, void *arg) {
  double t[RUNS];
  for (int r = 0; r < RUNS; r++) {
    int calls = 0;
    double start = now_s(), end;
    do {
      fn(arg);
      calls++;
      end = now_s();
    } while (end - start < 0.02);
    t[r] = (end - start) / calls * 1e6;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  printf("%-44s %8.1f us/frame (best %.1f)\n", what, t[RUNS / 2], t[0]);
}

static float pos[3 * V], nrm[3 * V];
static uint8_t q16[3 * V * 4 + 64];

typedef struct {
  bool normals;
} enc_arg_t;

static void run_encode(void *arg) {
  enc_arg_t *a = arg;
  fmt_q16_encode(pos, a->normals ? nrm : NULL, V, q16);
}

typedef struct {
  const void *in;
  size_t len;
  unsigned char *out;
  size_t cap;
  size_t out_len;
} gz_arg_t;

static void run_deflate(void *arg) {
  gz_arg_t *g = arg;
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = (Bytef *)(uintptr_t)g->in;
  zs.avail_in = (uInt)g->len;
  zs.next_out = g->out;
  zs.avail_out = (uInt)g->cap;
  deflate(&zs, Z_FINISH);
  g->out_len = g->cap - zs.avail_out;
  deflateEnd(&zs);
}

static void deflate_figure(const char *what, const void *in, size_t len) {
  gz_arg_t g = {in, len, malloc(compressBound(len) + 64),
                compressBound(len) + 64, 0};
  char label[96];
  snprintf(label, sizeof label, "deflate level 1, %s (%zu B)", what, len);
  measure(label, run_deflate, &g);
  printf("%-44s %8zu B kept (%.1f%%)\n", "", g.out_len,
         100.0 * (double)g.out_len / (double)len);
  free(g.out);
}

int main(void) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < V; i++) {
    int ring = i / 100, k = i % 100;
    double a = 2 * M_PI * k / 100;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double noise = (double)(s >> 11) / 9007199254740992.0 * 0.01;
    pos[3 * i] = (float)((0.2 + noise) * cos(a));
    pos[3 * i + 1] = (float)(2.0 - 2.0 * ring / 99);
    pos[3 * i + 2] = (float)((0.2 + noise) * sin(a));
    double ny = noise - 0.005;
    double l = sqrt(1 + ny * ny);
    nrm[3 * i] = (float)(cos(a) / l);
    nrm[3 * i + 1] = (float)(ny / l);
    nrm[3 * i + 2] = (float)(sin(a) / l);
  }
  printf("q16 / gzip, V=%d, one thread\n", V);
  enc_arg_t e0 = {false}, e1 = {true};
  measure("q16 encode, positions", run_encode, &e0);
  measure("q16 encode, positions + normals", run_encode, &e1);
  static float f32[6 * V];
  memcpy(f32, pos, sizeof pos);
  memcpy(f32 + 3 * V, nrm, sizeof nrm);
  fmt_q16_encode(pos, nrm, V, q16);
  deflate_figure("float32 positions + normals", f32, sizeof f32);
  deflate_figure("q16 positions + normals", q16, fmt_q16_size(V, true));
  return 0;
}
