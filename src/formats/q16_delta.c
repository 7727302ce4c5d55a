/* formats: the q16 delta encoder (q16_delta.h). Per plane: the residuals
 * of every vertex (one loop per prediction), then in place each less its
 * parent's, zig-zagged, then group by group the Rice parameter chosen
 * among a few near the mean and the values written through a 64-bit bit
 * accumulator. */
#include "formats/q16_delta.h"

#include <string.h>

#include "formats/q16.h"

size_t fmt_q16_delta_bound(uint32_t vertices, bool normals) {
  size_t planes = (normals ? 5 : 3) + 1; /* The parents of a key frame. */
  size_t groups = ((size_t)vertices + FMT_DELTA_GROUP - 1) / FMT_DELTA_GROUP;
  /* A group costs at most 5 bits and k + 1 <= Z_BITS + 1 bits a value. */
  size_t bits =
      planes * (groups * 5 + (size_t)vertices * (FMT_DELTA_Z_BITS + 1));
  return (FMT_DELTA_HEAD_BYTES + (bits + 7) / 8 + 3) & ~(size_t)3;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t width(uint32_t v) {
  uint32_t w = 0;
  while (v != 0) {
    w++;
    v >>= 1;
  }
  return w;
}

/* A bit stream written least significant bit first. */
typedef struct bits_s {
  uint8_t *o;
  uint64_t acc;
  unsigned have;
} bits_t;

/* Appends the n (<= 32) low bits of v; whole 32-bit words go out. */
static void put_bits(bits_t *w, uint32_t v, unsigned n) {
  if (n == 0) return;
  w->acc |= (uint64_t)(v & (uint32_t)((1ull << n) - 1)) << w->have;
  w->have += n;
  if (w->have >= 32) {
    put_u32(w->o, (uint32_t)w->acc);
    w->o += 4;
    w->acc >>= 32;
    w->have -= 32;
  }
}

/* Appends z Rice-coded with parameter k: q = z >> k ones, a zero, then
 * the k low bits of z; one append when they fit 32 bits (the usual case,
 * inline), else the ones 32 at a time. */
static void put_rice_long(bits_t *w, uint32_t z, unsigned k) {
  uint32_t q = z >> k;
  while (q >= 32) {
    put_bits(w, 0xffffffffu, 32);
    q -= 32;
  }
  put_bits(w, (1u << q) - 1u, q + 1);
  put_bits(w, z, k);
}

static inline void put_rice(bits_t *w, uint32_t z, unsigned k) {
  uint32_t q = z >> k;
  unsigned n = q + 1 + k;
  if (n > 32) {
    put_rice_long(w, z, k);
    return;
  }
  uint64_t v = ((1ull << q) - 1) | (uint64_t)(z & ((1u << k) - 1u)) << (q + 1);
  w->acc |= v << w->have;
  w->have += n;
  if (w->have >= 32) {
    put_u32(w->o, (uint32_t)w->acc);
    w->o += 4;
    w->acc >>= 32;
    w->have -= 32;
  }
}

/* Writes one group of n values: the k of fewest bits among those near
 * the mean and the width of the largest (whose quotients are all 0, so
 * a group never takes more than fmt_q16_delta_bound allows). */
static void put_group(bits_t *w, const uint32_t *z, uint32_t n) {
  uint64_t sum = 0;
  uint32_t all = 0;
  for (uint32_t j = 0; j < n; j++) {
    sum += z[j];
    all |= z[j];
  }
  unsigned kw = width(all), best = kw;
  uint64_t best_bits = (uint64_t)n * (kw + 1);
  unsigned mean = width((uint32_t)(sum / n));
  for (unsigned k = mean > 2 ? mean - 2 : 0; k <= mean + 1 && k < kw; k++) {
    uint64_t bits = (uint64_t)n * (k + 1);
    for (uint32_t j = 0; j < n; j++) bits += z[j] >> k;
    if (bits < best_bits) {
      best_bits = bits;
      best = k;
    }
  }
  put_bits(w, best, 5);
  for (uint32_t j = 0; j < n; j++) put_rice(w, z[j], best);
}

/* Vertex k's parent distance: d[k], or 1 (0 for vertex 0) without d. */
static uint32_t parent_distance(const uint32_t *d, uint32_t k) {
  if (d != NULL) return d[k];
  return k > 0 ? 1 : 0;
}

/* A q16 value: u16 (positions) or i16 (normals), little-endian. */
static inline int32_t read16(const uint8_t *p, bool sign) {
  uint32_t u = (uint32_t)(p[0] | (p[1] << 8));
  return sign ? (int32_t)(int16_t)(uint16_t)u : (int32_t)u;
}

/* The residuals of plane (0..2 positions, 3..4 normals): each value less
 * its prediction (0, a, 2a - b), into r; one loop per prediction. */
static void residuals(const uint8_t *cur, const uint8_t *a, const uint8_t *b,
                      uint32_t vertices, int plane, int32_t *r) {
  size_t off = plane < 3 ? FMT_Q16_BOX_BYTES + 2 * (size_t)plane
                         : FMT_Q16_BOX_BYTES + 6 * (size_t)vertices +
                               2 * (size_t)(plane - 3);
  size_t stride = plane < 3 ? 6 : 4;
  bool sign = plane >= 3;
  const uint8_t *pc = cur + off;
  if (a == NULL) {
    for (uint32_t k = 0; k < vertices; k++, pc += stride)
      r[k] = read16(pc, sign);
  } else if (b == NULL) {
    const uint8_t *pa = a + off;
    for (uint32_t k = 0; k < vertices; k++, pc += stride, pa += stride)
      r[k] = read16(pc, sign) - read16(pa, sign);
  } else {
    const uint8_t *pa = a + off, *pb = b + off;
    for (uint32_t k = 0; k < vertices;
         k++, pc += stride, pa += stride, pb += stride)
      r[k] = read16(pc, sign) - (2 * read16(pa, sign) - read16(pb, sign));
  }
}

/* Turns the residuals r into the coded values in place: each less its
 * parent's (d; NULL: the vertex before), zig-zagged. From the last
 * vertex back, so a parent's residual is still there when read. */
static void code_values(int32_t *r, const uint32_t *d, uint32_t vertices) {
  uint32_t *z = (uint32_t *)r;
  for (uint32_t k = vertices; k-- > 0;) {
    uint32_t dk = parent_distance(d, k);
    int32_t e = r[k] - (dk != 0 ? r[k - dk] : 0);
    z[k] = e >= 0 ? 2 * (uint32_t)e : 2 * (uint32_t)(-(int64_t)e) - 1;
  }
}

size_t fmt_q16_delta_encode(const uint8_t *cur, const uint8_t *a,
                            const uint8_t *b, const uint32_t *d,
                            uint32_t vertices, bool normals, uint32_t seq,
                            int32_t *scratch, uint8_t *out) {
  if (a == NULL) b = NULL;
  uint32_t flags = (a == NULL   ? FMT_DELTA_KEY
                    : b != NULL ? FMT_DELTA_ORDER2
                                : 0) |
                   (normals ? FMT_DELTA_NORMALS : 0);
  put_u32(out, seq);
  put_u32(out + 4, flags);
  put_u32(out + 8, vertices);
  memcpy(out + 16, cur, FMT_Q16_BOX_BYTES);
  bits_t w = {out + FMT_DELTA_HEAD_BYTES, 0, 0};
  uint32_t z[FMT_DELTA_GROUP];
  if (a == NULL)
    for (uint32_t g = 0; g < vertices; g += FMT_DELTA_GROUP) {
      uint32_t n =
          vertices - g < FMT_DELTA_GROUP ? vertices - g : FMT_DELTA_GROUP;
      for (uint32_t j = 0; j < n; j++) z[j] = parent_distance(d, g + j);
      put_group(&w, z, n);
    }
  int planes = normals ? 5 : 3;
  for (int plane = 0; plane < planes; plane++) {
    residuals(cur, a, b, vertices, plane, scratch);
    code_values(scratch, d, vertices);
    for (uint32_t g = 0; g < vertices; g += FMT_DELTA_GROUP) {
      uint32_t n =
          vertices - g < FMT_DELTA_GROUP ? vertices - g : FMT_DELTA_GROUP;
      put_group(&w, (const uint32_t *)scratch + g, n);
    }
  }
  for (; w.have > 0; w.have = w.have > 8 ? w.have - 8 : 0) {
    *w.o++ = (uint8_t)w.acc;
    w.acc >>= 8;
  }
  size_t bytes = (size_t)(w.o - (out + FMT_DELTA_HEAD_BYTES));
  put_u32(out + 12, (uint32_t)bytes);
  while ((size_t)(w.o - out) % 4 != 0) *w.o++ = 0;
  return (size_t)(w.o - out);
}
