/* formats: the growable answer buffer, with JSON string escaping and
 * shortest round-tripping float printing.
 *
 * Floats: an integer-valued float below 2^24 is printed as an integer;
 * anything else as the text "%.6g", "%.7g", "%.8g" or "%.9g" would give,
 * the first that reads back as the same float through strtod and a cast to
 * float (the path JSON parsers take: jansson, JavaScript + Float32Array;
 * 9 significant digits always suffice for float32). printf is slow (about
 * half a microsecond a float for 3-4 tries), so the digits are found in
 * arithmetic, in three tiers:
 *   - 1e-4 <= |f| < 1e6, where animation data lives: exact integer
 *     arithmetic on the float's significand, every digit count at once,
 *     no data-dependent branches (decimal_everyday);
 *   - other exponents down to about 1e-14 and up to 1e22: double
 *     arithmetic, D = round(f * 10^k) with an exact power of ten, and the
 *     check D / 10^k, one correctly rounded operation, is exactly what
 *     strtod computes for that text;
 *   - beyond those, printf itself.
 * All three print the same text as printf: the unit tests compare samples
 * of each, and make check-floats every float of the first range.
 * fmt_float_list prints lists; with AVX-512 it runs the first tier eight
 * floats at a time (float_list_avx512.c), with AVX2 four at a time
 * (float_list_avx2.c), and hands it the rest.
 *
 * The search starts at 6 digits: 6-digit decimals are at least 8 float
 * ulps apart (10^-5 relative against 2^-23), so at most one of them reads
 * back as f, and a shorter one that does is that one with zeros appended:
 * %.6g prints it either way. The decimal exponent comes from the binary
 * one (floor(e2 log10 2), then one comparison with a power of ten), not
 * from log10. */
#include "formats/buf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/base.h"
#include "formats/float_list.h"

void fmt_buf_init(fmt_buf_t *b) { memset(b, 0, sizeof *b); }

