/* formats: fmt_float_list four floats at a time with AVX2 (x86-64-v3).
 *
 * float_list_avx512.c's method (read it first), one float per 64-bit lane
 * of a 256-bit register, with what AVX2 lacks built from what it has:
 * - lane masks are compare results (all ones or zero) combined with
 *   and/or/andnot, and mask moves are blends;
 * - the 64-bit products m 10^k (m < 2^24) are two 32 x 32 -> 64-bit
 *   products, the second shifted up by 32;
 * - the powers of ten come from permutes of two in-register tables (10^k
 *   at six digits, the others being ten times the one before: shifts and
 *   an add, and one for the test of the decimal exponent); the ones the
 *   chosen digit count needs later travel with the choice;
 * - unsigned 64-bit comparisons are signed ones on values offset by 2^63
 *   where a value can wrap, plain signed ones where every live value is
 *   below 2^63;
 * - the count of significant digits (AVX-512's lzcnt of the tail) comes
 *   from a byte mask of the zero digits, one scalar step a float.
 * Each float's text is laid out in a 128-bit lane by the same byte shuffle
 * (two floats a register) and the texts are stored one after another with
 * their commas. A float the everyday path refuses goes to fmt_float_str,
 * so the output is fmt_float_list's portable loop's, byte for byte. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/float_list.h"

static inline __m256i set64(uint64_t v) {
  return _mm256_set1_epi64x((long long)v);
}

/* 10^idx per lane for idx in 0..9 (other lanes: garbage), from two
 * in-register tables of 32-bit powers: a permute costs a few cycles where
 * a gather costs tens, on the path every float waits on. */
static inline __m256i pow10_of(__m256i idx) {
  const __m256i low =
      _mm256_setr_epi32(1, 10, 100, 1000, 10000, 100000, 1000000, 10000000);
  const __m256i high =
      _mm256_setr_epi32(100000000, 1000000000, 0, 0, 0, 0, 0, 0);
  __m256i p = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(low, idx),
                                 _mm256_permutevar8x32_epi32(high, idx),
                                 _mm256_cmpgt_epi64(idx, set64(7)));
  return _mm256_and_si256(p, set64(0xffffffffu));
}

/* The low 64 bits of a b, for a < 2^32. */
static inline __m256i mul_lo64(__m256i a, __m256i b) {
  __m256i lo = _mm256_mul_epu32(a, b);
  __m256i hi = _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
}

static inline __m256i times10(__m256i x) {
  return _mm256_add_epi64(_mm256_slli_epi64(x, 3), _mm256_slli_epi64(x, 1));
}

/* a > b, unsigned 64-bit. */
static inline __m256i gt_u64(__m256i a, __m256i b) {
  const __m256i bias = set64(1ull << 63);
  return _mm256_cmpgt_epi64(_mm256_xor_si256(a, bias),
                            _mm256_xor_si256(b, bias));
}

/* a >= b, signed (every live value here is below 2^63). */
static inline __m256i ge_i64(__m256i a, __m256i b) {
  return _mm256_xor_si256(_mm256_cmpgt_epi64(b, a), _mm256_set1_epi64x(-1));
}

/* b where mask, else a. */
static inline __m256i pick(__m256i a, __m256i b, __m256i mask) {
  return _mm256_blendv_epi8(a, b, mask);
}

/* The texts of 4 floats, in registers (no store and load back, which
 * would wait on store forwarding): text[i] holds float i's (garbage after
 * its length), len[i] its length; scalar has a bit for each float left to
 * fmt_float_str. */
typedef struct texts4_s {
  __m128i text[4];
  size_t len[4];
  unsigned scalar;
} texts4_t;

