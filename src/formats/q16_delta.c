/* formats: the q16 delta encoder (q16_delta.h). One pass per plane: the
 * residuals of a group are made, their widest sets the group's width, and
 * they are packed into a 64-bit accumulator. */
#include "formats/q16_delta.h"

#include <string.h>

#include "formats/q16.h"

size_t fmt_q16_delta_bound(uint32_t vertices, bool normals) {
  size_t planes = normals ? 5 : 3;
  size_t groups = ((size_t)vertices + FMT_DELTA_GROUP - 1) / FMT_DELTA_GROUP;
  size_t per_plane =
      groups + ((size_t)vertices * FMT_DELTA_WIDTH_MAX + 7) / 8 + groups;
  return (FMT_DELTA_HEAD_BYTES + planes * per_plane + 3) & ~(size_t)3;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The q16 value k of plane (0..2 positions, 3..4 normals) of payload p. */
static int32_t value(const uint8_t *p, uint32_t vertices, int plane,
                     uint32_t k) {
  if (plane < 3) {
    const uint8_t *q = p + FMT_Q16_BOX_BYTES + 6 * (size_t)k + 2 * plane;
    return (int32_t)(q[0] | (q[1] << 8));
  }
  const uint8_t *q = p + FMT_Q16_BOX_BYTES + 6 * (size_t)vertices +
                     4 * (size_t)k + 2 * (plane - 3);
  return (int32_t)(int16_t)(uint16_t)(q[0] | (q[1] << 8));
}

static uint32_t width(uint32_t v) {
  uint32_t w = 0;
  while (v != 0) {
    w++;
    v >>= 1;
  }
  return w;
}

size_t fmt_q16_delta_encode(const uint8_t *cur, const uint8_t *a,
                            const uint8_t *b, uint32_t vertices, bool normals,
                            uint32_t seq, uint8_t *out) {
  uint32_t flags = (a == NULL   ? FMT_DELTA_KEY
                    : b != NULL ? FMT_DELTA_ORDER2
                                : 0) |
                   (normals ? FMT_DELTA_NORMALS : 0);
  put_u32(out, seq);
  put_u32(out + 4, flags);
  put_u32(out + 8, vertices);
  memcpy(out + 16, cur, FMT_Q16_BOX_BYTES);
  uint8_t *o = out + FMT_DELTA_HEAD_BYTES;
  int planes = normals ? 5 : 3;
  for (int plane = 0; plane < planes; plane++) {
    int32_t last = 0;
    for (uint32_t g = 0; g < vertices; g += FMT_DELTA_GROUP) {
      uint32_t n =
          vertices - g < FMT_DELTA_GROUP ? vertices - g : FMT_DELTA_GROUP;
      uint32_t z[FMT_DELTA_GROUP], all = 0;
      for (uint32_t j = 0; j < n; j++) {
        uint32_t k = g + j;
        int32_t pred = 0;
        if (a != NULL) {
          pred = value(a, vertices, plane, k);
          if (b != NULL) pred = 2 * pred - value(b, vertices, plane, k);
        }
        int32_t r = value(cur, vertices, plane, k) - pred;
        int32_t e = r - last;
        last = r;
        z[j] = e >= 0 ? 2 * (uint32_t)e : 2 * (uint32_t)(-(int64_t)e) - 1;
        all |= z[j];
      }
      uint32_t w = width(all);
      *o++ = (uint8_t)w;
      uint64_t acc = 0;
      unsigned have = 0;
      for (uint32_t j = 0; j < n; j++) {
        acc |= (uint64_t)z[j] << have;
        have += w;
        while (have >= 8) {
          *o++ = (uint8_t)acc;
          acc >>= 8;
          have -= 8;
        }
      }
      if (have > 0) *o++ = (uint8_t)acc;
    }
  }
  size_t bits = (size_t)(o - (out + FMT_DELTA_HEAD_BYTES));
  put_u32(out + 12, (uint32_t)bits);
  while ((size_t)(o - out) % 4 != 0) *o++ = 0;
  return (size_t)(o - out);
}