void fmt_buf_free(fmt_buf_t *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

void fmt_buf_reset(fmt_buf_t *b) {
  b->len = 0;
  b->failed = false;
}

bool fmt_buf_reserve(fmt_buf_t *b, size_t extra) {
  if (b->failed) return false;
  if (extra <= b->cap - b->len) return true;
  if (extra > SIZE_MAX / 2 - b->len) {
    b->failed = true;
    return false;
  }
  size_t need = b->len + extra;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap *= 2;
  char *grown = realloc(b->data, cap);
  if (grown == NULL) {
    b->failed = true;
    return false;
  }
  b->data = grown;
  b->cap = cap;
  return true;
}

char *fmt_buf_steal(fmt_buf_t *b, size_t *len) {
  char *data = b->failed ? NULL : b->data;
  if (len) *len = data ? b->len : 0;
  if (data == NULL) free(b->data);
  memset(b, 0, sizeof *b);
  return data;
}

const char *fmt_buf_cstr(fmt_buf_t *b) {
  if (!fmt_buf_reserve(b, 1)) return NULL;
  b->data[b->len] = '\0';
  return b->data;
}

void fmt_buf_append(fmt_buf_t *b, const void *data, size_t len) {
  if (len == 0 || !fmt_buf_reserve(b, len)) return;
  memcpy(b->data + b->len, data, len);
  b->len += len;
}

void fmt_buf_puts(fmt_buf_t *b, const char *s) {
  fmt_buf_append(b, s, strlen(s));
}

void fmt_buf_putc(fmt_buf_t *b, char c) {
  if (!fmt_buf_reserve(b, 1)) return;
  b->data[b->len++] = c;
}

void fmt_buf_printf(fmt_buf_t *b, const char *fmt, ...) {
  if (b->failed) return;
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    fmt_buf_append(b, small, (size_t)n);
    return;
  }
  if (!fmt_buf_reserve(b, (size_t)n + 1)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Digits of v, most significant first, into out; returns the count. */
static size_t utoa(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

void fmt_buf_uint(fmt_buf_t *b, uint64_t v) {
  char tmp[24];
  fmt_buf_append(b, tmp, utoa(tmp, v));
}

void fmt_buf_int(fmt_buf_t *b, int64_t v) {
  char tmp[24];
  size_t n = 0;
  uint64_t u = (uint64_t)v;
  if (v < 0) {
    tmp[n++] = '-';
    u = 0 - u;
  }
  n += utoa(tmp + n, u);
  fmt_buf_append(b, tmp, n);
}

/* The reference method: the first of %.6g .. %.9g that reads back as f. */
size_t fmt_float_str_printf(char *out, float f) {
  int n = 0;
  for (int precision = 6; precision <= 9; precision++) {
    n = snprintf(out, FMT_FLOAT_MAX, "%.*g", precision, (double)f);
    if (precision == 9 || (float)strtod(out, NULL) == f) break;
  }
  return (size_t)n;
}

/* 10^-23 .. 10^23 as doubles (correctly rounded; exact from 10^0 up):
 * where the decimal exponent of a float may fall on the fast path. */
static const double pow10_near[47] = {
    1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14,
    1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,
    1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,
    1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,
    1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23};

/* floor(log10(v)) for v > 0 a float widened to double, when it lies in
 * [-22, 22]; a value outside that range otherwise (which sends the caller
 * to printf). */
static int decimal_exponent(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  int e2 = (int)((bits >> 52) & 0x7ff) - 1023; /* v in [2^e2, 2^(e2+1)) */
  /* floor(e2 * log10(2)) with 78913 / 2^18 (exact for |e2| < 1700). */
  int e10 = e2 >= 0 ? (e2 * 78913) >> 18 : -((-e2 * 78913 + 262143) >> 18);
  if (e10 < -23 || e10 > 22) return e10;
  /* log10(v) < (e2 + 1) log10(2): at most one above the estimate. */
  if (v >= pow10_near[e10 + 1 + 23]) e10++;
  return e10;
}

/* Exact powers of ten in double: 10^0 .. 10^22. */
static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Prints digits (n of them, no trailing zeros) times 10^x the way %g with
 * precision P does, after the sign. */
static size_t format_g(char *out, const char *digits, int n, int x, int P) {
  size_t o = 0;
  if (x < -4 || x >= P) {
    out[o++] = digits[0];
    if (n > 1) {
      out[o++] = '.';
      for (int i = 1; i < n; i++) out[o++] = digits[i];
    }
    out[o++] = 'e';
    out[o++] = x < 0 ? '-' : '+';
    int ax = x < 0 ? -x : x;
    if (ax >= 10)
      out[o++] = (char)('0' + ax / 10);
    else
      out[o++] = '0';
    out[o++] = (char)('0' + ax % 10);
  } else if (x >= 0) {
    for (int i = 0; i <= x; i++) out[o++] = i < n ? digits[i] : '0';
    if (n > x + 1) {
      out[o++] = '.';
      for (int i = x + 1; i < n; i++) out[o++] = digits[i];
    }
  } else {
    out[o++] = '0';
    out[o++] = '.';
    for (int i = 0; i < -x - 1; i++) out[o++] = '0';
    for (int i = 0; i < n; i++) out[o++] = digits[i];
  }
  out[o] = '\0';
  return o;
}

/* 10^0 .. 10^13 as integers, then two zeros (float_list.h). */
const uint64_t fmt__pow10_u64[16] = {1ull,
                                     10ull,
                                     100ull,
                                     1000ull,
                                     10000ull,
                                     100000ull,
                                     1000000ull,
                                     10000000ull,
                                     100000000ull,
                                     1000000000ull,
                                     10000000000ull,
                                     100000000000ull,
                                     1000000000000ull,
                                     10000000000000ull,
                                     0,
                                     0};

/* Eight characters stored in one move: c holds them little-endian (the
 * first in its low byte). */
static void put_chars8(char *out, uint64_t c) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(out, &c, 8);
#else
  for (int i = 0; i < 8; i++) out[i] = (char)(c >> (8 * i));
#endif
}

/* The digits of 10^8 <= v < 10^9: the first as a character, the other
 * eight in *tail (put_chars8 order), found in one 64-bit word a lane per
 * group (SWAR): the two halves of 4 digits in 32-bit lanes, each split
 * into 2-digit 16-bit lanes by x / 100 = (x 10486) >> 20 (exact below
 * 10,000), each of those into digits by y / 10 = (y 103) >> 10 (exact
 * below 100). No table and no stores: bytes stored one by one and read
 * back as a word would wait on store forwarding. */
static char nine_digits(uint32_t v, uint64_t *tail) {
  uint32_t head = v / 100000000u, rest = v - head * 100000000u;
  uint64_t x = (uint64_t)(rest / 10000u) | (uint64_t)(rest % 10000u) << 32;
  uint64_t y = ((x * 10486u) >> 20) & 0x0000007f0000007full;
  y |= (x - y * 100u) << 16;
  uint64_t z = ((y * 103u) >> 10) & 0x000f000f000f000full;
  z |= (y - z * 10u) << 8;
  *tail = z | 0x3030303030303030ull;
  return (char)('0' + head);
}

/* The everyday range, 10^-4 <= a < 10^6 (a > 0, finite, not an integer
 * below 2^24), in integers only and nearly without branches (the
 * digit count a float needs is as good as random, so a search that stops
 * at the first fit mispredicts on most floats): a = m / 2^s exactly (m
 * the 24-bit significand, 4 <= s <= 37 here), so for each p of 6..9
 * digits, with k = p - 1 - e10 (0 <= k <= 12), the text's digits
 * D = round(m 10^k / 2^s) (ties to even, as printf rounds) come from one
 * 64-bit product (m 10^k < 2^64) and a shift, and D / 10^k reads back as
 * a when it lies inside a's rounding interval: |D 2^s - m 10^k| against
 * half a gap, 10^k / 2 (powers of two, whose gap below is half the one
 * above, are left to the double search). 6, 7 and 8 digits are tested;
 * the smallest p that fits wins, 9 when none does.
 * strtod rounds to a double first, so a decimal within about a double's
 * half ulp (10^k / 2^29 in these units) of an interval's end is left to
 * the double search (none of the range's 278 million floats is). Returns
 * the text's length, or 0 when a is outside the range or undecided. */
static size_t decimal_everyday(char *out, float a) {
  uint32_t bits;
  memcpy(&bits, &a, sizeof bits);
  int biased = (int)(bits >> 23);
  /* 2^-14 <= a < 2^20 covers [1e-4, 1e6); e10 is checked below. */
  if (biased < 127 - 14 || biased >= 127 + 20) return 0;
  uint64_t m = (bits & 0x7fffffu) | 0x800000u;
  int s = 127 + 23 - biased; /* a = m / 2^s, 3 < s < 38 */
  /* e10 = floor(log10 a): the estimate floor(e2 log10 2) is exact or one
   * below; a >= 10^(e10+1) decides, in integers. */
  int e2 = biased - 127;
  int e10 = e2 >= 0 ? (e2 * 78913) >> 18 : -((-e2 * 78913 + 262143) >> 18);
  int up = e10 + 1;
  bool above = up >= 0 ? m >= (fmt__pow10_u64[up] << s)
                       : m * fmt__pow10_u64[-up] >= (1ull << s);
  e10 += above;
  if (e10 < -4 || e10 > 5) return 0;
  /* A power of two has a gap below half the one above; the double search
   * prints it. */
  if (m == 0x800000u) return 0;
  uint64_t one = 1ull << s, mask = one - 1;
  unsigned fits = 0, undecided = 0;
  for (int i = 0; i < 3; i++) {
    uint64_t p10 = fmt__pow10_u64[5 + i - e10]; /* 10^k for p = 6 + i */
    /* a 10^k = n / 2^s; D's distance to it is that of n / 2^s to its
     * nearest integer, r or 2^s - r over 2^s; twice that against the gap,
     * 10^k, decides (a minimum, not a branch). */
    uint64_t r = (m * p10) & mask, other = one - r;
    uint64_t twice = 2 * (r < other ? r : other);
    uint64_t margin = (p10 >> 27) + 1;
    fits |= (unsigned)(twice + margin <= p10) << i;
    /* p10 - margin < twice < p10 + margin, as one unsigned comparison */
    undecided |= (unsigned)(twice + margin - 1 - p10 < 2 * margin - 1) << i;
  }
  /* Nine digits always fit, well inside the interval (a 9-digit rounding
   * is within 5e-9 of a, relative; half a gap is at least 2^-25), so they
   * are not tested. */
  int i = fits != 0 ? __builtin_ctz(fits) : 3;
  if (undecided & ((2u << i) - 1)) return 0;
  int p = 6 + i;
  uint64_t n = m * fmt__pow10_u64[5 + i - e10];
  uint64_t d = n >> s, r = n & mask, half = one >> 1;
  d += (r > half) | ((r == half) & d); /* ties to even, as printf */
  int x = e10;
  if (d == fmt__pow10_u64[p]) { /* Rounded up to 10^p: one digit more. */
    d = fmt__pow10_u64[p - 1];
    x++;
  }
  uint64_t tail;
  char head = nine_digits((uint32_t)(d * fmt__pow10_u64[9 - p]), &tail);
  int len = p; /* significant digits, trailing zeros dropped */
  while (len > 1 && (char)(tail >> (8 * (len - 2))) == '0') len--;
  if (x >= 0 && x < p) { /* ddd.ddd */
    out[0] = head;
    put_chars8(out + 1, tail);
    if (len <= x + 1) {
      out[x + 1] = '\0';
      return (size_t)x + 1;
    }
    out[x + 1] = '.';
    put_chars8(out + x + 2, tail >> (8 * x));
    out[len + 1] = '\0';
    return (size_t)len + 1;
  }
  if (x < 0 && x >= -4) { /* 0.000ddd */
    memcpy(out, "0.0000", 6);
    out[1 - x] = head;
    put_chars8(out + 2 - x, tail);
    out[1 - x + len] = '\0';
    return (size_t)(1 - x + len);
  }
  char dig[9];
  dig[0] = head;
  put_chars8(dig + 1, tail);
  return format_g(out, dig, len, x, p);
}

/* True when 0 < a < 2^24 is an integer, from its bits: no fractional
 * bits below the exponent's (without a branch on the exponent). */
static bool is_small_integer(float a) {
  uint32_t bits;
  memcpy(&bits, &a, sizeof bits);
  int e = (int)(bits >> 23) - 127; /* 2^e <= a < 2^(e+1) */
  bool in_range = (unsigned)e <= 23u;
  uint32_t fraction = in_range ? (1u << (23 - e)) - 1 : 0;
  return in_range & ((bits & fraction) == 0);
}

size_t fmt_float_str(char *out, float f) {
  if (!isfinite(f)) {
    memcpy(out, "null", 5);
    return 4;
  }
  if (f == 0.0f) {
    /* -0 keeps its sign so that it round-trips bit for bit. */
    if (signbit(f)) {
      memcpy(out, "-0", 3);
      return 2;
    }
    memcpy(out, "0", 2);
    return 1;
  }
  float a = fabsf(f);
  /* The sign without a branch (it is as good as random in poses): the
   * digits overwrite the '-' of a positive float. */
  out[0] = '-';
  size_t n = f < 0;
  if (is_small_integer(a)) {
    n += utoa(out + n, (uint64_t)a);
    out[n] = '\0';
    return n;
  }
  size_t everyday = decimal_everyday(out + n, a);
  if (everyday != 0) return n + everyday;
  /* The first p of 6..9 digits whose D * 10^-k reads back as a, where the
   * check (one correctly rounded double operation with an exact power of
   * ten, then the cast) is what strtod + cast computes. */
  double v = (double)a;
  int e10 = decimal_exponent(v);
  if (e10 > 22 || e10 < -22) return n + fmt_float_str_printf(out + n, a);
  for (int p = 6; p <= 9; p++) {
    int k = p - 1 - e10;
    if (k > 22 || k < -22) return n + fmt_float_str_printf(out + n, a);
    double scaled = k >= 0 ? v * pow10_exact[k] : v / pow10_exact[-k];
    /* nearbyint for 0 <= scaled < 2^52 (here below 10^10), inline:
     * adding 2^52 rounds to an integer, ties to even. */
    double d = (scaled + 0x1p52) - 0x1p52;
    double back = k >= 0 ? d / pow10_exact[k] : d * pow10_exact[-k];
    if ((float)back != a) continue;
    uint64_t digits = (uint64_t)d;
    int x = e10;
    if (digits == 0) continue;
    /* The value is digits * 10^-k; its count of digits gives the
     * exponent. */
    char buf[24];
    int len = (int)utoa(buf, digits);
    x = len - 1 - k;
    while (len > 1 && buf[len - 1] == '0') len--;
    n += format_g(out + n, buf, len, x, p > 6 ? p : 6);
    return n;
  }
  return n + fmt_float_str_printf(out + n, a);
}

void fmt_buf_float(fmt_buf_t *b, float f) {
  if (!fmt_buf_reserve(b, FMT_FLOAT_MAX)) return;
  b->len += fmt_float_str(b->data + b->len, f);
}

size_t fmt__float_list_scalar(char *out, const float *v, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    len += fmt_float_str(out + len, v[i]);
    out[len++] = ',';
  }
  return n != 0 ? len - 1 : 0;
}

size_t fmt_float_list(char *out, const float *v, size_t n) {
  if (n == 0) return 0;
  switch (anim_simd_level()) {
  case ANIM_SIMD_AVX512: return fmt__float_list_avx512(out, v, n);
  case ANIM_SIMD_AVX2: return fmt__float_list_avx2(out, v, n);
  default: return fmt__float_list_scalar(out, v, n);
  }
}

/* Floats printed per reservation: a long list grows the buffer by about
 * what it needs, not by FMT_FLOAT_MAX + 1 per float at once. */
#define FLOAT_LIST_CHUNK 512u

void fmt_buf_float_list(fmt_buf_t *b, const float *v, size_t n) {
  for (size_t i = 0; i < n; i += FLOAT_LIST_CHUNK) {
    size_t count = n - i < FLOAT_LIST_CHUNK ? n - i : FLOAT_LIST_CHUNK;
    if (!fmt_buf_reserve(b, count * (FMT_FLOAT_MAX + 1) + 1)) return;
    if (i) b->data[b->len++] = ',';
    b->len += fmt_float_list(b->data + b->len, v + i, count);
  }
}

void fmt_buf_float_array(fmt_buf_t *b, const float *v, size_t n) {
  fmt_buf_putc(b, '[');
  fmt_buf_float_list(b, v, n);
  fmt_buf_putc(b, ']');
}

void fmt_buf_json_string(fmt_buf_t *b, const char *s) {
  if (s == NULL) {
    fmt_buf_puts(b, "null");
    return;
  }
  static const char hex[] = "0123456789abcdef";
  fmt_buf_putc(b, '"');
  const char *run = s;
  for (const char *p = s;; p++) {
    unsigned char c = (unsigned char)*p;
    if (c != 0 && c >= 0x20 && c != '"' && c != '\\') continue;
    fmt_buf_append(b, run, (size_t)(p - run));
    if (c == 0) break;
    run = p + 1;
    char esc[7] = {'\\', 0};
    size_t n = 2;
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    default:
      memcpy(esc, "\\u00", 4);
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      n = 6;
    }
    fmt_buf_append(b, esc, n);
  }
  fmt_buf_putc(b, '"');
}