static inline __attribute__((always_inline)) texts4_t texts4(const float *v) {
  const __m256i one64 = set64(1), zero = _mm256_setzero_si256();
  __m256i bits =
      _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)v));
  __m256i sign = _mm256_srli_epi64(bits, 31);
  __m256i absb = _mm256_and_si256(bits, set64(0x7fffffffu));
  __m256i biased = _mm256_srli_epi64(absb, 23);
  __m256i is_zero = _mm256_cmpeq_epi64(absb, zero);
  __m256i m = _mm256_or_si256(_mm256_and_si256(absb, set64(0x7fffffu)),
                              set64(0x800000u));
  __m256i s = _mm256_sub_epi64(set64(127 + 23), biased);
  /* 2^-14 <= a < 2^20 */
  __m256i ok = _mm256_andnot_si256(_mm256_cmpgt_epi64(set64(127 - 14), biased),
                                   _mm256_cmpgt_epi64(set64(127 + 20), biased));
  /* e10 = floor(e2 log10 2) by 78913 / 2^18: the product fits in 32 bits,
   * so its high half is only its sign and a 32-bit arithmetic shift is
   * the 64-bit floor. Then one more when a >= 10^(e10 + 1). */
  __m256i e2 = _mm256_sub_epi64(biased, set64(127));
  __m256i e10 = _mm256_srai_epi32(_mm256_mul_epi32(e2, set64(78913)), 18);
  __m256i up = _mm256_add_epi64(e10, one64);
  __m256i up_nonneg = _mm256_cmpgt_epi64(up, _mm256_set1_epi64x(-1));
  __m256i p_up = pow10_of(pick(_mm256_sub_epi64(zero, up), up, up_nonneg));
  __m256i one = _mm256_sllv_epi64(one64, s),
          mask = _mm256_sub_epi64(one, one64);
  __m256i above = pick(ge_i64(mul_lo64(m, p_up), one),
                       ge_i64(m, _mm256_sllv_epi64(p_up, s)), up_nonneg);
  e10 = _mm256_sub_epi64(e10, above); /* above is -1 where true */
  ok = _mm256_and_si256(
      ok, _mm256_and_si256(_mm256_cmpgt_epi64(e10, _mm256_set1_epi64x(-5)),
                           _mm256_cmpgt_epi64(set64(6), e10)));
  /* The candidates: 6 + i digits, k = 5 + i - e10. */
  __m256i p10 = pow10_of(_mm256_sub_epi64(set64(5), e10));
  __m256i fits[3], undecided[3], n[4];
  for (int i = 0; i < 4; i++) {
    n[i] = mul_lo64(m, p10);
    if (i == 3) break; /* Nine digits always fit. */
    __m256i r = _mm256_and_si256(n[i], mask);
    __m256i other = _mm256_sub_epi64(one, r);
    __m256i near = pick(other, r, _mm256_cmpgt_epi64(other, r));
    __m256i twice = _mm256_add_epi64(near, near);
    __m256i margin = _mm256_add_epi64(_mm256_srli_epi64(p10, 27), one64);
    __m256i reach = _mm256_add_epi64(twice, margin);
    fits[i] = ge_i64(p10, reach);
    undecided[i] =
        gt_u64(_mm256_sub_epi64(_mm256_add_epi64(margin, margin), one64),
               _mm256_sub_epi64(_mm256_sub_epi64(reach, one64), p10));
    p10 = times10(p10);
  }
  /* The first that fits, with 10^p and 10^(9 - p) for later: the later
   * fits overwrite the earlier choices. */
  static const uint64_t pow_p[3] = {1000000u, 10000000u, 100000000u};
  static const uint64_t pow_9p[3] = {1000u, 100u, 10u};
  __m256i chosen = n[3], p_pow = set64(1000000000u), p9_pow = one64;
  for (int i = 2; i >= 0; i--) {
    chosen = pick(chosen, n[i], fits[i]);
    p_pow = pick(p_pow, set64(pow_p[i]), fits[i]);
    p9_pow = pick(p9_pow, set64(pow_9p[i]), fits[i]);
  }
  __m256i unsure = _mm256_or_si256(
      undecided[0],
      _mm256_or_si256(_mm256_andnot_si256(fits[0], undecided[1]),
                      _mm256_andnot_si256(_mm256_or_si256(fits[0], fits[1]),
                                          undecided[2])));
  __m256i d = _mm256_srlv_epi64(chosen, s);
  __m256i r = _mm256_and_si256(chosen, mask), half = _mm256_srli_epi64(one, 1);
  __m256i round_up = _mm256_or_si256(
      _mm256_cmpgt_epi64(r, half),
      _mm256_and_si256(_mm256_cmpeq_epi64(r, half),
                       _mm256_cmpeq_epi64(_mm256_and_si256(d, one64), one64)));
  d = _mm256_sub_epi64(d, round_up);
  /* Rounded up to 10^p, or a power of two (whose gap below is half the
   * one above) not exactly printed: fmt_float_str decides. */
  __m256i refused = _mm256_or_si256(
      unsure, _mm256_or_si256(_mm256_cmpeq_epi64(d, p_pow),
                              _mm256_andnot_si256(
                                  _mm256_cmpeq_epi64(r, zero),
                                  _mm256_cmpeq_epi64(m, set64(0x800000u)))));
  ok = _mm256_andnot_si256(refused, ok);
  /* Nine digits v = d 10^(9-p): the head digit and two 4-digit halves,
   * then 2-digit and 1-digit lanes (float_list_avx512.c's constants). */
  __m256i v9 = _mm256_mul_epu32(d, p9_pow);
  __m256i head = _mm256_srli_epi64(_mm256_mul_epu32(v9, set64(720575941u)), 56);
  __m256i rest =
      _mm256_sub_epi64(v9, _mm256_mul_epu32(head, set64(100000000u)));
  __m256i hi4 =
      _mm256_srli_epi64(_mm256_mul_epu32(rest, set64(3518437209u)), 45);
  __m256i lo4 = _mm256_sub_epi64(rest, _mm256_mul_epu32(hi4, set64(10000u)));
  __m256i x = _mm256_or_si256(hi4, _mm256_slli_epi64(lo4, 32));
  __m256i y =
      _mm256_srli_epi32(_mm256_mullo_epi32(x, _mm256_set1_epi32(10486)), 20);
  y = _mm256_or_si256(
      y, _mm256_slli_epi32(
             _mm256_sub_epi32(x, _mm256_mullo_epi32(y, _mm256_set1_epi32(100))),
             16));
  __m256i z =
      _mm256_srli_epi16(_mm256_mullo_epi16(y, _mm256_set1_epi16(103)), 10);
  z = _mm256_or_si256(
      z, _mm256_slli_epi16(
             _mm256_sub_epi16(y, _mm256_mullo_epi16(z, _mm256_set1_epi16(10))),
             8));
  /* Significant digits: two more than the place of the tail's last
   * nonzero digit byte, one when the tail is all zeros. */
  unsigned nonzero =
      ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(z, zero));
  long long count[4];
  for (int i = 0; i < 4; i++) {
    unsigned b = (nonzero >> (8 * i)) & 0xffu;
    count[i] = b != 0 ? 2 + (31 - __builtin_clz(b)) : 1;
  }
  __m256i digits = _mm256_setr_epi64x(count[0], count[1], count[2], count[3]);
  __m256i tail = _mm256_or_si256(z, set64(0x3030303030303030ull));
  head = _mm256_add_epi64(head, set64('0'));
  /* Zero: the text "0". */
  head = pick(head, set64('0'), is_zero);
  digits = pick(digits, one64, is_zero);
  e10 = pick(e10, zero, is_zero);
  /* The layout (float_list_avx512.c): xp = max(e10, 0), lead zeros
   * xp - e10, length sign + max(all, xp + 1) + (all > xp + 1). */
  __m256i xp = pick(zero, e10, _mm256_cmpgt_epi64(e10, zero));
  __m256i lead = _mm256_sub_epi64(xp, e10);
  __m256i all = _mm256_add_epi64(lead, digits);
  __m256i xp1 = _mm256_add_epi64(xp, one64);
  __m256i all_gt = _mm256_cmpgt_epi64(all, xp1);
  __m256i len =
      _mm256_sub_epi64(_mm256_add_epi64(sign, pick(xp1, all, all_gt)), all_gt);
  texts4_t out;
  __m128i len_lo = _mm256_castsi256_si128(len),
          len_hi = _mm256_extracti128_si256(len, 1);
  out.len[0] = (size_t)_mm_cvtsi128_si64(len_lo);
  out.len[1] = (size_t)_mm_extract_epi64(len_lo, 1);
  out.len[2] = (size_t)_mm_cvtsi128_si64(len_hi);
  out.len[3] = (size_t)_mm_extract_epi64(len_hi, 1);
  /* Source bytes per float: 0 the head digit, 1..8 the tail, 9 '.',
   * 10 '0', 11 '-'; parameters: 0 sign, 1 xp, 2 lead. Floats 0 and 2 go
   * through one register, 1 and 3 through the other. */
  __m256i src_lo = _mm256_or_si256(head, _mm256_slli_epi64(tail, 8));
  __m256i src_hi = _mm256_or_si256(_mm256_srli_epi64(tail, 56),
                                   set64('.' << 8 | '0' << 16 | '-' << 24));
  __m256i par =
      _mm256_or_si256(sign, _mm256_or_si256(_mm256_slli_epi64(xp, 8),
                                            _mm256_slli_epi64(lead, 16)));
  const __m256i at =
      _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0,
                       1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m256i laid[2];
  for (int h = 0; h < 2; h++) {
    __m256i src = h == 0 ? _mm256_unpacklo_epi64(src_lo, src_hi)
                         : _mm256_unpackhi_epi64(src_lo, src_hi);
    __m256i pr = h == 0 ? _mm256_unpacklo_epi64(par, par)
                        : _mm256_unpackhi_epi64(par, par);
    __m256i sg = _mm256_shuffle_epi8(pr, _mm256_set1_epi8(0));
    __m256i xpb = _mm256_shuffle_epi8(pr, _mm256_set1_epi8(1));
    __m256i ld = _mm256_shuffle_epi8(pr, _mm256_set1_epi8(2));
    __m256i q = _mm256_sub_epi8(at, sg); /* position after the sign */
    /* The digit (of lead zeros then digits) at q: q up to xp, q - 1
     * after the point. */
    __m256i idx = _mm256_add_epi8(q, _mm256_cmpgt_epi8(q, xpb));
    idx = _mm256_sub_epi8(idx, ld);
    idx = _mm256_blendv_epi8(idx, _mm256_set1_epi8(10),
                             _mm256_cmpgt_epi8(zero, idx));
    idx = _mm256_blendv_epi8(
        idx, _mm256_set1_epi8(9),
        _mm256_cmpeq_epi8(q, _mm256_add_epi8(xpb, _mm256_set1_epi8(1))));
    idx = _mm256_blendv_epi8(idx, _mm256_set1_epi8(11),
                             _mm256_cmpgt_epi8(zero, q));
    laid[h] = _mm256_shuffle_epi8(src, idx);
  }
  /* laid[0] holds floats 0 | 2, laid[1] floats 1 | 3. */
  out.text[0] = _mm256_castsi256_si128(laid[0]);
  out.text[1] = _mm256_castsi256_si128(laid[1]);
  out.text[2] = _mm256_extracti128_si256(laid[0], 1);
  out.text[3] = _mm256_extracti128_si256(laid[1], 1);
  unsigned printed = (unsigned)_mm256_movemask_pd(
      _mm256_castsi256_pd(_mm256_or_si256(ok, is_zero)));
  out.scalar = ~printed & 0xfu;
  return out;
}

