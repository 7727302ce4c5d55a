/* animd core (private): which SIMD instruction sets the kernels may use.
 *
 * Every job with SIMD kernels picks one per run from anim__cpu_isa(), the
 * best level this CPU runs. Internal entry points take a ceiling instead,
 * so tests and benchmarks can run the scalar, AVX2 and AVX-512 kernels side
 * by side on the same input (a ceiling above what the CPU has is lowered to
 * it). Key design choice: the only process-wide choice is the one a
 * program makes once at start (animd/kernels.h), so jobs on other threads
 * are never affected by a test's choice. */
#ifndef ANIMD_CORE_CPU_H
#define ANIMD_CORE_CPU_H

#include <stdbool.h>

typedef enum anim__isa {
  ANIM__ISA_SCALAR = 0, /* Portable C (SSE2 where the compiler targets it). */
  ANIM__ISA_AVX2,       /* AVX2 + FMA. */
  ANIM__ISA_AVX512      /* AVX-512 F, VL, DQ, BW and CD (x86-64-v4). */
} anim__isa;

/* The best level this CPU (and OS) runs: a cached CPUID read, no locks. */
anim__isa anim__cpu_isa(void);

/* The jobs whose level the process may choose (animd/kernels.h). */
typedef enum anim__job {
  ANIM__JOB_SAMPLING = 0,
  ANIM__JOB_LOCAL_TO_MODEL,
  ANIM__JOB_SKINNING
} anim__job;

/* The level job runs at: anim_kernels_set's choice, or anim__cpu_isa()
 * (core/kernels.c; one relaxed atomic load). */
anim__isa anim__job_isa(anim__job job);

/* min(ceiling, anim__cpu_isa()). */
static inline anim__isa anim__isa_cap(anim__isa ceiling) {
  anim__isa have = anim__cpu_isa();
  return ceiling < have ? ceiling : have;
}

#endif
