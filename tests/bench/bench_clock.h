/* The benches' clock and sort order: thread CPU time (on a shared
 * machine, time spent descheduled does not count against the code being
 * measured) and doubles ascending for qsort (medians, fastest runs). */
#ifndef ANIMD_TESTS_BENCH_CLOCK_H
#define ANIMD_TESTS_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline double now_s(void) { return now_ns() * 1e-9; }

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
