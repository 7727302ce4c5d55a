/* Tests for fmt_float_list (formats/buf.h): lists of floats against the
 * printf method joined with commas, the AVX-512 kernel against the
 * portable loop on the same floats, the room it may write, and the answers
 * that print through it (long arrays, gathered trs10 columns). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/base.h"
#include "formats/answer.h"
#include "formats/buf.h"
#include "formats/float_list.h"

/* The reference: each float by the printf method, but integers below 2^24
 * as integers ("%.0f") and null when not finite (buf.h), joined with
 * commas. */
static size_t reference_list(char *out, const float *v, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) out[len++] = ',';
    if (!isfinite(v[i])) {
      memcpy(out + len, "null", 4);
      len += 4;
    } else if (v[i] == floorf(v[i]) && fabsf(v[i]) < 16777216.0f) {
      len += (size_t)snprintf(out + len, FMT_FLOAT_MAX, "%.0f", (double)v[i]);
    } else {
      len += fmt_float_str_printf(out + len, v[i]);
    }
  }
  out[len] = '\0';
  return len;
}

static float from_bits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Every branch of the kernel: zeros, integers, powers of two (exact and
 * not), powers of ten and their neighbours, the range's ends, ties at 6..9
 * digits, rounding up to 10^p, the longest texts, and what it leaves to
 * fmt_float_str (tiny, huge, subnormal, non-finite). */
static const float special[] = {0.0f,
                                -0.0f,
                                1.0f,
                                -1.0f,
                                2.0f,
                                0.5f,
                                -0.25f,
                                0.0625f,
                                0.0009765625f,
                                3.0517578125e-05f,
                                6.1035156e-05f,
                                524288.0f,
                                1048576.0f,
                                0.1f,
                                -0.2f,
                                0.3f,
                                1e-4f,
                                -1e-4f,
                                9.9999997e-05f,
                                0.000100000005f,
                                999999.94f,
                                999999.5f,
                                1e6f,
                                -1e6f,
                                123456.5f,
                                12345.25f,
                                2.5f,
                                1.125f,
                                0.33333334f,
                                -0.70710677f,
                                123456.0f,
                                100000.0f,
                                99999.99f,
                                9.9999999e-5f,
                                -0.000123456789f,
                                -0.000987654321f,
                                -98765.4321f,
                                1e-7f,
                                1e-38f,
                                1.4e-45f,
                                -3.4028235e38f,
                                16777216.0f,
                                16777217.0f,
                                3.14159274f,
                                -2.71828175f,
                                1e5f,
                                1e-3f,
                                0.001f,
                                0.01f,
                                10.0f,
                                100.5f};

START_TEST(test_float_list_special_values) {
  const size_t count = sizeof special / sizeof special[0];
  float v[sizeof special / sizeof special[0] + 3];
  memcpy(v, special, sizeof special);
  v[count] = NAN;
  v[count + 1] = INFINITY;
  v[count + 2] = -INFINITY;
  const size_t total = count + 3;
  char *got = malloc(total * (FMT_FLOAT_MAX + 1));
  char *want = malloc(total * FMT_FLOAT_MAX + total);
  ck_assert_ptr_nonnull(got);
  ck_assert_ptr_nonnull(want);
  /* Every start and length, so each float is seen in every lane and
   * batches of 1 to 8. */
  for (size_t from = 0; from < total; from++) {
    for (size_t n = 1; from + n <= total && n <= 17; n++) {
      size_t want_len = reference_list(want, v + from, n);
      size_t got_len = fmt_float_list(got, v + from, n);
      ck_assert_uint_eq(got_len, want_len);
      ck_assert_msg(memcmp(got, want, want_len) == 0, "from %zu n %zu: %.*s",
                    from, n, (int)got_len, got);
    }
  }
  ck_assert_uint_eq(fmt_float_list(got, v, 0), 0);
  /* Spot values written out by hand. */
  const float hand[] = {0.0f,       -0.0f,     1.0f,  0.5f, -0.000123456789f,
                        999999.94f, 123456.0f, 1e-7f, 0.1f};
  size_t len = fmt_float_list(got, hand, 9);
  ck_assert_uint_eq(len, strlen("0,-0,1,0.5,-0.00012345679,999999.94,123456,"
                                "1e-07,0.1"));
  ck_assert_int_eq(memcmp(got,
                          "0,-0,1,0.5,-0.00012345679,999999.94,123456,"
                          "1e-07,0.1",
                          len),
                   0);
  free(got);
  free(want);
}
END_TEST

