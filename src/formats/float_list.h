/* formats (private): the SIMD kernel behind fmt_float_list (buf.h) and
 * the powers of ten it shares with buf.c's one-float printer.
 *
 * fmt__float_list_avx512 and fmt__float_list_avx2 print what
 * fmt_float_list's portable loop prints, byte for byte; buf.c calls each
 * only when anim_simd_level() reports its instruction set, and the unit
 * tests compare them with the loop on the same floats. */
#ifndef ANIMD_FORMATS_FLOAT_LIST_H
#define ANIMD_FORMATS_FLOAT_LIST_H

#include <stddef.h>
#include <stdint.h>

/* 10^0 .. 10^13, then two zeros (16 entries: two AVX-512 registers). */
extern const uint64_t fmt__pow10_u64[16];

/* v[0],v[1],...,v[n-1] into out (room for n * (FMT_FLOAT_MAX + 1) bytes,
 * n > 0), no NUL; returns the length. */
size_t fmt__float_list_avx512(char *out, const float *v, size_t n);
size_t fmt__float_list_avx2(char *out, const float *v, size_t n);
/* The same, one fmt_float_str after another: the path on other CPUs. */
size_t fmt__float_list_scalar(char *out, const float *v, size_t n);

#endif