/* Writes the texts of t's floats (count of them, v their values) at
 * out + pos, each followed by a comma; returns the new pos. */
static inline __attribute__((always_inline)) size_t
put4(char *out, size_t pos, const texts4_t *t, const float *v, size_t count) {
#pragma GCC unroll 4
  for (size_t k = 0; k < count; k++) {
    size_t len;
    if (t->scalar >> k & 1u) {
      len = fmt_float_str(out + pos, v[k]);
    } else {
      _mm_storeu_si128((__m128i *)(void *)(out + pos), t->text[k]);
      len = t->len[k];
    }
    pos += len;
    out[pos++] = ',';
  }
  return pos;
}

size_t fmt__float_list_avx2(char *out, const float *v, size_t n) {
  size_t pos = 0, i = 0;
  /* Eight floats a step: the second four's arithmetic overlaps the
   * first's (each four is a long dependency chain). */
  for (; i + 8 <= n; i += 8) {
    const texts4_t a = texts4(v + i), b = texts4(v + i + 4);
    pos = put4(out, pos, &a, v + i, 4);
    pos = put4(out, pos, &b, v + i + 4, 4);
  }
  for (; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float pad[4] = {0};
    const float *at = v + i;
    if (count < 4) { /* The last floats from a padded copy. */
      memcpy(pad, at, count * sizeof pad[0]);
      at = pad;
    }
    const texts4_t t = texts4(at);
    pos = put4(out, pos, &t, v + i, count);
  }
  return pos - 1;
}
