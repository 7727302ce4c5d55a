/* animd: which kernel level (portable, AVX2, AVX-512) the jobs with SIMD
 * kernels run at, for the whole process.
 *
 * By default each job runs the best level the CPU's features allow. A
 * program may instead, once at start and before jobs run on other
 * threads, have every level the CPU runs measured on a fixed workload of
 * each job (a few milliseconds in all) and keep the fastest, or force a
 * level. The levels agree within the tolerances their tests check, not
 * bit for bit: a measured choice may differ from one start to the next,
 * and so may the last bits of the answers; the features' choice is fixed
 * for a CPU. */
#ifndef ANIMD_KERNELS_H
#define ANIMD_KERNELS_H

#include "animd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum anim_kernels {
  ANIM_KERNELS_FEATURES = 0, /* The best level the CPU's features allow. */
  ANIM_KERNELS_MEASURED,     /* The fastest level, measured now. */
  ANIM_KERNELS_SCALAR,       /* Forced (lowered to what the CPU runs). */
  ANIM_KERNELS_AVX2,
  ANIM_KERNELS_AVX512
} anim_kernels;

/* The jobs with kernels of several levels. */
enum { ANIM_KERNEL_JOBS = 3 };

typedef struct anim_kernel_choice_s {
  const char *job;   /* "sampling", "local_to_model", "skinning". */
  const char *level; /* "scalar", "avx2", "avx512": the one chosen. */
  /* ANIM_KERNELS_MEASURED: the fastest run of each level on the job's
   * workload, in ns (index 0 scalar, 1 avx2, 2 avx512; 0: not run). */
  double ns[3];
} anim_kernel_choice_t;

/* Sets how every job picks its level, from now on, and fills out (may be
 * NULL) with the choice of each job. A measurement times with clock_ns
 * (nanoseconds; the calling thread's CPU time is best), which may be NULL
 * otherwise. Call before jobs run on other threads. ANIM_OK,
 * ANIM_ERR_INVALID_ARGUMENT for an unknown value or a measurement without
 * a clock, ANIM_ERR_OUT_OF_MEMORY when a measurement's workload cannot be
 * made (the choice then stays the features'). */
anim_result anim_kernels_set(anim_kernels how, double (*clock_ns)(void),
                             anim_kernel_choice_t out[ANIM_KERNEL_JOBS]);

/* The names of the values, "features", "measured", "scalar", "avx2",
 * "avx512"; -1 for another name. */
int anim_kernels_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
