/* formats: fmt_float_list eight floats at a time with AVX-512 (x86-64-v4).
 *
 * The arithmetic is decimal_everyday's in buf.c (read its comment first),
 * one float per 64-bit lane: a = m / 2^s, the decimal exponent e10 from
 * the binary one, then for 6, 7, 8 and 9 digits the product m 10^k and its
 * distance to the nearest multiple of 2^s against half a gap; the first
 * count that fits wins, ties round to even. The digits come from the same
 * SWAR splits, here in 32- and 16-bit lanes. Each float's text is then laid
 * out in a 128-bit lane by one byte shuffle (at most 16 bytes: a sign,
 * "0.000" and 9 digits), and a short scalar loop stores the texts one after
 * another with their commas.
 * Zeros are printed here too ("0", "-0"); integers of the range come out
 * as their digits, the text fmt_float_str's integer path gives. A float
 * the everyday path would refuse (outside 1e-4 <= |f| < 1e6, non-finite,
 * undecided near an interval's end, a power of two not exact in the
 * chosen digits, or rounded up to 10^p) is printed by fmt_float_str. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/float_list.h"

typedef struct pow10_regs_s {
  __m512i lo, hi;
} pow10_regs_t;

/* 10^idx per lane (idx taken modulo 16). */
static inline __m512i pow10_of(pow10_regs_t t, __m512i idx) {
  return _mm512_permutex2var_epi64(t.lo, idx, t.hi);
}

static inline __m512i set64(uint64_t v) {
  return _mm512_set1_epi64((long long)v);
}

/* The text of 8 floats: texts[16 i ..] holds float i's (garbage after its
 * length), lens[i] its length; returns the lanes left to fmt_float_str. */