/* 2^-15 .. 2^20 (the kernel's range and a binade on each side), any
 * significand, either sign; one in 16 a zero, an integer or a power of
 * two. */
static float sweep_float(uint32_t *x) {
  *x = *x * 1664525u + 1013904223u;
  uint32_t r = *x;
  switch (r % 16) {
  case 0: return (r >> 8) % 2 ? 0.0f : -0.0f;
  case 1: return (float)((int)(r >> 12) % 2000001 - 1000000);
  case 2: return ldexpf((r >> 8) % 2 ? -1.0f : 1.0f, (int)((r >> 9) % 40) - 18);
  default:
    return from_bits((r & 0x807fffffu) |
                     ((uint32_t)(112 + (r >> 8) % 36) << 23));
  }
}

/* The SIMD list kernels, each run where the CPU has its level. */
static const struct {
  anim_simd level;
  size_t (*fn)(char *, const float *, size_t);
} kernels[] = {{ANIM_SIMD_AVX2, fmt__float_list_avx2},
               {ANIM_SIMD_AVX512, fmt__float_list_avx512}};
#define KERNELS (sizeof kernels / sizeof kernels[0])

START_TEST(test_float_list_kernel_matches_portable_loop) {
  enum { N = 200000, CHECKED_BY_PRINTF = 20000 };
  float *v = malloc(N * sizeof *v);
  char *simd = malloc((size_t)N * (FMT_FLOAT_MAX + 1));
  char *portable = malloc((size_t)N * (FMT_FLOAT_MAX + 1));
  char *want = malloc((size_t)CHECKED_BY_PRINTF * (FMT_FLOAT_MAX + 1));
  ck_assert(v && simd && portable && want);
  uint32_t x = 77u;
  for (int i = 0; i < N; i++) v[i] = sweep_float(&x);
  /* Random bit patterns too: every exponent, NaNs and infinities. */
  for (int i = 0; i < N / 8; i++) {
    x = x * 1664525u + 1013904223u;
    v[i * 8 + 3] = from_bits(x);
  }
  size_t portable_len = fmt__float_list_scalar(portable, v, N);
  size_t want_len = reference_list(want, v, CHECKED_BY_PRINTF);
  ck_assert_int_eq(memcmp(portable, want, want_len), 0);
  for (size_t k = 0; k < KERNELS; k++) {
    if (anim_simd_level() < kernels[k].level) continue;
    size_t simd_len = kernels[k].fn(simd, v, N);
    ck_assert_uint_eq(simd_len, portable_len);
    size_t at = 0;
    while (at < simd_len && simd[at] == portable[at]) at++;
    ck_assert_msg(
        at == simd_len, "kernel %zu differs at byte %zu: %.30s vs %.30s", k, at,
        simd + (at > 10 ? at - 10 : 0), portable + (at > 10 ? at - 10 : 0));
  }
  /* The dispatcher's choice prints the same. */
  ck_assert_uint_eq(fmt_float_list(simd, v, N), portable_len);
  ck_assert_int_eq(memcmp(simd, portable, portable_len), 0);
  free(v);
  free(simd);
  free(portable);
  free(want);
}
END_TEST

/* Nothing is written past n * (FMT_FLOAT_MAX + 1) bytes, even with the
 * longest texts of both paths, by the dispatcher's choice or any kernel the
 * CPU runs. */
