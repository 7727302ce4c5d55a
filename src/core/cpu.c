/* animd core: run-time detection of the SIMD instruction sets.
 *
 * __builtin_cpu_supports reads CPUID once at start-up (libgcc checks that
 * the OS saves the wide registers too), so asking per job costs a load and
 * a test. */
#include "cpu.h"

anim__isa anim__cpu_isa(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return ANIM__ISA_SCALAR;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
    return ANIM__ISA_AVX512;
  return ANIM__ISA_AVX2;
#else
  return ANIM__ISA_SCALAR;
#endif
}
