/* animd core: run-time detection of the SIMD instruction sets.
 *
 * __builtin_cpu_supports reads CPUID once at start-up (libgcc checks that
 * the OS saves the wide registers too); the level is worked out on the
 * first call and kept, so asking per job costs one load. */
#include "cpu.h"

#include "animd/base.h"

static anim__isa detect(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return ANIM__ISA_SCALAR;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd"))
    return ANIM__ISA_AVX512;
  return ANIM__ISA_AVX2;
#else
  return ANIM__ISA_SCALAR;
#endif
}

anim__isa anim__cpu_isa(void) {
  /* Detected once; threads racing on the first call store the same value
   * (relaxed atomics: no data race, no ordering needed). */
  static int cached = -1;
  int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (v < 0) {
    v = (int)detect();
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
  }
  return (anim__isa)v;
}

_Static_assert((int)ANIM_SIMD_SCALAR == (int)ANIM__ISA_SCALAR &&
                   (int)ANIM_SIMD_AVX2 == (int)ANIM__ISA_AVX2 &&
                   (int)ANIM_SIMD_AVX512 == (int)ANIM__ISA_AVX512,
               "anim_simd and anim__isa list the same levels");

anim_simd anim_simd_level(void) { return (anim_simd)anim__cpu_isa(); }