START_TEST(test_float_list_stays_in_its_room) {
  const float longest[] = {-0.000123456789f, -1.17549435e-38f, -3.40282347e+38f,
                           -0.000987654321f};
  for (size_t n = 1; n <= 24; n++) {
    float v[24];
    for (size_t i = 0; i < n; i++) v[i] = longest[i % 4];
    size_t room = n * (FMT_FLOAT_MAX + 1);
    char *out = malloc(room + 64);
    ck_assert_ptr_nonnull(out);
    for (size_t k = 0; k <= KERNELS; k++) {
      if (k < KERNELS && anim_simd_level() < kernels[k].level) continue;
      memset(out, '#', room + 64);
      size_t len =
          k < KERNELS ? kernels[k].fn(out, v, n) : fmt_float_list(out, v, n);
      ck_assert_uint_le(len, room);
      for (size_t i = room; i < room + 64; i++) ck_assert_int_eq(out[i], '#');
    }
    free(out);
  }
}
END_TEST

/* fmt_buf_float_array over several reservations (512 floats each). */
START_TEST(test_float_array_across_chunks) {
  enum { N = 1300 };
  float v[N];
  uint32_t x = 5u;
  for (int i = 0; i < N; i++) v[i] = sweep_float(&x);
  char *want = malloc(2 + (size_t)N * (FMT_FLOAT_MAX + 1));
  ck_assert_ptr_nonnull(want);
  want[0] = '[';
  size_t len = 1 + reference_list(want + 1, v, N);
  memcpy(want + len, "]", 2);
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_float_array(&b, v, N);
  ck_assert(!b.failed);
  ck_assert_str_eq(fmt_buf_cstr(&b), want);
  fmt_buf_free(&b);
  free(want);
}
END_TEST

/* A local pose of 300 joints: its trs10 columns are gathered in runs
 * (480 floats at most) and still print as whole arrays in joint order. */
START_TEST(test_pose_local_json_long_columns) {
  enum { J = 300 };
  float *trs = malloc(J * 10 * sizeof *trs);
  ck_assert_ptr_nonnull(trs);
  uint32_t x = 9u;
  for (int i = 0; i < J * 10; i++) trs[i] = sweep_float(&x);
  fmt_pose_answer_t a = {.skeleton = "s",
                         .clip = "c",
                         .t = 0.5f,
                         .frame = -1,
                         .joint_count = J,
                         .space = FMT_SPACE_LOCAL,
                         .data = trs};
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_answer_pose_json(&b, &a), 0);
  const char *text = fmt_buf_cstr(&b);
  ck_assert_ptr_nonnull(text);
  static const struct {
    const char *key;
    int offset, width;
  } columns[] = {{"\"translation\":[", 0, 3},
                 {"\"rotation\":[", 3, 4},
                 {"\"scale\":[", 7, 3}};
  char *want = malloc((size_t)J * 4 * (FMT_FLOAT_MAX + 1));
  float column[J * 4];
  ck_assert_ptr_nonnull(want);
  for (int c = 0; c < 3; c++) {
    for (int j = 0; j < J; j++)
      memcpy(column + j * columns[c].width, trs + j * 10 + columns[c].offset,
             (size_t)columns[c].width * sizeof(float));
    size_t len = reference_list(want, column, (size_t)J * columns[c].width);
    const char *at = strstr(text, columns[c].key);
    ck_assert_ptr_nonnull(at);
    at += strlen(columns[c].key);
    ck_assert_int_eq(strncmp(at, want, len), 0);
    ck_assert_int_eq(at[len], ']');
  }
  fmt_buf_free(&b);
  free(want);
  free(trs);
}
END_TEST

Suite *float_list_suite(void) {
  Suite *s = suite_create("float_list");
  TCase *tc = tcase_create("float_list");
  tcase_set_timeout(tc, 60); /* printf for about 40k floats. */
  tcase_add_test(tc, test_float_list_special_values);
  tcase_add_test(tc, test_float_list_kernel_matches_portable_loop);
  tcase_add_test(tc, test_float_list_stays_in_its_room);
  tcase_add_test(tc, test_float_array_across_chunks);
  tcase_add_test(tc, test_pose_local_json_long_columns);
  suite_add_tcase(s, tc);
  return s;
}
