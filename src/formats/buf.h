/* formats: a small growable byte buffer that answers and encodings are
 * printed into.
 *
 * Appends never fail loudly: an allocation failure sets `failed`, later
 * appends are ignored, and the caller checks `failed` once at the end (the
 * style of a sticky error flag keeps the printing code free of checks).
 * Floats are printed in the shortest form that parses back to the same
 * float32 (%.6g .. %.9g, checked by reading it back), so every number in an
 * answer or encoding round-trips exactly. */
#ifndef ANIMD_FORMATS_BUF_H
#define ANIMD_FORMATS_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fmt_buf_s {
  char *data; /* Not NUL-terminated unless fmt_buf_cstr was called. */
  size_t len;
  size_t cap;
  bool failed; /* Sticky: an allocation failed; data is incomplete. */
} fmt_buf_t;

#define FMT_BUF_INIT                                                           \
  { NULL, 0, 0, false }

void fmt_buf_init(fmt_buf_t *b);
/* Frees the memory and zeroes b. */
void fmt_buf_free(fmt_buf_t *b);
/* Empties b (len = 0, failed = false) and keeps its memory. */
void fmt_buf_reset(fmt_buf_t *b);
/* Makes room for extra more bytes; false (and failed set) on ENOMEM. */
bool fmt_buf_reserve(fmt_buf_t *b, size_t extra);
/* Hands the memory to the caller (free() it) and zeroes b. NULL when
 * failed or empty. */
char *fmt_buf_steal(fmt_buf_t *b, size_t *len);
/* NUL-terminates the data (not counted in len) and returns it, or NULL
 * when failed. */
const char *fmt_buf_cstr(fmt_buf_t *b);

void fmt_buf_append(fmt_buf_t *b, const void *data, size_t len);
void fmt_buf_puts(fmt_buf_t *b, const char *s);
void fmt_buf_putc(fmt_buf_t *b, char c);
void fmt_buf_printf(fmt_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fmt_buf_int(fmt_buf_t *b, int64_t v);
void fmt_buf_uint(fmt_buf_t *b, uint64_t v);

/* The shortest decimal (of %.6g .. %.9g) that strtod then a cast to float
 * reads back as exactly f ("0.1", "1",
 * "-2.5e-07"). NaN and infinities (never produced for valid assets) are
 * printed as null, keeping the JSON valid. */
void fmt_buf_float(fmt_buf_t *b, float f);
/* Writes the float into out (at least FMT_FLOAT_MAX bytes), returns its
 * length. */
#define FMT_FLOAT_MAX 24
size_t fmt_float_str(char *out, float f);
/* v[0],v[1],...,v[n-1] as fmt_float_str prints them, comma-separated (no
 * spaces, no NUL), into out, which has room for n * (FMT_FLOAT_MAX + 1)
 * bytes; returns the length (0 for n = 0). Eight floats at a time where
 * the CPU has AVX-512 (the same text, byte for byte). */
size_t fmt_float_list(char *out, const float *v, size_t n);
/* Appends fmt_float_list's text of v[0..n) to b. */
void fmt_buf_float_list(fmt_buf_t *b, const float *v, size_t n);
/* The same text found with snprintf and strtod only (slow; the reference
 * for tests and the fallback for extreme exponents). */
size_t fmt_float_str_printf(char *out, float f);
/* "[a,b,c]" of n floats. */
void fmt_buf_float_array(fmt_buf_t *b, const float *v, size_t n);
/* A JSON string: quoted, with ", \ and control characters escaped (\n,
 * \t, ... or \u00XX). Bytes >= 0x80 are copied as they are (names are
 * UTF-8 checked by the decoder); NULL prints as null. */
void fmt_buf_json_string(fmt_buf_t *b, const char *s);
/* s as XML text or an attribute value's text (not quoted): &, <, >, " and '
 * as entities, control characters XML 1.0 cannot carry (all below 0x20
 * but tab, newline and return) as U+FFFD's character reference. NULL
 * prints nothing. */
void fmt_buf_xml_text(fmt_buf_t *b, const char *s);

/* Little-endian float32 values (the binary answer layouts). */
void fmt_buf_f32le(fmt_buf_t *b, const float *v, size_t n);
void fmt_buf_u32le(fmt_buf_t *b, uint32_t v);
void fmt_buf_f64le(fmt_buf_t *b, double v);

#endif
