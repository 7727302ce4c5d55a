/* animd core (private): which SIMD instruction sets the kernels may use.
 *
 * Every job with SIMD kernels picks one per run from anim__cpu_isa(), the
 * best level this CPU runs. Internal entry points take a ceiling instead,
 * so tests and benchmarks can run the scalar, AVX2 and AVX-512 kernels side
 * by side on the same input (a ceiling above what the CPU has is lowered to
 * it). Key design choice: no process-wide override, so jobs on other
 * threads are never affected by a test's choice. */
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

/* min(ceiling, anim__cpu_isa()). */
static inline anim__isa anim__isa_cap(anim__isa ceiling) {
  anim__isa have = anim__cpu_isa();
  return ceiling < have ? ceiling : have;
}

#endif
