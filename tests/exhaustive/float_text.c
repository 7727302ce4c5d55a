/* make check-floats: every float32 of magnitude 1e-4 to 1e6 (the range of
 * the integer printing paths in formats/buf.c and float_list_avx*.c,
 * about 278 million non-integers of each sign) printed by fmt_float_str,
 * by fmt_float_list (in lists of 64: the CPU's SIMD kernel) and by the
 * printf method both must
 * equal (fmt_float_str_printf), compared as text. The
 * positive floats are split among two threads; a negative float's text is
 * its positive one's with a '-' (the sign is written apart), which one
 * thread checks over a sample. Prints the count and the first differences
 * and exits 1 on any. Takes two to four minutes on two cores: not part of
 * make check. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/buf.h"

#define FIRST_BITS 0x38d1b717u /* 1e-4f */
#define END_BITS 0x49742400u   /* 1e6f */
#define THREADS 2

typedef struct part_s {
  uint32_t from, to, step;
  bool negate;
  unsigned long checked, differ;
} part_t;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

#define LIST 64

/* Compares fmt_float_list's text of v[0..n) with want (the printf
 * method's texts joined with commas). */
static void check_list(part_t *p, const float *v, size_t n, const char *want,
                       size_t want_len) {
  char got[LIST * (FMT_FLOAT_MAX + 1)];
  size_t len = fmt_float_list(got, v, n);
  if ((len != want_len || memcmp(got, want, len) != 0) && p->differ++ < 10) {
    pthread_mutex_lock(&print_lock);
    printf("differ: the list from %a: %.*s, printf method %.*s\n", (double)v[0],
           (int)len, got, (int)want_len, want);
    pthread_mutex_unlock(&print_lock);
  }
}

static void *check_part(void *arg) {
  part_t *p = arg;
  char fast[FMT_FLOAT_MAX], slow[FMT_FLOAT_MAX];
  float list[LIST];
  char want[LIST * (FMT_FLOAT_MAX + 1)];
  size_t listed = 0, want_len = 0;
  for (uint64_t bits = p->from; bits < p->to; bits += p->step) {
    uint32_t u = (uint32_t)bits;
    if (p->negate) u |= 0x80000000u;
    float f;
    memcpy(&f, &u, sizeof f);
    if (f == floorf(f)) continue; /* integers take their own path */
    fmt_float_str(fast, f);
    fmt_float_str_printf(slow, f);
    p->checked++;
    if (strcmp(fast, slow) != 0 && p->differ++ < 10) {
      pthread_mutex_lock(&print_lock);
      printf("differ: %a (bits 0x%08x): %s, printf method %s\n", (double)f, u,
             fast, slow);
      pthread_mutex_unlock(&print_lock);
    }
    if (listed) want[want_len++] = ',';
    size_t slow_len = strlen(slow);
    memcpy(want + want_len, slow, slow_len);
    want_len += slow_len;
    list[listed++] = f;
    if (listed == LIST) {
      check_list(p, list, listed, want, want_len);
      listed = want_len = 0;
    }
  }
  if (listed) check_list(p, list, listed, want, want_len);
  return NULL;
}

int main(void) {
  part_t parts[THREADS + 1];
  pthread_t threads[THREADS + 1];
  uint32_t span = (END_BITS - FIRST_BITS) / THREADS;
  for (int i = 0; i < THREADS; i++) {
    parts[i] =
        (part_t){.from = FIRST_BITS + (uint32_t)i * span,
                 .to = i + 1 < THREADS ? FIRST_BITS + (uint32_t)(i + 1) * span
                                       : END_BITS,
                 .step = 1};
  }
  /* Negative floats: every 97th. */
  parts[THREADS] =
      (part_t){.from = FIRST_BITS, .to = END_BITS, .step = 97, .negate = true};
  for (int i = 0; i <= THREADS; i++)
    if (pthread_create(&threads[i], NULL, check_part, &parts[i]) != 0) {
      fprintf(stderr, "check-floats: cannot start a thread\n");
      return 1;
    }
  unsigned long checked = 0, differ = 0;
  for (int i = 0; i <= THREADS; i++) {
    pthread_join(threads[i], NULL);
    checked += parts[i].checked;
    differ += parts[i].differ;
  }
  printf("check-floats: %lu floats of magnitude 1e-4 to 1e6 printed alone and "
         "in lists, compared with the printf method, %lu differ\n",
         checked, differ);
  return differ != 0;
}