static __mmask8 texts8(const float *v, __mmask8 live, pow10_regs_t t,
                       char texts[128], uint8_t lens[8]) {
  const __m512i one64 = set64(1);
  __m512i bits = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(live, v));
  __m512i sign = _mm512_srli_epi64(bits, 31);
  __m512i absb = _mm512_and_si512(bits, set64(0x7fffffffu));
  __m512i biased = _mm512_srli_epi64(absb, 23);
  __mmask8 zero = _mm512_cmpeq_epi64_mask(absb, _mm512_setzero_si512());
  __m512i m = _mm512_or_si512(_mm512_and_si512(absb, set64(0x7fffffu)),
                              set64(0x800000u));
  __m512i s = _mm512_sub_epi64(set64(127 + 23), biased);
  /* 2^-14 <= a < 2^20 */
  __mmask8 ok = _mm512_cmpge_epi64_mask(biased, set64(127 - 14)) &
                _mm512_cmplt_epi64_mask(biased, set64(127 + 20));
  /* e10 = floor(e2 log10 2) by 78913 / 2^18, an arithmetic shift being the
   * floor; then one more when a >= 10^(e10 + 1). */
  __m512i e2 = _mm512_sub_epi64(biased, set64(127));
  __m512i e10 = _mm512_srai_epi64(_mm512_mul_epi32(e2, set64(78913)), 18);
  __m512i up = _mm512_add_epi64(e10, one64);
  __m512i one = _mm512_sllv_epi64(one64, s),
          mask = _mm512_sub_epi64(one, one64);
  __mmask8 up_nonneg = _mm512_cmpge_epi64_mask(up, _mm512_setzero_si512());
  __m512i p_up = pow10_of(t, up),
          p_down = pow10_of(t, _mm512_sub_epi64(_mm512_setzero_si512(), up));
  __mmask8 above =
      (up_nonneg & _mm512_cmpge_epu64_mask(m, _mm512_sllv_epi64(p_up, s))) |
      (~up_nonneg &
       _mm512_cmpge_epu64_mask(_mm512_mullo_epi64(m, p_down), one));
  e10 = _mm512_mask_add_epi64(e10, above, e10, one64);
  ok &= _mm512_cmpge_epi64_mask(e10, set64((uint64_t)-4)) &
        _mm512_cmple_epi64_mask(e10, set64(5));
  /* The candidates: 6 + i digits, k = 5 + i - e10. */
  __m512i k6 = _mm512_sub_epi64(set64(5), e10);
  __mmask8 fits[3], undecided[3];
  __m512i n[4];
  for (int i = 0; i < 4; i++) {
    __m512i p10 = pow10_of(t, _mm512_add_epi64(k6, set64((uint64_t)i)));
    n[i] = _mm512_mullo_epi64(m, p10);
    if (i == 3) break; /* Nine digits always fit. */
    __m512i r = _mm512_and_si512(n[i], mask);
    __m512i near = _mm512_min_epu64(r, _mm512_sub_epi64(one, r));
    __m512i twice = _mm512_add_epi64(near, near);
    __m512i margin = _mm512_add_epi64(_mm512_srli_epi64(p10, 27), one64);
    __m512i reach = _mm512_add_epi64(twice, margin);
    fits[i] = _mm512_cmple_epu64_mask(reach, p10);
    undecided[i] = _mm512_cmplt_epu64_mask(
        _mm512_sub_epi64(_mm512_sub_epi64(reach, one64), p10),
        _mm512_sub_epi64(_mm512_add_epi64(margin, margin), one64));
  }
  /* The first that fits: the later masks overwrite the earlier choices. */
  __m512i chosen = n[3], p = set64(9);
  for (int i = 2; i >= 0; i--) {
    chosen = _mm512_mask_mov_epi64(chosen, fits[i], n[i]);
    p = _mm512_mask_mov_epi64(p, fits[i], set64(6 + (uint64_t)i));
  }
  __mmask8 unsure = undecided[0] | (undecided[1] & ~fits[0]) |
                    (undecided[2] & ~fits[0] & ~fits[1]);
  __m512i d = _mm512_srlv_epi64(chosen, s);
  __m512i r = _mm512_and_si512(chosen, mask), half = _mm512_srli_epi64(one, 1);
  __mmask8 round_up =
      _mm512_cmpgt_epu64_mask(r, half) |
      (_mm512_cmpeq_epi64_mask(r, half) & _mm512_test_epi64_mask(d, one64));
  d = _mm512_mask_add_epi64(d, round_up, d, one64);
  /* Rounded up to 10^p, or a power of two (whose gap below is half the
   * one above) not exactly printed: fmt_float_str decides. */
  __mmask8 refused = unsure | _mm512_cmpeq_epi64_mask(d, pow10_of(t, p)) |
                     (_mm512_cmpeq_epi64_mask(m, set64(0x800000u)) &
                      _mm512_test_epi64_mask(r, r));
  ok &= ~refused;
  /* Nine digits v = d 10^(9-p), 10^8 <= v < 10^9: the first as head, the
   * other eight as two 4-digit halves in 32-bit lanes, each split into
   * 2-digit 16-bit lanes and those into digit bytes (buf.c's
   * nine_digits). v / 10^8 = (v 720575941) >> 56 and x / 10^4 =
   * (x 3518437209) >> 45 are exact below 2^30 and 2^32. */
  __m512i v9 = _mm512_mul_epu32(d, pow10_of(t, _mm512_sub_epi64(set64(9), p)));
  __m512i head = _mm512_srli_epi64(_mm512_mul_epu32(v9, set64(720575941u)), 56);
  __m512i rest =
      _mm512_sub_epi64(v9, _mm512_mul_epu32(head, set64(100000000u)));
  __m512i hi4 =
      _mm512_srli_epi64(_mm512_mul_epu32(rest, set64(3518437209u)), 45);
  __m512i lo4 = _mm512_sub_epi64(rest, _mm512_mul_epu32(hi4, set64(10000u)));
  __m512i x = _mm512_or_si512(hi4, _mm512_slli_epi64(lo4, 32));
  __m512i y =
      _mm512_srli_epi32(_mm512_mullo_epi32(x, _mm512_set1_epi32(10486)), 20);
  y = _mm512_or_si512(
      y, _mm512_slli_epi32(
             _mm512_sub_epi32(x, _mm512_mullo_epi32(y, _mm512_set1_epi32(100))),
             16));
  __m512i z =
      _mm512_srli_epi16(_mm512_mullo_epi16(y, _mm512_set1_epi16(103)), 10);
  z = _mm512_or_si512(
      z, _mm512_slli_epi16(
             _mm512_sub_epi16(y, _mm512_mullo_epi16(z, _mm512_set1_epi16(10))),
             8));
  /* Significant digits: nine less the zero digits at the end of the tail
   * (its high bytes). */
  __m512i digits =
      _mm512_sub_epi64(set64(9), _mm512_srli_epi64(_mm512_lzcnt_epi64(z), 3));
  __m512i tail = _mm512_or_si512(z, set64(0x3030303030303030ull));
  head = _mm512_add_epi64(head, set64('0'));
  /* Zero: the text "0". */
  head = _mm512_mask_mov_epi64(head, zero, set64('0'));
  digits = _mm512_mask_mov_epi64(digits, zero, one64);
  e10 = _mm512_mask_mov_epi64(e10, zero, _mm512_setzero_si512());
  /* The layout: xp digits before the point less one (x >= 0), lead zeros
   * before the digits when x < 0 ("0.00ddd" is the digits after three
   * zeros, with the point after the first); the length is
   * sign + max(all, xp + 1) + (all > xp + 1), all = lead + digits. */
  __m512i xp = _mm512_max_epi64(e10, _mm512_setzero_si512());
  __m512i lead = _mm512_sub_epi64(xp, e10);
  __m512i all = _mm512_add_epi64(lead, digits);
  __m512i xp1 = _mm512_add_epi64(xp, one64);
  __m512i len = _mm512_add_epi64(sign, _mm512_max_epi64(all, xp1));
  len =
      _mm512_mask_add_epi64(len, _mm512_cmpgt_epi64_mask(all, xp1), len, one64);
  _mm_storel_epi64((__m128i *)(void *)lens, _mm512_cvtepi64_epi8(len));
  /* Source bytes per float: 0 the head digit, 1..8 the tail, 9 '.',
   * 10 '0', 11 '-'; parameters: 0 sign, 1 xp, 2 lead. */
  __m512i src_lo = _mm512_or_si512(head, _mm512_slli_epi64(tail, 8));
  __m512i src_hi = _mm512_or_si512(_mm512_srli_epi64(tail, 56),
                                   set64('.' << 8 | '0' << 16 | '-' << 24));
  __m512i par =
      _mm512_or_si512(sign, _mm512_or_si512(_mm512_slli_epi64(xp, 8),
                                            _mm512_slli_epi64(lead, 16)));
  const __m512i first_half = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i second_half = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  const __m512i at =
      _mm512_set4_epi32(0x0f0e0d0c, 0x0b0a0908, 0x07060504, 0x03020100);
  for (int h = 0; h < 2; h++) {
    __m512i order = h == 0 ? first_half : second_half;
    __m512i src = _mm512_permutex2var_epi64(src_lo, order, src_hi);
    __m512i pr = _mm512_permutex2var_epi64(par, order, par);
    __m512i sg = _mm512_shuffle_epi8(pr, _mm512_set1_epi8(0));
    __m512i xpb = _mm512_shuffle_epi8(pr, _mm512_set1_epi8(1));
    __m512i ld = _mm512_shuffle_epi8(pr, _mm512_set1_epi8(2));
    __m512i q = _mm512_sub_epi8(at, sg); /* position after the sign */
    /* The digit (of lead zeros then digits) at q: q up to xp, q - 1
     * after the point. */
    __m512i idx = _mm512_mask_sub_epi8(q, _mm512_cmpgt_epi8_mask(q, xpb), q,
                                       _mm512_set1_epi8(1));
    idx = _mm512_sub_epi8(idx, ld);
    idx = _mm512_mask_mov_epi8(
        idx, _mm512_cmplt_epi8_mask(idx, _mm512_setzero_si512()),
        _mm512_set1_epi8(10));
    idx = _mm512_mask_mov_epi8(
        idx,
        _mm512_cmpeq_epi8_mask(q, _mm512_add_epi8(xpb, _mm512_set1_epi8(1))),
        _mm512_set1_epi8(9));
    idx = _mm512_mask_mov_epi8(
        idx, _mm512_cmplt_epi8_mask(q, _mm512_setzero_si512()),
        _mm512_set1_epi8(11));
    _mm512_storeu_si512(texts + 64 * h, _mm512_shuffle_epi8(src, idx));
  }
  return (__mmask8)(live & ~(ok | zero));
}

size_t fmt__float_list_avx512(char *out, const float *v, size_t n) {
  /* fmt__pow10_u64's 16 entries: two registers' worth for vpermt2q. */
  const pow10_regs_t t = {_mm512_loadu_si512(fmt__pow10_u64),
                          _mm512_loadu_si512(fmt__pow10_u64 + 8)};
  _Alignas(64) char texts[128];
  uint8_t lens[8];
  size_t pos = 0;
  for (size_t i = 0; i < n; i += 8) {
    size_t count = n - i < 8 ? n - i : 8;
    __mmask8 live = (__mmask8)((1u << count) - 1u);
    __mmask8 scalar = texts8(v + i, live, t, texts, lens);
    for (size_t k = 0; k < count; k++) {
      size_t len;
      if (scalar >> k & 1u) {
        len = fmt_float_str(out + pos, v[i + k]);
      } else {
        memcpy(out + pos, texts + 16 * k, 16);
        len = lens[k];
      }
      pos += len;
      out[pos++] = ',';
    }
  }
  return pos - 1;
}
