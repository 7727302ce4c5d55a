/* animd_frame.h: a decoder of animd's binary stream frames for thin
 * clients: the 32-byte stream header, q16 payloads (positions and
 * octahedral normals) and delta frames (docs/api.md, "Compact skinned
 * frames: q16" and "Delta frames").
 *
 * One header, C99, no allocation, no dependencies beyond the C library's
 * headers: every buffer is the caller's. Every function checks its input's
 * length and values and answers an ANIMD_FRAME_E* code rather than read
 * out of bounds, so frames from the network may be given as they come.
 *
 *   animd_frame_header h;
 *   if (animd_frame_header_read(msg, len, &h) == 0 && h.layout == 7) {
 *     const uint8_t *q16;
 *     int r = animd_delta_decode(&state, msg + 32, 4 * (size_t)h.count, &q16);
 *     if (r == ANIMD_FRAME_EGAP) ask_for_a_key_frame();
 *     else if (r == 0)
 *       animd_q16_decode(q16, animd_q16_bytes(h.elements, 1), h.elements,
 *                        1, positions, normals);
 *   }
 */
#ifndef ANIMD_FRAME_H
#define ANIMD_FRAME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ANIMD_FRAME_OK 0
#define ANIMD_FRAME_EFORMAT (-1) /* Not a frame of this layout. */
#define ANIMD_FRAME_EGAP (-2)    /* A delta whose previous frames are not
                                    held: ask for a key frame. */
#define ANIMD_FRAME_ESIZE (-3)   /* Vertices other than the state's. */

#define ANIMD_FRAME_HEADER_BYTES 32
#define ANIMD_LAYOUT_POSITIONS_Q16 4
#define ANIMD_LAYOUT_POSITIONS_NORMALS_Q16 5
#define ANIMD_LAYOUT_POSITIONS_DELTA 6
#define ANIMD_LAYOUT_POSITIONS_NORMALS_DELTA 7
#define ANIMD_LAYOUT_ANSWER 0x80000000u /* Request fields' floats follow. */

#define ANIMD_DELTA_KEY 1u
#define ANIMD_DELTA_ORDER2 2u
#define ANIMD_DELTA_NORMALS 4u
#define ANIMD_DELTA_HEAD_BYTES 40
#define ANIMD_DELTA_GROUP 16
#define ANIMD_DELTA_WIDTH_MAX 19

typedef struct animd_frame_header {
  uint32_t index;  /* Stream index (0xffffffff: a pose answer). */
  uint32_t layout; /* 0..7, without ANIMD_LAYOUT_ANSWER. */
  int answer;      /* ANIMD_LAYOUT_ANSWER was set. */
  uint64_t frame;
  double t;
  uint32_t count;    /* Floats, or 32-bit words of a q16/delta payload. */
  uint32_t elements; /* Joints or vertices. */
} animd_frame_header;

