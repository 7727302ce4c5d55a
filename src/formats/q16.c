/* formats: the q16 vertex encoding (q16.h).
 *
 * Quantization runs in double so the bounds of q16.h hold for any float
 * input: a vertex at max gives 65535 exactly, one at min gives 0. */
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

/* round(clamp(x, lo, hi)), half away from zero. */
static long quantize(double x, double lo, double hi) {
  if (!(x >= lo)) x = lo; /* NaN too. */
  if (x > hi) x = hi;
  return lround(x);
}

/* A normal's octahedral coordinates in [-1, 1]^2. */
static void octahedral(const float *n, double *u, double *v) {
  double x = n[0], y = n[1], z = n[2];
  double l1 = fabs(x) + fabs(y) + fabs(z);
  if (!(l1 > 0)) {
    *u = *v = 0;
    return;
  }
  x /= l1;
  y /= l1;
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
  for (uint32_t i = 0; i < vertices; i++) {
    for (int a = 0; a < 3; a++) {
      float p = positions[3 * (size_t)i + (size_t)a];
      if (i == 0 || p < lo[a]) lo[a] = p;
      if (i == 0 || p > hi[a]) hi[a] = p;
    }
  }
  for (int a = 0; a < 3; a++) {
    put_f32(out + 4 * a, lo[a]);
    put_f32(out + 12 + 4 * a, hi[a]);
  }
  double scale[3];
  for (int a = 0; a < 3; a++) {
    double range = (double)hi[a] - (double)lo[a];
    scale[a] = range > 0 ? 65535.0 / range : 0;
  }
  uint8_t *q = out + FMT_Q16_BOX_BYTES;
  for (size_t k = 0; k < 3 * (size_t)vertices; k++) {
    int a = (int)(k % 3);
    double d = ((double)positions[k] - lo[a]) * scale[a];
    put_u16(q + 2 * k, (uint16_t)quantize(d, 0, 65535));
  }
  q += 6 * (size_t)vertices;
  if (normals != NULL) {
    for (uint32_t i = 0; i < vertices; i++) {
      double u, v;
      octahedral(normals + 3 * (size_t)i, &u, &v);
      put_u16(q, (uint16_t)(int16_t)quantize(u * 32767, -32767, 32767));
      put_u16(q + 2, (uint16_t)(int16_t)quantize(v * 32767, -32767, 32767));
      q += 4;
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
