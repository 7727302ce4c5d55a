/* formats: the q16 vertex encoding (q16.h).
 *
 * Quantization runs in double so the bounds of q16.h hold for any float
 * input: a vertex at max gives 65535 exactly, one at min gives 0. Rounding
 * is an add and a truncation, not a libm call: a 10,000-vertex frame is
 * 50,000 of them. */
#include "formats/q16.h"

#include <math.h>
#include <string.h>

size_t fmt_q16_size(uint32_t vertices, bool normals) {
  size_t n = FMT_Q16_BOX_BYTES + (size_t)vertices * (normals ? 10 : 6);
  return (n + 3) & ~(size_t)3;
}

static void put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put_f32(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  p[0] = (uint8_t)u;
  p[1] = (uint8_t)(u >> 8);
  p[2] = (uint8_t)(u >> 16);
  p[3] = (uint8_t)(u >> 24);
}

/* round(clamp(x, 0, hi)) for a position's scaled offset: + 0.5 and a
 * truncation (no libm call: this runs 30,000 times a frame). NaN gives 0. */
static uint16_t quantize_unsigned(double x, double hi) {
  if (!(x >= 0)) return 0;
  if (x > hi) x = hi;
  return (uint16_t)(x + 0.5);
}

/* round(clamp(x, -1, 1) * 32767), half away from zero. */
static int16_t quantize_signed(double x) {
  if (!(x >= -1)) x = -1; /* NaN too. */
  if (x > 1) x = 1;
  x *= 32767;
  return (int16_t)(x >= 0 ? (int)(x + 0.5) : -(int)(-x + 0.5));
}

/* A normal's octahedral coordinates in [-1, 1]^2. */
static void octahedral(const float *n, double *u, double *v) {
  double x = n[0], y = n[1], z = n[2];
  double l1 = fabs(x) + fabs(y) + fabs(z);
  if (!(l1 > 0)) {
    *u = *v = 0;
    return;
  }
  double r = 1 / l1;
  x *= r;
  y *= r;
  if (z < 0) {
    double fx = (1 - fabs(y)) * (x >= 0 ? 1 : -1);
    double fy = (1 - fabs(x)) * (y >= 0 ? 1 : -1);
    x = fx;
    y = fy;
  }
  *u = x;
  *v = y;
}

void fmt_q16_encode(const float *positions, const float *normals,
                    uint32_t vertices, uint8_t *out) {
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  if (vertices > 0) {
    memcpy(lo, positions, sizeof lo);
    memcpy(hi, positions, sizeof hi);
  }
  for (uint32_t i = 1; i < vertices; i++) {
    const float *p = positions + 3 * (size_t)i;
    for (int a = 0; a < 3; a++) {
      if (p[a] < lo[a]) lo[a] = p[a];
      if (p[a] > hi[a]) hi[a] = p[a];
    }
  }
  for (int a = 0; a < 3; a++) {
    put_f32(out + 4 * a, lo[a]);
    put_f32(out + 12 + 4 * a, hi[a]);
  }
  double scale[3], base[3];
  for (int a = 0; a < 3; a++) {
    double range = (double)hi[a] - (double)lo[a];
    scale[a] = range > 0 ? 65535.0 / range : 0;
    base[a] = lo[a];
  }
  uint8_t *q = out + FMT_Q16_BOX_BYTES;
  for (uint32_t i = 0; i < vertices; i++, q += 6) {
    const float *p = positions + 3 * (size_t)i;
    for (int a = 0; a < 3; a++)
      put_u16(q + 2 * a,
              quantize_unsigned(((double)p[a] - base[a]) * scale[a], 65535));
  }
  if (normals != NULL) {
    for (uint32_t i = 0; i < vertices; i++, q += 4) {
      double u, v;
      octahedral(normals + 3 * (size_t)i, &u, &v);
      put_u16(q, (uint16_t)quantize_signed(u));
      put_u16(q + 2, (uint16_t)quantize_signed(v));
    }
  }
  uint8_t *end = out + fmt_q16_size(vertices, normals != NULL);
  memset(q, 0, (size_t)(end - q));
}

int fmt_q16_append(fmt_buf_t *b, const float *positions, const float *normals,
                   uint32_t vertices) {
  size_t n = fmt_q16_size(vertices, normals != NULL);
  if (!fmt_buf_reserve(b, n)) return -1;
  fmt_q16_encode(positions, normals, vertices, (uint8_t *)b->data + b->len);
  b->len += n;
  return 0;
}