static inline uint32_t animd__u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static inline float animd__f32(const uint8_t *p) {
  uint32_t u = animd__u32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Reads the 32-byte header of a binary stream message of len bytes;
 * checks that its payload (count words) fits in the message. */
static inline int animd_frame_header_read(const uint8_t *msg, size_t len,
                                          animd_frame_header *h) {
  if (msg == NULL || len < ANIMD_FRAME_HEADER_BYTES) return ANIMD_FRAME_EFORMAT;
  uint32_t layout = animd__u32(msg + 4);
  uint64_t tb = (uint64_t)animd__u32(msg + 16) |
                (uint64_t)animd__u32(msg + 20) << 32;
  h->index = animd__u32(msg);
  h->answer = (layout & ANIMD_LAYOUT_ANSWER) != 0;
  h->layout = layout & ~ANIMD_LAYOUT_ANSWER;
  h->frame = (uint64_t)animd__u32(msg + 8) | (uint64_t)animd__u32(msg + 12)
                                                 << 32;
  memcpy(&h->t, &tb, 8);
  h->count = animd__u32(msg + 24);
  h->elements = animd__u32(msg + 28);
  if (h->layout > ANIMD_LAYOUT_POSITIONS_NORMALS_DELTA)
    return ANIMD_FRAME_EFORMAT;
  if ((uint64_t)h->count * 4 > (uint64_t)(len - ANIMD_FRAME_HEADER_BYTES))
    return ANIMD_FRAME_EFORMAT;
  return ANIMD_FRAME_OK;
}

/* Bytes of a q16 payload of vertices vertices (0 when it would not fit a
 * size_t). */
static inline size_t animd_q16_bytes(uint32_t vertices, int normals) {
  uint64_t n = 24 + (uint64_t)vertices * (normals ? 10u : 6u);
  n = (n + 3) & ~(uint64_t)3;
  return n > (uint64_t)(size_t)-1 ? 0 : (size_t)n;
}

/* The vertices of a q16 payload of words 32-bit words (a block of several
 * meshes gives only its words): floor((4 words - 24) / 6), or / 10 with
 * normals; the padding is under one vertex. 0 for fewer than 24 bytes. */
static inline uint32_t animd_q16_vertices(uint32_t words, int normals) {
  uint64_t b = 4 * (uint64_t)words;
  return b < 24 ? 0 : (uint32_t)((b - 24) / (normals ? 10u : 6u));
}

/* A unit normal from its two octahedral i16 components. */
static inline void animd_octahedral_decode(int16_t qu, int16_t qv,
                                           float *n) {
  float x = (float)qu / 32767.0f, y = (float)qv / 32767.0f;
  float z = 1.0f - fabsf(x) - fabsf(y);
  float t = z < 0 ? -z : 0.0f;
  x -= x >= 0 ? t : -t;
  y -= y >= 0 ? t : -t;
  float l = sqrtf(x * x + y * y + z * z);
  n[0] = x / l;
  n[1] = y / l;
  n[2] = z / l;
}

/* Decodes a q16 payload of len bytes holding vertices vertices into
 * positions (3 floats each) and, with normals, normals (3 floats each;
 * may be NULL to skip them). */
static inline int animd_q16_decode(const uint8_t *p, size_t len,
                                   uint32_t vertices, int normals,
                                   float *positions, float *nrm) {
  size_t need = animd_q16_bytes(vertices, normals);
  if (p == NULL || need == 0 || len < need) return ANIMD_FRAME_EFORMAT;
  float lo[3], span[3];
  for (int a = 0; a < 3; a++) {
    lo[a] = animd__f32(p + 4 * a);
    span[a] = animd__f32(p + 12 + 4 * a) - lo[a];
  }
  const uint8_t *q = p + 24;
  for (uint32_t i = 0; i < vertices; i++)
    for (int a = 0; a < 3; a++, q += 2)
      positions[3 * (size_t)i + a] =
          lo[a] + (float)(q[0] | q[1] << 8) / 65535.0f * span[a];
  if (normals && nrm != NULL)
    for (uint32_t i = 0; i < vertices; i++, q += 4)
      animd_octahedral_decode((int16_t)(uint16_t)(q[0] | q[1] << 8),
                              (int16_t)(uint16_t)(q[2] | q[3] << 8),
                              nrm + 3 * (size_t)i);
  return ANIMD_FRAME_OK;
}

/* The state of one delta stream: the last two q16 payloads decoded, in a
 * caller's buffer of 3 * animd_q16_bytes(vertices, normals) bytes. */
typedef struct animd_delta {
  uint8_t *buf;
  size_t frame_bytes;
  uint32_t vertices;
  int normals;
  unsigned have;     /* Frames held (0, 1, 2). */
  unsigned last;     /* Slot of the last frame decoded. */
  unsigned before;   /* Slot of the one before it. */
  uint32_t next_seq; /* The seq a delta must carry. */
} animd_delta;

/* Prepares d over buf (3 * animd_q16_bytes(vertices, normals) bytes). */
static inline void animd_delta_init(animd_delta *d, uint8_t *buf,
                                    uint32_t vertices, int normals) {
  d->buf = buf;
  d->frame_bytes = animd_q16_bytes(vertices, normals);
  d->vertices = vertices;
  d->normals = normals != 0;
  d->have = 0;
  d->last = 0;
  d->before = 1;
  d->next_seq = 0;
}

/* Decodes the delta payload p (len bytes: the message after its header)
 * into the q16 payload of the same frame, *q16 (animd_q16_bytes bytes, in
 * d's buffer, valid until the second next call). A delta whose previous
 * frame was not decoded (a gap in seq, or none held) answers
 * ANIMD_FRAME_EGAP and changes nothing: ask the daemon for a key frame
 * (docs/api.md) and keep decoding. */
static inline int animd_delta_decode(animd_delta *d, const uint8_t *p,
                                     size_t len, const uint8_t **q16) {
  if (p == NULL || len < ANIMD_DELTA_HEAD_BYTES || d->frame_bytes == 0)
    return ANIMD_FRAME_EFORMAT;
  uint32_t seq = animd__u32(p), flags = animd__u32(p + 4);
  uint32_t vertices = animd__u32(p + 8), bits = animd__u32(p + 12);
  if ((flags & ~7u) != 0 || (flags & 3u) == 3u ||
      bits > len - ANIMD_DELTA_HEAD_BYTES)
    return ANIMD_FRAME_EFORMAT;
  if (vertices != d->vertices ||
      ((flags & ANIMD_DELTA_NORMALS) != 0) != (d->normals != 0))
    return ANIMD_FRAME_ESIZE;
  const uint8_t *a = NULL, *b = NULL;
  if (!(flags & ANIMD_DELTA_KEY)) {
    unsigned need = flags & ANIMD_DELTA_ORDER2 ? 2 : 1;
    if (d->have < need || seq != d->next_seq) return ANIMD_FRAME_EGAP;
    a = d->buf + d->last * d->frame_bytes;
    if (need == 2) b = d->buf + d->before * d->frame_bytes;
  }
  unsigned slot = 3 - d->last - d->before;
  uint8_t *out = d->buf + slot * d->frame_bytes;
  memcpy(out, p + 16, 24);
  memset(out + 24, 0, d->frame_bytes - 24);
  const uint8_t *in = p + ANIMD_DELTA_HEAD_BYTES, *end = in + bits;
  int planes = d->normals ? 5 : 3;
  for (int plane = 0; plane < planes; plane++) {
    /* The plane's first value and the stride between its values. */
    size_t off = plane < 3 ? 24 + 2 * (size_t)plane
                           : 24 + 6 * (size_t)vertices + 2 * (size_t)(plane - 3);
    size_t stride = plane < 3 ? 6 : 4;
    int64_t lo = plane < 3 ? 0 : -32767, hi = plane < 3 ? 65535 : 32767;
    const uint8_t *pa = a != NULL ? a + off : NULL;
    const uint8_t *pb = b != NULL ? b + off : NULL;
    uint8_t *po = out + off;
    int64_t r = 0;
    for (uint32_t g = 0; g < vertices; g += ANIMD_DELTA_GROUP) {
      uint32_t n = vertices - g < ANIMD_DELTA_GROUP ? vertices - g
                                                    : ANIMD_DELTA_GROUP;
      if (in >= end) return ANIMD_FRAME_EFORMAT;
      unsigned w = *in++;
      if (w > ANIMD_DELTA_WIDTH_MAX ||
          (size_t)(end - in) < ((size_t)n * w + 7) / 8)
        return ANIMD_FRAME_EFORMAT;
      uint64_t acc = 0;
      unsigned have = 0;
      uint32_t mask = (1u << w) - 1u;
      for (uint32_t j = 0; j < n; j++) {
        while (have < w) {
          acc |= (uint64_t)*in++ << have;
          have += 8;
        }
        uint32_t z = (uint32_t)acc & mask;
        acc >>= w;
        have -= w;
        r += (z & 1u) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
        int64_t pred = 0;
        if (pa != NULL) {
          int32_t va = plane < 3 ? (int32_t)(pa[0] | pa[1] << 8)
                                 : (int32_t)(int16_t)(uint16_t)(pa[0] |
                                                                pa[1] << 8);
          pred = va;
          if (pb != NULL) {
            int32_t vb = plane < 3 ? (int32_t)(pb[0] | pb[1] << 8)
                                   : (int32_t)(int16_t)(uint16_t)(pb[0] |
                                                                  pb[1] << 8);
            pred = 2 * pred - vb;
            pb += stride;
          }
          pa += stride;
        }
        int64_t q = pred + r;
        if (q < lo || q > hi) return ANIMD_FRAME_EFORMAT;
        uint16_t u = (uint16_t)(q & 0xffff);
        po[0] = (uint8_t)u;
        po[1] = (uint8_t)(u >> 8);
        po += stride;
      }
    }
  }
  if (in != end) return ANIMD_FRAME_EFORMAT;
  d->before = d->last;
  d->last = slot;
  d->have = d->have < 2 ? d->have + 1 : 2;
  if (flags & ANIMD_DELTA_KEY) d->have = 1;
  d->next_seq = seq + 1;
  *q16 = out;
  return ANIMD_FRAME_OK;
}

#endif