void fmt_buf_xml_text(fmt_buf_t *b, const char *s) {
  if (s == NULL) return;
  const char *run = s;
  for (const char *p = s;; p++) {
    unsigned char c = (unsigned char)*p;
    const char *entity =
        c == '&'                                                    ? "&amp;"
        : c == '<'                                                  ? "&lt;"
        : c == '>'                                                  ? "&gt;"
        : c == '"'                                                  ? "&quot;"
        : c == '\''                                                 ? "&apos;"
        : c != 0 && c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? "&#xFFFD;"
                                                                    : NULL;
    if (entity == NULL && c != 0) continue;
    fmt_buf_append(b, run, (size_t)(p - run));
    if (c == 0) break;
    fmt_buf_puts(b, entity);
    run = p + 1;
  }
}

void fmt_buf_f32le(fmt_buf_t *b, const float *v, size_t n) {
  if (n > SIZE_MAX / 4) {
    b->failed = true;
    return;
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  fmt_buf_append(b, v, n * 4);
#else
  if (!fmt_buf_reserve(b, n * 4)) return;
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &v[i], 4);
    fmt_buf_u32le(b, u);
  }
#endif
}

void fmt_buf_u32le(fmt_buf_t *b, uint32_t v) {
  unsigned char out[4] = {(unsigned char)v, (unsigned char)(v >> 8),
                          (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
  fmt_buf_append(b, out, 4);
}

void fmt_buf_f64le(fmt_buf_t *b, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  unsigned char out[8];
  for (int i = 0; i < 8; i++) out[i] = (unsigned char)(u >> (8 * i));
  fmt_buf_append(b, out, 8);
}
